// The double device math library: out[k*n + i] = f_k(x[k*n + i]) for the functions in the order
// of the U(...), B(...), T(...) lists below (the test reads the lists from this file).
#include <hip/hip_runtime.h>

#define U(f) { out[k * n + i] = f(x[k * n + i]); ++k; }
#define B(f) { out[k * n + i] = f(x[k * n + i], y[k * n + i]); ++k; }
#define T(f) { out[k * n + i] = f(x[k * n + i], y[k * n + i], z[k * n + i]); ++k; }

extern "C" __global__ void math_unary(const double* x, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = 0;
  U(exp) U(exp2) U(exp10) U(expm1) U(log) U(log2) U(log10) U(log1p) U(sqrt) U(rsqrt) U(cbrt)
  U(rcbrt) U(sin) U(cos) U(tan) U(sinpi) U(cospi) U(asin) U(acos) U(atan) U(sinh) U(cosh)
  U(tanh) U(asinh) U(acosh) U(atanh) U(erf) U(erfc) U(erfinv) U(erfcinv) U(erfcx) U(normcdf)
  U(normcdfinv) U(lgamma) U(tgamma) U(j0) U(j1) U(y0) U(y1) U(floor) U(ceil) U(round) U(trunc)
  U(rint) U(nearbyint) U(fabs) U(logb) U(__dsqrt_rn) U(__drcp_rn) U(__dsqrt_rz) U(__dsqrt_ru)
  U(__dsqrt_rd) U(__drcp_rz) U(__drcp_ru) U(__drcp_rd) U(cyl_bessel_i0) U(cyl_bessel_i1)
}

extern "C" __global__ void math_binary(const double* x, const double* y, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = 0;
  B(pow) B(atan2) B(fmod) B(remainder) B(hypot) B(fmin) B(fmax) B(fdim) B(copysign)
  B(nextafter) B(rhypot) B(__dadd_rn) B(__dsub_rn) B(__dmul_rn) B(__ddiv_rn) B(__dadd_rz)
  B(__dadd_ru) B(__dadd_rd) B(__dmul_rz) B(__dmul_ru) B(__dmul_rd) B(__ddiv_rz) B(__ddiv_ru)
  B(__ddiv_rd) B(min) B(max)
}

extern "C" __global__ void math_ternary(const double* x, const double* y, const double* z, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = 0;
  T(fma) T(norm3d) T(rnorm3d) T(__fma_rn) T(__fma_rz) T(__fma_ru) T(__fma_rd)
}

// Functions with several results or non-float types.
extern "C" __global__ void math_misc(const double* x, const double* y, double* f, int* iv, long long* lv, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double a = x[i], b = y[i];
  double s, c;
  sincos(a, &s, &c);
  f[0 * n + i] = s;
  f[1 * n + i] = c;
  sincospi(a, &s, &c);
  f[2 * n + i] = s;
  f[3 * n + i] = c;
  int e;
  f[4 * n + i] = frexp(a, &e);
  iv[0 * n + i] = e;
  double ip;
  f[5 * n + i] = modf(a, &ip);
  f[6 * n + i] = ip;
  int q;
  f[7 * n + i] = remquo(a, b, &q);
  iv[1 * n + i] = q;
  f[8 * n + i] = ldexp(a, (int)b);
  f[9 * n + i] = scalbn(a, (int)b);
  iv[2 * n + i] = ilogb(a);
  iv[3 * n + i] = isnan(a) ? 1 : 0;
  iv[4 * n + i] = isinf(a) ? 1 : 0;
  iv[5 * n + i] = isfinite(a) ? 1 : 0;
  iv[6 * n + i] = signbit(a) ? 1 : 0;
  lv[0 * n + i] = lround(a);
  lv[1 * n + i] = llround(a);
  lv[2 * n + i] = lrint(a);
  double v3[3] = {a, b, 1.5};
  f[10 * n + i] = norm(3, v3);
  f[11 * n + i] = norm4d(a, b, 1.5, -2.0);
  f[12 * n + i] = rnorm4d(a, b, 1.5, -2.0);
}
