// openhip: HIP's hip_fp8.h (ROCm 6.2+: OCP E4M3/E5M2 and the FNUZ variants, C-style conversions
// and the fp8/fp8x2/fp8x4 classes) with CUDA's cuda_fp8.h spellings, for GPU compilers whose
// headers lack it (NVRTC, hiprtc before ROCm 6.2). Needs __half and __hip_bfloat16 first.
//
// Kept byte-identical in openhip/platforms/{nvidia,amd}/include/hip (a test checks it).
// Semantics are the CPU platform's (openhip_cpu/fp8.h): conversions to fp8 round to nearest
// even; out of range, __HIP_SATFINITE clamps to the largest finite value (infinities too) and
// __HIP_NOSAT gives NaN (E4M3, FNUZ) or infinity (E5M2); NaN stays NaN; conversions from fp8
// are exact; the class constructors saturate.
#pragma once
#ifndef OPENHIP_FP8_IMPL_H
#define OPENHIP_FP8_IMPL_H
#include <hip/openhip_fpconv.h>

typedef unsigned char __hip_fp8_storage_t;
typedef unsigned short int __hip_fp8x2_storage_t;
typedef unsigned int __hip_fp8x4_storage_t;

enum __hip_saturation_t { __HIP_NOSAT = 0, __HIP_SATFINITE = 1 };
enum __hip_fp8_interpretation_t {
    __HIP_E4M3_FNUZ = 0,
    __HIP_E5M2_FNUZ = 1,
    __HIP_E4M3 = 2,
    __HIP_E5M2 = 3,
};

#define OPENHIP_FP8_FN static __host__ __device__ inline

namespace openhip_fp {
OPENHIP_FP_FN fmt fp8_fmt(__hip_fp8_interpretation_t t) {
    return t == __HIP_E4M3 ? OPENHIP_FMT_E4M3
         : t == __HIP_E5M2 ? OPENHIP_FMT_E5M2
         : t == __HIP_E4M3_FNUZ ? OPENHIP_FMT_E4M3_FNUZ : OPENHIP_FMT_E5M2_FNUZ;
}
OPENHIP_FP_FN bool fp8_fnuz(__hip_fp8_interpretation_t t) {
    return t == __HIP_E4M3_FNUZ || t == __HIP_E5M2_FNUZ;
}
OPENHIP_FP_FN unsigned char fp8_overflow(unsigned sign, __hip_fp8_interpretation_t t) {
    if (fp8_fnuz(t)) return 0x80;
    return (unsigned char)((sign << 7) | (t == __HIP_E4M3 ? 0x7Fu : 0x7Cu));  // NaN / infinity
}
OPENHIP_FP_FN __hip_fp8_storage_t fp8_from_float(float f, __hip_saturation_t sat,
                                                 __hip_fp8_interpretation_t t) {
    const fmt F = fp8_fmt(t);
    const unsigned u = bits(f);
    const unsigned sign = u >> 31;
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return fp8_fnuz(t) ? 0x80 : (unsigned char)((sign << 7) | 0x7Fu);
    if ((u & 0x7FFFFFFFu) == 0x7F800000u)
        return sat == __HIP_SATFINITE ? (unsigned char)((sign << 7) | F.max_finite) : fp8_overflow(sign, t);
    const unsigned r = float_to_small(f, F, rn);
    const bool over = fp8_fnuz(t) ? ((r & 0x7Fu) == 0 && (u & 0x7FFFFFFFu) > 0x3F800000u)
                                  : (r & 0x7Fu) == F.max_finite + 1u;
    if (over) return sat == __HIP_SATFINITE ? (unsigned char)((sign << 7) | F.max_finite) : fp8_overflow(sign, t);
    if (fp8_fnuz(t) && (r & 0x7Fu) == 0) return 0;  // no negative zero
    return (unsigned char)r;
}
OPENHIP_FP_FN float fp8_to_float(__hip_fp8_storage_t v, __hip_fp8_interpretation_t t) {
    const float nan = from_bits(0x7FC00000u);
    if (fp8_fnuz(t)) {
        if (v == 0x80) return nan;
    } else if (t == __HIP_E4M3) {
        if ((v & 0x7Fu) == 0x7Fu) return (v & 0x80u) ? -nan : nan;
    } else if ((v & 0x7Cu) == 0x7Cu) {  // E5M2 inf / NaN
        const float special = (v & 0x03u) ? nan : from_bits(0x7F800000u);
        return (v & 0x80u) ? -special : special;
    }
    return small_to_float(v, fp8_fmt(t));
}
}  // namespace openhip_fp

