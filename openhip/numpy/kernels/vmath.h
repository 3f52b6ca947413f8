// openhip.numpy: exp and log in float and double, written so that a compiler vectorises a loop
// of them (the CPU platform runs an elementwise kernel's threads as one loop; a call to libm's
// expf keeps that loop scalar).
//
// Branch-free: range reduction, a polynomial evaluated with fma, the special cases (nan, +-inf,
// overflow, underflow, subnormal arguments and results, -0) chosen by selects at the end.
// Integers are built from the floats' bits (the rounding constant 1.5 * 2^23 / 1.5 * 2^52), so
// there is no float -> int conversion of an out-of-range value anywhere.
// Accuracy (measured against numpy in tests/numpy/test_vmath.py): exp within 1 ulp (float) and
// 1 ulp (double), log within 1 ulp.
// Algorithms: Cody & Waite's reduction with a split ln 2; exp's polynomials are Cephes' expf
// coefficients (float) and the Taylor series to degree 13 (double); log is fdlibm's e_log.c /
// e_logf.c (Sun Microsystems, freely redistributable): log(1 + f) = f - hfsq + s (hfsq + R(s^2)),
// s = f / (2 + f), after scaling x to m * 2^e, m in [sqrt(1/2), sqrt(2)).
#pragma once

// ---- exp ------------------------------------------------------------------------------------
__device__ __forceinline__ float oh_vexp(float x) {
  // clamp (a nan becomes -104, and its result is replaced at the end): exp(89) overflows and
  // exp(-104) underflows to 0 after the two-step scaling below
  float xc = x > -104.0f ? x : -104.0f;
  xc = xc < 89.0f ? xc : 89.0f;
  const float magic = 12582912.0f;  // 1.5 * 2^23: t's low mantissa bits hold rint(x / ln 2)
  const float t = fmaf(xc, 1.44269504088896341f, magic);
  const int n = __float_as_int(t) - 0x4b400000;
  const float fn = t - magic;
  float r = fmaf(fn, -0.693359375f, xc);  // ln 2 = 0.693359375 - 2.12194440e-4 (hi exact)
  r = fmaf(fn, 2.12194440e-4f, r);
  float p = 1.9875691500e-4f;
  p = fmaf(p, r, 1.3981999507e-3f);
  p = fmaf(p, r, 8.3334519073e-3f);
  p = fmaf(p, r, 4.1665795894e-2f);
  p = fmaf(p, r, 1.6666665459e-1f);
  p = fmaf(p, r, 5.0000001201e-1f);
  const float y = fmaf(p, r * r, r) + 1.0f;
  // y * 2^n in two steps (n in [-150, 128]): each factor is a normal float, the last product
  // rounds once (to a subnormal, 0 or inf where the result is one)
  const int n1 = n >> 1;
  const float s1 = __int_as_float((int)((unsigned)(n1 + 127) << 23));
  const float s2 = __int_as_float((int)((unsigned)(n - n1 + 127) << 23));
  const float e = (y * s1) * s2;
  return x != x ? x : e;
}

__device__ __forceinline__ double oh_vexp(double x) {
  double xc = x > -746.0 ? x : -746.0;
  xc = xc < 710.0 ? xc : 710.0;
  const double magic = 6755399441055744.0;  // 1.5 * 2^52
  const double t = fma(xc, 1.4426950408889634, magic);
  const long long n = __double_as_longlong(t) - 0x4338000000000000ll;
  const double fn = t - magic;
  // ln 2 = ln2hi + ln2lo, ln2hi with 32 trailing zero bits (fn * ln2hi is exact)
  double r = fma(fn, -6.93147180369123816490e-01, xc);
  r = fma(fn, -1.90821492927058770002e-10, r);
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = fma(p, r, 1.0 / 479001600.0);
  p = fma(p, r, 1.0 / 39916800.0);
  p = fma(p, r, 1.0 / 3628800.0);
  p = fma(p, r, 1.0 / 362880.0);
  p = fma(p, r, 1.0 / 40320.0);
  p = fma(p, r, 1.0 / 5040.0);
  p = fma(p, r, 1.0 / 720.0);
  p = fma(p, r, 1.0 / 120.0);
  p = fma(p, r, 1.0 / 24.0);
  p = fma(p, r, 1.0 / 6.0);
  p = fma(p, r, 0.5);
  const double y = fma(p, r * r, r) + 1.0;
  // n in [-1077, 1025]: both factors normal (a logical shift: AVX2 has no 64-bit arithmetic one)
  const long long n1 = (long long)((unsigned long long)(n + 2048) >> 1) - 1024;
  const double s1 = __longlong_as_double((long long)((unsigned long long)(n1 + 1023) << 52));
  const double s2 = __longlong_as_double((long long)((unsigned long long)(n - n1 + 1023) << 52));
  const double e = (y * s1) * s2;
  return x != x ? x : e;
}

