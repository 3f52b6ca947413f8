// openhip.numpy: the elementwise operations (structs with a static f() over the compute
// type). Semantics follow numpy and the Array API standard's special cases: integer
// arithmetic wraps, integer division by zero gives 0, shifts by >= the bit width give 0 (or
// -1 for a negative value shifted right), maximum/minimum propagate nan, round is half-to-even.
#pragma once
#include "common.h"
#include "vmath.h"

// ---- real math wrappers (float and double overloads) ------------------------------------
#define OH_F1(name, ff, fd)                                                   \
  __device__ __forceinline__ float name(float x) { return ff(x); }           \
  __device__ __forceinline__ double name(double x) { return fd(x); }
OH_F1(m_exp, oh_vexp, oh_vexp)  // vmath.h: vectorisable (libm's expf is a call)
OH_F1(m_expm1, expm1f, expm1)
OH_F1(m_log, oh_vlog, oh_vlog)
OH_F1(m_log1p, log1pf, log1p)
OH_F1(m_log2, log2f, log2)
OH_F1(m_log10, log10f, log10)
OH_F1(m_sqrt, sqrtf, sqrt)
OH_F1(m_sin, sinf, sin)
OH_F1(m_cos, cosf, cos)
OH_F1(m_tan, tanf, tan)
OH_F1(m_asin, asinf, asin)
OH_F1(m_acos, acosf, acos)
OH_F1(m_atan, atanf, atan)
OH_F1(m_sinh, sinhf, sinh)
OH_F1(m_cosh, coshf, cosh)
OH_F1(m_tanh, tanhf, tanh)
OH_F1(m_asinh, asinhf, asinh)
OH_F1(m_acosh, acoshf, acosh)
OH_F1(m_atanh, atanhf, atanh)
OH_F1(m_floor, floorf, floor)
OH_F1(m_ceil, ceilf, ceil)
OH_F1(m_trunc, truncf, trunc)
OH_F1(m_rint, rintf, rint)
OH_F1(m_fabs, fabsf, fabs)
#define OH_F2(name, ff, fd)                                                          \
  __device__ __forceinline__ float name(float x, float y) { return ff(x, y); }      \
  __device__ __forceinline__ double name(double x, double y) { return fd(x, y); }
OH_F2(m_atan2, atan2f, atan2)
OH_F2(m_pow, powf, pow)
OH_F2(m_hypot, hypotf, hypot)
OH_F2(m_copysign, copysignf, copysign)
OH_F2(m_nextafter, nextafterf, nextafter)
OH_F2(m_fmod, fmodf, fmod)

template <class T> __device__ __forceinline__ bool m_isnan(T x) { return x != x; }
template <class T> __device__ __forceinline__ T m_inf();
template <class T> __device__ __forceinline__ bool m_isinf(T x) {
  return m_fabs(x) == m_inf<T>();  // (x == x && x - x != x - x did not vectorise)
}
template <class T> __device__ __forceinline__ bool m_isfinite(T x) { return (x - x) == (x - x); }
__device__ __forceinline__ bool m_signbit(float x) { return (__float_as_int(x) >> 31) != 0; }
__device__ __forceinline__ bool m_signbit(double x) { return __double_as_longlong(x) < 0; }
template <class T> __device__ __forceinline__ T m_inf() { return (T)(1e300 * 1e300); }
template <class T> __device__ __forceinline__ T m_nan() { return m_inf<T>() - m_inf<T>(); }

