// openhip (NVIDIA): HIP's __half / __half2 for NVRTC (which ships no cuda_fp16.h).
//
// The type and its API come from openhip_f16_impl.inc, shared with the AMD platform and matching
// the CPU platform bit for bit (see that file). A __half converts implicitly to float, and the
// operators take two halves, as in CUDA and HIP: `h * 2.0f` is ambiguous there too, so write
// `__half2float(h) * 2.0f` or `h * __float2half(2.0f)`.
#pragma once
#ifndef OPENHIP_NVIDIA_HIP_FP16_H
#define OPENHIP_NVIDIA_HIP_FP16_H
#include <hip/hip_common.h>
#include <hip/openhip_fpconv.h>

#define OPENHIP_F16_SHFL_SYNC 1
#define OHF_T __half
#define OHF_T2 __half2
#define OHF_RAW __half_raw
#define OHF_RAW2 __half2_raw
#define OHF_FMT OPENHIP_FMT_HALF
#define OHF_N(a, b) a##half##b
#define OHF_DUP_NAME __half2half2
#include <hip/openhip_f16_impl.inc>
#undef OHF_T
#undef OHF_T2
#undef OHF_RAW
#undef OHF_RAW2
#undef OHF_FMT
#undef OHF_N
#undef OHF_DUP_NAME
#undef OPENHIP_F16_SHFL_SYNC

typedef __half half;
typedef __half2 half2;

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)

#endif
