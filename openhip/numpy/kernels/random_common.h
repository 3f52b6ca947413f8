// openhip.numpy.random: what every random kernel file shares (uniforms from words, Box-Muller,
// the per-element streams).  See random_core.hip for the layout of the words.
#pragma once
#include "random_bits.h"
#include "random_math.h"

__device__ __forceinline__ unsigned long long ohr_tid() {
  return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

#define OHR_KC_ARRAY const unsigned int kc[6] = {k0, k1, c0, c1, c2, c3}

// 2^-24 * (w >> 8): a float in [0, 1) with every float multiple of 2^-24 equally likely.
__device__ __forceinline__ float ohr_u01_f32(unsigned int w) {
  return (float)(w >> 8) * 5.9604644775390625e-08f;
}
// 2^-53 * (x >> 11): a double in [0, 1).
__device__ __forceinline__ double ohr_u01_f64(unsigned long long x) {
  return (double)(x >> 11) * 1.1102230246251565404e-16;
}
// (0, 1]: never 0, for logarithms.
__device__ __forceinline__ double ohr_u01_open0_32(unsigned int w) {
  return ((double)w + 1.0) * 2.3283064365386962890625e-10;
}
__device__ __forceinline__ double ohr_u01_open0_64(unsigned long long x) {
  return ((double)(x >> 11) + 1.0) * 1.1102230246251565404e-16;
}

// Box-Muller: (sqrt(-2 log u1) cos 2 pi u2, sqrt(-2 log u1) sin 2 pi u2), u1 in (0, 1] (a
// positive normal double: ohr_log_pos, branch-free like the rest, so the loops vectorise).
__device__ __forceinline__ void ohr_box_muller(double u1, double u2, double* z0, double* z1) {
  const double r = sqrt(-2.0 * ohr_log_pos(u1));
  double s, c;
  ohr_sincos_2pi(u2, &s, &c);
  *z0 = ohr_mul(r, c);
  *z1 = ohr_mul(r, s);
}

// ---- stream distributions ------------------------------------------------------------------
__device__ __forceinline__ double ohr_s_uniform(ohr_stream& s) { return ohr_u01_f64(ohr_next64(s)); }
__device__ __forceinline__ double ohr_s_uniform_open0(ohr_stream& s) {
  return ohr_u01_open0_64(ohr_next64(s));
}
__device__ __forceinline__ double ohr_s_normal(ohr_stream& s) {
  double z0, z1;
  const double u1 = ohr_s_uniform_open0(s);
  ohr_box_muller(u1, ohr_s_uniform(s), &z0, &z1);
  return z0;
}


// ---- array-valued parameters ---------------------------------------------------------------
// The *_a kernels read P parameter arrays broadcast against the output (numpy's rules): desc =
// {ndim, shape[0..ndim-1], strides[0][0..ndim-1], ..., strides[P-1][0..ndim-1]} in elements,
// C order, a stride of 0 along a broadcast dimension, then magic[0..ndim-1]: ceil(2^64 /
// shape[d]) when the output has fewer than 2^32 elements (then i / shape[d] is exactly
// __umul64hi(i, magic[d]): i < 2^32 and shape[d] <= 2^32), else 0 (a division). The Python
// side (random/_params.py) collapses the dimensions first, so an output with parameters of
// its own shape has ndim 1.
template <int P>
__device__ __forceinline__ void ohr_param_offsets(const long long* desc, unsigned long long i,
                                                  long long* off) {
  const int nd = (int)desc[0];
  if (nd == 1) {
    for (int k = 0; k < P; ++k) off[k] = (long long)i * desc[2 + k];
    return;
  }
  const long long* magic = desc + 1 + nd + P * nd;
  for (int k = 0; k < P; ++k) off[k] = 0;
  for (int d = nd - 1; d >= 0; --d) {
    const unsigned long long extent = (unsigned long long)desc[1 + d];
    const unsigned long long m = (unsigned long long)magic[d];
    const unsigned long long q = m ? __umul64hi(i, m) : i / extent;
    const unsigned long long idx = i - q * extent;
    i = q;
    for (int k = 0; k < P; ++k) off[k] += (long long)idx * desc[1 + nd + k * nd + d];
  }
}
