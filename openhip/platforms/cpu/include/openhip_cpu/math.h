// openhip CPU platform: the HIP device math library (float and double).
//
//  * The C99/C++ functions (expf, sinf, fmaf, ...) are the C library's, with the C++ overloads
//    (sqrt(float) -> float, ...) visible in the global namespace as in device code.  The engine
//    compiles with -fno-math-errno, so sqrtf/fabsf/floorf/fmaf/fminf/... become single
//    instructions and vectorise.  glibc's accuracy is <= 1-2 ulp where HIP documents 1-4 ulp.
//  * The GPU-only functions (rsqrtf, sinpif, erfinvf, normcdff, norm3df, rhypotf, ...) are
//    defined here; float versions compute in double, so they are correctly rounded or within
//    1 ulp.
//  * The fast intrinsics (__expf, __sinf, __powf, ...) are the accurate functions (a GPU's
//    approximations are less accurate; results can differ from a GPU's in the last bits).
//  * The rounding-mode intrinsics (__fadd_rz, __dmul_ru, __fmaf_rd, __fsqrt_ru, ...) are exact:
//    _rn ones are plain IEEE operations kept from FMA contraction, directed ones run with the
//    FPU's rounding mode set for the one operation.
//  * min/max overloads for every integer and floating type, umin/umax/llmin/llmax/ullmin/ullmax.
#pragma once

#include <math.h>  // libstdc++'s <math.h>: <cmath> plus `using std::sqrt; ...` into ::

#include "lang_base.h"

