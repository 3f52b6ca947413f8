// openhip.numpy.random: the double-precision math the distributions need (log, exp, the sine
// and cosine of 2*pi*u, log-gamma), written so that every platform computes the same bits.
//
// Why not the platform's libm: glibc, CUDA's libdevice and ROCm's OCML each round their log/exp
// differently in rare cases, and compilers fuse a*b+c into one fma when they like (GPUs always,
// GCC with -ffp-contract=fast).  Here every product is either an explicit fma() (rounded once on
// every platform: IEEE 754 fusedMultiplyAdd) or ohr_mul(a, b) == fma(a, b, +0.0) (the correctly
// rounded product, which no compiler can fuse into a following add); +, -, / and sqrt are
// correctly rounded everywhere.  So no expression below leaves a compiler a choice.
// Algorithms: fdlibm's e_log.c, e_exp.c, k_sin.c, k_cos.c (Sun Microsystems, freely
// redistributable), numpy's random_loggam; accuracy < 1 ulp (log, exp), ~1 ulp (sin, cos).
#pragma once

__device__ __forceinline__ double ohr_mul(double a, double b) { return fma(a, b, 0.0); }

__device__ __forceinline__ double ohr_bits_to_double(unsigned long long b) {
  return __longlong_as_double((long long)b);
}
__device__ __forceinline__ unsigned long long ohr_double_to_bits(double x) {
  return (unsigned long long)__double_as_longlong(x);
}

// log(x) for x >= 0 (log(0) = -inf, negative or NaN -> NaN, inf -> inf).
__device__ __forceinline__ double ohr_log(double x) {
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
               Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
               Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
               Lg7 = 1.479819860511658591e-01;
  if (!(x > 0.0)) return x == 0.0 ? -__longlong_as_double(0x7ff0000000000000ll)
                                  : __longlong_as_double(0x7ff8000000000000ll);
  unsigned long long bits = ohr_double_to_bits(x);
  int k = 0;
  if (bits >= 0x7ff0000000000000ull) return x;  // inf
  if (bits < 0x0010000000000000ull) {           // subnormal: scale by 2^54 (exact)
    x = ohr_mul(x, 18014398509481984.0);
    bits = ohr_double_to_bits(x);
    k = -54;
  }
  int hx = (int)(bits >> 32);
  const unsigned int lx = (unsigned int)bits;
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  const int i0 = (hx + 0x95f64) & 0x100000;
  x = ohr_bits_to_double(((unsigned long long)(unsigned int)(hx | (i0 ^ 0x3ff00000)) << 32) | lx);
  k += (i0 >> 20);
  const double f = x - 1.0;
  const double dk = (double)k;
  if ((0x000fffff & (2 + hx)) < 3) {  // -2^-20 <= f < 2^-20
    if (f == 0.0) return k == 0 ? 0.0 : fma(dk, ln2_hi, ohr_mul(dk, ln2_lo));
    const double R = ohr_mul(ohr_mul(f, f), fma(-0.33333333333333333, f, 0.5));
    if (k == 0) return f - R;
    return fma(dk, ln2_hi, -((R - ohr_mul(dk, ln2_lo)) - f));
  }
  const double s = f / (2.0 + f);
  const double z = ohr_mul(s, s);
  int i = hx - 0x6147a;
  const double w = ohr_mul(z, z);
  const int j = 0x6b851 - hx;
  const double t1 = ohr_mul(w, fma(w, fma(w, Lg6, Lg4), Lg2));
  const double t2 = ohr_mul(z, fma(w, fma(w, fma(w, Lg7, Lg5), Lg3), Lg1));
  i |= j;
  const double R = t2 + t1;
  if (i > 0) {
    const double hfsq = ohr_mul(ohr_mul(0.5, f), f);
    if (k == 0) return f - (hfsq - ohr_mul(s, hfsq + R));
    return fma(dk, ln2_hi, -((hfsq - fma(s, hfsq + R, ohr_mul(dk, ln2_lo))) - f));
  }
  if (k == 0) return f - ohr_mul(s, f - R);
  return fma(dk, ln2_hi, -((ohr_mul(s, f - R) - ohr_mul(dk, ln2_lo)) - f));
}

