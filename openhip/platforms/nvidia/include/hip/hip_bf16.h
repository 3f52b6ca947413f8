// openhip (NVIDIA): HIP 6.x's hip_bf16.h (__hip_bfloat16 / __hip_bfloat162) for NVRTC, with
// CUDA's __nv_bfloat16 spellings. The type and its API come from openhip_f16_impl.inc (shared
// with the AMD platform, bit-exact with the CPU platform).
#pragma once
#ifndef OPENHIP_NVIDIA_HIP_BF16_H
#define OPENHIP_NVIDIA_HIP_BF16_H
#include <hip/hip_common.h>
#include <hip/openhip_fpconv.h>

#define OPENHIP_F16_SHFL_SYNC 1
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
#undef OPENHIP_F16_SHFL_SYNC

typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat162 __nv_bfloat162;
typedef __hip_bfloat16_raw __nv_bfloat16_raw;
typedef __hip_bfloat162_raw __nv_bfloat162_raw;
typedef __hip_bfloat16 nv_bfloat16;
typedef __hip_bfloat162 nv_bfloat162;

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)
#define HIPRT_INF_BF16 CUDART_INF_BF16
#define HIPRT_NAN_BF16 CUDART_NAN_BF16

#endif