namespace openhip {
namespace lang {
constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrt2 = 1.41421356237309504880;

// sin(pi x) and cos(pi x) with exact argument reduction.  q = quadrant, f in [-1/4, 1/4].
inline void sincospi_d(double x, double* s, double* c) {
  if (!__builtin_isfinite(x)) {
    *s = *c = __builtin_nan("");
    return;
  }
  const double ax = __builtin_fabs(x);
  if (ax >= 4503599627370496.0) {  // 2^52: x is an even or odd integer, f = 0
    const bool odd = ax < 9007199254740992.0 && __builtin_fmod(ax, 2.0) == 1.0;
    *s = __builtin_copysign(0.0, x);
    *c = odd ? -1.0 : 1.0;
    return;
  }
  const double r = __builtin_remainder(x, 2.0);  // exact, in [-1, 1]
  const double n = __builtin_rint(2.0 * r);      // -2 .. 2
  const double f = r - 0.5 * n;                  // exact, |f| <= 1/4
  const double sf = __builtin_sin(kPi * f), cf = __builtin_cos(kPi * f);
  switch (((int)n) & 3) {
    case 0: *s = sf; *c = cf; break;
    case 1: *s = cf; *c = -sf; break;
    case 2: *s = -sf; *c = -cf; break;
    default: *s = -cf; *c = sf; break;
  }
  if (*s == 0.0) *s = __builtin_copysign(0.0, x);  // sinpi(+-n) = +-0
  if (*c == 0.0) *c = 0.0;                          // cospi(n + 1/2) = +0
}

inline double erfcx_(double x);
// erfinv / erfcinv: Giles' single-precision approximation as the first guess, then Newton steps
// on erf (|y| < 1/2) or erfc (t = 1 - |y| computed exactly or given) in double.
inline double erfinv_core(double y, double t /* = 1 - |y|, accurate */) {
  const double ay = __builtin_fabs(y);
  double w = -__builtin_log(t * (2.0 - t));  // -log((1-|y|)(1+|y|))
  double p;
  if (w < 6.25) {
    w -= 3.125;
    p = -3.6444120640178196996e-21;
    p = -1.685059138182016589e-19 + p * w;
    p = 1.2858480715256400167e-18 + p * w;
    p = 1.115787767802518096e-17 + p * w;
    p = -1.333171662854620906e-16 + p * w;
    p = 2.0972767875968561637e-17 + p * w;
    p = 6.6376381343583238325e-15 + p * w;
    p = -4.0545662729752068639e-14 + p * w;
    p = -8.1519341976054721522e-14 + p * w;
    p = 2.6335093153082322977e-12 + p * w;
    p = -1.2975133253453532498e-11 + p * w;
    p = -5.4154120542946279317e-11 + p * w;
    p = 1.051212273321532285e-09 + p * w;
    p = -4.1126339803469836976e-09 + p * w;
    p = -2.9070369957882005086e-08 + p * w;
    p = 4.2347877827932403518e-07 + p * w;
    p = -1.3654692000834678645e-06 + p * w;
    p = -1.3882523362786468719e-05 + p * w;
    p = 0.0001867342080340571352 + p * w;
    p = -0.00074070253416626697512 + p * w;
    p = -0.0060336708714301490533 + p * w;
    p = 0.24015818242558961693 + p * w;
    p = 1.6536545626831027356 + p * w;
  } else if (w < 16.0) {
    w = __builtin_sqrt(w) - 3.25;
    p = 2.2137376921775787049e-09;
    p = 9.0756561938885390979e-08 + p * w;
    p = -2.7517406297064545428e-07 + p * w;
    p = 1.8239629214389227755e-08 + p * w;
    p = 1.5027403968909827627e-06 + p * w;
    p = -4.013867526981545969e-06 + p * w;
    p = 2.9234449089955446044e-06 + p * w;
    p = 1.2475304481671778723e-05 + p * w;
    p = -4.7318229009055733981e-05 + p * w;
    p = 6.8284851459573175448e-05 + p * w;
    p = 2.4031110387097893999e-05 + p * w;
    p = -0.0003550375203628474796 + p * w;
    p = 0.00095328937973738049703 + p * w;
    p = -0.0016882755560235047313 + p * w;
    p = 0.0024914420961078508066 + p * w;
    p = -0.0037512085075692412107 + p * w;
    p = 0.005370914553590063617 + p * w;
    p = 1.0052589676941592334 + p * w;
    p = 3.0838856104922207635 + p * w;
  } else {
    w = __builtin_sqrt(w) - 5.0;
    p = -2.7109920616438573243e-11;
    p = -2.5556418169965252055e-10 + p * w;
    p = 1.5076572693500548083e-09 + p * w;
    p = -3.7894654401267369937e-09 + p * w;
    p = 7.6157012080783393804e-09 + p * w;
    p = -1.4960026627149240478e-08 + p * w;
    p = 2.9147953450901080826e-08 + p * w;
    p = -6.7711997758452339498e-08 + p * w;
    p = 2.2900482228026654717e-07 + p * w;
    p = -9.9298272942317002539e-07 + p * w;
    p = 4.5260625972231537039e-06 + p * w;
    p = -1.9681778105531670567e-05 + p * w;
    p = 7.5995277030017761139e-05 + p * w;
    p = -0.00021503011930044477347 + p * w;
    p = -0.00013871931833623122026 + p * w;
    p = 1.0103004648645343977 + p * w;
    p = 4.8499064014085844221 + p * w;
  }
  double x = p * ay;
  const double k = 1.1283791670955125739;  // 2/sqrt(pi)
  if (t < 1e-8 && ay >= 0.5) {
    // Far tail: Giles' polynomial is only valid for float arguments and exp(-x^2) underflows, so
    // start from the asymptotic erfc(x) ~ exp(-x^2)/(x sqrt(pi)) and run Newton on
    // log(erfc(x)) - log(t) = log(erfcx(x)) - x^2 - log(t), whose slope is -k / erfcx(x).
    const double lt = __builtin_log(t);
    x = __builtin_sqrt(-lt);
    for (int i = 0; i < 4; ++i) x = __builtin_sqrt(-lt - __builtin_log(x * 1.7724538509055160273));
    for (int i = 0; i < 3; ++i) {
      const double ex = erfcx_(x);
      x += (__builtin_log(ex) - x * x - lt) * ex / k;
    }
    return __builtin_copysign(x, y);
  }
  // Newton refinement on the better-conditioned of erf / erfc.
  for (int i = 0; i < 2; ++i) {
    const double d = k * __builtin_exp(-x * x);
    if (d == 0.0) break;
    const double e = ay < 0.5 ? (__builtin_erf(x) - ay) : (t - __builtin_erfc(x));
    x -= e / d;
  }
  return __builtin_copysign(x, y);
}

// cbrt within CUDA's documented 1 ulp: glibc's cbrt is up to ~3 ulp off (2.73 ulp at
// x = 706266.1599380902).  pow's estimate, then one Newton step on a residual y^3 - x computed
// with FMA error terms (scaled away from overflow and the subnormal range).
inline double cbrt_d(double x) noexcept {
  const double ax = __builtin_fabs(x);
  if (!(ax > 0.0) || ax == __builtin_inf()) return x + x;  // 0, inf, NaN as themselves
  double scale = 1.0, a = ax;
  if (a > 0x1p900) {
    a *= 0x1p-900;
    scale = 0x1p300;
  } else if (a < 0x1p-900) {
    a *= 0x1p900;
    scale = 0x1p-300;
  }
  double y = __builtin_pow(a, 1.0 / 3.0);
  const double y2 = y * y, e2 = __builtin_fma(y, y, -y2);
  const double y3 = y2 * y, e3 = __builtin_fma(y2, y, -y3);
  const double r = (y3 - a) + (e3 + e2 * y);
  y -= r / (3.0 * y2);
  return __builtin_copysign(y * scale, x);
}
}  // namespace lang
}  // namespace openhip