// ---- type classes -------------------------------------------------------------------------
template <class T> struct oh_uint { typedef T U; };
template <> struct oh_uint<signed char> { typedef unsigned char U; };
template <> struct oh_uint<short> { typedef unsigned short U; };
template <> struct oh_uint<int> { typedef unsigned int U; };
template <> struct oh_uint<long long> { typedef unsigned long long U; };
template <class T> struct oh_isint { static const bool v = false; };
template <> struct oh_isint<bool> { static const bool v = true; };
template <> struct oh_isint<signed char> { static const bool v = true; };
template <> struct oh_isint<unsigned char> { static const bool v = true; };
template <> struct oh_isint<short> { static const bool v = true; };
template <> struct oh_isint<unsigned short> { static const bool v = true; };
template <> struct oh_isint<int> { static const bool v = true; };
template <> struct oh_isint<unsigned int> { static const bool v = true; };
template <> struct oh_isint<long long> { static const bool v = true; };
template <> struct oh_isint<unsigned long long> { static const bool v = true; };
template <class T> struct oh_issigned { static const bool v = T(-1) < T(0); };

// ---- complex arithmetic --------------------------------------------------------------------
template <class R> __device__ __forceinline__ ohc<R> operator+(ohc<R> a, ohc<R> b) {
  return mkc<R>(a.re + b.re, a.im + b.im);
}
template <class R> __device__ __forceinline__ ohc<R> operator-(ohc<R> a, ohc<R> b) {
  return mkc<R>(a.re - b.re, a.im - b.im);
}
template <class R> __device__ __forceinline__ ohc<R> operator-(ohc<R> a) {
  return mkc<R>(-a.re, -a.im);
}
template <class R> __device__ __forceinline__ ohc<R> operator*(ohc<R> a, ohc<R> b) {
  return mkc<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <class R> __device__ __forceinline__ ohc<R> operator/(ohc<R> a, ohc<R> b) {
  // Smith's algorithm (numpy's), which avoids overflow in the intermediate products
  R ar = m_fabs(b.re), ai = m_fabs(b.im);
  if (ar == 0 && ai == 0) return mkc<R>(a.re / ar, a.im / ai);
  if (ar >= ai) {
    R rat = b.im / b.re, scl = R(1) / (b.re + b.im * rat);
    return mkc<R>((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
  }
  R rat = b.re / b.im, scl = R(1) / (b.im + b.re * rat);
  return mkc<R>((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <class R> __device__ __forceinline__ bool operator==(ohc<R> a, ohc<R> b) {
  return a.re == b.re && a.im == b.im;
}
template <class R> __device__ __forceinline__ bool operator!=(ohc<R> a, ohc<R> b) {
  return !(a == b);
}
template <class R> __device__ __forceinline__ R c_abs(ohc<R> z) { return m_hypot(z.re, z.im); }
template <class R> __device__ __forceinline__ ohc<R> c_exp(ohc<R> z) {
  if (z.im == 0) return mkc<R>(m_exp(z.re), z.im);
  if (m_isinf(z.re)) {
    if (z.re < 0) {
      if (!m_isfinite(z.im)) return mkc<R>(R(0), R(0));
    } else if (!m_isfinite(z.im)) {
      return mkc<R>(z.re, m_nan<R>());
    }
  }
  R e = m_exp(z.re);
  return mkc<R>(e * m_cos(z.im), e * m_sin(z.im));
}
template <class R> __device__ __forceinline__ ohc<R> c_log(ohc<R> z) {
  return mkc<R>(m_log(c_abs(z)), m_atan2(z.im, z.re));
}
template <class R> __device__ __forceinline__ ohc<R> c_sqrt(ohc<R> z) {
  // Kahan's branch cuts: sqrt(conj z) = conj sqrt(z)
  R x = z.re, y = z.im;
  if (x == 0 && y == 0) return mkc<R>(R(0), y);
  if (m_isinf(y)) return mkc<R>(m_inf<R>(), y);
  if (m_isnan(x)) return mkc<R>(x, m_nan<R>());
  if (m_isinf(x)) {
    if (x > 0) return mkc<R>(x, m_isnan(y) ? y : m_copysign(R(0), y));
    return mkc<R>(m_isnan(y) ? m_fabs(y - y) : R(0), m_copysign(-x, y));
  }
  R t = m_sqrt((m_fabs(x) + c_abs(z)) * R(0.5));
  if (x >= 0) return mkc<R>(t, y / (2 * t));
  return mkc<R>(m_fabs(y) / (2 * t), m_copysign(t, y));
}
// sinh, cosh, tanh with C99 Annex G's special cases (the standard's), finite values by the
// textbook formulas
template <class R> __device__ __forceinline__ ohc<R> c_sinh(ohc<R> z) {
  const R x = z.re, y = z.im;
  if (m_isfinite(x) && m_isfinite(y)) {
    if (y == 0) return mkc<R>(m_sinh(x), y);
    return mkc<R>(m_sinh(x) * m_cos(y), m_cosh(x) * m_sin(y));
  }
  if (x == 0 && !m_isfinite(y)) return mkc<R>(x, y - y);
  if (y == 0 && !m_isfinite(x)) return mkc<R>(x, y);
  if (m_isinf(x)) {
    if (m_isfinite(y)) return mkc<R>(x * m_cos(y), m_inf<R>() * m_sin(y));
    return mkc<R>(x, y - y);
  }
  return mkc<R>(m_nan<R>(), m_nan<R>());
}
template <class R> __device__ __forceinline__ ohc<R> c_cosh(ohc<R> z) {
  const R x = z.re, y = z.im;
  if (m_isfinite(x) && m_isfinite(y)) {
    if (y == 0) return mkc<R>(m_cosh(x), m_sinh(x) * y);
    return mkc<R>(m_cosh(x) * m_cos(y), m_sinh(x) * m_sin(y));
  }
  if (x == 0 && !m_isfinite(y)) return mkc<R>(y - y, R(0));
  if (y == 0 && !m_isfinite(x)) return mkc<R>(x * x, R(0));
  if (m_isinf(x)) {
    if (m_isfinite(y)) return mkc<R>(m_inf<R>() * m_cos(y), x * m_sin(y));
    return mkc<R>(m_inf<R>(), y - y);
  }
  return mkc<R>(m_nan<R>(), m_nan<R>());
}
template <class R> __device__ __forceinline__ ohc<R> c_tanh(ohc<R> z) {
  const R x = z.re, y = z.im;
  if (m_isinf(x)) {
    // the standard: tanh(+infinity + yj) = 1 + 0j for a positive finite y (C99's
    // copysign(0, sin(2y)) gives -0 where sin(2y) < 0); conjugation and oddness give the rest
    R im = m_copysign(R(0), y);
    if (m_isnan(y)) im = R(0);
    return mkc<R>(m_copysign(R(1), x), im);
  }
  if (x == 0 && !m_isfinite(y)) return mkc<R>(x, y - y);
  if (!m_isfinite(y)) return mkc<R>(m_nan<R>(), m_nan<R>());
  if (m_isnan(x)) return y == 0 ? mkc<R>(x, y) : mkc<R>(m_nan<R>(), m_nan<R>());
  if (m_fabs(x) > R(22)) {
    return mkc<R>(m_copysign(R(1), x), m_copysign(R(0), m_sin(2 * y)));
  }
  R d = m_cosh(2 * x) + m_cos(2 * y);
  return mkc<R>(m_sinh(2 * x) / d, m_sin(2 * y) / d);
}
template <class R> __device__ __forceinline__ ohc<R> c_mul_i(ohc<R> z) { return mkc<R>(-z.im, z.re); }
template <class R> __device__ __forceinline__ ohc<R> c_div_i(ohc<R> z) { return mkc<R>(z.im, -z.re); }
template <class R> __device__ __forceinline__ ohc<R> c_sin(ohc<R> z) {
  return c_div_i(c_sinh(c_mul_i(z)));
}
template <class R> __device__ __forceinline__ ohc<R> c_cos(ohc<R> z) { return c_cosh(c_mul_i(z)); }
template <class R> __device__ __forceinline__ ohc<R> c_tan(ohc<R> z) {
  return c_div_i(c_tanh(c_mul_i(z)));
}
// the inverse functions: Annex G's special cases, then a formula in the first quadrant with
// the signs restored by the functions' symmetries
template <class R> __device__ __forceinline__ ohc<R> c_asinh_q1(R x, R y) {
  ohc<R> z = mkc<R>(x, y), one = mkc<R>(R(1), R(0));
  return c_log(z + c_sqrt(z * z + one));
}
template <class R> __device__ __forceinline__ ohc<R> c_asinh(ohc<R> z) {
  const R x = z.re, y = z.im, ax = m_fabs(x), ay = m_fabs(y);
  const R pi4 = R(0.78539816339744831), pi2 = R(1.5707963267948966);
  if (m_isnan(x)) {
    if (y == 0) return z;
    if (m_isinf(y)) return mkc<R>(ay, x);
    return mkc<R>(m_nan<R>(), m_nan<R>());
  }
  if (m_isnan(y)) {
    if (m_isinf(x)) return z;
    return mkc<R>(m_nan<R>(), m_nan<R>());
  }
  R re, im;
  if (m_isinf(ax)) {
    re = ax;
    im = m_isinf(ay) ? pi4 : R(0);
  } else if (m_isinf(ay)) {
    re = ay;
    im = pi2;
  } else {
    ohc<R> w = c_asinh_q1(ax, ay);
    re = w.re;
    im = w.im;
  }
  return mkc<R>(m_copysign(re, x), m_copysign(im, y));
}
template <class R> __device__ __forceinline__ ohc<R> c_asin(ohc<R> z) {
  return c_div_i(c_asinh(c_mul_i(z)));
}
template <class R> __device__ __forceinline__ ohc<R> c_acos(ohc<R> z) {
  const R x = z.re, y = z.im, ay = m_fabs(y);
  const R pi = R(3.14159265358979324), pi2 = R(1.5707963267948966), pi4 = R(0.78539816339744831);
  R re, im;
  if (m_isnan(x)) {
    if (m_isinf(ay)) return mkc<R>(x, -y);
    return mkc<R>(m_nan<R>(), m_nan<R>());
  }
  if (m_isnan(y)) {
    if (x == 0) return mkc<R>(pi2, y);
    if (m_isinf(x)) return mkc<R>(y, m_inf<R>());
    return mkc<R>(m_nan<R>(), m_nan<R>());
  }
  if (m_isinf(x)) {
    re = m_isinf(ay) ? (x > 0 ? pi4 : 3 * pi4) : (x > 0 ? R(0) : pi);
    im = -m_inf<R>();
  } else if (m_isinf(ay)) {
    re = pi2;
    im = -m_inf<R>();
  } else if (x == 0 && ay == 0) {
    re = pi2;
    im = -R(0);
  } else {
    ohc<R> a = c_asin(mkc<R>(x, ay));
    re = pi2 - a.re;
    im = -a.im;
  }
  return mkc<R>(re, m_signbit(y) ? -im : im);
}
template <class R> __device__ __forceinline__ ohc<R> c_acosh(ohc<R> z) {
  const R x = z.re, y = z.im, ay = m_fabs(y);
  const R pi = R(3.14159265358979324), pi2 = R(1.5707963267948966), pi4 = R(0.78539816339744831);
  R re, im;
  if (m_isnan(x)) {
    if (m_isinf(ay)) return mkc<R>(m_inf<R>(), x);
    return mkc<R>(m_nan<R>(), m_nan<R>());
  }
  if (m_isnan(y)) {
    if (x == 0) return mkc<R>(y, pi2);
    if (m_isinf(x)) return mkc<R>(m_inf<R>(), y);
    return mkc<R>(m_nan<R>(), m_nan<R>());
  }
  if (m_isinf(x)) {
    re = m_inf<R>();
    im = m_isinf(ay) ? (x > 0 ? pi4 : 3 * pi4) : (x > 0 ? R(0) : pi);
  } else if (m_isinf(ay)) {
    re = m_inf<R>();
    im = pi2;
  } else {
    ohc<R> w = mkc<R>(x, ay), one = mkc<R>(R(1), R(0));
    ohc<R> l = c_log(w + c_sqrt(w + one) * c_sqrt(w - one));
    re = l.re;
    im = l.im;
  }
  return mkc<R>(re, m_copysign(im, y));
}
template <class R> __device__ __forceinline__ ohc<R> c_atanh(ohc<R> z) {
  const R x = z.re, y = z.im, ax = m_fabs(x), ay = m_fabs(y);
  const R pi2 = R(1.5707963267948966);
  R re, im;
  if (m_isnan(x)) {
    if (m_isinf(ay)) return mkc<R>(m_copysign(R(0), x), m_copysign(pi2, y));
    return mkc<R>(m_nan<R>(), m_nan<R>());
  }
  if (m_isnan(y)) {
    if (ax == 0) return z;
    if (m_isinf(ax)) return mkc<R>(m_copysign(R(0), x), y);
    return mkc<R>(m_nan<R>(), m_nan<R>());
  }
  if (m_isinf(ax) || m_isinf(ay)) {
    re = R(0);
    im = pi2;
  } else if (ax == 1 && ay == 0) {
    re = m_inf<R>();
    im = R(0);
  } else {
    ohc<R> w = mkc<R>(ax, ay), one = mkc<R>(R(1), R(0));
    ohc<R> l = c_log((one + w) / (one - w));
    re = l.re * R(0.5);
    im = l.im * R(0.5);
  }
  return mkc<R>(m_copysign(re, x), m_copysign(im, y));
}
template <class R> __device__ __forceinline__ ohc<R> c_atan(ohc<R> z) {
  return c_div_i(c_atanh(c_mul_i(z)));
}
template <class R> __device__ __forceinline__ ohc<R> c_pow(ohc<R> a, ohc<R> b) {
  if (b.re == 0 && b.im == 0) return mkc<R>(R(1), R(0));
  if (a.re == 0 && a.im == 0 && b.im == 0 && b.re > 0) return mkc<R>(R(0), R(0));
  if (b.im == 0 && b.re == 1) return a;
  if (b.im == 0 && b.re == 2) return a * a;
  return c_exp(b * c_log(a));
}

// ---- operation structs -----------------------------------------------------------------
#define OH_UN(name, expr)                                                         \
  struct name {                                                                   \
    template <class C> __device__ __forceinline__ static C f(C x) { return expr; } \
  };
#define OH_UNR(name, R, expr)                                                     \
  struct name {                                                                   \
    template <class C> __device__ __forceinline__ static R f(C x) { return expr; } \
  };
#define OH_BI(name, expr)                                                                  \
  struct name {                                                                            \
    template <class C> __device__ __forceinline__ static C f(C x, C y) { return expr; }    \
  };
#define OH_CMP(name, expr)                                                                 \
  struct name {                                                                            \
    template <class C> __device__ __forceinline__ static bool f(C x, C y) { return expr; } \
  };

// unary; the complex overloads are picked by the c_/m_ function overload sets
struct o_copy { template <class C> __device__ __forceinline__ static C f(C x) { return x; } };
struct o_neg {
  template <class C> __device__ __forceinline__ static C f(C x) {
    if constexpr (oh_isint<C>::v) return (C)((typename oh_uint<C>::U)0 - (typename oh_uint<C>::U)x);
    else return -x;
  }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x) { return -x; }
  __device__ __forceinline__ static bool f(bool x) { return x; }
};
struct o_abs {
  template <class C> __device__ __forceinline__ static C f(C x) {
    if constexpr (oh_isint<C>::v) return x < C(0) ? o_neg::f(x) : x;
    else return m_fabs(x);
  }
  template <class R> __device__ __forceinline__ static R f(ohc<R> x) { return c_abs(x); }
};
struct o_invert {
  template <class C> __device__ __forceinline__ static C f(C x) { return (C)~x; }
  __device__ __forceinline__ static bool f(bool x) { return !x; }
};
OH_UNR(o_not, bool, !x)
OH_UN(o_square, x * x)
struct o_sign {
  template <class C> __device__ __forceinline__ static C f(C x) {
    if (m_isnan(x)) return x;
    return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
  }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x) {
    if (m_isnan(x.re) || m_isnan(x.im)) return mkc<R>(m_nan<R>(), m_nan<R>());
    if (x.re == 0 && x.im == 0) return mkc<R>(R(0), R(0));
    if (m_isinf(x.re) || m_isinf(x.im)) {
      R re = m_isinf(x.re) ? m_copysign(R(1), x.re) : R(0);
      R im = m_isinf(x.im) ? m_copysign(R(1), x.im) : R(0);
      R n = m_sqrt(re * re + im * im);
      return mkc<R>(re / n, im / n);
    }
    R a = c_abs(x);
    return mkc<R>(x.re / a, x.im / a);
  }
};
struct o_recip {
  template <class C> __device__ __forceinline__ static C f(C x) { return C(1) / x; }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x) {
    return mkc<R>(R(1), R(0)) / x;
  }
};
struct o_conj {
  template <class C> __device__ __forceinline__ static C f(C x) { return x; }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x) {
    return mkc<R>(x.re, -x.im);
  }
};
struct o_real {
  template <class R> __device__ __forceinline__ static R f(ohc<R> x) { return x.re; }
  template <class C> __device__ __forceinline__ static C f(C x) { return x; }
};
struct o_imag {
  template <class R> __device__ __forceinline__ static R f(ohc<R> x) { return x.im; }
  template <class C> __device__ __forceinline__ static C f(C) { return C(0); }
};
struct o_isnan {
  template <class C> __device__ __forceinline__ static bool f(C x) { return m_isnan(x); }
  template <class R> __device__ __forceinline__ static bool f(ohc<R> x) {
    return m_isnan(x.re) || m_isnan(x.im);
  }
};
struct o_isinf {
  template <class C> __device__ __forceinline__ static bool f(C x) { return m_isinf(x); }
  template <class R> __device__ __forceinline__ static bool f(ohc<R> x) {
    return m_isinf(x.re) || m_isinf(x.im);
  }
};
struct o_isfinite {
  template <class C> __device__ __forceinline__ static bool f(C x) { return m_isfinite(x); }
  template <class R> __device__ __forceinline__ static bool f(ohc<R> x) {
    return m_isfinite(x.re) && m_isfinite(x.im);
  }
};
OH_UNR(o_signbit, bool, m_signbit(x))

// a real function f_re, a complex one f_c (`heavy`: costly per element, so a launch of it is
// not memory bound: elementwise.hip keeps its plain stores on the CPU)
#define OH_MATH(name, fre, fc)                                                              \
  struct name {                                                                              \
    static const bool heavy = true;                                                          \
    template <class C> __device__ __forceinline__ static C f(C x) { return fre(x); }         \
    template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x) { return fc(x); } \
  };
OH_MATH(o_exp, m_exp, c_exp)
OH_MATH(o_log, m_log, c_log)
OH_MATH(o_sqrt, m_sqrt, c_sqrt)
OH_MATH(o_sin, m_sin, c_sin)
OH_MATH(o_cos, m_cos, c_cos)
OH_MATH(o_tan, m_tan, c_tan)
OH_MATH(o_asin, m_asin, c_asin)
OH_MATH(o_acos, m_acos, c_acos)
OH_MATH(o_atan, m_atan, c_atan)
OH_MATH(o_sinh, m_sinh, c_sinh)
OH_MATH(o_cosh, m_cosh, c_cosh)
OH_MATH(o_tanh, m_tanh, c_tanh)
OH_MATH(o_asinh, m_asinh, c_asinh)
OH_MATH(o_acosh, m_acosh, c_acosh)
OH_MATH(o_atanh, m_atanh, c_atanh)
template <class R> __device__ __forceinline__ ohc<R> c_expm1(ohc<R> z) {
  if (z.im == 0) return mkc<R>(z.re == 0 ? R(0) : m_expm1(z.re), z.im);
  if (!m_isfinite(z.re) || !m_isfinite(z.im)) {
    ohc<R> e = c_exp(z);
    return mkc<R>(e.re - R(1), e.im);
  }
  ohc<R> e = c_exp(z);
  R s = m_sin(z.im * R(0.5));
  return mkc<R>(m_expm1(z.re) * m_cos(z.im) - 2 * s * s, e.im);
}
template <class R> __device__ __forceinline__ ohc<R> c_log1p(ohc<R> z) {
  return c_log(mkc<R>(z.re + R(1), z.im));
}
template <class R> __device__ __forceinline__ ohc<R> c_log2(ohc<R> z) {
  ohc<R> l = c_log(z);
  return mkc<R>(l.re * R(1.4426950408889634), l.im * R(1.4426950408889634));
}
template <class R> __device__ __forceinline__ ohc<R> c_log10(ohc<R> z) {
  ohc<R> l = c_log(z);
  return mkc<R>(l.re * R(0.4342944819032518), l.im * R(0.4342944819032518));
}
OH_MATH(o_expm1, m_expm1, c_expm1)
OH_MATH(o_log1p, m_log1p, c_log1p)
OH_MATH(o_log2, m_log2, c_log2)
OH_MATH(o_log10, m_log10, c_log10)
OH_UN(o_floor, m_floor(x))
OH_UN(o_ceil, m_ceil(x))
OH_UN(o_trunc, m_trunc(x))
struct o_round {
  template <class C> __device__ __forceinline__ static C f(C x) { return m_rint(x); }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x) {
    return mkc<R>(m_rint(x.re), m_rint(x.im));
  }
};