// ---- log ------------------------------------------------------------------------------------
__device__ __forceinline__ float oh_vlog(float x) {
  const int bits = __float_as_int(x);
  const bool sub = bits < 0x00800000;  // +0, positive subnormals (and negatives: nan below)
  const float xs = sub ? x * 8388608.0f : x;  // 2^23
  const int ix = __float_as_int(xs) - 0x3f3504f3;  // bits of sqrt(1/2)
  const int k = (ix >> 23) - (sub ? 23 : 0);
  const float m = __int_as_float((ix & 0x007fffff) + 0x3f3504f3);  // [sqrt(1/2), sqrt(2))
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s, w = z * z;
  const float t1 = w * fmaf(w, 2.4279078841e-01f, 4.0000972152e-01f);
  const float t2 = z * fmaf(w, 2.8498786688e-01f, 6.6666662693e-01f);
  const float R = t2 + t1;
  const float hfsq = 0.5f * f * f;
  const float dk = (float)k;
  float r = fmaf(dk, 6.9313812256e-01f,
                 -((hfsq - fmaf(s, hfsq + R, dk * 9.0580006145e-06f)) - f));
  r = x > 0.0f ? r : (x == 0.0f ? -__int_as_float(0x7f800000) : __int_as_float(0x7fc00000));
  return bits >= 0x7f800000 ? x : r;  // +inf, and nan with the sign bit clear, unchanged
}

__device__ __forceinline__ double oh_vlog(double x) {
  const long long bits = __double_as_longlong(x);
  const bool sub = bits < 0x0010000000000000ll;
  const double xs = sub ? x * 18014398509481984.0 : x;  // 2^54
  const long long ix = __double_as_longlong(xs) - 0x3fe6a09e667f3bcdll;  // sqrt(1/2)
  const long long k = (long long)(((unsigned long long)ix + 0x8000000000000000ull) >> 52) - 2048 -
                      (sub ? 54 : 0);
  const double m = __longlong_as_double((ix & 0x000fffffffffffffll) + 0x3fe6a09e667f3bcdll);
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s, w = z * z;
  const double t1 = w * fma(w, fma(w, 1.531383769920937332e-01, 2.222219843214978396e-01),
                            3.999999999940941908e-01);
  const double t2 = z * fma(w, fma(w, fma(w, 1.479819860511658591e-01, 1.818357216161805012e-01),
                                   2.857142874366239149e-01),
                            6.666666666666735130e-01);
  const double R = t2 + t1;
  const double hfsq = 0.5 * f * f;
  // (double)k through the rounding constant: a 64-bit int -> double conversion needs AVX-512
  const double dk = __longlong_as_double(k + 0x4338000000000000ll) - 6755399441055744.0;
  double r = fma(dk, 6.93147180369123816490e-01,
                 -((hfsq - fma(s, hfsq + R, dk * 1.90821492927058770002e-10)) - f));
  r = x > 0.0 ? r : (x == 0.0 ? -__longlong_as_double(0x7ff0000000000000ll)
                              : __longlong_as_double(0x7ff8000000000000ll));
  return bits >= 0x7ff0000000000000ll ? x : r;
}