// ---------------------------------------------------------------------------------------------
// GPU-only functions, double.
inline double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
// ::cbrt(double) in a kernel's object is openhip's (a local, hidden definition, as abort() is in
// intrinsics.h): calls from the kernel bind to it, the rest of the process keeps the C library's.
#if defined(__ELF__) && !defined(OPENHIP_CPU_NO_MATH_OVERRIDE)
#if defined(__clang__)
extern "C" __attribute__((weak, visibility("hidden"))) double cbrt(double x) noexcept {
  return openhip::lang::cbrt_d(x);
}
#else
__asm__(".weak cbrt\n\t.hidden cbrt");
extern "C" double cbrt(double x) noexcept { return openhip::lang::cbrt_d(x); }
#endif
#endif
inline double rcbrt(double x) { return 1.0 / openhip::lang::cbrt_d(x); }
inline double sinpi(double x) {
  double s, c;
  openhip::lang::sincospi_d(x, &s, &c);
  return s;
}
inline double cospi(double x) {
  double s, c;
  openhip::lang::sincospi_d(x, &s, &c);
  return c;
}
inline void sincospi(double x, double* s, double* c) { openhip::lang::sincospi_d(x, s, c); }
inline double erfinv(double y) {
  if (!(__builtin_fabs(y) < 1.0)) {
    if (y == 1.0) return __builtin_inf();
    if (y == -1.0) return -__builtin_inf();
    return __builtin_nan("");
  }
  if (y == 0.0) return y;
  return openhip::lang::erfinv_core(y, 1.0 - __builtin_fabs(y));
}
inline double erfcinv(double y) {  // erfcinv(y) = erfinv(1 - y), accurate for small y
  if (!(y > 0.0 && y < 2.0)) {
    if (y == 0.0) return __builtin_inf();
    if (y == 2.0) return -__builtin_inf();
    return __builtin_nan("");
  }
  if (y <= 1.0) {
    if (y == 1.0) return 0.0;
    return openhip::lang::erfinv_core(1.0 - y, y);  // t = 1 - |1-y| = y exactly
  }
  return -openhip::lang::erfinv_core(y - 1.0, 2.0 - y);
}
inline double erfcx(double x) {  // exp(x^2) * erfc(x)
  if (__builtin_isnan(x)) return x;
  if (x < 0.0) {  // erfcx(x) = exp(x^2) (2 - erfc(-x))
    if (x < -26.7) return __builtin_inf();
    const double hi = x * x, lo = __builtin_fma(x, x, -hi);
    return __builtin_exp(hi) * (1.0 + lo) * (2.0 - __builtin_erfc(-x));
  }
  if (x < 26.0) {
    const double hi = x * x, lo = __builtin_fma(x, x, -hi);
    return __builtin_exp(hi) * (1.0 + lo) * __builtin_erfc(x);
  }
  // asymptotic series: 1/(x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2x^2)^k
  const double r = 0.5 / (x * x);
  double sum = 1.0, term = 1.0;
  for (int k = 1; k < 16; ++k) {
    term *= -(2.0 * k - 1.0) * r;
    sum += term;
  }
  return 0.56418958354775628695 / x * sum;
}
namespace openhip {
namespace lang {
inline double erfcx_(double x) { return ::erfcx(x); }
}  // namespace lang
}  // namespace openhip
// normcdf(x) = erfc(-x/sqrt(2))/2.  In the tail erfc amplifies the rounding of -x/sqrt(2) by
// ~2t^2, so the argument is split into hi + lo and erfc corrected to first order.
inline double normcdf(double x) {
  const double c_hi = 0.70710678118654757, c_lo = -4.8336466567264567e-17;  // 1/sqrt(2)
  const double t = -x;
  const double hi = t * c_hi;
  const double lo = __builtin_fma(t, c_hi, -hi) + t * c_lo;
  const double e = __builtin_erfc(hi);
  return 0.5 * (e - lo * 1.1283791670955125739 * __builtin_exp(-hi * hi));
}
inline double normcdfinv(double y) { return -openhip::lang::kSqrt2 * erfcinv(2.0 * y); }
inline double rhypot(double x, double y) { return 1.0 / __builtin_hypot(x, y); }
// Euclidean norms without spurious overflow/underflow: scale by a power of two (exact) taken from
// the largest component, so the only roundings are those of the sum of squares and the sqrt.
inline double norm_scaled(const double* p, int dim) {
  double m = 0.0;
  bool has_inf = false;
  for (int i = 0; i < dim; ++i) {
    has_inf |= __builtin_isinf(p[i]) != 0;
    m = __builtin_fmax(m, __builtin_fabs(p[i]));
  }
  if (has_inf) return __builtin_inf();
  if (m == 0.0 || __builtin_isnan(m)) {
    double s = 0.0;
    for (int i = 0; i < dim; ++i) s += p[i] * p[i];  // 0, or NaN
    return s;
  }
  const int e = __builtin_ilogb(m);
  double s = 0.0;
  for (int i = 0; i < dim; ++i) {
    const double v = __builtin_scalbn(p[i], -e);
    s = __builtin_fma(v, v, s);
  }
  return __builtin_scalbn(__builtin_sqrt(s), e);
}
inline double norm3d(double a, double b, double c) {
  const double p[3] = {a, b, c};
  return norm_scaled(p, 3);
}
inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
inline double norm4d(double a, double b, double c, double d) {
  const double p[4] = {a, b, c, d};
  return norm_scaled(p, 4);
}
inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
inline double norm(int dim, const double* p) { return norm_scaled(p, dim); }
inline double rnorm(int dim, const double* p) { return 1.0 / norm(dim, p); }
// Modified Bessel functions of the first kind, orders 0 and 1: power series (|x| < 30) or
// asymptotic series, evaluated in long double so that the double result is within a few ulp.
inline double cyl_bessel_i0(double x) {
  const long double ax = __builtin_fabsl((long double)x);
  if (ax < 30.0L) {
    long double term = 1.0L, sum = 1.0L;
    const long double q = 0.25L * ax * ax;
    for (int k = 1; k < 200 && term > sum * 1e-21L; ++k) {
      term *= q / ((long double)k * k);
      sum += term;
    }
    return (double)sum;
  }
  long double sum = 1.0L, term = 1.0L;
  for (int k = 1; k < 40; ++k) {
    term *= (2.0L * k - 1) * (2.0L * k - 1) / (8.0L * k * ax);
    sum += term;
  }
  return (double)(__builtin_expl(ax) / __builtin_sqrtl(2.0L * 3.14159265358979323846264338L * ax) * sum);
}
inline double cyl_bessel_i1(double x) {
  const long double ax = __builtin_fabsl((long double)x);
  long double r;
  if (ax < 30.0L) {
    long double term = 0.5L * ax, sum = term;
    const long double q = 0.25L * ax * ax;
    for (int k = 1; k < 200 && term > sum * 1e-21L; ++k) {
      term *= q / ((long double)k * (k + 1));
      sum += term;
    }
    r = sum;
  } else {
    long double sum = 1.0L, term = 1.0L;
    for (int k = 1; k < 40; ++k) {
      term *= -(4.0L - (2.0L * k - 1) * (2.0L * k - 1)) / (8.0L * k * ax);
      sum += term;
    }
    r = __builtin_expl(ax) / __builtin_sqrtl(2.0L * 3.14159265358979323846264338L * ax) * sum;
  }
  return x < 0 ? -(double)r : (double)r;
}

