// openhip (AMD): hiprtc from ROCm 5.x pre-includes __half already (including the system header
// again redefines it); elsewhere this is the real hip_fp16.h.
#pragma once
#include <hip/hip_runtime.h>
#if !(defined(__HIPCC_RTC__) && defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR < 6)
#if defined(__has_include_next)
#if __has_include_next(<hip/hip_fp16.h>)
#include_next <hip/hip_fp16.h>
#endif
#endif
#endif
#include <hip/openhip_amd_fp16_compat.h>
