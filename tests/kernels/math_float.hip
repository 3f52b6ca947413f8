// The float device math library: out[k*n + i] = f_k(x[k*n + i]) for the functions in the order
// of the U(...), B(...), T(...) lists below (the test reads the lists from this file).
#include <hip/hip_runtime.h>

#define U(f) { out[k * n + i] = f(x[k * n + i]); ++k; }
#define B(f) { out[k * n + i] = f(x[k * n + i], y[k * n + i]); ++k; }
#define T(f) { out[k * n + i] = f(x[k * n + i], y[k * n + i], z[k * n + i]); ++k; }

extern "C" __global__ void math_unary(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = 0;
  U(expf) U(exp2f) U(exp10f) U(expm1f) U(logf) U(log2f) U(log10f) U(log1pf) U(sqrtf) U(rsqrtf)
  U(cbrtf) U(rcbrtf) U(sinf) U(cosf) U(tanf) U(sinpif) U(cospif) U(asinf) U(acosf) U(atanf)
  U(sinhf) U(coshf) U(tanhf) U(asinhf) U(acoshf) U(atanhf) U(erff) U(erfcf) U(erfinvf)
  U(erfcinvf) U(erfcxf) U(normcdff) U(normcdfinvf) U(lgammaf) U(tgammaf) U(j0f) U(j1f) U(y0f)
  U(y1f) U(floorf) U(ceilf) U(roundf) U(truncf) U(rintf) U(nearbyintf) U(fabsf) U(logbf)
  U(__expf) U(__logf) U(__log2f) U(__log10f) U(__sinf) U(__cosf) U(__fsqrt_rn) U(__frcp_rn)
  U(__frsqrt_rn) U(__saturatef) U(cyl_bessel_i0f) U(cyl_bessel_i1f) U(sqrt) U(exp) U(fabs)
}

extern "C" __global__ void math_binary(const float* x, const float* y, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = 0;
  B(powf) B(atan2f) B(fmodf) B(remainderf) B(hypotf) B(fminf) B(fmaxf) B(fdimf) B(copysignf)
  B(nextafterf) B(rhypotf) B(__powf) B(__fdividef) B(fdividef) B(__fadd_rn) B(__fsub_rn)
  B(__fmul_rn) B(__fdiv_rn) B(__fadd_rz) B(__fadd_ru) B(__fadd_rd) B(__fmul_rz) B(__fmul_ru)
  B(__fmul_rd) B(__fdiv_rz) B(__fdiv_ru) B(__fdiv_rd) B(pow) B(min) B(max)
}

extern "C" __global__ void math_ternary(const float* x, const float* y, const float* z, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = 0;
  T(fmaf) T(norm3df) T(rnorm3df) T(__fmaf_rn) T(__fmaf_rz) T(__fmaf_ru) T(__fmaf_rd) T(fma)
}

// Functions with several results or non-float types.
extern "C" __global__ void math_misc(const float* x, const float* y, float* f, int* iv, long long* lv, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float a = x[i], b = y[i];
  float s, c;
  sincosf(a, &s, &c);
  f[0 * n + i] = s;
  f[1 * n + i] = c;
  sincospif(a, &s, &c);
  f[2 * n + i] = s;
  f[3 * n + i] = c;
  int e;
  f[4 * n + i] = frexpf(a, &e);
  iv[0 * n + i] = e;
  float ip;
  f[5 * n + i] = modff(a, &ip);
  f[6 * n + i] = ip;
  int q;
  f[7 * n + i] = remquof(a, b, &q);
  iv[1 * n + i] = q;
  f[8 * n + i] = ldexpf(a, (int)b);
  f[9 * n + i] = scalbnf(a, (int)b);
  iv[2 * n + i] = ilogbf(a);
  iv[3 * n + i] = isnan(a) ? 1 : 0;
  iv[4 * n + i] = isinf(a) ? 1 : 0;
  iv[5 * n + i] = isfinite(a) ? 1 : 0;
  iv[6 * n + i] = signbit(a) ? 1 : 0;
  lv[0 * n + i] = lroundf(a);
  lv[1 * n + i] = llroundf(a);
  lv[2 * n + i] = lrintf(a);
  float v3[3] = {a, b, 1.5f};
  f[10 * n + i] = normf(3, v3);
  f[11 * n + i] = norm4df(a, b, 1.5f, -2.0f);
  f[12 * n + i] = rnorm4df(a, b, 1.5f, -2.0f);
}
