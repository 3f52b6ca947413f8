// openhip (AMD): hip_fp8.h with the OCP formats. ROCm >= 6.2 has it; older releases (none, or
// FNUZ-only in 6.0/6.1) get openhip's portable implementation (openhip_fp8_impl.h).
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#if defined(HIP_VERSION_MAJOR) && (HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR) >= 602 && \
    defined(__has_include_next)
#if __has_include_next(<hip/hip_fp8.h>)
#include_next <hip/hip_fp8.h>
#define OPENHIP_HAVE_SYSTEM_HIP_FP8 1
#endif
#endif
#ifndef OPENHIP_HAVE_SYSTEM_HIP_FP8
#include <hip/openhip_fp8_impl.h>
#endif
