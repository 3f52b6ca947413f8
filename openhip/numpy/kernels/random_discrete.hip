// openhip.numpy.random kernels: integers, poisson, binomial.
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

// An unbiased integer in [0, m) (m == 0: all 2^64 values) from stream s: Lemire's
// multiply-and-reject.
__device__ __forceinline__ unsigned long long ohr_s_integer(ohr_stream& s, unsigned long long m) {
  if (m == 0) return ohr_next64(s);
  if (m <= 0x100000000ull) {
    unsigned long long x = ohr_next32(s);
    unsigned long long mm = x * m;
    unsigned int l = (unsigned int)mm;
    if (l < m) {
      const unsigned int th = (unsigned int)((0x100000000ull - m) % m);
      while (l < th) {
        x = ohr_next32(s);
        mm = x * m;
        l = (unsigned int)mm;
      }
    }
    return mm >> 32;
  }
  unsigned long long x = ohr_next64(s);
  unsigned long long lo = x * m;
  unsigned long long hi = __umul64hi(x, m);
  if (lo < m) {
    const unsigned long long th = (0ull - m) % m;
    while (lo < th) {
      x = ohr_next64(s);
      lo = x * m;
      hi = __umul64hi(x, m);
    }
  }
  return hi;
}

// low + an unbiased integer in [0, m), element i from its own stream.
template <typename T>
__global__ void ohr_integers(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, unsigned long long low,
                             unsigned long long m) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  ohr_stream s = ohr_stream_open(kc, i, 0);
  out[i] = (T)(low + ohr_s_integer(s, m));
}

// Array-valued bounds, read broadcast (random_common.h): element i in [low, high) (endpoint:
// [low, high]); the bounds are 64-bit two's complement words (int64 or uint64 arrays), checked
// by the Python side (low < high, inside T's range).
template <typename T>
__global__ void ohr_integers_a(unsigned int k0, unsigned int k1, unsigned int c0,
    unsigned int c1, unsigned int c2, unsigned int c3, T* out, unsigned long long n,
    const unsigned long long* low, const unsigned long long* high, const long long* desc,
    unsigned int endpoint) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  long long o[2];
  ohr_param_offsets<2>(desc, i, o);
  const unsigned long long lo = low[o[0]];
  const unsigned long long m = high[o[1]] - lo + (endpoint ? 1ull : 0ull);
  ohr_stream s = ohr_stream_open(kc, i, 0);
  out[i] = (T)(lo + ohr_s_integer(s, m));
}

// Ranges of at most 2^32 values, the fast way: thread t turns the four words of the block at
// counter + t into four candidates (out[t + j * nb], nb = ceil(n / 4): planes, as the vector
// distributions), with Lemire's multiply; flags[t] says whether one of its words fell in the
// rejection zone (probability threshold / 2^32 each, about 7e-8 for m = 1000), and
// ohr_integers_redo draws each rejected element again from its own stream (sub-stream 1).  The
// flag is stored unconditionally (a conditional store keeps GCC from vectorising the CPU
// platform's thread loop).  Still a pure function of (key, counter, n).
__device__ __forceinline__ void ohr_integers32_block(unsigned int k0, unsigned int k1,
    unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3, unsigned int t,
    unsigned long long m, unsigned long long* mm) {
  unsigned int x0, x1, x2, x3;
  ohr_counter_add32(c0, c1, c2, c3, t, &x0, &x1, &x2, &x3);
  const ohr_block b = ohr_philox4x32_10(x0, x1, x2, x3, k0, k1);
  for (int j = 0; j < 4; ++j) mm[j] = (unsigned long long)b.w[j] * m;
}

template <typename T>
__global__ void ohr_integers32(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned char* flags, unsigned long long n,
    unsigned long long low, unsigned long long m, unsigned int threshold) {
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long nb = (n + 3) / 4;
  if (t >= nb) return;
  unsigned long long mm[4];
  ohr_integers32_block(k0, k1, c0, c1, c2, c3, t, m, mm);
  unsigned int rejected = 0;
  for (int j = 0; j < 4; ++j) {  // out holds 4 * nb values (padded by the Python side)
    out[j * nb + t] = (T)(low + (mm[j] >> 32));
    rejected |= (j * nb + t < n) & ((unsigned int)mm[j] < threshold);
  }
  flags[t] = (unsigned char)rejected;
}

