// openhip CPU platform: 8-bit floating point as HIP's hip_fp8.h (ROCm 6.2+) defines it, with the
// CUDA cuda_fp8.h spellings as aliases.
//
// Formats (__hip_fp8_interpretation_t):
//   __HIP_E4M3       OCP E4M3 ("e4m3fn"): bias 7, no infinity, NaN = S.1111.111, max 448
//   __HIP_E5M2       OCP E5M2: IEEE-like, bias 15, +-inf, NaNs, max 57344
//   __HIP_E4M3_FNUZ  bias 8, no infinity, no -0, the only NaN is 0x80, max 240
//   __HIP_E5M2_FNUZ  bias 16, no infinity, no -0, the only NaN is 0x80, max 57344
// Conversions to fp8 round to nearest even.  Out-of-range values: __HIP_SATFINITE clamps to the
// largest finite value (also for infinities); __HIP_NOSAT gives NaN (E4M3, FNUZ) or infinity
// (E5M2).  NaN stays NaN.  Conversions from fp8 are exact.  The fp8 class constructors saturate
// (__HIP_SATFINITE), as HIP's and CUDA's do.
#pragma once

#include "lang_fpconv.h"
#include "half.h"
#include "bf16.h"

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

namespace openhip {
namespace lang {
constexpr small_fmt kE4M3{4, 3, 7, 0x7Eu, false};
constexpr small_fmt kE5M2{5, 2, 15, 0x7Bu, false};  // inf/NaN handled by fp8_from_float
constexpr small_fmt kE4M3Fnuz{4, 3, 8, 0x7Fu, false};
constexpr small_fmt kE5M2Fnuz{5, 2, 16, 0x7Fu, false};

OPENHIP_LANG_FN const small_fmt& fp8_fmt(__hip_fp8_interpretation_t t) {
  return t == __HIP_E4M3 ? kE4M3 : t == __HIP_E5M2 ? kE5M2 : t == __HIP_E4M3_FNUZ ? kE4M3Fnuz : kE5M2Fnuz;
}
OPENHIP_LANG_FN bool fp8_fnuz(__hip_fp8_interpretation_t t) {
  return t == __HIP_E4M3_FNUZ || t == __HIP_E5M2_FNUZ;
}
// The pattern an out-of-range value becomes without saturation.
OPENHIP_LANG_FN unsigned char fp8_overflow(unsigned sign, __hip_fp8_interpretation_t t) {
  if (fp8_fnuz(t)) return 0x80;
  return (unsigned char)((sign << 7) | (t == __HIP_E4M3 ? 0x7Fu : 0x7Cu));  // NaN / infinity
}

inline __hip_fp8_storage_t fp8_from_float(float f, __hip_saturation_t sat,
                                          __hip_fp8_interpretation_t t) {
  const small_fmt& F = fp8_fmt(t);
  const unsigned sign = bit_cast<unsigned>(f) >> 31;
  if (f != f) return fp8_fnuz(t) ? 0x80 : (unsigned char)((sign << 7) | 0x7Fu);
  if (__builtin_isinf(f))
    return sat == __HIP_SATFINITE ? (unsigned char)((sign << 7) | F.max_finite) : fp8_overflow(sign, t);
  const unsigned r = float_to_small(f, F, rounding::rn);
  const bool over = fp8_fnuz(t) ? ((r & 0x7Fu) == 0 && __builtin_fabsf(f) > 1.0f)
                                : (r & 0x7Fu) == F.max_finite + 1u;
  if (over) return sat == __HIP_SATFINITE ? (unsigned char)((sign << 7) | F.max_finite) : fp8_overflow(sign, t);
  if (fp8_fnuz(t) && (r & 0x7Fu) == 0) return 0;  // no negative zero
  return (unsigned char)r;
}
inline float fp8_to_float(__hip_fp8_storage_t v, __hip_fp8_interpretation_t t) {
  if (fp8_fnuz(t)) {
    if (v == 0x80) return __builtin_nanf("");
  } else if (t == __HIP_E4M3) {
    if ((v & 0x7Fu) == 0x7Fu) return __builtin_copysignf(__builtin_nanf(""), (v & 0x80u) ? -1.0f : 1.0f);
  } else if ((v & 0x7Cu) == 0x7Cu) {  // E5M2 inf / NaN
    const float inf = (v & 0x03u) ? __builtin_nanf("") : __builtin_inff();
    return (v & 0x80u) ? -inf : inf;
  }
  return small_to_float(v, fp8_fmt(t));
}
}  // namespace lang
}  // namespace openhip

