// openhip: the pre-6.0 hip_bfloat16 class (explicit from float, implicit to float), for
// compilers whose HIP headers lack it or cannot be included (NVRTC, hiprtc from ROCm 5.x).
// Kept byte-identical in openhip/platforms/{nvidia,amd}/include/hip.
#pragma once
#ifndef OPENHIP_HIP_BFLOAT16_CLASS_H
#define OPENHIP_HIP_BFLOAT16_CLASS_H
#include <hip/openhip_fpconv.h>

struct hip_bfloat16 {
    unsigned short data;

    hip_bfloat16() = default;
    explicit __host__ __device__ hip_bfloat16(float f)
        : data((unsigned short)openhip_fp::float_to_small(f, OPENHIP_FMT_BF16, openhip_fp::rn)) {}
    __host__ __device__ operator float() const {
        return openhip_fp::small_to_float(data, OPENHIP_FMT_BF16);
    }
    __host__ __device__ hip_bfloat16& operator=(float f) { return *this = hip_bfloat16(f); }
    static __host__ __device__ hip_bfloat16 round_to_bfloat16(float f) { return hip_bfloat16(f); }
};

#endif