// ---- the C-style conversion API ------------------------------------------------------------
OPENHIP_FP8_FN __hip_fp8_storage_t __hip_cvt_float_to_fp8(float x, __hip_saturation_t sat,
                                                          __hip_fp8_interpretation_t t) {
    return openhip_fp::fp8_from_float(x, sat, t);
}
OPENHIP_FP8_FN __hip_fp8_storage_t __hip_cvt_double_to_fp8(double x, __hip_saturation_t sat,
                                                           __hip_fp8_interpretation_t t) {
    return openhip_fp::fp8_from_float(openhip_fp::double_to_float_odd(x), sat, t);
}
OPENHIP_FP8_FN __hip_fp8x2_storage_t __hip_cvt_float2_to_fp8x2(float2 x, __hip_saturation_t sat,
                                                              __hip_fp8_interpretation_t t) {
    return (__hip_fp8x2_storage_t)(__hip_cvt_float_to_fp8(x.x, sat, t) |
                                   (__hip_cvt_float_to_fp8(x.y, sat, t) << 8));
}
OPENHIP_FP8_FN __hip_fp8x2_storage_t __hip_cvt_double2_to_fp8x2(double2 x, __hip_saturation_t sat,
                                                               __hip_fp8_interpretation_t t) {
    return (__hip_fp8x2_storage_t)(__hip_cvt_double_to_fp8(x.x, sat, t) |
                                   (__hip_cvt_double_to_fp8(x.y, sat, t) << 8));
}
OPENHIP_FP8_FN __hip_fp8_storage_t __hip_cvt_halfraw_to_fp8(__half_raw x, __hip_saturation_t sat,
                                                            __hip_fp8_interpretation_t t) {
    return __hip_cvt_float_to_fp8(
        openhip_fp::small_to_float(x.x, OPENHIP_FMT_HALF), sat, t);
}
OPENHIP_FP8_FN __hip_fp8x2_storage_t __hip_cvt_halfraw2_to_fp8x2(__half2_raw x, __hip_saturation_t sat,
                                                                __hip_fp8_interpretation_t t) {
    __half_raw lo, hi;
    lo.x = x.x;
    hi.x = x.y;
    return (__hip_fp8x2_storage_t)(__hip_cvt_halfraw_to_fp8(lo, sat, t) |
                                   (__hip_cvt_halfraw_to_fp8(hi, sat, t) << 8));
}
OPENHIP_FP8_FN __hip_fp8_storage_t __hip_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw x,
                                                                __hip_saturation_t sat,
                                                                __hip_fp8_interpretation_t t) {
    return __hip_cvt_float_to_fp8(openhip_fp::small_to_float(x.x, OPENHIP_FMT_BF16), sat, t);
}
OPENHIP_FP8_FN __hip_fp8x2_storage_t __hip_cvt_bfloat16raw2_to_fp8x2(__hip_bfloat162_raw x,
                                                                    __hip_saturation_t sat,
                                                                    __hip_fp8_interpretation_t t) {
    __hip_bfloat16_raw lo, hi;
    lo.x = x.x;
    hi.x = x.y;
    return (__hip_fp8x2_storage_t)(__hip_cvt_bfloat16raw_to_fp8(lo, sat, t) |
                                   (__hip_cvt_bfloat16raw_to_fp8(hi, sat, t) << 8));
}
// fp8 -> half is exact (every fp8 value is a binary16 value).
OPENHIP_FP8_FN __half_raw __hip_cvt_fp8_to_halfraw(__hip_fp8_storage_t x, __hip_fp8_interpretation_t t) {
    __half_raw r;
    r.x = (unsigned short)openhip_fp::float_to_small(openhip_fp::fp8_to_float(x, t),
                                                      OPENHIP_FMT_HALF, openhip_fp::rn);
    return r;
}
OPENHIP_FP8_FN __half2_raw __hip_cvt_fp8x2_to_halfraw2(__hip_fp8x2_storage_t x,
                                                       __hip_fp8_interpretation_t t) {
    __half2_raw r;
    r.x = __hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x & 0xFFu), t).x;
    r.y = __hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x >> 8), t).x;
    return r;
}
OPENHIP_FP8_FN float __hip_cvt_fp8_to_float(__hip_fp8_storage_t x, __hip_fp8_interpretation_t t) {
    return openhip_fp::fp8_to_float(x, t);
}

// ---- the classes ---------------------------------------------------------------------------
#define OPENHIP_FP8_INT_CTOR(NAME, INTERP, I)                                                  \
    __host__ __device__ NAME(I i) : __x(__hip_cvt_double_to_fp8((double)i, __HIP_SATFINITE, INTERP)) {}