// ---- the C-style conversion API --------------------------------------------------------------
inline __hip_fp8_storage_t __hip_cvt_float_to_fp8(float x, __hip_saturation_t sat,
                                                  __hip_fp8_interpretation_t t) {
  return openhip::lang::fp8_from_float(x, sat, t);
}
inline __hip_fp8_storage_t __hip_cvt_double_to_fp8(double x, __hip_saturation_t sat,
                                                   __hip_fp8_interpretation_t t) {
  return openhip::lang::fp8_from_float(openhip::lang::double_to_float_odd(x), sat, t);
}
inline __hip_fp8x2_storage_t __hip_cvt_float2_to_fp8x2(float2 x, __hip_saturation_t sat,
                                                      __hip_fp8_interpretation_t t) {
  return (__hip_fp8x2_storage_t)(__hip_cvt_float_to_fp8(x.x, sat, t) |
                                 (__hip_cvt_float_to_fp8(x.y, sat, t) << 8));
}
inline __hip_fp8x2_storage_t __hip_cvt_double2_to_fp8x2(double2 x, __hip_saturation_t sat,
                                                       __hip_fp8_interpretation_t t) {
  return (__hip_fp8x2_storage_t)(__hip_cvt_double_to_fp8(x.x, sat, t) |
                                 (__hip_cvt_double_to_fp8(x.y, sat, t) << 8));
}
inline __hip_fp8_storage_t __hip_cvt_halfraw_to_fp8(__half_raw x, __hip_saturation_t sat,
                                                    __hip_fp8_interpretation_t t) {
  return __hip_cvt_float_to_fp8(__half2float(__half(x)), sat, t);
}
inline __hip_fp8x2_storage_t __hip_cvt_halfraw2_to_fp8x2(__half2_raw x, __hip_saturation_t sat,
                                                        __hip_fp8_interpretation_t t) {
  return (__hip_fp8x2_storage_t)(__hip_cvt_halfraw_to_fp8(__half_raw{x.x}, sat, t) |
                                 (__hip_cvt_halfraw_to_fp8(__half_raw{x.y}, sat, t) << 8));
}
inline __hip_fp8_storage_t __hip_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw x, __hip_saturation_t sat,
                                                        __hip_fp8_interpretation_t t) {
  return __hip_cvt_float_to_fp8(__bfloat162float(__hip_bfloat16(x)), sat, t);
}
inline __hip_fp8x2_storage_t __hip_cvt_bfloat16raw2_to_fp8x2(__hip_bfloat162_raw x,
                                                            __hip_saturation_t sat,
                                                            __hip_fp8_interpretation_t t) {
  return (__hip_fp8x2_storage_t)(__hip_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw{x.x}, sat, t) |
                                 (__hip_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw{x.y}, sat, t) << 8));
}
// fp8 -> half is exact (every fp8 value is a binary16 value).
inline __half_raw __hip_cvt_fp8_to_halfraw(__hip_fp8_storage_t x, __hip_fp8_interpretation_t t) {
  return __half_raw(__half(openhip::lang::fp8_to_float(x, t)));
}
inline __half2_raw __hip_cvt_fp8x2_to_halfraw2(__hip_fp8x2_storage_t x, __hip_fp8_interpretation_t t) {
  return __half2_raw{__hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x & 0xFFu), t).x,
                     __hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x >> 8), t).x};
}
inline float __hip_cvt_fp8_to_float(__hip_fp8_storage_t x, __hip_fp8_interpretation_t t) {
  return openhip::lang::fp8_to_float(x, t);
}

// ---- the classes ------------------------------------------------------------------------------
#define OPENHIP_FP8_CLASS(NAME, INTERP)                                                          \
  struct NAME {                                                                                  \
    __hip_fp8_storage_t __x;                                                                     \
    static constexpr __hip_saturation_t __default_saturation = __HIP_SATFINITE;                  \
    static constexpr __hip_fp8_interpretation_t __default_interpret = INTERP;                    \
    NAME() = default;                                                                            \
    NAME(float f) : __x(__hip_cvt_float_to_fp8(f, __HIP_SATFINITE, INTERP)) {}                  \
    NAME(double d) : __x(__hip_cvt_double_to_fp8(d, __HIP_SATFINITE, INTERP)) {}                \
    NAME(__half h) : __x(__hip_cvt_float_to_fp8(__half2float(h), __HIP_SATFINITE, INTERP)) {}   \
    NAME(__hip_bfloat16 h)                                                                       \
        : __x(__hip_cvt_float_to_fp8(__bfloat162float(h), __HIP_SATFINITE, INTERP)) {}          \
    template <class I, typename openhip::lang::f16_enable_int<I>::type* = nullptr>               \
    NAME(I i) : __x(__hip_cvt_double_to_fp8((double)i, __HIP_SATFINITE, INTERP)) {}             \
    operator float() const { return openhip::lang::fp8_to_float(__x, INTERP); }                  \
    explicit operator double() const { return (double)openhip::lang::fp8_to_float(__x, INTERP); } \
    explicit operator __half() const { return __half(__hip_cvt_fp8_to_halfraw(__x, INTERP)); }   \
    explicit operator __hip_bfloat16() const {                                                   \
      return __hip_bfloat16(openhip::lang::fp8_to_float(__x, INTERP));                           \
    }                                                                                            \
    explicit operator bool() const { return (float)*this != 0.0f; }                              \
  };