// ---------------------------------------------------------------------------------------------
// GPU-only functions, float (computed in double, rounded once).
inline float rsqrtf(float x) { return (float)(1.0 / __builtin_sqrt((double)x)); }
inline float rcbrtf(float x) { return (float)(1.0 / __builtin_cbrt((double)x)); }
inline float sinpif(float x) { return (float)sinpi((double)x); }
inline float cospif(float x) { return (float)cospi((double)x); }
inline void sincospif(float x, float* s, float* c) {
  double sd, cd;
  openhip::lang::sincospi_d(x, &sd, &cd);
  *s = (float)sd;
  *c = (float)cd;
}
inline float erfinvf(float y) { return (float)erfinv((double)y); }
inline float erfcinvf(float y) { return (float)erfcinv((double)y); }
inline float erfcxf(float x) { return (float)erfcx((double)x); }
inline float normcdff(float x) { return (float)normcdf((double)x); }
inline float normcdfinvf(float y) { return (float)normcdfinv((double)y); }
inline float rhypotf(float x, float y) { return (float)(1.0 / __builtin_hypot((double)x, (double)y)); }
inline float norm3df(float a, float b, float c) { return (float)norm3d(a, b, c); }
inline float rnorm3df(float a, float b, float c) { return (float)(1.0 / norm3d(a, b, c)); }
inline float norm4df(float a, float b, float c, float d) { return (float)norm4d(a, b, c, d); }
inline float rnorm4df(float a, float b, float c, float d) { return (float)(1.0 / norm4d(a, b, c, d)); }
inline float normf(int dim, const float* p) {
  double m = 0.0;
  for (int i = 0; i < dim; ++i) {
    if (__builtin_isinf(p[i])) return __builtin_inff();
    m = __builtin_fmax(m, __builtin_fabs((double)p[i]));
  }
  if (m == 0.0 || __builtin_isnan(m)) return (float)m;
  double s = 0.0;
  for (int i = 0; i < dim; ++i) s += ((double)p[i] / m) * ((double)p[i] / m);
  return (float)(m * __builtin_sqrt(s));
}
inline float rnormf(int dim, const float* p) { return 1.0f / normf(dim, p); }
inline float cyl_bessel_i0f(float x) { return (float)cyl_bessel_i0(x); }
inline float cyl_bessel_i1f(float x) { return (float)cyl_bessel_i1(x); }
OPENHIP_LANG_FN float fdividef(float x, float y) { return x / y; }
#if !defined(__GLIBC__) || !defined(__USE_GNU)
inline float exp10f(float x) { return __builtin_powf(10.0f, x); }
inline double exp10(double x) { return __builtin_pow(10.0, x); }
inline void sincosf(float x, float* s, float* c) { *s = __builtin_sinf(x); *c = __builtin_cosf(x); }
inline void sincos(double x, double* s, double* c) { *s = __builtin_sin(x); *c = __builtin_cos(x); }
#endif
// Overloads of the above for the other type, as HIP's device headers have them.
inline float rsqrt(float x) { return rsqrtf(x); }
inline float rcbrt(float x) { return rcbrtf(x); }
inline float sinpi(float x) { return sinpif(x); }
inline float cospi(float x) { return cospif(x); }
inline float erfinv(float x) { return erfinvf(x); }
inline float erfcinv(float x) { return erfcinvf(x); }
inline float erfcx(float x) { return erfcxf(x); }
inline float normcdf(float x) { return normcdff(x); }
inline float normcdfinv(float x) { return normcdfinvf(x); }
inline float rhypot(float x, float y) { return rhypotf(x, y); }
inline float norm3d(float a, float b, float c) { return norm3df(a, b, c); }
inline float rnorm3d(float a, float b, float c) { return rnorm3df(a, b, c); }
inline float norm4d(float a, float b, float c, float d) { return norm4df(a, b, c, d); }
inline float rnorm4d(float a, float b, float c, float d) { return rnorm4df(a, b, c, d); }

