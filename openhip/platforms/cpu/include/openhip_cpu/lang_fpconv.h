// openhip CPU platform: conversions between float/double and the small floating-point formats
// (binary16, bfloat16, fp8 e4m3/e5m2) in software, bit-exact, every rounding mode.
#pragma once

#include "lang_base.h"

namespace openhip {
namespace lang {

// A small binary format: M explicit mantissa bits, exponent bias B, E exponent bits.
struct small_fmt {
  int E, M, B;
  unsigned max_finite;  // bit pattern (without sign) of the largest finite value
  bool has_inf;         // exponent all ones = inf/NaN (IEEE style)
};
constexpr small_fmt kHalf{5, 10, 15, 0x7BFFu, true};
constexpr small_fmt kBf16{8, 7, 127, 0x7F7Fu, true};

// float -> small format, rounding r.  Overflow: RN -> inf, RZ -> max, RU/RD by sign; formats
// without inf get max_finite + 1 (the caller maps it to NaN or saturates).
OPENHIP_LANG_FN unsigned float_to_small(float f, const small_fmt& F, rounding r) {
  const unsigned u = bit_cast<unsigned>(f);
  const unsigned sign = u >> 31;
  const unsigned a = u & 0x7FFFFFFFu;
  const unsigned sbit = sign << (F.E + F.M);
  const unsigned exp_ones = ((1u << F.E) - 1u) << F.M;
  if (a > 0x7F800000u) {  // NaN: quiet, keep the top payload bits
    return sbit | exp_ones | (1u << (F.M - 1)) | ((a & 0x7FFFFFu) >> (23 - F.M));
  }
  const unsigned inf_or_over = F.has_inf ? exp_ones : F.max_finite + 1u;
  if (a == 0x7F800000u) return sbit | inf_or_over;
  if (a == 0) return sbit;
  // value = mant * 2^e2
  const unsigned mant = (a & 0x7FFFFFu) | (a >= 0x800000u ? 0x800000u : 0u);
  const int e2 = (int)(a >= 0x800000u ? (a >> 23) : 1u) - 127 - 23;
  const int top = e2 + (31 - __builtin_clz(mant));  // floor(log2(value))
  const int emin = 1 - F.B;
  const int q = (top > emin ? top : emin) - F.M;  // exponent of the target ulp
  const int shift = q - e2;
  unsigned k, rem = 0, halfway = 0;
  bool inexact = false;
  if (shift <= 0) {
    k = mant << (-shift);
  } else if (shift >= 32) {
    k = 0;
    inexact = true;  // below half of the smallest step: only the direction matters
    rem = 1;
    halfway = 2;
  } else {
    k = mant >> shift;
    rem = mant & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1);
    inexact = rem != 0;
  }
  if (inexact) {
    bool up;
    switch (r) {
      case rounding::rn: up = rem > halfway || (rem == halfway && (k & 1u)); break;
      case rounding::rz: up = false; break;
      case rounding::ru: up = !sign; break;
      default: up = sign; break;
    }
    k += up;
  }
  const unsigned bits = (unsigned)((q + F.M + F.B - 1) << F.M) + k;
  if (bits > F.max_finite) {
    bool to_inf;
    switch (r) {
      case rounding::rn: to_inf = true; break;
      case rounding::rz: to_inf = false; break;
      case rounding::ru: to_inf = !sign; break;
      default: to_inf = sign; break;
    }
    return sbit | (to_inf ? inf_or_over : F.max_finite);
  }
  return sbit | bits;
}

// small format -> float (exact).
OPENHIP_LANG_FN float small_to_float(unsigned h, const small_fmt& F) {
  const unsigned sign = (h >> (F.E + F.M)) & 1u;
  const unsigned ef = (h >> F.M) & ((1u << F.E) - 1u);
  const unsigned m = h & ((1u << F.M) - 1u);
  unsigned out;
  if (F.has_inf && ef == (1u << F.E) - 1u) {
    out = 0x7F800000u | (m << (23 - F.M)) | (m ? 0x400000u : 0u);
  } else if (ef == 0) {
    // subnormal: m * 2^(1 - B - M), exact in float; the scale is applied in two steps because
    // 2^(1 - B - M) itself is not a normal float for bfloat16 (2^-133)
    const int e = 1 - F.B - F.M, e1 = e / 2, e2 = e - e1;
    float v = (float)m * bit_cast<float>((unsigned)(127 + e1) << 23) *
              bit_cast<float>((unsigned)(127 + e2) << 23);
    return sign ? -v : v;
  } else {
    out = ((ef - F.B + 127) << 23) | (m << (23 - F.M));
  }
  return bit_cast<float>(out | (sign << 31));
}

// double -> float rounded to odd (truncate, then set the last bit if inexact).  Rounding that
// float again to a format with at most 22 significant bits gives the correctly rounded result of
// the double (no double-rounding error).
OPENHIP_LANG_FN float double_to_float_odd(double d) {
  if (d != d) return (float)d;
  float f = (float)d;
  if ((double)f == d) return f;
  if (__builtin_fabs((double)f) > __builtin_fabs(d)) {  // rounded away from zero: step back
    unsigned b = bit_cast<unsigned>(f) - 1u;
    f = bit_cast<float>(b);
  }
  return bit_cast<float>(bit_cast<unsigned>(f) | 1u);
}

OPENHIP_LANG_FN unsigned double_to_small(double d, const small_fmt& F, rounding r) {
  if (r == rounding::rn) return float_to_small(double_to_float_odd(d), F, r);
  // directed modes: rounding to odd preserves the direction information as well
  return float_to_small(double_to_float_odd(d), F, r);
}

// Integer -> small format: exact in double for up to 53 bits; 64-bit values go through a
// round-to-odd double so that the final rounding is still correct.
template <class I>
OPENHIP_LANG_FN unsigned int_to_small(I a, const small_fmt& F, rounding r) {
  if constexpr (sizeof(I) < 8) {
    return double_to_small((double)a, F, r);
  } else {
    double d = (double)a;
    const i128 rem = (openhip::lang::i128)a - (openhip::lang::i128)d;  // (openhip::lang::i128)d is exact: |d| <= 2^64
    if (rem != 0) {
      unsigned long long b = bit_cast<unsigned long long>(d);
      if ((rem > 0) != (d > 0)) b -= 1;  // rounded away from zero: step back
      d = bit_cast<double>(b | 1ull);
    }
    return double_to_small(d, F, r);
  }
}

// Correctly rounded a*b + c for small formats whose values multiply exactly in double (binary16,
// bfloat16, fp8): the product is exact; the sum is made exact by TwoSum and folded into a
// round-to-odd double before the final rounding.
OPENHIP_LANG_FN double fma_odd(double a, double b, double c) {
  const double p = a * b;  // exact
  const double s = p + c;
  const double bb = s - p;
  const double err = (p - (s - bb)) + (c - bb);
  if (err == 0.0 || s != s || __builtin_isinf(s)) return s;
  unsigned long long bits = bit_cast<unsigned long long>(s);
  // truncate toward zero then force the last bit: round to odd
  if ((err > 0) != (s > 0)) bits -= 1;  // s was rounded away from zero
  return bit_cast<double>(bits | 1ull);
}

// enable_if for the integer constructors of the 16-bit types.
template <class I>
struct f16_enable_int {};
#define OPENHIP_F16_INT(T) \
  template <>              \
  struct f16_enable_int<T> { using type = void; };
OPENHIP_F16_INT(char)
OPENHIP_F16_INT(signed char)
OPENHIP_F16_INT(unsigned char)
OPENHIP_F16_INT(short)
OPENHIP_F16_INT(unsigned short)
OPENHIP_F16_INT(int)
OPENHIP_F16_INT(unsigned int)
OPENHIP_F16_INT(long)
OPENHIP_F16_INT(unsigned long)
OPENHIP_F16_INT(long long)
OPENHIP_F16_INT(unsigned long long)
#undef OPENHIP_F16_INT

}  // namespace lang
}  // namespace openhip
