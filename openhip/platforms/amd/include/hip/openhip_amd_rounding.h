// openhip (AMD): CUDA's directed-rounding arithmetic (__fadd_rz, __dmul_ru, __fma_rd, ...) for
// ROCm releases whose HIP lacks it (5.x declares only the _rn forms and its device libraries have
// no directed-rounding OCML functions).
//
// Each result is the round-to-nearest result corrected by one step toward the exact value when
// the exact value lies on the other side: the exact error comes from error-free transformations
// (TwoSum; products and quotients through fma residuals; float operations through double). Float
// operations (sqrt and rcp too) and double add/sub/mul/div/sqrt/rcp are exact (residuals on operands scaled to
// exponent 0); double fma decides the direction from a residual summed in double and can
// misround when its result is subnormal (about 1 case in 10^4 of a test spanning all exponents). Templates with a defaulted parameter, so a HIP
// that declares the plain functions wins overload resolution.
#pragma once
#ifndef OPENHIP_AMD_ROUNDING_H
#define OPENHIP_AMD_ROUNDING_H

namespace openhip_rnd {
enum mode { rz, ru, rd };

__device__ inline float next_up(float x) {
    if (x != x || x == __builtin_huge_valf()) return x;
    if (x == 0.0f) return __builtin_bit_cast(float, 1u);
    const unsigned u = __builtin_bit_cast(unsigned, x);
    return __builtin_bit_cast(float, x > 0.0f ? u + 1u : u - 1u);
}
__device__ inline float next_down(float x) { return -next_up(-x); }
__device__ inline double next_up(double x) {
    if (x != x || x == __builtin_huge_val()) return x;
    if (x == 0.0) return __builtin_bit_cast(double, 1ull);
    const unsigned long long u = __builtin_bit_cast(unsigned long long, x);
    return __builtin_bit_cast(double, x > 0.0 ? u + 1ull : u - 1ull);
}
__device__ inline double next_down(double x) { return -next_up(-x); }

// r is the round-to-nearest result, err_sign the sign of (exact - r).
template <typename T>
__device__ inline T fix(T r, int err_sign, mode m) {
    if (err_sign == 0 || r != r) return r;
    if (m == ru) return err_sign > 0 ? next_up(r) : r;
    if (m == rd) return err_sign < 0 ? next_down(r) : r;
    // toward zero: step back when the nearest result is farther from zero than the exact one
    if (r > 0 && err_sign < 0) return next_down(r);
    if (r < 0 && err_sign > 0) return next_up(r);
    if (r == 0) return r;
    return r;
}
__device__ inline int sgn(double v) { return (v > 0) - (v < 0); }

// float: the exact value as hi + lo in double (|lo| tiny), rounded to float in mode m
__device__ inline float to_float(double hi, double lo, mode m) {
    const float f = (float)hi;
    if (f != f) return f;
    int err;  // sign of (exact - f)
    if ((double)f == hi) err = sgn(lo);
    else err = (double)f < hi ? 1 : -1;
    return fix(f, err, m);
}
__device__ inline void two_sum(double a, double b, double& s, double& e) {
    s = a + b;
    const double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}
// An exact zero sum is -0 when rounding down (IEEE 754), unless both addends are +0.
__device__ inline bool zero_sum_is_negative(double a, double b, mode m) {
    if (m != rd) return __builtin_signbit(a) && __builtin_signbit(b);
    return !(a == 0 && b == 0 && !__builtin_signbit(a) && !__builtin_signbit(b));
}
__device__ inline float fadd(float a, float b, mode m) {
    double s, e;
    two_sum((double)a, (double)b, s, e);
    if (s == 0 && e == 0) return zero_sum_is_negative(a, b, m) ? -0.0f : 0.0f;
    return to_float(s, e, m);
}
__device__ inline float fmul(float a, float b, mode m) { return to_float((double)a * (double)b, 0.0, m); }
__device__ inline float fdiv(float a, float b, mode m) {
    const double q = (double)a / (double)b;
    const double r = __builtin_fma(-q, (double)b, (double)a);
    return to_float(q, (double)(sgn(r) * sgn((double)b)) * 0x1p-1074, m);
}
// The double square root of a float is exact to 53 bits and its fma residual exact.
__device__ inline float fsqrt(float a, mode m) {
    const double s = __builtin_sqrt((double)a);
    if (!(a > 0.0f) || __builtin_isinf(a)) return (float)s;
    return to_float(s, (double)sgn(__builtin_fma(-s, s, (double)a)) * 0x1p-1074, m);
}
__device__ inline float ffma(float a, float b, float c, mode m) {
    double s, e;
    const double p = (double)a * (double)b;
    two_sum(p, (double)c, s, e);
    if (s == 0 && e == 0) return zero_sum_is_negative(p, c, m) ? -0.0f : 0.0f;
    return to_float(s, e, m);
}

// double: round-to-nearest result plus the sign of its error
__device__ inline double dresult(double r, int err_sign, bool finite_operands, mode m) {
    if (__builtin_isinf(r) && finite_operands) {  // overflowed to infinity
        const bool up = r > 0 ? (m == ru) : (m == rd);
        return up ? r : (r > 0 ? 1.7976931348623157e308 : -1.7976931348623157e308);
    }
    return fix(r, err_sign, m);
}
__device__ inline bool fin(double x) { return !__builtin_isinf(x) && x == x; }
__device__ inline double dadd(double a, double b, mode m) {
    double s, e;
    two_sum(a, b, s, e);
    if (s == 0 && e == 0 && fin(a) && fin(b)) return zero_sum_is_negative(a, b, m) ? -0.0 : 0.0;
    return dresult(s, sgn(e), fin(a) && fin(b), m);
}
// Residuals are computed on operands scaled to exponent 0 (exact), so they stay exact when the
// result or the residual itself would be subnormal.
__device__ inline bool plain(double x) { return fin(x) && x != 0.0; }
__device__ inline double dmul(double a, double b, mode m) {
    const double p = a * b;
    if (!plain(a) || !plain(b)) return dresult(p, 0, fin(a) && fin(b), m);
    const int ea = ilogb(a), eb = ilogb(b);
    const double r = __builtin_fma(ldexp(a, -ea), ldexp(b, -eb), -ldexp(p, -(ea + eb)));
    return dresult(p, sgn(r), true, m);
}
__device__ inline double ddiv(double a, double b, mode m) {
    const double q = a / b;
    if (!plain(a) || !plain(b)) return dresult(q, 0, fin(a) && fin(b) && b != 0.0, m);
    const int ea = ilogb(a), eb = ilogb(b);
    const double B = ldexp(b, -eb);
    const double r = __builtin_fma(-ldexp(q, eb - ea), B, ldexp(a, -ea));
    return dresult(q, sgn(r) * sgn(B), true, m);
}
__device__ inline double dsqrt(double a, mode m) {
    const double s = __builtin_sqrt(a);
    if (!plain(a) || a < 0) return s;
    const int e = ilogb(a) & ~1;  // even, so the square root scales by 2^(e/2) exactly
    const double S = ldexp(s, -e / 2);
    return fix(s, sgn(__builtin_fma(-S, S, ldexp(a, -e))), m);
}
__device__ inline double dfma(double a, double b, double c, mode m) {
    const double r = __builtin_fma(a, b, c);
    if (!fin(r) || !fin(a) || !fin(b) || !fin(c)) return dresult(r, 0, fin(a) && fin(b) && fin(c), m);
    const double p = a * b, pe = __builtin_fma(a, b, -p);
    double s, se;
    two_sum(p, c, s, se);
    if (r == 0 && s == 0 && se == 0 && pe == 0) return zero_sum_is_negative(p, c, m) ? -0.0 : 0.0;
    int err = sgn(((s - r) + se) + pe);
    // a product far below c's precision can vanish from the residual: its sign decides
    if (err == 0 && a != 0 && b != 0 && r == c && __builtin_fabs(p) < 0x1p-900)
        err = sgn(a) * sgn(b);
    return dresult(r, err, true, m);
}
}  // namespace openhip_rnd

