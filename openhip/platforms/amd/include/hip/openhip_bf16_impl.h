// openhip: a portable __hip_bfloat16 / __hip_bfloat162 (HIP 6.x hip_bf16.h API) and the older
// hip_bfloat16 class (hip_bfloat16.h), for compilers whose HIP headers lack them: NVRTC, and
// hiprtc from ROCm 5.x.
//
// This file is kept byte-identical in openhip/platforms/nvidia/include/hip and
// openhip/platforms/amd/include/hip (a test checks it).
//
// Storage is the upper 16 bits of an IEEE float; float -> bfloat16 rounds to nearest even and
// keeps NaNs quiet; arithmetic is done in float and rounded back (exact for + - * /: float has
// more than 2*8+2 significand bits). A bfloat16 converts implicitly to float, so mixed
// expressions such as `b * 2.0f` are float expressions.
#pragma once
#ifndef OPENHIP_BF16_IMPL_H
#define OPENHIP_BF16_IMPL_H

#define OPENHIP_BF16_FN static __host__ __device__ inline

union __openhip_f32_bits {
    float f;
    unsigned int u;
};

OPENHIP_BF16_FN unsigned short __openhip_f2bf_rn(float f) {
    __openhip_f32_bits b;
    b.f = f;
    unsigned int u = b.u;
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<unsigned short>(u >> 16);
}
OPENHIP_BF16_FN unsigned short __openhip_f2bf_rz(float f) {
    __openhip_f32_bits b;
    b.f = f;
    if ((b.u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((b.u >> 16) | 0x40u);
    return static_cast<unsigned short>(b.u >> 16);
}
OPENHIP_BF16_FN float __openhip_bf2f(unsigned short h) {
    __openhip_f32_bits b;
    b.u = static_cast<unsigned int>(h) << 16;
    return b.f;
}

struct __hip_bfloat16_raw {
    unsigned short x;
};
struct __hip_bfloat162_raw {
    unsigned short x;
    unsigned short y;
};

struct __attribute__((aligned(2))) __hip_bfloat16 {
    unsigned short data;

    __hip_bfloat16() = default;
    __host__ __device__ __hip_bfloat16(const __hip_bfloat16_raw& r) : data(r.x) {}
    __host__ __device__ __hip_bfloat16(float f) : data(__openhip_f2bf_rn(f)) {}
    __host__ __device__ __hip_bfloat16(double d) : data(__openhip_f2bf_rn(static_cast<float>(d))) {}
    __host__ __device__ __hip_bfloat16(int i) : data(__openhip_f2bf_rn(static_cast<float>(i))) {}
    __host__ __device__ __hip_bfloat16(unsigned int i) : data(__openhip_f2bf_rn(static_cast<float>(i))) {}
    __host__ __device__ __hip_bfloat16(long long i) : data(__openhip_f2bf_rn(static_cast<float>(i))) {}
    __host__ __device__ __hip_bfloat16(unsigned long long i) : data(__openhip_f2bf_rn(static_cast<float>(i))) {}
    __host__ __device__ __hip_bfloat16(short i) : data(__openhip_f2bf_rn(static_cast<float>(i))) {}
    __host__ __device__ __hip_bfloat16(unsigned short i) : data(__openhip_f2bf_rn(static_cast<float>(i))) {}
    __host__ __device__ operator float() const { return __openhip_bf2f(data); }
    __host__ __device__ operator __hip_bfloat16_raw() const { return __hip_bfloat16_raw{data}; }
    __host__ __device__ __hip_bfloat16& operator=(float f) { data = __openhip_f2bf_rn(f); return *this; }
    __host__ __device__ __hip_bfloat16& operator+=(float v) { return *this = float(*this) + v; }
    __host__ __device__ __hip_bfloat16& operator-=(float v) { return *this = float(*this) - v; }
    __host__ __device__ __hip_bfloat16& operator*=(float v) { return *this = float(*this) * v; }
    __host__ __device__ __hip_bfloat16& operator/=(float v) { return *this = float(*this) / v; }
};

struct __attribute__((aligned(4))) __hip_bfloat162 {
    __hip_bfloat16 x;
    __hip_bfloat16 y;

    __hip_bfloat162() = default;
    __host__ __device__ __hip_bfloat162(const __hip_bfloat16& a, const __hip_bfloat16& b) : x(a), y(b) {}
    __host__ __device__ __hip_bfloat162(const __hip_bfloat162_raw& r)
        : x(__hip_bfloat16_raw{r.x}), y(__hip_bfloat16_raw{r.y}) {}
};

OPENHIP_BF16_FN __hip_bfloat16 __openhip_mkbf(unsigned short bits) {
    return __hip_bfloat16(__hip_bfloat16_raw{bits});
}
OPENHIP_BF16_FN __hip_bfloat16 __float2bfloat16(float f) { return __openhip_mkbf(__openhip_f2bf_rn(f)); }
OPENHIP_BF16_FN __hip_bfloat16 __float2bfloat16_rn(float f) { return __openhip_mkbf(__openhip_f2bf_rn(f)); }
OPENHIP_BF16_FN __hip_bfloat16 __float2bfloat16_rz(float f) { return __openhip_mkbf(__openhip_f2bf_rz(f)); }
OPENHIP_BF16_FN float __bfloat162float(__hip_bfloat16 a) { return __openhip_bf2f(a.data); }
OPENHIP_BF16_FN __hip_bfloat16 __double2bfloat16(double d) { return __float2bfloat16(static_cast<float>(d)); }
OPENHIP_BF16_FN __hip_bfloat16 __int2bfloat16_rn(int i) { return __float2bfloat16(static_cast<float>(i)); }
OPENHIP_BF16_FN int __bfloat162int_rz(__hip_bfloat16 a) { return static_cast<int>(__bfloat162float(a)); }
OPENHIP_BF16_FN unsigned short __bfloat16_as_ushort(__hip_bfloat16 a) { return a.data; }
OPENHIP_BF16_FN short __bfloat16_as_short(__hip_bfloat16 a) { return static_cast<short>(a.data); }
OPENHIP_BF16_FN __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __openhip_mkbf(u); }
OPENHIP_BF16_FN __hip_bfloat16 __short_as_bfloat16(short s) { return __openhip_mkbf(static_cast<unsigned short>(s)); }

#define OPENHIP_BF16_BINARY(name, expr)                                                        \
    OPENHIP_BF16_FN __hip_bfloat16 name(__hip_bfloat16 a, __hip_bfloat16 b) {                  \
        float x = __bfloat162float(a), y = __bfloat162float(b);                                \
        return __float2bfloat16(expr);                                                         \
    }
OPENHIP_BF16_BINARY(__hadd, x + y)
OPENHIP_BF16_BINARY(__hsub, x - y)
OPENHIP_BF16_BINARY(__hmul, x * y)
OPENHIP_BF16_BINARY(__hdiv, x / y)
OPENHIP_BF16_BINARY(__hmax, x > y || y != y ? x : y)
OPENHIP_BF16_BINARY(__hmin, x < y || y != y ? x : y)
#undef OPENHIP_BF16_BINARY
OPENHIP_BF16_FN __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
    return __float2bfloat16(__bfloat162float(a) * __bfloat162float(b) + __bfloat162float(c));
}
OPENHIP_BF16_FN __hip_bfloat16 __hneg(__hip_bfloat16 a) { return __openhip_mkbf(a.data ^ 0x8000u); }
OPENHIP_BF16_FN __hip_bfloat16 __habs(__hip_bfloat16 a) { return __openhip_mkbf(a.data & 0x7fffu); }
OPENHIP_BF16_FN bool __hisnan(__hip_bfloat16 a) { return (a.data & 0x7fffu) > 0x7f80u; }
OPENHIP_BF16_FN int __hisinf(__hip_bfloat16 a) {
    return (a.data & 0x7fffu) == 0x7f80u ? ((a.data & 0x8000u) ? -1 : 1) : 0;
}
OPENHIP_BF16_FN bool __heq(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
OPENHIP_BF16_FN bool __hne(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) != __bfloat162float(b); }
OPENHIP_BF16_FN bool __hlt(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
OPENHIP_BF16_FN bool __hle(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) <= __bfloat162float(b); }
OPENHIP_BF16_FN bool __hgt(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }
OPENHIP_BF16_FN bool __hge(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) >= __bfloat162float(b); }