// exp(x) (overflow -> inf, underflow -> 0, NaN -> NaN).
__device__ __forceinline__ double ohr_exp(double x) {
  const double ln2HI = 6.93147180369123816490e-01, ln2LO = 1.90821492927058770002e-10,
               invln2 = 1.44269504088896338700e+00;
  const double P1 = 1.66666666666666019037e-01, P2 = -2.77777777770155933842e-03,
               P3 = 6.61375632143793436117e-05, P4 = -1.65339022054652515390e-06,
               P5 = 4.13813679705723846039e-08;
  if (x != x) return x;
  if (x > 7.09782712893383973096e+02) return __longlong_as_double(0x7ff0000000000000ll);
  if (x < -7.45133219101941108420e+02) return 0.0;
  const double ax = x < 0.0 ? -x : x;
  double hi = 0.0, lo = 0.0;
  int k = 0;
  if (ax > 0.5 * 6.93147180559945286227e-01) {
    if (ax < 1.5 * 6.93147180559945286227e-01) {
      k = x < 0.0 ? -1 : 1;
      hi = x < 0.0 ? x + ln2HI : x - ln2HI;
      lo = x < 0.0 ? -ln2LO : ln2LO;
    } else {
      k = (int)fma(invln2, x, x < 0.0 ? -0.5 : 0.5);
      const double t = (double)k;
      hi = fma(-t, ln2HI, x);  // t*ln2HI is exact for |k| < 2^11
      lo = ohr_mul(t, ln2LO);
    }
    x = hi - lo;
  } else if (ax < 3.7252902984e-09) {  // 2^-28
    return 1.0 + x;
  }
  const double t = ohr_mul(x, x);
  const double c = fma(-t, fma(t, fma(t, fma(t, fma(t, P5, P4), P3), P2), P1), x);
  if (k == 0) return 1.0 - (ohr_mul(x, c) / (c - 2.0) - x);
  double y = 1.0 - ((lo - ohr_mul(x, c) / (2.0 - c)) - hi);
  if (k >= -1021) {
    return ohr_bits_to_double(ohr_double_to_bits(y) + ((unsigned long long)(long long)k << 52));
  }
  y = ohr_bits_to_double(ohr_double_to_bits(y) + ((unsigned long long)(long long)(k + 1000) << 52));
  return ohr_mul(y, 9.33263618503218878990e-302);  // 2^-1000
}

// c ? a : b through the bits (exact; a mask, not a branch, where compilers keep a ?: as one).
__device__ __forceinline__ double ohr_select(bool c, double a, double b) {
  const unsigned long long m = 0ull - (unsigned long long)c;
  return ohr_bits_to_double((ohr_double_to_bits(a) & m) | (ohr_double_to_bits(b) & ~m));
}
// -x when c (the sign bit flipped, as unary minus does).
__device__ __forceinline__ double ohr_negate_if(bool c, double x) {
  return ohr_bits_to_double(ohr_double_to_bits(x) ^ ((unsigned long long)c << 63));
}

// fdlibm's kernels for |x| <= pi/4 (tail y = 0).
__device__ __forceinline__ double ohr_kernel_sin(double x) {
  const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
               S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
               S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double z = ohr_mul(x, x);
  const double v = ohr_mul(z, x);
  const double r = fma(z, fma(z, fma(z, fma(z, S6, S5), S4), S3), S2);
  return fma(v, fma(z, r, S1), x);
}

__device__ __forceinline__ double ohr_kernel_cos(double x) {
  const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
               C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
               C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const double z = ohr_mul(x, x);
  const double r = ohr_mul(z, fma(z, fma(z, fma(z, fma(z, fma(z, C6, C5), C4), C3), C2), C1));
  const double zr = ohr_mul(z, r);
  // Both of fdlibm's forms, then a select (no branch: the callers' loops vectorise).
  const double small = 1.0 - (ohr_mul(0.5, z) - zr);
  // qx = x/4 with its low word cleared (fdlibm), or 0.28125 above 0.78125.
  const double qx = ohr_select(x > 0.78125, 0.28125,
      ohr_bits_to_double((ohr_double_to_bits(x) - 0x0020000000000000ull) & 0xffffffff00000000ull));
  const double hz = ohr_mul(0.5, z) - qx;
  const double a = 1.0 - qx;
  const double large = a - (hz - zr);
  return ohr_select(x < 0.3, small, large);
}