// Thread f looks at the flags of Philox blocks [f * span, (f + 1) * span): a flagged block is
// recomputed and its rejected words drawn again from their elements' own streams.
template <typename T>
__global__ void ohr_integers_redo(unsigned int k0, unsigned int k1, unsigned int c0,
    unsigned int c1, unsigned int c2, unsigned int c3, T* out, const unsigned char* flags,
    unsigned long long n, unsigned long long low, unsigned long long m, unsigned int threshold,
    unsigned int span) {
  const unsigned long long f = ohr_tid();
  const unsigned long long nb = (n + 3) / 4;
  if (f * span >= nb) return;
  const unsigned long long begin = f * span, end = begin + span < nb ? begin + span : nb;
  unsigned int any = 0;
  for (unsigned long long t = begin; t < end; ++t) any |= flags[t];
  if (!any) return;
  OHR_KC_ARRAY;
  for (unsigned long long t = begin; t < end; ++t) {
    if (!flags[t]) continue;
    unsigned long long mm[4];
    ohr_integers32_block(k0, k1, c0, c1, c2, c3, (unsigned int)t, m, mm);
    for (int j = 0; j < 4; ++j) {
      const unsigned long long idx = j * nb + t;
      if (idx >= n || (unsigned int)mm[j] >= threshold) continue;
      ohr_stream s = ohr_stream_open(kc, idx, 1);
      unsigned long long r;
      do {
        r = (unsigned long long)ohr_next32(s) * m;
      } while ((unsigned int)r < threshold);
      out[idx] = (T)(low + (r >> 32));
    }
  }
}

// Poisson: multiplication (lam < 10), PTRS (Hoermann 1993) above, as numpy's.
__device__ long long ohr_s_poisson(ohr_stream& s, double lam) {
  long long k = 0;
  if (lam == 0.0) {
    k = 0;
  } else if (lam < 10.0) {
    const double enlam = ohr_exp(-lam);
    double prod = 1.0;
    for (;;) {
      prod = ohr_mul(prod, ohr_s_uniform(s));
      if (prod > enlam) ++k; else break;
    }
  } else {
    const double slam = sqrt(lam), loglam = ohr_log(lam);
    const double b = fma(2.53, slam, 0.931);
    const double a = fma(0.02483, b, -0.059);
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2.0);
    const double log_invalpha = ohr_log(invalpha);
    for (;;) {
      const double U = ohr_s_uniform(s) - 0.5;
      const double V = ohr_s_uniform(s);
      const double us = 0.5 - fabs(U);
      k = (long long)floor(fma(fma(2.0, a / us, b), U, lam + 0.43));
      if (us >= 0.07 && V <= vr) break;
      if (k < 0 || (us < 0.013 && V > us)) continue;
      if ((ohr_log(V) + log_invalpha) - ohr_log(a / ohr_mul(us, us) + b) <=
          fma((double)k, loglam, -lam) - ohr_loggam((double)k + 1.0)) break;
    }
  }
  return k;
}

__global__ void ohr_poisson(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, long long* out, unsigned long long n, double lam) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  ohr_stream s = ohr_stream_open(kc, i, 0);
  out[i] = ohr_s_poisson(s, lam);
}

__global__ void ohr_poisson_a(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, long long* out, unsigned long long n, const double* lam,
    const long long* desc) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  long long o[1];
  ohr_param_offsets<1>(desc, i, o);
  ohr_stream s = ohr_stream_open(kc, i, 0);
  out[i] = ohr_s_poisson(s, lam[o[0]]);
}

// Binomial: inversion for n*p <= 30, BTPE (Kachitvichyanukul and Schmeiser 1988) above, on
// min(p, 1 - p), as numpy's.
__device__ long long ohr_binomial_inversion(ohr_stream& s, long long n, double p) {
  const double q = 1.0 - p;
  const double qn = ohr_exp(ohr_mul((double)n, ohr_log(q)));
  const double np = ohr_mul((double)n, p);
  const double bound0 = np + ohr_mul(10.0, sqrt(fma(np, q, 1.0)));
  const double bound = (double)n < bound0 ? (double)n : bound0;
  long long X = 0;
  double px = qn;
  double U = ohr_s_uniform(s);
  while (U > px) {
    ++X;
    if ((double)X > bound) {
      X = 0;
      px = qn;
      U = ohr_s_uniform(s);
    } else {
      U -= px;
      px = ohr_mul(ohr_mul((double)(n - X + 1), p), px) / ohr_mul((double)X, q);
    }
  }
  return X;
}

__device__ __forceinline__ double ohr_btpe_stirling(double v2, double v) {
  // (13680 - (462 - (132 - (99 - 140/v2)/v2)/v2)/v2) / v / 166320
  return (13680.0 - (462.0 - (132.0 - (99.0 - 140.0 / v2) / v2) / v2) / v2) / v / 166320.0;
}

