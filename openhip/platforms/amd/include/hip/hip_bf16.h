// openhip (AMD): HIP 6.x's hip_bf16.h (__hip_bfloat16). ROCm >= 6 has it; for ROCm 5.x openhip
// supplies a portable implementation.
#pragma once
#include <hip/hip_runtime.h>
#if defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR >= 6 && defined(__has_include_next)
#if __has_include_next(<hip/hip_bf16.h>)
#include_next <hip/hip_bf16.h>
#define OPENHIP_HAVE_SYSTEM_HIP_BF16 1
#endif
#endif
#ifndef OPENHIP_HAVE_SYSTEM_HIP_BF16
#include <hip/openhip_bf16_impl.h>
#endif