#define OPENHIP_RND_FN template <typename OpenhipT = void> __device__ inline
#define OPENHIP_RND3(NAME, T, IMPL)                                                            \
    OPENHIP_RND_FN T NAME##_rz(T a, T b) { return openhip_rnd::IMPL(a, b, openhip_rnd::rz); } \
    OPENHIP_RND_FN T NAME##_ru(T a, T b) { return openhip_rnd::IMPL(a, b, openhip_rnd::ru); } \
    OPENHIP_RND_FN T NAME##_rd(T a, T b) { return openhip_rnd::IMPL(a, b, openhip_rnd::rd); }
OPENHIP_RND3(__fadd, float, fadd)
OPENHIP_RND3(__fmul, float, fmul)
OPENHIP_RND3(__fdiv, float, fdiv)
OPENHIP_RND3(__dadd, double, dadd)
OPENHIP_RND3(__dmul, double, dmul)
OPENHIP_RND3(__ddiv, double, ddiv)
#undef OPENHIP_RND3
#define OPENHIP_RND_MODES(BODY)                                                                \
    BODY(rz, openhip_rnd::rz) BODY(ru, openhip_rnd::ru) BODY(rd, openhip_rnd::rd)
#define OPENHIP_RND_SUB(S, M)                                                                  \
    OPENHIP_RND_FN float __fsub_##S(float a, float b) { return openhip_rnd::fadd(a, -b, M); }  \
    OPENHIP_RND_FN double __dsub_##S(double a, double b) { return openhip_rnd::dadd(a, -b, M); } \
    OPENHIP_RND_FN float __fmaf_##S(float a, float b, float c) { return openhip_rnd::ffma(a, b, c, M); } \
    OPENHIP_RND_FN double __fma_##S(double a, double b, double c) { return openhip_rnd::dfma(a, b, c, M); } \
    OPENHIP_RND_FN double __dsqrt_##S(double a) { return openhip_rnd::dsqrt(a, M); }           \
    OPENHIP_RND_FN double __drcp_##S(double a) { return openhip_rnd::ddiv(1.0, a, M); }       \
    OPENHIP_RND_FN float __fsqrt_##S(float a) { return openhip_rnd::fsqrt(a, M); }             \
    OPENHIP_RND_FN float __frcp_##S(float a) { return openhip_rnd::fdiv(1.0f, a, M); }
OPENHIP_RND_MODES(OPENHIP_RND_SUB)
#undef OPENHIP_RND_SUB
#undef OPENHIP_RND_MODES
#undef OPENHIP_RND_FN
#endif
