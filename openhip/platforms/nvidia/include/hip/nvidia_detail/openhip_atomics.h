// openhip (NVIDIA): the atomics HIP defines that CUDA lacks. The rest map 1:1.
//
// HIP has atomicMin/atomicMax on float and double, atomicSub on float and double, and the
// integer atomics on unsigned long (64-bit here); CUDA has none of them.
#pragma once
#include <hip/hip_common.h>

__device__ __forceinline__ float atomicMax(float* address, float val) {
    unsigned int* p = reinterpret_cast<unsigned int*>(address);
    unsigned int old = *p, assumed;
    while (!(__uint_as_float(old) >= val)) {  // also stops on NaN in memory
        assumed = old;
        old = atomicCAS(p, assumed, __float_as_uint(val));
        if (old == assumed) break;
    }
    return __uint_as_float(old);
}
__device__ __forceinline__ float atomicMin(float* address, float val) {
    unsigned int* p = reinterpret_cast<unsigned int*>(address);
    unsigned int old = *p, assumed;
    while (!(__uint_as_float(old) <= val)) {
        assumed = old;
        old = atomicCAS(p, assumed, __float_as_uint(val));
        if (old == assumed) break;
    }
    return __uint_as_float(old);
}
__device__ __forceinline__ double atomicMax(double* address, double val) {
    unsigned long long* p = reinterpret_cast<unsigned long long*>(address);
    unsigned long long old = *p, assumed;
    while (!(__longlong_as_double(static_cast<long long>(old)) >= val)) {
        assumed = old;
        old = atomicCAS(p, assumed, static_cast<unsigned long long>(__double_as_longlong(val)));
        if (old == assumed) break;
    }
    return __longlong_as_double(static_cast<long long>(old));
}
__device__ __forceinline__ double atomicMin(double* address, double val) {
    unsigned long long* p = reinterpret_cast<unsigned long long*>(address);
    unsigned long long old = *p, assumed;
    while (!(__longlong_as_double(static_cast<long long>(old)) <= val)) {
        assumed = old;
        old = atomicCAS(p, assumed, static_cast<unsigned long long>(__double_as_longlong(val)));
        if (old == assumed) break;
    }
    return __longlong_as_double(static_cast<long long>(old));
}
__device__ __forceinline__ float atomicSub(float* address, float val) {
    return atomicAdd(address, -val);
}
__device__ __forceinline__ double atomicSub(double* address, double val) {
    return atomicAdd(address, -val);
}
__device__ __forceinline__ unsigned long long atomicSub(unsigned long long* address,
                                                        unsigned long long val) {
    return atomicAdd(address, 0ull - val);
}

#define OPENHIP_UL_ATOMIC(name)                                                                \
    __device__ __forceinline__ unsigned long name(unsigned long* address, unsigned long val) { \
        return static_cast<unsigned long>(name(reinterpret_cast<unsigned long long*>(address), \
                                               static_cast<unsigned long long>(val)));         \
    }
OPENHIP_UL_ATOMIC(atomicAdd)
OPENHIP_UL_ATOMIC(atomicSub)
OPENHIP_UL_ATOMIC(atomicExch)
OPENHIP_UL_ATOMIC(atomicMin)
OPENHIP_UL_ATOMIC(atomicMax)
OPENHIP_UL_ATOMIC(atomicAnd)
OPENHIP_UL_ATOMIC(atomicOr)
OPENHIP_UL_ATOMIC(atomicXor)
#undef OPENHIP_UL_ATOMIC
__device__ __forceinline__ unsigned long atomicCAS(unsigned long* address, unsigned long compare,
                                                   unsigned long val) {
    return static_cast<unsigned long>(atomicCAS(reinterpret_cast<unsigned long long*>(address),
                                                static_cast<unsigned long long>(compare),
                                                static_cast<unsigned long long>(val)));
}
__device__ __forceinline__ double atomicExch(double* address, double val) {
    return __longlong_as_double(static_cast<long long>(
        atomicExch(reinterpret_cast<unsigned long long*>(address),
                   static_cast<unsigned long long>(__double_as_longlong(val)))));
}

// HIP's unsafe/safe float atomics (hardware float atomics vs CAS loops on AMD): plain atomicAdd.
__device__ __forceinline__ float unsafeAtomicAdd(float* address, float val) {
    return atomicAdd(address, val);
}
__device__ __forceinline__ double unsafeAtomicAdd(double* address, double val) {
    return atomicAdd(address, val);
}
__device__ __forceinline__ float safeAtomicAdd(float* address, float val) {
    return atomicAdd(address, val);
}
__device__ __forceinline__ double safeAtomicAdd(double* address, double val) {
    return atomicAdd(address, val);
}
