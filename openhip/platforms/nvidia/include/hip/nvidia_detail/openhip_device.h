// openhip (NVIDIA): HIP's index macros, kernel qualifiers and small intrinsics over CUDA.
#pragma once
#include <hip/hip_common.h>

#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(X) X
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#ifndef __host__
#define __host__ __location__(host)
#endif

// Lane id within the warp and HIP's clock functions.
__device__ __forceinline__ unsigned int __lane_id() {
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
__device__ __forceinline__ unsigned long long wall_clock64() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ long long __clock64() { return clock64(); }
__device__ __forceinline__ long long __clock() { return clock64(); }

// HIP defines __ffs/__popc/__clz on unsigned as well as signed operands.
__device__ __forceinline__ int __ffs(unsigned int x) { return __ffs(static_cast<int>(x)); }
__device__ __forceinline__ int __ffsll(unsigned long long x) {
    return __ffsll(static_cast<long long>(x));
}
__device__ __forceinline__ int __clz(unsigned int x) { return __clz(static_cast<int>(x)); }
__device__ __forceinline__ int __clzll(unsigned long long x) {
    return __clzll(static_cast<long long>(x));
}
__device__ __forceinline__ int __popc(int x) { return __popc(static_cast<unsigned int>(x)); }
__device__ __forceinline__ int __popcll(long long x) {
    return __popcll(static_cast<unsigned long long>(x));
}

// HIP kernels may call abort(); on NVIDIA it traps like __trap() (the launch fails).
__device__ __forceinline__ void abort() { __trap(); }