// ---------------------------------------------------------------------------------------------
// Fast intrinsics (accurate implementations).
OPENHIP_LANG_FN float __expf(float x) { return __builtin_expf(x); }
OPENHIP_LANG_FN float __exp10f(float x) { return (float)__builtin_pow(10.0, (double)x); }
OPENHIP_LANG_FN float __logf(float x) { return __builtin_logf(x); }
OPENHIP_LANG_FN float __log2f(float x) { return __builtin_log2f(x); }
OPENHIP_LANG_FN float __log10f(float x) { return __builtin_log10f(x); }
OPENHIP_LANG_FN float __sinf(float x) { return __builtin_sinf(x); }
OPENHIP_LANG_FN float __cosf(float x) { return __builtin_cosf(x); }
OPENHIP_LANG_FN float __tanf(float x) { return __builtin_tanf(x); }
OPENHIP_LANG_FN void __sincosf(float x, float* s, float* c) {
  *s = __builtin_sinf(x);
  *c = __builtin_cosf(x);
}
OPENHIP_LANG_FN float __powf(float x, float y) { return __builtin_powf(x, y); }
OPENHIP_LANG_FN float __frsqrt_rn(float x) { return (float)(1.0 / __builtin_sqrt((double)x)); }

// ---------------------------------------------------------------------------------------------
// Arithmetic with a rounding mode.  _rn: IEEE operation, never contracted into an FMA.
namespace openhip {
namespace lang {
template <class T>
OPENHIP_LANG_FN T rn(T v) { return opaque(v); }
}  // namespace lang
}  // namespace openhip

