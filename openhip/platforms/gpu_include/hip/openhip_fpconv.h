// openhip: bit-exact conversions between float/double/integers and the 16-bit float formats
// (binary16, bfloat16), for GPU compilers (NVRTC, hiprtc).
//
// Kept byte-identical in openhip/platforms/{nvidia,amd}/include/hip (a test checks it). The
// algorithms are those of the CPU platform (openhip_cpu/lang_fpconv.h) so that every 16-bit
// conversion and basic operation gives the same bits on every platform: round-to-nearest-even
// and the directed modes; NaNs stay quiet and keep their top payload bits; double and 64-bit
// integer sources go through a round-to-odd float/double so the final rounding is correct.
#pragma once
#ifndef OPENHIP_FPCONV_H
#define OPENHIP_FPCONV_H

#define OPENHIP_FP_FN static __host__ __device__ inline

namespace openhip_fp {

enum rounding { rn, rz, ru, rd };

// A small binary format: E exponent bits, M mantissa bits, bias B, the largest finite pattern
// (sign excluded), and whether the all-ones exponent means inf/NaN (IEEE style).
struct fmt {
    int E, M, B;
    unsigned max_finite;
    bool has_inf;
};
#define OPENHIP_FMT_HALF (openhip_fp::fmt{5, 10, 15, 0x7BFFu, true})
#define OPENHIP_FMT_BF16 (openhip_fp::fmt{8, 7, 127, 0x7F7Fu, true})
#define OPENHIP_FMT_E4M3 (openhip_fp::fmt{4, 3, 7, 0x7Eu, false})
#define OPENHIP_FMT_E5M2 (openhip_fp::fmt{5, 2, 15, 0x7Bu, false})
#define OPENHIP_FMT_E4M3_FNUZ (openhip_fp::fmt{4, 3, 8, 0x7Fu, false})
#define OPENHIP_FMT_E5M2_FNUZ (openhip_fp::fmt{5, 2, 16, 0x7Fu, false})

union f32 {
    float f;
    unsigned u;
};
union f64 {
    double d;
    unsigned long long u;
};
OPENHIP_FP_FN unsigned bits(float f) { f32 x; x.f = f; return x.u; }
OPENHIP_FP_FN float from_bits(unsigned u) { f32 x; x.u = u; return x.f; }
OPENHIP_FP_FN unsigned long long bits(double d) { f64 x; x.d = d; return x.u; }
OPENHIP_FP_FN double from_bits64(unsigned long long u) { f64 x; x.u = u; return x.d; }
OPENHIP_FP_FN int clz32(unsigned v) {
    int n = 0;
    if (v == 0) return 32;
    while (!(v & 0x80000000u)) { v <<= 1; ++n; }
    return n;
}

OPENHIP_FP_FN unsigned float_to_small(float f, fmt F, rounding r) {
    const unsigned u = bits(f);
    const unsigned sign = u >> 31;
    const unsigned a = u & 0x7FFFFFFFu;
    const unsigned sbit = sign << (F.E + F.M);
    const unsigned exp_ones = ((1u << F.E) - 1u) << F.M;
    // formats without infinity get max_finite + 1 on overflow (the caller maps it)
    const unsigned inf_or_over = F.has_inf ? exp_ones : F.max_finite + 1u;
    if (a > 0x7F800000u) return sbit | exp_ones | (1u << (F.M - 1)) | ((a & 0x7FFFFFu) >> (23 - F.M));
    if (a == 0x7F800000u) return sbit | inf_or_over;
    if (a == 0) return sbit;
    const unsigned mant = (a & 0x7FFFFFu) | (a >= 0x800000u ? 0x800000u : 0u);
    const int e2 = (int)(a >= 0x800000u ? (a >> 23) : 1u) - 127 - 23;
    const int top = e2 + (31 - clz32(mant));
    const int emin = 1 - F.B;
    const int q = (top > emin ? top : emin) - F.M;
    const int shift = q - e2;
    unsigned k, rem = 0, halfway = 0;
    bool inexact = false;
    if (shift <= 0) {
        k = mant << (-shift);
    } else if (shift >= 32) {
        k = 0;
        inexact = true;
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
        if (r == rn) up = rem > halfway || (rem == halfway && (k & 1u));
        else if (r == rz) up = false;
        else if (r == ru) up = !sign;
        else up = sign;
        k += up;
    }
    const unsigned out = (unsigned)((q + F.M + F.B - 1) << F.M) + k;
    if (out > F.max_finite) {
        bool to_inf;
        if (r == rn) to_inf = true;
        else if (r == rz) to_inf = false;
        else if (r == ru) to_inf = !sign;
        else to_inf = sign;
        return sbit | (to_inf ? inf_or_over : F.max_finite);
    }
    return sbit | out;
}

OPENHIP_FP_FN float small_to_float(unsigned h, fmt F) {
    const unsigned sign = (h >> (F.E + F.M)) & 1u;
    const unsigned ef = (h >> F.M) & ((1u << F.E) - 1u);
    const unsigned m = h & ((1u << F.M) - 1u);
    unsigned out;
    if (F.has_inf && ef == (1u << F.E) - 1u) {
        out = 0x7F800000u | (m << (23 - F.M)) | (m ? 0x400000u : 0u);
    } else if (ef == 0) {
        // m * 2^-M * 2^(1-B), both factors normal floats and both products exact (the CPU
        // platform's single 2^(1-B-M) factor is not a normal float for bfloat16).
        float v = (float)m * from_bits((unsigned)(127 - F.M) << 23) *
                  from_bits((unsigned)(127 + 1 - F.B) << 23);
        return sign ? -v : v;
    } else {
        out = ((ef - F.B + 127) << 23) | (m << (23 - F.M));
    }
    return from_bits(out | (sign << 31));
}

// double -> float rounded to odd: a later rounding to <= 22 bits is then correct.
OPENHIP_FP_FN float double_to_float_odd(double d) {
    if (d != d) return (float)d;
    float f = (float)d;
    if ((double)f == d) return f;
    if (((double)f < 0 ? -(double)f : (double)f) > (d < 0 ? -d : d)) f = from_bits(bits(f) - 1u);
    return from_bits(bits(f) | 1u);
}

OPENHIP_FP_FN unsigned double_to_small(double d, fmt F, rounding r) {
    return float_to_small(double_to_float_odd(d), F, r);
}
// 64-bit integers: (double)a may be inexact; fold the lost bits into a round-to-odd double.
// (The remainder's sign is found without 128-bit integers, which NVRTC does not enable.)
OPENHIP_FP_FN double odd_from(double d, int rem_sign) {
    if (rem_sign == 0) return d;
    unsigned long long b = bits(d);
    if ((rem_sign > 0) != (d > 0)) b -= 1;  // rounded away from zero: step back
    return from_bits64(b | 1ull);
}
OPENHIP_FP_FN unsigned ll_to_small(long long a, fmt F, rounding r) {
    const double d = (double)a;
    int rem_sign;
    if (d >= 9223372036854775808.0) {
        rem_sign = -1;
    } else {
        const long long back = (long long)d;
        rem_sign = a > back ? 1 : (a < back ? -1 : 0);
    }
    return double_to_small(odd_from(d, rem_sign), F, r);
}
OPENHIP_FP_FN unsigned ull_to_small(unsigned long long a, fmt F, rounding r) {
    const double d = (double)a;
    int rem_sign;
    if (d >= 18446744073709551616.0) {
        rem_sign = -1;
    } else {
        const unsigned long long back = (unsigned long long)d;
        rem_sign = a > back ? 1 : (a < back ? -1 : 0);
    }
    return double_to_small(odd_from(d, rem_sign), F, r);
}

// Correctly rounded a*b + c for 16-bit formats: the product is exact in double, the sum's error
// is recovered by TwoSum and folded into a round-to-odd double.
OPENHIP_FP_FN double fma_odd(double a, double b, double c) {
    const double p = a * b;
    const double s = p + c;
    const double bb = s - p;
    const double err = (p - (s - bb)) + (c - bb);
    if (err == 0.0 || s != s || s - s != 0.0) return s;
    unsigned long long u = bits(s);
    if ((err > 0) != (s > 0)) u -= 1;
    return from_bits64(u | 1ull);
}

// float -> integer with a rounding mode: saturating, NaN -> 0.
template <class I>
struct int_range;
#define OPENHIP_INT_RANGE(I, LO, HI, IMIN, IMAX)                                               \
    template <>                                                                                \
    struct int_range<I> {                                                                      \
        static __host__ __device__ inline double lo() { return LO; }                          \
        static __host__ __device__ inline double hi() { return HI; }                          \
        static __host__ __device__ inline I imin() { return IMIN; }                           \
        static __host__ __device__ inline I imax() { return IMAX; }                           \
    };
OPENHIP_INT_RANGE(signed char, -128.0, 128.0, -128, 127)
OPENHIP_INT_RANGE(unsigned char, 0.0, 256.0, 0, 255)
OPENHIP_INT_RANGE(short, -32768.0, 32768.0, -32768, 32767)
OPENHIP_INT_RANGE(unsigned short, 0.0, 65536.0, 0, 65535)
OPENHIP_INT_RANGE(int, -2147483648.0, 2147483648.0, -2147483647 - 1, 2147483647)
OPENHIP_INT_RANGE(unsigned int, 0.0, 4294967296.0, 0u, 4294967295u)
OPENHIP_INT_RANGE(long long, -9223372036854775808.0, 9223372036854775808.0,
                  -9223372036854775807LL - 1, 9223372036854775807LL)
OPENHIP_INT_RANGE(unsigned long long, 0.0, 18446744073709551616.0, 0ull,
                  18446744073709551615ull)
#undef OPENHIP_INT_RANGE

// Saturating, NaN -> 0 (as CUDA's and the CPU platform's conversions).
template <class I>
OPENHIP_FP_FN I to_int(float x, rounding m) {
    float r = m == rn ? rintf(x) : m == rz ? truncf(x) : m == ru ? ceilf(x) : floorf(x);
    if (r != r) return (I)0;
    if ((double)r <= int_range<I>::lo()) return int_range<I>::imin();
    if ((double)r >= int_range<I>::hi()) return int_range<I>::imax();
    return (I)r;
}

}  // namespace openhip_fp

#endif
