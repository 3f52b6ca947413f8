// openhip (NVIDIA): HIP's warp functions over CUDA's _sync forms.
//
// CUDA removed the non-_sync shuffles and votes for sm_70+; HIP on NVIDIA keeps them, acting on
// the lanes that are active (__activemask()). __ballot returns 64 bits as on AMD (the upper 32
// are zero with 32-wide warps). __any/__all/__ballot are macros because CUDA still declares
// (unusable) int-returning versions of those names.
#pragma once
#include <hip/hip_common.h>

template <typename T>
__device__ __forceinline__ T __shfl(T var, int src_lane, int width = warpSize) {
    return __shfl_sync(__activemask(), var, src_lane, width);
}
template <typename T>
__device__ __forceinline__ T __shfl_up(T var, unsigned int delta, int width = warpSize) {
    return __shfl_up_sync(__activemask(), var, delta, width);
}
template <typename T>
__device__ __forceinline__ T __shfl_down(T var, unsigned int delta, int width = warpSize) {
    return __shfl_down_sync(__activemask(), var, delta, width);
}
template <typename T>
__device__ __forceinline__ T __shfl_xor(T var, int lane_mask, int width = warpSize) {
    return __shfl_xor_sync(__activemask(), var, lane_mask, width);
}

__device__ __forceinline__ unsigned long long __openhip_ballot(int predicate) {
    return static_cast<unsigned long long>(__ballot_sync(__activemask(), predicate));
}
__device__ __forceinline__ int __openhip_any(int predicate) {
    return __any_sync(__activemask(), predicate);
}
__device__ __forceinline__ int __openhip_all(int predicate) {
    return __all_sync(__activemask(), predicate);
}
// Object-like, not function-like: libcu++ (cooperative groups include it) has its own
// `struct __any { __any(...); }`, which a function-like macro would turn into a call; an
// object-like one renames that struct consistently instead.
#define __ballot __openhip_ballot
#define __any __openhip_any
#define __all __openhip_all

// HIP 6.2's _sync forms take a 64-bit mask, CUDA's 32 bits: a 64-bit mask converts implicitly
// (the upper half names lanes a 32-wide warp does not have), so CUDA's forms serve both.

// The lane masks HIP defines (relative to the calling lane).
__device__ __forceinline__ unsigned long long __lanemask_lt() {
    unsigned int m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}
__device__ __forceinline__ unsigned long long __lanemask_le() {
    unsigned int m;
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(m));
    return m;
}
__device__ __forceinline__ unsigned long long __lanemask_gt() {
    unsigned int m;
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(m));
    return m;
}
__device__ __forceinline__ unsigned long long __lanemask_eq() {
    unsigned int m;
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(m));
    return m;
}

// CUDA has __reduce_*_sync from sm_80 on; below that (sm_75) they are built from shuffles: every
// lane reads every lane's value and combines those named in the mask.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define OPENHIP_WARP_REDUCE(NAME, T, INIT, OP)                                                  \
    __device__ __forceinline__ T NAME(unsigned int mask, T value) {                             \
        T acc = INIT;                                                                          \
        for (int lane = 0; lane < warpSize; ++lane) {                                          \
            const T x = __shfl_sync(mask, value, lane);                                        \
            if ((mask >> lane) & 1u) acc = OP;                                                 \
        }                                                                                      \
        return acc;                                                                            \
    }
OPENHIP_WARP_REDUCE(__reduce_add_sync, unsigned int, 0u, acc + x)
OPENHIP_WARP_REDUCE(__reduce_add_sync, int, 0, acc + x)
OPENHIP_WARP_REDUCE(__reduce_min_sync, unsigned int, 0xffffffffu, (x < acc ? x : acc))
OPENHIP_WARP_REDUCE(__reduce_min_sync, int, 2147483647, (x < acc ? x : acc))
OPENHIP_WARP_REDUCE(__reduce_max_sync, unsigned int, 0u, (x > acc ? x : acc))
OPENHIP_WARP_REDUCE(__reduce_max_sync, int, (-2147483647 - 1), (x > acc ? x : acc))
OPENHIP_WARP_REDUCE(__reduce_and_sync, unsigned int, 0xffffffffu, acc & x)
OPENHIP_WARP_REDUCE(__reduce_or_sync, unsigned int, 0u, acc | x)
OPENHIP_WARP_REDUCE(__reduce_xor_sync, unsigned int, 0u, acc ^ x)
#undef OPENHIP_WARP_REDUCE
#endif