// sin(2*pi*u) and cos(2*pi*u) for 0 <= u < 1: the quadrant and the reflection are exact.
// Bit selects instead of branches and no double-to-int conversion: with either, GCC's
// vectoriser gives up on the vector kernels' thread loops (Box-Muller ran 5x slower).
__device__ __forceinline__ void ohr_sincos_2pi(double u, double* s, double* c) {
  const double t = ohr_mul(u, 4.0);
  // the quadrant from floor(t) in {0, 1, 2, 3} by comparisons (no float-to-int conversion)
  const double fq = floor(t);
  const double f = t - fq;
  const bool swap = f > 0.5;
  const double a = ohr_select(swap, 1.0 - f, f);
  const double x = ohr_mul(a, 1.57079632679489655800e+00);
  const double sx = ohr_kernel_sin(x), cx = ohr_kernel_cos(x);
  const double s1 = ohr_select(swap, cx, sx), c1 = ohr_select(swap, sx, cx);
  // quadrant q: (s, c) = (s1, c1), (c1, -s1), (-s1, -c1), (-c1, s1)
  const bool odd = (fq == 1.0) | (fq == 3.0), half = fq >= 2.0;
  const double s2 = ohr_select(odd, c1, s1), c2 = ohr_select(odd, -s1, c1);
  *s = ohr_negate_if(half, s2);
  *c = ohr_negate_if(half, c2);
}

// log(x) for a positive normal finite x (Box-Muller's u, never 0, subnormal or inf) without a
// branch, so the vector kernels' loops vectorise: musl's log.c (the exponent split at
// sqrt(2)/2, one polynomial, fdlibm's coefficients), < 1 ulp.
__device__ __forceinline__ double ohr_log_pos(double x) {
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
               Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
               Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
               Lg7 = 1.479819860511658591e-01;
  const unsigned long long bits = ohr_double_to_bits(x);
  unsigned int hx = (unsigned int)(bits >> 32) + (0x3ff00000u - 0x3fe6a09eu);
  const int k = (int)(hx >> 20) - 0x3ff;
  hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
  const double m = ohr_bits_to_double(((unsigned long long)hx << 32) | (bits & 0xffffffffull));
  const double f = m - 1.0;
  const double hfsq = ohr_mul(ohr_mul(0.5, f), f);
  const double s = f / (2.0 + f);
  const double z = ohr_mul(s, s);
  const double w = ohr_mul(z, z);
  const double t1 = ohr_mul(w, fma(w, fma(w, Lg6, Lg4), Lg2));
  const double t2 = ohr_mul(z, fma(w, fma(w, fma(w, Lg7, Lg5), Lg3), Lg1));
  const double R = t2 + t1;
  const double dk = (double)k;
  return fma(dk, ln2_hi, (fma(s, hfsq + R, ohr_mul(dk, ln2_lo)) - hfsq) + f);
}

// log(Gamma(x)) for x > 0 (numpy's random_loggam: Stirling's series, shifted up below 7).
__device__ __forceinline__ double ohr_loggam(double x) {
  const double a[10] = {8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
                        -5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03,
                        6.410256410256410e-03, -2.955065359477124e-02, 1.796443723688307e-01,
                        -1.39243221690590e+00};
  if (x == 1.0 || x == 2.0) return 0.0;
  double x0 = x;
  long long n = 0;
  if (x < 7.0) {
    n = (long long)(7.0 - x);
    x0 = x + (double)n;
  }
  const double x2 = 1.0 / ohr_mul(x0, x0);
  double gl0 = a[9];
  for (int k = 8; k >= 0; --k) gl0 = fma(gl0, x2, a[k]);
  // 0.5 * log(2*pi)
  double gl = gl0 / x0 + 9.18938533204672669541e-01 + (fma(x0 - 0.5, ohr_log(x0), -x0));
  if (x < 7.0) {
    for (long long k = 1; k <= n; ++k) {
      gl -= ohr_log(x0 - 1.0);
      x0 -= 1.0;
    }
  }
  return gl;
}
