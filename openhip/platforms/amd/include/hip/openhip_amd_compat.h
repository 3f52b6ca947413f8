// openhip (AMD): what kernels written for HIP 6.x / CUDA need and older ROCm lacks.
//
// The warp-synchronous functions (__shfl*_sync, __ballot/__any/__all_sync, __activemask,
// __syncwarp, __reduce_*_sync, __match_*_sync) are openhip's on every ROCm release, built on the
// wavefront-wide forms: ROCm < 6.2 has none, and ROCm >= 6.2 hides them behind
// HIP_ENABLE_WARP_SYNC_BUILTINS and rejects 32-bit masks, which CUDA code passes. Here the mask
// may be 32 or 64 bits: the shuffles ignore it (the whole wavefront takes part, as on AMD
// hardware); the votes, reductions and matches count only the lanes it names.
#pragma once
#ifndef OPENHIP_AMD_COMPAT_H
#define OPENHIP_AMD_COMPAT_H

// hipThreadIdx_x and friends left HIP's headers in ROCm 5; HIP code still uses them.
#ifndef hipThreadIdx_x
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
#endif

// __managed__ variables (hiprtc 5.x does not define the macro; clang has the attribute).
#ifndef __managed__
#define __managed__ __attribute__((managed))
#endif

// atomicMin/atomicMax on long long (CUDA has them; ROCm 5.2 does not). Templates with a
// defaulted parameter: where HIP declares the plain function, overload resolution prefers it.
template <typename OpenhipT = long long>
__device__ __forceinline__ long long atomicMin(long long* address, long long val) {
    return __hip_atomic_fetch_min(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename OpenhipT = long long>
__device__ __forceinline__ long long atomicMax(long long* address, long long val) {
    return __hip_atomic_fetch_max(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// __trap() (CUDA's spelling; ROCm 5.2 has only __builtin_trap).
template <typename OpenhipT = void>
__device__ __forceinline__ void __trap() { __builtin_trap(); }

template <typename OpenhipT = float>
__device__ __forceinline__ float __fmaf_ieee_rn(float a, float b, float c) {
    return __builtin_fmaf(a, b, c);
}


// Shuffles of __half (HIP < 6.2 has them for 32/64-bit types only).
#define OPENHIP_HALF_SHFL(name, T2)                                                            \
    template <typename OpenhipT = void>                                                        \
    __device__ __forceinline__ __half name(__half v, T2 arg, int width = warpSize) {           \
        return __ushort_as_half(static_cast<unsigned short>(                                   \
            name(static_cast<int>(__half_as_ushort(v)), arg, width)));                         \
    }
OPENHIP_HALF_SHFL(__shfl, int)
OPENHIP_HALF_SHFL(__shfl_up, unsigned int)
OPENHIP_HALF_SHFL(__shfl_down, unsigned int)
OPENHIP_HALF_SHFL(__shfl_xor, int)
#undef OPENHIP_HALF_SHFL

__device__ __forceinline__ unsigned long long __openhip_activemask() { return __ballot(1); }

__device__ __forceinline__ void __openhip_syncwarp() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
template <typename MaskT>
__device__ __forceinline__ void __openhip_syncwarp(MaskT) { __openhip_syncwarp(); }

template <typename MaskT, typename T>
__device__ __forceinline__ T __openhip_shfl_sync(MaskT, T var, int src_lane, int width = warpSize) {
    return __shfl(var, src_lane, width);
}
template <typename MaskT, typename T>
__device__ __forceinline__ T __openhip_shfl_up_sync(MaskT, T var, unsigned int delta,
                                            int width = warpSize) {
    return __shfl_up(var, delta, width);
}
template <typename MaskT, typename T>
__device__ __forceinline__ T __openhip_shfl_down_sync(MaskT, T var, unsigned int delta,
                                              int width = warpSize) {
    return __shfl_down(var, delta, width);
}
template <typename MaskT, typename T>
__device__ __forceinline__ T __openhip_shfl_xor_sync(MaskT, T var, int lane_mask, int width = warpSize) {
    return __shfl_xor(var, lane_mask, width);
}
template <typename MaskT>
__device__ __forceinline__ unsigned long long __openhip_ballot_sync(MaskT mask, int predicate) {
    return __ballot(predicate) & static_cast<unsigned long long>(mask);
}
template <typename MaskT>
__device__ __forceinline__ int __openhip_any_sync(MaskT mask, int predicate) {
    return __openhip_ballot_sync(mask, predicate) != 0;
}
template <typename MaskT>
__device__ __forceinline__ int __openhip_all_sync(MaskT mask, int predicate) {
    return __openhip_ballot_sync(mask, predicate) == __openhip_ballot_sync(mask, 1);
}

// __reduce_*_sync: every lane reads every lane's value (the wavefront's shuffles) and combines
// those named in the mask.
#define OPENHIP_WARP_REDUCE(NAME, T, INIT, OP)                                                  \
    template <typename MaskT>                                                                  \
    __device__ __forceinline__ T NAME(MaskT mask, T value) {                                   \
        const unsigned long long m = static_cast<unsigned long long>(mask);                    \
        T acc = INIT;                                                                          \
        for (int lane = 0; lane < warpSize; ++lane) {                                          \
            const T x = __shfl(value, lane);                                                   \
            if ((m >> lane) & 1ull) acc = OP;                                                  \
        }                                                                                      \
        return acc;                                                                            \
    }
OPENHIP_WARP_REDUCE(__openhip_reduce_add_sync, unsigned int, 0u, acc + x)
OPENHIP_WARP_REDUCE(__openhip_reduce_add_sync, int, 0, acc + x)
OPENHIP_WARP_REDUCE(__openhip_reduce_min_sync, unsigned int, 0xffffffffu, (x < acc ? x : acc))
OPENHIP_WARP_REDUCE(__openhip_reduce_min_sync, int, 2147483647, (x < acc ? x : acc))
OPENHIP_WARP_REDUCE(__openhip_reduce_max_sync, unsigned int, 0u, (x > acc ? x : acc))
OPENHIP_WARP_REDUCE(__openhip_reduce_max_sync, int, (-2147483647 - 1), (x > acc ? x : acc))
OPENHIP_WARP_REDUCE(__openhip_reduce_and_sync, unsigned int, 0xffffffffu, acc & x)
OPENHIP_WARP_REDUCE(__openhip_reduce_or_sync, unsigned int, 0u, acc | x)
OPENHIP_WARP_REDUCE(__openhip_reduce_xor_sync, unsigned int, 0u, acc ^ x)
#undef OPENHIP_WARP_REDUCE

// __openhip_match_any_sync: the lanes of the mask holding the same value; __openhip_match_all_sync: the mask
// when they all do (and *pred = 1), else 0.
template <typename MaskT, typename T>
__device__ __forceinline__ unsigned long long __openhip_match_any_sync(MaskT mask, T value) {
    const unsigned long long m = static_cast<unsigned long long>(mask);
    unsigned long long same = 0;
    for (int lane = 0; lane < warpSize; ++lane) {
        const T x = __shfl(value, lane);
        if (((m >> lane) & 1ull) && x == value) same |= 1ull << lane;
    }
    return same;
}
template <typename MaskT, typename T>
__device__ __forceinline__ unsigned long long __openhip_match_all_sync(MaskT mask, T value, int* pred) {
    const unsigned long long m = static_cast<unsigned long long>(mask) & __openhip_activemask();
    const bool all = __openhip_match_any_sync(m, value) == m;
    *pred = all;
    return all ? m : 0ull;
}


// CUDA device functions HIP lacks but the CPU platform has (hipify no longer calls them
// unsupported): integer min/max by name, cache-hint loads/stores (plain accesses on AMD) and
// glibc's long-double classifiers. Templates with a defaulted parameter, as above: a user's or a
// ROCm release's plain function of the same signature wins overload resolution.
template <typename OpenhipT = void>
__device__ __forceinline__ unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
template <typename OpenhipT = void>
__device__ __forceinline__ unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
template <typename OpenhipT = void>
__device__ __forceinline__ long long llmin(long long a, long long b) { return a < b ? a : b; }
template <typename OpenhipT = void>
__device__ __forceinline__ long long llmax(long long a, long long b) { return a > b ? a : b; }
template <typename OpenhipT = void>
__device__ __forceinline__ unsigned long long ullmin(unsigned long long a, unsigned long long b) {
    return a < b ? a : b;
}
template <typename OpenhipT = void>
__device__ __forceinline__ unsigned long long ullmax(unsigned long long a, unsigned long long b) {
    return a > b ? a : b;
}
template <typename T, typename OpenhipT = void>
__device__ __forceinline__ T __ldlu(const T* p) { return *p; }
template <typename T, typename OpenhipT = void>
__device__ __forceinline__ T __ldcv(const T* p) { return *p; }
template <typename T, typename OpenhipT = void>
__device__ __forceinline__ void __stwb(T* p, T v) { *p = v; }
template <typename T, typename OpenhipT = void>
__device__ __forceinline__ void __stcg(T* p, T v) { *p = v; }
template <typename T, typename OpenhipT = void>
__device__ __forceinline__ void __stcs(T* p, T v) { *p = v; }
template <typename T, typename OpenhipT = void>
__device__ __forceinline__ void __stwt(T* p, T v) { *p = v; }
template <typename OpenhipT = void>
__device__ __forceinline__ int __isinfl(long double x) { return __builtin_isinf_sign(x); }
template <typename OpenhipT = void>
__device__ __forceinline__ int __isnanl(long double x) { return __builtin_isnan(x); }
template <typename OpenhipT = void>
__device__ __forceinline__ int __finitel(long double x) { return __builtin_isfinite(x); }
template <typename OpenhipT = void>
__device__ __forceinline__ int __signbitl(long double x) { return __builtin_signbit(x); }

// Spelled as macros over uniquely named functions, so they never collide with a ROCm release
// that already declares some of them (6.0/6.1 differ in which).
#define __activemask(...) __openhip_activemask(__VA_ARGS__)
#define __syncwarp(...) __openhip_syncwarp(__VA_ARGS__)
#define __shfl_sync(...) __openhip_shfl_sync(__VA_ARGS__)
#define __shfl_up_sync(...) __openhip_shfl_up_sync(__VA_ARGS__)
#define __shfl_down_sync(...) __openhip_shfl_down_sync(__VA_ARGS__)
#define __shfl_xor_sync(...) __openhip_shfl_xor_sync(__VA_ARGS__)
#define __ballot_sync(...) __openhip_ballot_sync(__VA_ARGS__)
#define __any_sync(...) __openhip_any_sync(__VA_ARGS__)
#define __all_sync(...) __openhip_all_sync(__VA_ARGS__)
#define __reduce_add_sync(...) __openhip_reduce_add_sync(__VA_ARGS__)
#define __reduce_min_sync(...) __openhip_reduce_min_sync(__VA_ARGS__)
#define __reduce_max_sync(...) __openhip_reduce_max_sync(__VA_ARGS__)
#define __reduce_and_sync(...) __openhip_reduce_and_sync(__VA_ARGS__)
#define __reduce_or_sync(...) __openhip_reduce_or_sync(__VA_ARGS__)
#define __reduce_xor_sync(...) __openhip_reduce_xor_sync(__VA_ARGS__)
#define __match_any_sync(...) __openhip_match_any_sync(__VA_ARGS__)
#define __match_all_sync(...) __openhip_match_all_sync(__VA_ARGS__)

#endif