#define OPENHIP_LANG_ROUNDED2(NAME, T, EXPR)                                                   \
  OPENHIP_LANG_FN T NAME##_rn(T a, T b) {                                                      \
    a = openhip::lang::opaque(a);                                                              \
    b = openhip::lang::opaque(b);                                                              \
    return openhip::lang::opaque((T)(EXPR));                                                   \
  }                                                                                            \
  inline T NAME##_rz(T a, T b) {                                                               \
    return openhip::lang::with_rounding(openhip::lang::rounding::rz, [&] {                     \
      a = openhip::lang::opaque_mem(a); b = openhip::lang::opaque_mem(b); return (T)(EXPR); }); \
  }                                                                                            \
  inline T NAME##_ru(T a, T b) {                                                               \
    return openhip::lang::with_rounding(openhip::lang::rounding::ru, [&] {                     \
      a = openhip::lang::opaque_mem(a); b = openhip::lang::opaque_mem(b); return (T)(EXPR); }); \
  }                                                                                            \
  inline T NAME##_rd(T a, T b) {                                                               \
    return openhip::lang::with_rounding(openhip::lang::rounding::rd, [&] {                     \
      a = openhip::lang::opaque_mem(a); b = openhip::lang::opaque_mem(b); return (T)(EXPR); }); \
  }
OPENHIP_LANG_ROUNDED2(__fadd, float, a + b)
OPENHIP_LANG_ROUNDED2(__fsub, float, a - b)
OPENHIP_LANG_ROUNDED2(__fmul, float, a * b)
OPENHIP_LANG_ROUNDED2(__fdiv, float, a / b)
OPENHIP_LANG_ROUNDED2(__dadd, double, a + b)
OPENHIP_LANG_ROUNDED2(__dsub, double, a - b)
OPENHIP_LANG_ROUNDED2(__dmul, double, a * b)
OPENHIP_LANG_ROUNDED2(__ddiv, double, a / b)
#undef OPENHIP_LANG_ROUNDED2

#define OPENHIP_LANG_ROUNDED1(NAME, T, EXPR)                                                   \
  OPENHIP_LANG_FN T NAME##_rn(T a) {                                                           \
    a = openhip::lang::opaque(a);                                                              \
    return openhip::lang::opaque((T)(EXPR));                                                   \
  }                                                                                            \
  inline T NAME##_rz(T a) {                                                                    \
    return openhip::lang::with_rounding(openhip::lang::rounding::rz, [&] {                     \
      a = openhip::lang::opaque_mem(a); return (T)(EXPR); });                                  \
  }                                                                                            \
  inline T NAME##_ru(T a) {                                                                    \
    return openhip::lang::with_rounding(openhip::lang::rounding::ru, [&] {                     \
      a = openhip::lang::opaque_mem(a); return (T)(EXPR); });                                  \
  }                                                                                            \
  inline T NAME##_rd(T a) {                                                                    \
    return openhip::lang::with_rounding(openhip::lang::rounding::rd, [&] {                     \
      a = openhip::lang::opaque_mem(a); return (T)(EXPR); });                                  \
  }
OPENHIP_LANG_ROUNDED1(__fsqrt, float, __builtin_sqrtf(a))
OPENHIP_LANG_ROUNDED1(__frcp, float, 1.0f / a)
OPENHIP_LANG_ROUNDED1(__dsqrt, double, __builtin_sqrt(a))
OPENHIP_LANG_ROUNDED1(__drcp, double, 1.0 / a)
#undef OPENHIP_LANG_ROUNDED1