OPENHIP_BF16_FN __hip_bfloat162 __floats2bfloat162_rn(float a, float b) {
    return __hip_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
OPENHIP_BF16_FN __hip_bfloat162 __float2bfloat162_rn(float a) { return __floats2bfloat162_rn(a, a); }
OPENHIP_BF16_FN __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) {
    return __hip_bfloat162(a, b);
}
OPENHIP_BF16_FN __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 a) { return __hip_bfloat162(a, a); }
OPENHIP_BF16_FN __hip_bfloat16 __low2bfloat16(__hip_bfloat162 a) { return a.x; }
OPENHIP_BF16_FN __hip_bfloat16 __high2bfloat16(__hip_bfloat162 a) { return a.y; }
OPENHIP_BF16_FN float __low2float(__hip_bfloat162 a) { return __bfloat162float(a.x); }
OPENHIP_BF16_FN float __high2float(__hip_bfloat162 a) { return __bfloat162float(a.y); }
OPENHIP_BF16_FN __hip_bfloat162 __hadd2(__hip_bfloat162 a, __hip_bfloat162 b) {
    return __hip_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y));
}
OPENHIP_BF16_FN __hip_bfloat162 __hmul2(__hip_bfloat162 a, __hip_bfloat162 b) {
    return __hip_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y));
}
OPENHIP_BF16_FN __hip_bfloat162 __hfma2(__hip_bfloat162 a, __hip_bfloat162 b, __hip_bfloat162 c) {
    return __hip_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}

// The pre-6.0 class (hip/hip_bfloat16.h): explicit from float, implicit to float.
struct hip_bfloat16 {
    unsigned short data;

    hip_bfloat16() = default;
    explicit __host__ __device__ hip_bfloat16(float f) : data(__openhip_f2bf_rn(f)) {}
    __host__ __device__ operator float() const { return __openhip_bf2f(data); }
    __host__ __device__ hip_bfloat16& operator=(float f) { data = __openhip_f2bf_rn(f); return *this; }
    static __host__ __device__ hip_bfloat16 round_to_bfloat16(float f) { return hip_bfloat16(f); }
};

#undef OPENHIP_BF16_FN
#endif
