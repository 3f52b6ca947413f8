// openhip (AMD): HIP 6.x's hip_bf16.h (__hip_bfloat16). ROCm >= 6 has it; for ROCm 5.x openhip
// supplies the type and its API from openhip_f16_impl.inc (shared with the NVIDIA platform,
// bit-exact with the CPU platform).
#pragma once
#include <hip/hip_runtime.h>
#if defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR >= 6 && defined(__has_include_next)
#if __has_include_next(<hip/hip_bf16.h>)
#include_next <hip/hip_bf16.h>
#define OPENHIP_HAVE_SYSTEM_HIP_BF16 1
#endif
#endif
#if !defined(OPENHIP_HAVE_SYSTEM_HIP_BF16) && !defined(OPENHIP_AMD_BF16_DEFINED)
#define OPENHIP_AMD_BF16_DEFINED 1
#include <hip/openhip_fpconv.h>
#define OPENHIP_F16_SHFL 1
#define OHF_T __hip_bfloat16
#define OHF_T2 __hip_bfloat162
#define OHF_RAW __hip_bfloat16_raw
#define OHF_RAW2 __hip_bfloat162_raw
#define OHF_FMT OPENHIP_FMT_BF16
#define OHF_N(a, b) a##bfloat16##b
#define OHF_DUP_NAME __bfloat162bfloat162
#include <hip/openhip_f16_impl.inc>
#undef OHF_T
#undef OHF_T2
#undef OHF_RAW
#undef OHF_RAW2
#undef OHF_FMT
#undef OHF_N
#undef OHF_DUP_NAME
#undef OPENHIP_F16_SHFL
typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat162 __nv_bfloat162;
#define HIPRT_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define HIPRT_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#endif
