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

template <typename T>
__global__ void ohr_gamma(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, double shape, double scale) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  ohr_stream s = ohr_stream_open(kc, i, 0);
  out[i] = (T)ohr_mul(ohr_s_gamma(s, shape), scale);
}

// Beta: Johnk's algorithm for a, b <= 1 (as numpy), else X / (X + Y) of two gammas.
template <typename T>
__global__ void ohr_beta(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, double a, double b) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  double r;
  if (a <= 1.0 && b <= 1.0) {
    ohr_stream s = ohr_stream_open(kc, i, 0);
    for (;;) {
      const double U = ohr_s_uniform(s), V = ohr_s_uniform(s);
      const double X = ohr_exp(ohr_log(U) / a), Y = ohr_exp(ohr_log(V) / b);
      const double XpY = X + Y;
      if (XpY <= 1.0 && U + V > 0.0) {
        if (XpY > 0.0) { r = X / XpY; break; }
        double logX = ohr_log(U) / a, logY = ohr_log(V) / b;
        const double logM = logX > logY ? logX : logY;
        logX -= logM;
        logY -= logM;
        r = ohr_exp(logX - ohr_log(ohr_exp(logX) + ohr_exp(logY)));
        break;
      }
    }
  } else {
    ohr_stream sx = ohr_stream_open(kc, i, 0);
    ohr_stream sy = ohr_stream_open(kc, i, 1);
    const double X = ohr_s_gamma(sx, a), Y = ohr_s_gamma(sy, b);
    r = X / (X + Y);
  }
  out[i] = (T)r;
}