#define OPENHIP_FP8_CLASS(NAME, INTERP)                                                        \
    struct NAME {                                                                              \
        __hip_fp8_storage_t __x;                                                               \
        static constexpr __hip_saturation_t __default_saturation = __HIP_SATFINITE;            \
        static constexpr __hip_fp8_interpretation_t __default_interpret = INTERP;              \
        NAME() = default;                                                                      \
        __host__ __device__ NAME(float f) : __x(__hip_cvt_float_to_fp8(f, __HIP_SATFINITE, INTERP)) {} \
        __host__ __device__ NAME(double d) : __x(__hip_cvt_double_to_fp8(d, __HIP_SATFINITE, INTERP)) {} \
        __host__ __device__ NAME(__half h)                                                     \
            : __x(__hip_cvt_halfraw_to_fp8(__half_raw(h), __HIP_SATFINITE, INTERP)) {}         \
        __host__ __device__ NAME(__hip_bfloat16 h)                                             \
            : __x(__hip_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw(h), __HIP_SATFINITE, INTERP)) {} \
        OPENHIP_FP8_INT_CTOR(NAME, INTERP, int)                                                \
        OPENHIP_FP8_INT_CTOR(NAME, INTERP, unsigned int)                                       \
        OPENHIP_FP8_INT_CTOR(NAME, INTERP, long)                                               \
        OPENHIP_FP8_INT_CTOR(NAME, INTERP, unsigned long)                                      \
        OPENHIP_FP8_INT_CTOR(NAME, INTERP, long long)                                          \
        OPENHIP_FP8_INT_CTOR(NAME, INTERP, unsigned long long)                                 \
        OPENHIP_FP8_INT_CTOR(NAME, INTERP, short)                                              \
        OPENHIP_FP8_INT_CTOR(NAME, INTERP, unsigned short)                                     \
        __host__ __device__ operator float() const { return openhip_fp::fp8_to_float(__x, INTERP); } \
        __host__ __device__ explicit operator double() const {                                 \
            return (double)openhip_fp::fp8_to_float(__x, INTERP);                              \
        }                                                                                      \
        __host__ __device__ explicit operator __half() const {                                 \
            return __half(__hip_cvt_fp8_to_halfraw(__x, INTERP));                              \
        }                                                                                      \
        __host__ __device__ explicit operator __hip_bfloat16() const {                         \
            return __hip_bfloat16(openhip_fp::fp8_to_float(__x, INTERP));                      \
        }                                                                                      \
        __host__ __device__ explicit operator bool() const { return (float)*this != 0.0f; }    \
    };
OPENHIP_FP8_CLASS(__hip_fp8_e4m3, __HIP_E4M3)
OPENHIP_FP8_CLASS(__hip_fp8_e5m2, __HIP_E5M2)
OPENHIP_FP8_CLASS(__hip_fp8_e4m3_fnuz, __HIP_E4M3_FNUZ)
OPENHIP_FP8_CLASS(__hip_fp8_e5m2_fnuz, __HIP_E5M2_FNUZ)
#undef OPENHIP_FP8_CLASS
#undef OPENHIP_FP8_INT_CTOR

#define OPENHIP_FP8X2_CLASS(NAME, INTERP)                                                      \
    struct NAME {                                                                              \
        __hip_fp8x2_storage_t __x;                                                             \
        NAME() = default;                                                                      \
        __host__ __device__ NAME(float2 f) : __x(__hip_cvt_float2_to_fp8x2(f, __HIP_SATFINITE, INTERP)) {} \
        __host__ __device__ NAME(double2 d) : __x(__hip_cvt_double2_to_fp8x2(d, __HIP_SATFINITE, INTERP)) {} \
        __host__ __device__ NAME(__half2 h)                                                    \
            : __x(__hip_cvt_halfraw2_to_fp8x2(__half2_raw(h), __HIP_SATFINITE, INTERP)) {}     \
        __host__ __device__ operator float2() const {                                          \
            float2 r;                                                                          \
            r.x = openhip_fp::fp8_to_float((__hip_fp8_storage_t)(__x & 0xFFu), INTERP);        \
            r.y = openhip_fp::fp8_to_float((__hip_fp8_storage_t)(__x >> 8), INTERP);           \
            return r;                                                                          \
        }                                                                                      \
        __host__ __device__ explicit operator __half2() const {                                \
            return __half2(__hip_cvt_fp8x2_to_halfraw2(__x, INTERP));                          \
        }                                                                                      \
    };
OPENHIP_FP8X2_CLASS(__hip_fp8x2_e4m3, __HIP_E4M3)
OPENHIP_FP8X2_CLASS(__hip_fp8x2_e5m2, __HIP_E5M2)
OPENHIP_FP8X2_CLASS(__hip_fp8x2_e4m3_fnuz, __HIP_E4M3_FNUZ)
OPENHIP_FP8X2_CLASS(__hip_fp8x2_e5m2_fnuz, __HIP_E5M2_FNUZ)
#undef OPENHIP_FP8X2_CLASS