// binary arithmetic
struct o_add {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if constexpr (oh_isint<C>::v) return (C)((typename oh_uint<C>::U)x + (typename oh_uint<C>::U)y);
    else return x + y;
  }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x, ohc<R> y) {
    return x + y;
  }
  __device__ __forceinline__ static bool f(bool x, bool y) { return x || y; }
};
struct o_sub {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if constexpr (oh_isint<C>::v) return (C)((typename oh_uint<C>::U)x - (typename oh_uint<C>::U)y);
    else return x - y;
  }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x, ohc<R> y) {
    return x - y;
  }
};
struct o_mul {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if constexpr (oh_isint<C>::v) return (C)((typename oh_uint<C>::U)x * (typename oh_uint<C>::U)y);
    else return x * y;
  }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x, ohc<R> y) {
    return x * y;
  }
  __device__ __forceinline__ static bool f(bool x, bool y) { return x && y; }
};
OH_BI(o_div, x / y)
struct o_floordiv {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if constexpr (oh_isint<C>::v) {
      if (y == C(0)) return C(0);
      if (oh_issigned<C>::v && y == C(-1)) return o_neg::f(x);
      C q = x / y;
      if (oh_issigned<C>::v && (x % y != C(0)) && ((x < C(0)) != (y < C(0)))) q = q - C(1);
      return q;
    } else {
    // numpy's npy_divmod, with the standard's infinities: inf // finite = +-inf,
    // finite // inf = +-0 (the sign of the quotient)
    if (y == C(0)) return x / y;
    if (m_isinf(x) && m_isfinite(y)) return x / y;
    if (m_isfinite(x) && m_isinf(y)) return x / y;
    C mod = m_fmod(x, y);
    C div = (x - mod) / y;
    if (mod != C(0) && ((y < C(0)) != (mod < C(0)))) div -= C(1);
    C fl;
    if (div != C(0)) {
      fl = m_floor(div);
      if (div - fl > C(0.5)) fl += C(1);
    } else {
      fl = m_copysign(C(0), x / y);
    }
    return fl;
    }
  }
};
struct o_rem {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if constexpr (oh_isint<C>::v) {
      if (y == C(0)) return C(0);
      if (oh_issigned<C>::v && y == C(-1)) return C(0);
      C r = x % y;
      if (oh_issigned<C>::v && r != C(0) && ((r < C(0)) != (y < C(0)))) r = r + y;
      return r;
    } else {
      if (y == C(0)) return m_fmod(x, y);
      C mod = m_fmod(x, y);
      if (mod != C(0)) {
        if ((y < C(0)) != (mod < C(0))) mod += y;
      } else {
        mod = m_copysign(C(0), y);
      }
      return mod;
    }
  }
};
struct o_pow {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if constexpr (oh_isint<C>::v) {
      if (oh_issigned<C>::v && y < C(0)) return C(0);
      typedef typename oh_uint<C>::U U;
      U r = 1, b = (U)x;
      for (oh_u64 e = (oh_u64)y; e; e >>= 1) {
        if (e & 1) r = (U)(r * b);
        b = (U)(b * b);
      }
      return (C)r;
    } else {
      return m_pow(x, y);
    }
  }
  template <class R> __device__ __forceinline__ static ohc<R> f(ohc<R> x, ohc<R> y) {
    return c_pow(x, y);
  }
};
struct o_max {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if (m_isnan(x)) return x;
    if (m_isnan(y)) return y;
    return x > y ? x : y;  // equal (+0, -0): the second, as numpy
  }
};
struct o_min {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if (m_isnan(x)) return x;
    if (m_isnan(y)) return y;
    return x < y ? x : y;
  }
};
OH_BI(o_atan2, m_atan2(x, y))
OH_BI(o_hypot, m_hypot(x, y))
OH_BI(o_copysign, m_copysign(x, y))
OH_BI(o_nextafter, m_nextafter(x, y))
struct o_logaddexp {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if (x == y) return x + C(0.6931471805599453);  // also +-inf
    C d = x - y;
    if (d > 0) return x + m_log1p(m_exp(-d));
    if (d <= 0) return y + m_log1p(m_exp(d));
    return d;  // nan
  }
};
OH_BI(o_and, (C)(x & y))
OH_BI(o_or, (C)(x | y))
OH_BI(o_xor, (C)(x ^ y))
struct o_lshift {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if (y < C(0) || (oh_u64)y >= sizeof(C) * 8) return C(0);
    return (C)((typename oh_uint<C>::U)x << (int)y);
  }
};
struct o_rshift {
  template <class C> __device__ __forceinline__ static C f(C x, C y) {
    if (y < C(0) || (oh_u64)y >= sizeof(C) * 8) return x < C(0) ? C(-1) : C(0);
    return (C)(x >> (int)y);
  }
};
OH_CMP(o_eq, x == y)
OH_CMP(o_ne, x != y)
OH_CMP(o_lt, x < y)
OH_CMP(o_le, x <= y)
OH_CMP(o_gt, x > y)
OH_CMP(o_ge, x >= y)
OH_CMP(o_land, (bool)x && (bool)y)
OH_CMP(o_lor, (bool)x || (bool)y)
OH_CMP(o_lxor, (bool)x != (bool)y)

// ternary: where(cond, x, y) (first operand bool), clip(x, lo, hi) (nan propagates)
struct o_where {
  template <class Ti> struct first { typedef bool T; };
  template <class C> __device__ __forceinline__ static C f(bool c, C x, C y) { return c ? x : y; }
};
struct o_clip {
  template <class Ti> struct first { typedef Ti T; };
  template <class C> __device__ __forceinline__ static C f(C x, C lo, C hi) {
    return o_min::f(o_max::f(x, lo), hi);
  }
};
