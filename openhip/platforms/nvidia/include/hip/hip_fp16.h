// openhip (NVIDIA): HIP's __half and __half2 for NVRTC.
//
// NVRTC from PyPI ships no cuda_fp16.h, so openhip defines the types itself: 16-bit storage,
// IEEE round-to-nearest-even conversions through PTX cvt, and arithmetic in float rounded back
// to half (exact for + - * / and sqrt: float has more than 2*11+2 significand bits, so the double
// rounding is innocuous). A __half converts implicitly to float, so mixed expressions such as
// `h * 2.0f` are float expressions, as they are with AMD's _Float16-based __half.
#pragma once
#ifndef OPENHIP_NVIDIA_HIP_FP16_H
#define OPENHIP_NVIDIA_HIP_FP16_H
#include <hip/hip_common.h>

#define __CUDA_FP16_DECL__ static __device__ __forceinline__

__device__ __forceinline__ unsigned short __openhip_f2h_rn(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ unsigned short __openhip_f2h_rz(float f) {
    unsigned short h;
    asm("cvt.rz.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ unsigned short __openhip_f2h_rd(float f) {
    unsigned short h;
    asm("cvt.rm.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ unsigned short __openhip_f2h_ru(float f) {
    unsigned short h;
    asm("cvt.rp.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float __openhip_h2f(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

struct __half_raw {
    unsigned short x;
};
struct __half2_raw {
    unsigned short x;
    unsigned short y;
};

struct __align__(2) __half {
    unsigned short __x;

    __half() = default;
    __device__ __half(const __half_raw& r) : __x(r.x) {}
    __device__ __half(float f) : __x(__openhip_f2h_rn(f)) {}
    __device__ __half(double d) : __x(__openhip_f2h_rn(static_cast<float>(d))) {}
    __device__ __half(int i) : __x(__openhip_f2h_rn(static_cast<float>(i))) {}
    __device__ __half(unsigned int i) : __x(__openhip_f2h_rn(static_cast<float>(i))) {}
    __device__ __half(long long i) : __x(__openhip_f2h_rn(static_cast<float>(i))) {}
    __device__ __half(unsigned long long i) : __x(__openhip_f2h_rn(static_cast<float>(i))) {}
    __device__ __half(short i) : __x(__openhip_f2h_rn(static_cast<float>(i))) {}
    __device__ __half(unsigned short i) : __x(__openhip_f2h_rn(static_cast<float>(i))) {}
    __device__ operator float() const { return __openhip_h2f(__x); }
    __device__ operator __half_raw() const { return __half_raw{__x}; }
    __device__ __half& operator=(const __half_raw& r) { __x = r.x; return *this; }
    __device__ __half& operator=(float f) { __x = __openhip_f2h_rn(f); return *this; }
    __device__ __half& operator+=(float v) { return *this = float(*this) + v; }
    __device__ __half& operator-=(float v) { return *this = float(*this) - v; }
    __device__ __half& operator*=(float v) { return *this = float(*this) * v; }
    __device__ __half& operator/=(float v) { return *this = float(*this) / v; }
    __device__ __half& operator++() { return *this = float(*this) + 1.0f; }
    __device__ __half& operator--() { return *this = float(*this) - 1.0f; }
    __device__ __half operator++(int) { __half t = *this; ++*this; return t; }
    __device__ __half operator--(int) { __half t = *this; --*this; return t; }
};

struct __align__(4) __half2 {
    __half x;
    __half y;

    __half2() = default;
    __device__ __half2(const __half& a, const __half& b) : x(a), y(b) {}
    __device__ __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    __device__ operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }
};

typedef __half half;
typedef __half2 half2;
typedef __half __fp16_openhip;

// ---- conversions ---------------------------------------------------------------------------
__CUDA_FP16_DECL__ __half __openhip_mkh(unsigned short bits) { return __half(__half_raw{bits}); }
__CUDA_FP16_DECL__ __half __float2half(float f) { return __openhip_mkh(__openhip_f2h_rn(f)); }
__CUDA_FP16_DECL__ __half __float2half_rn(float f) { return __openhip_mkh(__openhip_f2h_rn(f)); }
__CUDA_FP16_DECL__ __half __float2half_rz(float f) { return __openhip_mkh(__openhip_f2h_rz(f)); }
__CUDA_FP16_DECL__ __half __float2half_rd(float f) { return __openhip_mkh(__openhip_f2h_rd(f)); }
__CUDA_FP16_DECL__ __half __float2half_ru(float f) { return __openhip_mkh(__openhip_f2h_ru(f)); }
__CUDA_FP16_DECL__ float __half2float(__half h) { return __openhip_h2f(h.__x); }
__CUDA_FP16_DECL__ __half __double2half(double d) { return __float2half(static_cast<float>(d)); }
__CUDA_FP16_DECL__ __half __int2half_rn(int i) { return __float2half(static_cast<float>(i)); }
__CUDA_FP16_DECL__ __half __uint2half_rn(unsigned int i) { return __float2half(static_cast<float>(i)); }
__CUDA_FP16_DECL__ __half __short2half_rn(short i) { return __float2half(static_cast<float>(i)); }
__CUDA_FP16_DECL__ __half __ushort2half_rn(unsigned short i) { return __float2half(static_cast<float>(i)); }
__CUDA_FP16_DECL__ __half __ll2half_rn(long long i) { return __float2half(static_cast<float>(i)); }
__CUDA_FP16_DECL__ __half __ull2half_rn(unsigned long long i) { return __float2half(static_cast<float>(i)); }
__CUDA_FP16_DECL__ int __half2int_rz(__half h) { return static_cast<int>(__half2float(h)); }
__CUDA_FP16_DECL__ int __half2int_rn(__half h) { return __float2int_rn(__half2float(h)); }
__CUDA_FP16_DECL__ int __half2int_rd(__half h) { return __float2int_rd(__half2float(h)); }
__CUDA_FP16_DECL__ int __half2int_ru(__half h) { return __float2int_ru(__half2float(h)); }
__CUDA_FP16_DECL__ unsigned int __half2uint_rz(__half h) { return static_cast<unsigned int>(__half2float(h)); }
__CUDA_FP16_DECL__ unsigned int __half2uint_rn(__half h) { return __float2uint_rn(__half2float(h)); }
__CUDA_FP16_DECL__ short __half2short_rz(__half h) { return static_cast<short>(__half2float(h)); }
__CUDA_FP16_DECL__ unsigned short __half2ushort_rz(__half h) { return static_cast<unsigned short>(__half2float(h)); }
__CUDA_FP16_DECL__ long long __half2ll_rz(__half h) { return static_cast<long long>(__half2float(h)); }
__CUDA_FP16_DECL__ unsigned long long __half2ull_rz(__half h) { return static_cast<unsigned long long>(__half2float(h)); }
__CUDA_FP16_DECL__ short __half_as_short(__half h) { return static_cast<short>(h.__x); }
__CUDA_FP16_DECL__ unsigned short __half_as_ushort(__half h) { return h.__x; }
__CUDA_FP16_DECL__ __half __short_as_half(short i) { return __openhip_mkh(static_cast<unsigned short>(i)); }
__CUDA_FP16_DECL__ __half __ushort_as_half(unsigned short i) { return __openhip_mkh(i); }

// ---- arithmetic and comparisons ------------------------------------------------------------
__CUDA_FP16_DECL__ __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
__CUDA_FP16_DECL__ __half __hsub(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
__CUDA_FP16_DECL__ __half __hmul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
__CUDA_FP16_DECL__ __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
__CUDA_FP16_DECL__ __half __hadd_sat(__half a, __half b) { return __float2half(__saturatef(__half2float(a) + __half2float(b))); }
__CUDA_FP16_DECL__ __half __hsub_sat(__half a, __half b) { return __float2half(__saturatef(__half2float(a) - __half2float(b))); }
__CUDA_FP16_DECL__ __half __hmul_sat(__half a, __half b) { return __float2half(__saturatef(__half2float(a) * __half2float(b))); }
__CUDA_FP16_DECL__ __half __hfma(__half a, __half b, __half c) {
    unsigned short r;
    asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.__x), "h"(b.__x), "h"(c.__x));
    return __openhip_mkh(r);
}
__CUDA_FP16_DECL__ __half __hneg(__half a) { return __openhip_mkh(a.__x ^ 0x8000u); }
__CUDA_FP16_DECL__ __half __habs(__half a) { return __openhip_mkh(a.__x & 0x7fffu); }
__CUDA_FP16_DECL__ bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
__CUDA_FP16_DECL__ int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
__CUDA_FP16_DECL__ bool __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
__CUDA_FP16_DECL__ bool __hne(__half a, __half b) { return __half2float(a) != __half2float(b); }
__CUDA_FP16_DECL__ bool __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
__CUDA_FP16_DECL__ bool __hle(__half a, __half b) { return __half2float(a) <= __half2float(b); }
__CUDA_FP16_DECL__ bool __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
__CUDA_FP16_DECL__ bool __hge(__half a, __half b) { return __half2float(a) >= __half2float(b); }
__CUDA_FP16_DECL__ __half __hmax(__half a, __half b) { return __float2half(fmaxf(__half2float(a), __half2float(b))); }
__CUDA_FP16_DECL__ __half __hmin(__half a, __half b) { return __float2half(fminf(__half2float(a), __half2float(b))); }
__CUDA_FP16_DECL__ __half hsqrt(__half a) { return __float2half(sqrtf(__half2float(a))); }
__CUDA_FP16_DECL__ __half hrsqrt(__half a) { return __float2half(rsqrtf(__half2float(a))); }
__CUDA_FP16_DECL__ __half hrcp(__half a) { return __float2half(1.0f / __half2float(a)); }
__CUDA_FP16_DECL__ __half hexp(__half a) { return __float2half(expf(__half2float(a))); }
__CUDA_FP16_DECL__ __half hexp2(__half a) { return __float2half(exp2f(__half2float(a))); }
__CUDA_FP16_DECL__ __half hlog(__half a) { return __float2half(logf(__half2float(a))); }
__CUDA_FP16_DECL__ __half hlog2(__half a) { return __float2half(log2f(__half2float(a))); }
__CUDA_FP16_DECL__ __half hsin(__half a) { return __float2half(sinf(__half2float(a))); }
__CUDA_FP16_DECL__ __half hcos(__half a) { return __float2half(cosf(__half2float(a))); }
__CUDA_FP16_DECL__ __half hfloor(__half a) { return __float2half(floorf(__half2float(a))); }
__CUDA_FP16_DECL__ __half hceil(__half a) { return __float2half(ceilf(__half2float(a))); }
__CUDA_FP16_DECL__ __half htrunc(__half a) { return __float2half(truncf(__half2float(a))); }
__CUDA_FP16_DECL__ __half hrint(__half a) { return __float2half(rintf(__half2float(a))); }

// ---- __half2 -------------------------------------------------------------------------------
__CUDA_FP16_DECL__ __half2 make_half2(__half a, __half b) { return __half2(a, b); }
__CUDA_FP16_DECL__ __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__CUDA_FP16_DECL__ __half2 __half2half2(__half a) { return __half2(a, a); }
__CUDA_FP16_DECL__ __half2 __float2half2_rn(float f) { return __half2half2(__float2half(f)); }
__CUDA_FP16_DECL__ __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half(a), __float2half(b)); }
__CUDA_FP16_DECL__ __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
__CUDA_FP16_DECL__ float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
__CUDA_FP16_DECL__ __half __low2half(__half2 h) { return h.x; }
__CUDA_FP16_DECL__ __half __high2half(__half2 h) { return h.y; }
__CUDA_FP16_DECL__ float __low2float(__half2 h) { return __half2float(h.x); }
__CUDA_FP16_DECL__ float __high2float(__half2 h) { return __half2float(h.y); }
__CUDA_FP16_DECL__ __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__CUDA_FP16_DECL__ __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__CUDA_FP16_DECL__ __half2 __hadd2(__half2 a, __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
__CUDA_FP16_DECL__ __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
__CUDA_FP16_DECL__ __half2 __hmul2(__half2 a, __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
__CUDA_FP16_DECL__ __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
__CUDA_FP16_DECL__ __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
__CUDA_FP16_DECL__ __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
__CUDA_FP16_DECL__ __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }

// ---- warp shuffles of halves ---------------------------------------------------------------
#define OPENHIP_HALF_SHFL(name, T2)                                                            \
    __device__ __forceinline__ __half name(unsigned int mask, __half v, T2 arg,                \
                                           int width = warpSize) {                             \
        return __ushort_as_half(static_cast<unsigned short>(                                   \
            name(mask, static_cast<unsigned int>(v.__x), arg, width)));                        \
    }                                                                                          \
    __device__ __forceinline__ __half2 name(unsigned int mask, __half2 v, T2 arg,              \
                                            int width = warpSize) {                            \
        unsigned int bits = static_cast<unsigned int>(v.x.__x) |                               \
                            (static_cast<unsigned int>(v.y.__x) << 16);                        \
        bits = name(mask, bits, arg, width);                                                   \
        return __half2(__ushort_as_half(static_cast<unsigned short>(bits & 0xffffu)),          \
                       __ushort_as_half(static_cast<unsigned short>(bits >> 16)));             \
    }
OPENHIP_HALF_SHFL(__shfl_sync, int)
OPENHIP_HALF_SHFL(__shfl_up_sync, unsigned int)
OPENHIP_HALF_SHFL(__shfl_down_sync, unsigned int)
OPENHIP_HALF_SHFL(__shfl_xor_sync, int)
#undef OPENHIP_HALF_SHFL

#endif
