// openhip.numpy.random: the math functions as kernels, for the tests.
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

// ---- self-checks of the math (tests compare these with numpy) -------------------------------
extern "C" __global__ void ohr_math_check(const double* x, double* out, unsigned long long n,
                                          int which) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  double s, c;
  switch (which) {
    case 0: out[i] = ohr_log(x[i]); break;
    case 1: out[i] = ohr_exp(x[i]); break;
    case 2: ohr_sincos_2pi(x[i], &s, &c); out[i] = s; break;
    case 3: ohr_sincos_2pi(x[i], &s, &c); out[i] = c; break;
    case 4: out[i] = ohr_loggam(x[i]); break;
    default: out[i] = ohr_log_pos(x[i]); break;
  }
}