#define OPENHIP_LANG_ROUNDED3(NAME, T, FMA)                                                    \
  OPENHIP_LANG_FN T NAME##_rn(T a, T b, T c) { return FMA(a, b, c); }                          \
  inline T NAME##_rz(T a, T b, T c) {                                                          \
    return openhip::lang::with_rounding(openhip::lang::rounding::rz, [&] {                     \
      a = openhip::lang::opaque_mem(a); b = openhip::lang::opaque_mem(b);                      \
      c = openhip::lang::opaque_mem(c); return FMA(a, b, c); });                               \
  }                                                                                            \
  inline T NAME##_ru(T a, T b, T c) {                                                          \
    return openhip::lang::with_rounding(openhip::lang::rounding::ru, [&] {                     \
      a = openhip::lang::opaque_mem(a); b = openhip::lang::opaque_mem(b);                      \
      c = openhip::lang::opaque_mem(c); return FMA(a, b, c); });                               \
  }                                                                                            \
  inline T NAME##_rd(T a, T b, T c) {                                                          \
    return openhip::lang::with_rounding(openhip::lang::rounding::rd, [&] {                     \
      a = openhip::lang::opaque_mem(a); b = openhip::lang::opaque_mem(b);                      \
      c = openhip::lang::opaque_mem(c); return FMA(a, b, c); });                               \
  }
OPENHIP_LANG_ROUNDED3(__fmaf, float, __builtin_fmaf)
OPENHIP_LANG_ROUNDED3(__fma, double, __builtin_fma)
#undef OPENHIP_LANG_ROUNDED3
OPENHIP_LANG_FN float __fmaf_ieee_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }

// ---------------------------------------------------------------------------------------------
// min / max (CUDA's and HIP's overload set; mixed signedness gives the unsigned type).
#define OPENHIP_LANG_MINMAX(R, A, B)                                              \
  OPENHIP_LANG_FN R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }           \
  OPENHIP_LANG_FN R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
OPENHIP_LANG_MINMAX(int, int, int)
OPENHIP_LANG_MINMAX(unsigned int, unsigned int, unsigned int)
OPENHIP_LANG_MINMAX(unsigned int, int, unsigned int)
OPENHIP_LANG_MINMAX(unsigned int, unsigned int, int)
OPENHIP_LANG_MINMAX(long, long, long)
OPENHIP_LANG_MINMAX(unsigned long, unsigned long, unsigned long)
OPENHIP_LANG_MINMAX(unsigned long, long, unsigned long)
OPENHIP_LANG_MINMAX(unsigned long, unsigned long, long)
OPENHIP_LANG_MINMAX(long long, long long, long long)
OPENHIP_LANG_MINMAX(unsigned long long, unsigned long long, unsigned long long)
OPENHIP_LANG_MINMAX(unsigned long long, long long, unsigned long long)
OPENHIP_LANG_MINMAX(unsigned long long, unsigned long long, long long)
#undef OPENHIP_LANG_MINMAX
OPENHIP_LANG_FN float min(float a, float b) { return __builtin_fminf(a, b); }
OPENHIP_LANG_FN float max(float a, float b) { return __builtin_fmaxf(a, b); }
OPENHIP_LANG_FN double min(double a, double b) { return __builtin_fmin(a, b); }
OPENHIP_LANG_FN double max(double a, double b) { return __builtin_fmax(a, b); }
OPENHIP_LANG_FN double min(float a, double b) { return __builtin_fmin((double)a, b); }
OPENHIP_LANG_FN double max(float a, double b) { return __builtin_fmax((double)a, b); }
OPENHIP_LANG_FN double min(double a, float b) { return __builtin_fmin(a, (double)b); }
OPENHIP_LANG_FN double max(double a, float b) { return __builtin_fmax(a, (double)b); }
OPENHIP_LANG_FN unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
OPENHIP_LANG_FN unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
OPENHIP_LANG_FN long long llmin(long long a, long long b) { return a < b ? a : b; }
OPENHIP_LANG_FN long long llmax(long long a, long long b) { return a > b ? a : b; }
OPENHIP_LANG_FN unsigned long long ullmin(unsigned long long a, unsigned long long b) {
  return a < b ? a : b;
}
OPENHIP_LANG_FN unsigned long long ullmax(unsigned long long a, unsigned long long b) {
  return a > b ? a : b;
}