__device__ long long ohr_binomial_btpe(ohr_stream& s, long long n, double r) {
  const double q = 1.0 - r;
  const double dn = (double)n;
  const double fm = fma(dn, r, r);
  const double m = floor(fm);
  const double nrq = ohr_mul(ohr_mul(dn, r), q);
  const double p1 = floor(fma(2.195, sqrt(nrq), ohr_mul(-4.6, q))) + 0.5;
  const double xm = m + 0.5, xl = xm - p1, xr = xm + p1;
  const double c = 0.134 + 20.5 / (15.3 + m);
  double a = (fm - xl) / fma(-xl, r, fm);
  const double laml = ohr_mul(a, fma(0.5, a, 1.0));
  a = (xr - fm) / ohr_mul(xr, q);
  const double lamr = ohr_mul(a, fma(0.5, a, 1.0));
  const double p2 = ohr_mul(p1, fma(2.0, c, 1.0));
  const double p3 = p2 + c / laml;
  const double p4 = p3 + c / lamr;
  for (;;) {
    const double u = ohr_mul(ohr_s_uniform(s), p4);
    double v = ohr_s_uniform(s);
    double y;
    if (u <= p1) {
      return (long long)floor(fma(-p1, v, xm + u));
    } else if (u <= p2) {
      const double x = xl + (u - p1) / c;
      v = fma(v, c, 1.0) - fabs(m - x + 0.5) / p1;
      if (v > 1.0) continue;
      y = floor(x);
    } else if (u <= p3) {
      y = floor(xl + ohr_log(v) / laml);
      if (y < 0.0 || v == 0.0) continue;
      v = ohr_mul(ohr_mul(v, u - p2), laml);
    } else {
      y = floor(xr - ohr_log(v) / lamr);
      if (y > dn || v == 0.0) continue;
      v = ohr_mul(ohr_mul(v, u - p3), lamr);
    }
    const double k = fabs(y - m);
    if (!(k > 20.0 && k < nrq / 2.0 - 1.0)) {
      const double sr = r / q;
      const double aa = ohr_mul(sr, dn + 1.0);
      double F = 1.0;
      if (m < y) {
        for (double i = m + 1.0; i <= y; i += 1.0) F = ohr_mul(F, aa / i - sr);
      } else if (m > y) {
        for (double i = y + 1.0; i <= m; i += 1.0) F = F / (aa / i - sr);
      }
      if (v > F) continue;
      return (long long)y;
    }
    const double rho = ohr_mul(k / nrq, fma(ohr_mul(k, fma(k, 1.0 / 3.0, 0.625)) + 0.16666666666666666,
                                            1.0 / nrq, 0.5));
    const double t = -ohr_mul(k, k) / ohr_mul(2.0, nrq);
    const double A = ohr_log(v);
    if (A < t - rho) return (long long)y;
    if (A > t + rho) continue;
    const double x1 = y + 1.0, f1 = m + 1.0, z = dn + 1.0 - m, w = dn - y + 1.0;
    const double bound = ohr_mul(xm, ohr_log(f1 / x1)) + ohr_mul(dn - m + 0.5, ohr_log(z / w)) +
                         ohr_mul(y - m, ohr_log(ohr_mul(w, r) / ohr_mul(x1, q))) +
                         ohr_btpe_stirling(ohr_mul(f1, f1), f1) + ohr_btpe_stirling(ohr_mul(z, z), z) +
                         ohr_btpe_stirling(ohr_mul(x1, x1), x1) + ohr_btpe_stirling(ohr_mul(w, w), w);
    if (A > bound) continue;
    return (long long)y;
  }
}

__device__ long long ohr_s_binomial(ohr_stream& s, long long trials, double p) {
  if (trials == 0 || p == 0.0) return 0;
  if (p == 1.0) return trials;
  const double r = p <= 0.5 ? p : 1.0 - p;
  const long long x = ohr_mul((double)trials, r) <= 30.0 ? ohr_binomial_inversion(s, trials, r)
                                                       : ohr_binomial_btpe(s, trials, r);
  return p > 0.5 ? trials - x : x;
}

__global__ void ohr_binomial(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, long long* out, unsigned long long n, long long trials,
                             double p) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  ohr_stream s = ohr_stream_open(kc, i, 0);
  out[i] = ohr_s_binomial(s, trials, p);
}

__global__ void ohr_binomial_a(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, long long* out, unsigned long long n,
    const long long* trials, const double* p, const long long* desc) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  long long o[2];
  ohr_param_offsets<2>(desc, i, o);
  ohr_stream s = ohr_stream_open(kc, i, 0);
  out[i] = ohr_s_binomial(s, trials[o[0]], p[o[1]]);
}