OPENHIP_FP8_CLASS(__hip_fp8_e4m3, __HIP_E4M3)
OPENHIP_FP8_CLASS(__hip_fp8_e5m2, __HIP_E5M2)
OPENHIP_FP8_CLASS(__hip_fp8_e4m3_fnuz, __HIP_E4M3_FNUZ)
OPENHIP_FP8_CLASS(__hip_fp8_e5m2_fnuz, __HIP_E5M2_FNUZ)
#undef OPENHIP_FP8_CLASS

#define OPENHIP_FP8X2_CLASS(NAME, INTERP)                                                        \
  struct NAME {                                                                                  \
    __hip_fp8x2_storage_t __x;                                                                   \
    NAME() = default;                                                                            \
    NAME(float2 f) : __x(__hip_cvt_float2_to_fp8x2(f, __HIP_SATFINITE, INTERP)) {}              \
    NAME(double2 d) : __x(__hip_cvt_double2_to_fp8x2(d, __HIP_SATFINITE, INTERP)) {}            \
    NAME(__half2 h) : __x(__hip_cvt_halfraw2_to_fp8x2(__half2_raw(h), __HIP_SATFINITE, INTERP)) {} \
    operator float2() const {                                                                    \
      return float2{openhip::lang::fp8_to_float((__hip_fp8_storage_t)(__x & 0xFFu), INTERP),     \
                    openhip::lang::fp8_to_float((__hip_fp8_storage_t)(__x >> 8), INTERP)};       \
    }                                                                                            \
    explicit operator __half2() const { return __half2(__hip_cvt_fp8x2_to_halfraw2(__x, INTERP)); } \
  };
OPENHIP_FP8X2_CLASS(__hip_fp8x2_e4m3, __HIP_E4M3)
OPENHIP_FP8X2_CLASS(__hip_fp8x2_e5m2, __HIP_E5M2)
OPENHIP_FP8X2_CLASS(__hip_fp8x2_e4m3_fnuz, __HIP_E4M3_FNUZ)
OPENHIP_FP8X2_CLASS(__hip_fp8x2_e5m2_fnuz, __HIP_E5M2_FNUZ)
#undef OPENHIP_FP8X2_CLASS

#define OPENHIP_FP8X4_CLASS(NAME, INTERP)                                                        \
  struct NAME {                                                                                  \
    __hip_fp8x4_storage_t __x;                                                                   \
    NAME() = default;                                                                            \
    NAME(float4 f)                                                                               \
        : __x((__hip_fp8x4_storage_t)__hip_cvt_float_to_fp8(f.x, __HIP_SATFINITE, INTERP) |      \
              ((__hip_fp8x4_storage_t)__hip_cvt_float_to_fp8(f.y, __HIP_SATFINITE, INTERP) << 8) | \
              ((__hip_fp8x4_storage_t)__hip_cvt_float_to_fp8(f.z, __HIP_SATFINITE, INTERP) << 16) | \
              ((__hip_fp8x4_storage_t)__hip_cvt_float_to_fp8(f.w, __HIP_SATFINITE, INTERP) << 24)) {} \
    operator float4() const {                                                                    \
      return float4{openhip::lang::fp8_to_float((__hip_fp8_storage_t)(__x & 0xFFu), INTERP),     \
                    openhip::lang::fp8_to_float((__hip_fp8_storage_t)((__x >> 8) & 0xFFu), INTERP), \
                    openhip::lang::fp8_to_float((__hip_fp8_storage_t)((__x >> 16) & 0xFFu), INTERP), \
                    openhip::lang::fp8_to_float((__hip_fp8_storage_t)(__x >> 24), INTERP)};      \
    }                                                                                            \
  };
OPENHIP_FP8X4_CLASS(__hip_fp8x4_e4m3, __HIP_E4M3)
OPENHIP_FP8X4_CLASS(__hip_fp8x4_e5m2, __HIP_E5M2)
OPENHIP_FP8X4_CLASS(__hip_fp8x4_e4m3_fnuz, __HIP_E4M3_FNUZ)
OPENHIP_FP8X4_CLASS(__hip_fp8x4_e5m2_fnuz, __HIP_E5M2_FNUZ)
#undef OPENHIP_FP8X4_CLASS

// ---- CUDA spellings (cuda_fp8.h) ------------------------------------------------------------------
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
inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t s, __nv_fp8_interpretation_t t) {
  return __hip_cvt_float_to_fp8(x, s, t);
}
inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t s, __nv_fp8_interpretation_t t) {
  return __hip_cvt_double_to_fp8(x, s, t);
}
inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t s, __nv_fp8_interpretation_t t) {
  return __hip_cvt_float2_to_fp8x2(x, s, t);
}
inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t s, __nv_fp8_interpretation_t t) {
  return __hip_cvt_halfraw_to_fp8(x, s, t);
}
inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw x, __nv_saturation_t s,
                                                      __nv_fp8_interpretation_t t) {
  return __hip_cvt_bfloat16raw_to_fp8(x, s, t);
}
inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t t) {
  return __hip_cvt_fp8_to_halfraw(x, t);
}
inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t t) {
  return __hip_cvt_fp8x2_to_halfraw2(x, t);
}
