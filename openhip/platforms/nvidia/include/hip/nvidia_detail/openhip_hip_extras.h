// openhip (NVIDIA): HIP device functions that CUDA lacks: bit-field extract/insert,
// __lastbit_u32_u64, __fmaf_ieee_rn, atomicAddNoRet, and clang's __hip_atomic_* builtins (memory
// order and scope are accepted; every operation is a device-scope atomic, seq_cst by fences).
#pragma once
#include <hip/hip_common.h>

__device__ __forceinline__ unsigned int __bitextract_u32(unsigned int src0, unsigned int src1,
                                                         unsigned int src2) {
    const unsigned off = src1 & 31u, w = src2 & 31u;
    return w == 0 ? 0u : (src0 << (32u - off - w)) >> (32u - w);
}
__device__ __forceinline__ unsigned long long __bitextract_u64(unsigned long long src0,
                                                               unsigned int src1,
                                                               unsigned int src2) {
    const unsigned off = src1 & 63u, w = src2 & 63u;
    return w == 0 ? 0ull : (src0 << (64u - off - w)) >> (64u - w);
}
__device__ __forceinline__ unsigned int __bitinsert_u32(unsigned int src0, unsigned int src1,
                                                        unsigned int src2, unsigned int src3) {
    const unsigned off = src2 & 31u, w = src3 & 31u;
    const unsigned mask = ((1u << w) - 1u) << off;
    return (src0 & ~mask) | ((src1 << off) & mask);
}
__device__ __forceinline__ unsigned long long __bitinsert_u64(unsigned long long src0,
                                                              unsigned long long src1,
                                                              unsigned int src2, unsigned int src3) {
    const unsigned off = src2 & 63u, w = src3 & 63u;
    const unsigned long long mask = ((1ull << w) - 1ull) << off;
    return (src0 & ~mask) | ((src1 << off) & mask);
}
__device__ __forceinline__ unsigned int __lastbit_u32_u64(unsigned long long x) {
    return x == 0 ? ~0u : (unsigned)(__ffsll((long long)x) - 1);
}
__device__ __forceinline__ float __fmaf_ieee_rn(float a, float b, float c) {
    return __fmaf_rn(a, b, c);
}
__device__ __forceinline__ void atomicAddNoRet(float* address, float val) {
    (void)atomicAdd(address, val);
}

#ifndef __HIP_MEMORY_SCOPE_SINGLETHREAD
#define __HIP_MEMORY_SCOPE_SINGLETHREAD 1
#define __HIP_MEMORY_SCOPE_WAVEFRONT 2
#define __HIP_MEMORY_SCOPE_WORKGROUP 3
#define __HIP_MEMORY_SCOPE_AGENT 4
#define __HIP_MEMORY_SCOPE_SYSTEM 5
#endif
#ifndef __ATOMIC_RELAXED
#define __ATOMIC_RELAXED 0
#define __ATOMIC_CONSUME 1
#define __ATOMIC_ACQUIRE 2
#define __ATOMIC_RELEASE 3
#define __ATOMIC_ACQ_REL 4
#define __ATOMIC_SEQ_CST 5
#endif

// A 4- or 8-byte value as the unsigned word atomicCAS works on, and back.
template <typename T>
struct __openhip_word {
    typedef typename __openhip_word<char[sizeof(T)]>::type type;
};
template <>
struct __openhip_word<char[4]> {
    typedef unsigned int type;
};
template <>
struct __openhip_word<char[8]> {
    typedef unsigned long long type;
};
template <typename T>
__device__ __forceinline__ typename __openhip_word<T>::type __openhip_to_word(T v) {
    union { T t; typename __openhip_word<T>::type w; } u;
    u.t = v;
    return u.w;
}
template <typename T>
__device__ __forceinline__ T __openhip_from_word(typename __openhip_word<T>::type w) {
    union { T t; typename __openhip_word<T>::type w; } u;
    u.w = w;
    return u.t;
}
template <typename T, typename F>
__device__ __forceinline__ T __openhip_atomic_update(T* p, F f) {
    typedef typename __openhip_word<T>::type W;
    W* wp = reinterpret_cast<W*>(p);
    W old = *reinterpret_cast<volatile W*>(wp), assumed;
    do {
        assumed = old;
        old = atomicCAS(wp, assumed, __openhip_to_word(f(__openhip_from_word<T>(assumed))));
    } while (old != assumed);
    return __openhip_from_word<T>(old);
}

template <typename T>
__device__ __forceinline__ T __hip_atomic_load(T* p, int, int) {
    __threadfence();
    const T v = *reinterpret_cast<volatile T*>(p);
    __threadfence();
    return v;
}
template <typename T, typename V>
__device__ __forceinline__ void __hip_atomic_store(T* p, V v, int, int) {
    __threadfence();
    *reinterpret_cast<volatile T*>(p) = (T)v;
    __threadfence();
}
template <typename T, typename V>
__device__ __forceinline__ T __hip_atomic_exchange(T* p, V v, int, int) {
    const T val = (T)v;
    return __openhip_atomic_update(p, [val](T) { return val; });
}
template <typename T, typename V>
__device__ __forceinline__ bool __hip_atomic_compare_exchange_strong(T* p, T* expected, V desired,
                                                                     int, int, int) {
    typedef typename __openhip_word<T>::type W;
    const W want = __openhip_to_word(*expected);
    const W old = atomicCAS(reinterpret_cast<W*>(p), want, __openhip_to_word((T)desired));
    if (old == want) return true;
    *expected = __openhip_from_word<T>(old);
    return false;
}
template <typename T, typename V>
__device__ __forceinline__ bool __hip_atomic_compare_exchange_weak(T* p, T* expected, V desired,
                                                                   int a, int b, int c) {
    return __hip_atomic_compare_exchange_strong(p, expected, desired, a, b, c);
}
#define OPENHIP_HIP_ATOMIC_RMW(NAME, EXPR)                                                     \
    template <typename T, typename V>                                                          \
    __device__ __forceinline__ T NAME(T* p, V v, int, int) {                                   \
        const T val = (T)v;                                                                    \
        return __openhip_atomic_update(p, [val](T o) { return (T)(EXPR); });                   \
    }
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_add, o + val)
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_sub, o - val)
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_and, o & val)
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_or, o | val)
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_xor, o ^ val)
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_min, val < o ? val : o)
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_max, val > o ? val : o)
#undef OPENHIP_HIP_ATOMIC_RMW
