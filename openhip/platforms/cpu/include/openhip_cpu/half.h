// openhip CPU platform: binary16 (__half, __half2, half, half2) with HIP's API; see lang_f16.inc.
#pragma once

#include "lang_fpconv.h"
#include "intrinsics.h"
#include "atomics.h"
#include "../hip/hip_vector_types.h"

#define OHF_T __half
#define OHF_T2 __half2
#define OHF_RAW __half_raw
#define OHF_RAW2 __half2_raw
#define OHF_FMT openhip::lang::kHalf
#define OHF_N(a, b) a##half##b
#define OHF_DUP_NAME __half2half2
#include "lang_f16.inc"
#undef OHF_T
#undef OHF_T2
#undef OHF_RAW
#undef OHF_RAW2
#undef OHF_FMT
#undef OHF_N
#undef OHF_DUP_NAME

typedef __half half;
typedef __half2 half2;

// HIP/CUDA helpers specific to binary16.
#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)