#define OPENHIP_FP8X4_CLASS(NAME, INTERP)                                                      \
    struct NAME {                                                                              \
        __hip_fp8x4_storage_t __x;                                                             \
        NAME() = default;                                                                      \
        __host__ __device__ NAME(float4 f)                                                     \
            : __x((__hip_fp8x4_storage_t)__hip_cvt_float_to_fp8(f.x, __HIP_SATFINITE, INTERP) | \
                  ((__hip_fp8x4_storage_t)__hip_cvt_float_to_fp8(f.y, __HIP_SATFINITE, INTERP) << 8) | \
                  ((__hip_fp8x4_storage_t)__hip_cvt_float_to_fp8(f.z, __HIP_SATFINITE, INTERP) << 16) | \
                  ((__hip_fp8x4_storage_t)__hip_cvt_float_to_fp8(f.w, __HIP_SATFINITE, INTERP) << 24)) {} \
        __host__ __device__ operator float4() const {                                          \
            float4 r;                                                                          \
            r.x = openhip_fp::fp8_to_float((__hip_fp8_storage_t)(__x & 0xFFu), INTERP);        \
            r.y = openhip_fp::fp8_to_float((__hip_fp8_storage_t)((__x >> 8) & 0xFFu), INTERP); \
            r.z = openhip_fp::fp8_to_float((__hip_fp8_storage_t)((__x >> 16) & 0xFFu), INTERP); \
            r.w = openhip_fp::fp8_to_float((__hip_fp8_storage_t)(__x >> 24), INTERP);          \
            return r;                                                                          \
        }                                                                                      \
    };
OPENHIP_FP8X4_CLASS(__hip_fp8x4_e4m3, __HIP_E4M3)
OPENHIP_FP8X4_CLASS(__hip_fp8x4_e5m2, __HIP_E5M2)
OPENHIP_FP8X4_CLASS(__hip_fp8x4_e4m3_fnuz, __HIP_E4M3_FNUZ)
OPENHIP_FP8X4_CLASS(__hip_fp8x4_e5m2_fnuz, __HIP_E5M2_FNUZ)
#undef OPENHIP_FP8X4_CLASS

// ---- CUDA spellings (cuda_fp8.h) -----------------------------------------------------------
typedef __hip_fp8_storage_t __nv_fp8_storage_t;
typedef __hip_fp8x2_storage_t __nv_fp8x2_storage_t;
typedef __hip_fp8x4_storage_t __nv_fp8x4_storage_t;
typedef __hip_saturation_t __nv_saturation_t;
typedef __hip_fp8_interpretation_t __nv_fp8_interpretation_t;
#define __NV_NOSAT __HIP_NOSAT
#define __NV_SATFINITE __HIP_SATFINITE
#define __NV_E4M3 __HIP_E4M3
#define __NV_E5M2 __HIP_E5M2
typedef __hip_fp8_e4m3 __nv_fp8_e4m3;
typedef __hip_fp8_e5m2 __nv_fp8_e5m2;
typedef __hip_fp8x2_e4m3 __nv_fp8x2_e4m3;
typedef __hip_fp8x2_e5m2 __nv_fp8x2_e5m2;
typedef __hip_fp8x4_e4m3 __nv_fp8x4_e4m3;
typedef __hip_fp8x4_e5m2 __nv_fp8x4_e5m2;
#define __nv_cvt_float_to_fp8 __hip_cvt_float_to_fp8
#define __nv_cvt_double_to_fp8 __hip_cvt_double_to_fp8
#define __nv_cvt_float2_to_fp8x2 __hip_cvt_float2_to_fp8x2
#define __nv_cvt_double2_to_fp8x2 __hip_cvt_double2_to_fp8x2
#define __nv_cvt_halfraw_to_fp8 __hip_cvt_halfraw_to_fp8
#define __nv_cvt_halfraw2_to_fp8x2 __hip_cvt_halfraw2_to_fp8x2
#define __nv_cvt_bfloat16raw_to_fp8 __hip_cvt_bfloat16raw_to_fp8
#define __nv_cvt_bfloat16raw2_to_fp8x2 __hip_cvt_bfloat16raw2_to_fp8x2
#define __nv_cvt_fp8_to_halfraw __hip_cvt_fp8_to_halfraw
#define __nv_cvt_fp8x2_to_halfraw2 __hip_cvt_fp8x2_to_halfraw2

#undef OPENHIP_FP8_FN
#endif
