// openhip.numpy.random kernels: gamma, beta.
// Loaded by openhip/numpy/random/_kernels.py; the same source on cpu, nvidia and amd.
//
// Layout of the words (the contract the Python side documents):
// - "vector" distributions (raw words, random/uniform, normal, exponential): thread t computes
//   the Philox block at counter (position + t) and writes PER consecutive outputs from it;
// - "stream" distributions (integers, gamma, beta, poisson, binomial, keys): element i reads
//   the words of its own stream (ohr_stream_open(position + i, sub)), as many as it needs.
// Every value depends only on (key, counter, index), never on the launch shape or thread count.
#include <hip/hip_runtime.h>
#include "random_common.h"

// Marsaglia and Tsang (2000); shape < 1 through Gamma(shape + 1) * u^(1/shape).
__device__ __forceinline__ double ohr_s_gamma(ohr_stream& s, double shape) {
  if (shape == 1.0) return -ohr_log(ohr_s_uniform_open0(s));
  const bool boost = shape < 1.0;
  const double a = boost ? shape + 1.0 : shape;
  const double d = a - 1.0 / 3.0;
  const double c = 1.0 / sqrt(ohr_mul(9.0, d));
  double g;
  for (;;) {
    double x, v;
    do {
      x = ohr_s_normal(s);
      v = fma(c, x, 1.0);
    } while (v <= 0.0);
    v = ohr_mul(ohr_mul(v, v), v);
    const double u = ohr_s_uniform_open0(s);
    const double x2 = ohr_mul(x, x);
    if (u < fma(-0.0331, ohr_mul(x2, x2), 1.0)) { g = ohr_mul(d, v); break; }
    if (ohr_log(u) < fma(0.5, x2, ohr_mul(d, (1.0 - v) + ohr_log(v)))) { g = ohr_mul(d, v); break; }
  }
  if (boost) g = ohr_mul(g, ohr_exp(ohr_log(ohr_s_uniform_open0(s)) / shape));
  return g;
}

// Gamma(shape, scale) of element i's stream; shape or scale 0 gives 0, NaN gives NaN (as
// numpy; the rejection loop would not end on NaN).
__device__ __forceinline__ double ohr_gamma_value(const unsigned int* kc, unsigned long long i,
                                                  double shape, double scale) {
  if (shape != shape || scale != scale) return shape + scale;
  if (shape == 0.0 || scale == 0.0) return 0.0;
  ohr_stream s = ohr_stream_open(kc, i, 0);
  return ohr_mul(ohr_s_gamma(s, shape), scale);
}

// Beta(a, b) of element i: Johnk's algorithm for a, b <= 1 (as numpy), else X / (X + Y) of two
// gammas (sub-streams 0 and 1); NaN gives NaN.
__device__ __forceinline__ double ohr_beta_value(const unsigned int* kc, unsigned long long i,
                                                 double a, double b) {
  if (a != a || b != b) return a + b;
  if (a <= 1.0 && b <= 1.0) {
    ohr_stream s = ohr_stream_open(kc, i, 0);
    for (;;) {
      const double U = ohr_s_uniform(s), V = ohr_s_uniform(s);
      const double X = ohr_exp(ohr_log(U) / a), Y = ohr_exp(ohr_log(V) / b);
      const double XpY = X + Y;
      if (XpY <= 1.0 && U + V > 0.0) {
        if (XpY > 0.0) return X / XpY;
        double logX = ohr_log(U) / a, logY = ohr_log(V) / b;
        const double logM = logX > logY ? logX : logY;
        logX -= logM;
        logY -= logM;
        return ohr_exp(logX - ohr_log(ohr_exp(logX) + ohr_exp(logY)));
      }
    }
  }
  ohr_stream sx = ohr_stream_open(kc, i, 0);
  ohr_stream sy = ohr_stream_open(kc, i, 1);
  const double X = ohr_s_gamma(sx, a), Y = ohr_s_gamma(sy, b);
  return X / (X + Y);
}

template <typename T>
__global__ void ohr_gamma(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, double shape, double scale) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  out[i] = (T)ohr_gamma_value(kc, i, shape, scale);
}

template <typename T>
__global__ void ohr_beta(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, double a, double b) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  out[i] = (T)ohr_beta_value(kc, i, a, b);
}

// The same with array-valued parameters, read broadcast (random_common.h: ohr_param_offsets).
template <typename T>
__global__ void ohr_gamma_a(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, const double* shape,
    const double* scale, const long long* desc) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  long long o[2];
  ohr_param_offsets<2>(desc, i, o);
  out[i] = (T)ohr_gamma_value(kc, i, shape[o[0]], scale[o[1]]);
}

template <typename T>
__global__ void ohr_beta_a(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, const double* a,
    const double* b, const long long* desc) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  long long o[2];
  ohr_param_offsets<2>(desc, i, o);
  out[i] = (T)ohr_beta_value(kc, i, a[o[0]], b[o[1]]);
}
