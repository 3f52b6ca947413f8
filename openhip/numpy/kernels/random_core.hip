// openhip.numpy.random kernels: raw words, uniform, normal, exponential, keys, XORWOW.
// Loaded by openhip/numpy/random/_kernels.py; the same source on cpu, nvidia and amd.
//
// Layout of the words (the contract the Python side documents):
// - random_raw: thread t writes the four words of the block at counter + t to out[4t .. 4t+3];
// - "vector" distributions (random/uniform, normal, exponential): thread t computes the block
//   at counter + t and writes its PER values to out[t + j * nb], nb = ceil(n / PER) (planes);
// - "stream" distributions (integers, gamma, beta, poisson, binomial, keys): element i reads
//   the words of its own stream (ohr_stream_open(position + i, sub)), as many as it needs.
// Every value depends only on (key, counter, index), never on the launch shape or thread count.
#include <hip/hip_runtime.h>
#include "random_common.h"

extern "C" __global__ void ohr_raw32(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, unsigned int* out, unsigned long long n) {
  const unsigned long long t = ohr_tid();
  if (t * 4 >= n) return;
  const ohr_counter at = ohr_counter_add(c0, c1, c2, c3, t);
  const ohr_block b = ohr_philox4x32_10(at.c[0], at.c[1], at.c[2], at.c[3], k0, k1);
  const unsigned long long base = t * 4;
  for (int j = 0; j < 4; ++j)
    if (base + j < n) out[base + j] = b.w[j];
}

template <typename T> struct ohr_per_block;
template <> struct ohr_per_block<float> { static constexpr int value = 4; };
template <> struct ohr_per_block<double> { static constexpr int value = 2; };

// The vector distributions' layout: n outputs, nb = ceil(n / PER) blocks; thread t computes the
// block at counter + t and writes its PER values to out[t], out[nb + t], out[2 nb + t], ...
// (planes of nb values: consecutive threads store to consecutive addresses, which the CPU
// platform vectorises).  Thread t < 2^32 (the Python side checks).
#define OHR_VECTOR_PROLOGUE(T)                                                       \
  constexpr int PER = ohr_per_block<T>::value;                                       \
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;                      \
  const unsigned long long nb = (n + PER - 1) / PER;                                 \
  if (t >= nb) return;                                                               \
  unsigned int x0, x1, x2, x3;                                                       \
  ohr_counter_add32(c0, c1, c2, c3, t, &x0, &x1, &x2, &x3);                          \
  const ohr_block b = ohr_philox4x32_10(x0, x1, x2, x3, k0, k1)

// (out holds PER * nb values: the Python side pads, so the stores need no mask.)
#define OHR_VECTOR_STORE(values)                                                     \
  for (int j = 0; j < PER; ++j) out[j * nb + t] = values[j]

__device__ __forceinline__ void ohr_uniforms(const ohr_block& b, float* u) {
  for (int j = 0; j < 4; ++j) u[j] = ohr_u01_f32(b.w[j]);
}
__device__ __forceinline__ void ohr_uniforms(const ohr_block& b, double* u) {
  u[0] = ohr_u01_f64(((unsigned long long)b.w[1] << 32) | b.w[0]);
  u[1] = ohr_u01_f64(((unsigned long long)b.w[3] << 32) | b.w[2]);
}

// low + scale * u
template <typename T>
__global__ void ohr_uniform(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, double low, double scale) {
  OHR_VECTOR_PROLOGUE(T);
  T u[PER];
  ohr_uniforms(b, u);
  if (!(low == 0.0 && scale == 1.0))
    for (int j = 0; j < PER; ++j) u[j] = (T)fma((double)u[j], scale, low);
  OHR_VECTOR_STORE(u);
}

__device__ __forceinline__ void ohr_normals(const ohr_block& b, float* z) {
  double a, c;
  ohr_box_muller(ohr_u01_open0_32(b.w[0]), (double)b.w[1] * 2.3283064365386962890625e-10, &a, &c);
  z[0] = (float)a; z[1] = (float)c;
  ohr_box_muller(ohr_u01_open0_32(b.w[2]), (double)b.w[3] * 2.3283064365386962890625e-10, &a, &c);
  z[2] = (float)a; z[3] = (float)c;
}
__device__ __forceinline__ void ohr_normals(const ohr_block& b, double* z) {
  ohr_box_muller(ohr_u01_open0_64(((unsigned long long)b.w[1] << 32) | b.w[0]),
                 ohr_u01_f64(((unsigned long long)b.w[3] << 32) | b.w[2]), &z[0], &z[1]);
}

template <typename T>
__global__ void ohr_normal(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, double loc, double scale) {
  OHR_VECTOR_PROLOGUE(T);
  T z[PER];
  ohr_normals(b, z);
  if (!(loc == 0.0 && scale == 1.0))
    for (int j = 0; j < PER; ++j) z[j] = (T)fma((double)z[j], scale, loc);
  OHR_VECTOR_STORE(z);
}

// -log(u) for the block's PER values, u in (0, 1].  Written out, not as a loop over j: GCC
// would vectorise that short loop and then not the CPU platform's thread loop around it.
__device__ __forceinline__ void ohr_neglogs(const ohr_block& b, float*, double* e) {
  e[0] = -ohr_log_pos(ohr_u01_open0_32(b.w[0]));
  e[1] = -ohr_log_pos(ohr_u01_open0_32(b.w[1]));
  e[2] = -ohr_log_pos(ohr_u01_open0_32(b.w[2]));
  e[3] = -ohr_log_pos(ohr_u01_open0_32(b.w[3]));
}
__device__ __forceinline__ void ohr_neglogs(const ohr_block& b, double*, double* e) {
  e[0] = -ohr_log_pos(ohr_u01_open0_64(((unsigned long long)b.w[1] << 32) | b.w[0]));
  e[1] = -ohr_log_pos(ohr_u01_open0_64(((unsigned long long)b.w[3] << 32) | b.w[2]));
}

// scale * -log(u), u in (0, 1].
template <typename T>
__global__ void ohr_exponential(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, double scale) {
  OHR_VECTOR_PROLOGUE(T);
  double d[PER];
  T e[PER];
  ohr_neglogs(b, e, d);
  for (int j = 0; j < PER; ++j) e[j] = (T)ohr_mul(d[j], scale);
  OHR_VECTOR_STORE(e);
}

// ---- the same with array-valued parameters (random_common.h: ohr_param_offsets) ------------
// Same words, same layout and the same arithmetic as the scalar kernels: an array filled with
// one value gives the bits of that scalar.  FLAT: a one-dimensional descriptor (offset = index
// * stride, what parameters of the output's own shape or scalars give), a loop GCC vectorises;
// else the general walk.  The output is padded as for the scalar kernels; the padding's values
// read the parameters of element n - 1.
// (The flat strides are read before the kernels' early return: loads GCC can hoist, where
// loads under the return's mask keep the loop scalar.)
#define OHR_FLAT_STRIDES(P)                                                          \
  long long st[P];                                                                  \
  for (int k = 0; k < P; ++k) st[k] = desc[2 + k]

template <int P, bool FLAT>
__device__ __forceinline__ void ohr_offsets(const long long* desc, const long long* st,
                                            unsigned long long idx, unsigned long long n,
                                            long long* o) {
  const unsigned long long i = idx < n ? idx : n - 1;
  if (FLAT) {
    for (int k = 0; k < P; ++k) o[k] = (long long)i * st[k];
  } else {
    ohr_param_offsets<P>(desc, i, o);
  }
}

template <typename T, bool FLAT>
__global__ void ohr_uniform_a(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, const double* low,
    const double* high, const long long* desc) {
  OHR_FLAT_STRIDES(2);
  OHR_VECTOR_PROLOGUE(T);
  T u[PER];
  ohr_uniforms(b, u);
  for (int j = 0; j < PER; ++j) {
    long long o[2];
    ohr_offsets<2, FLAT>(desc, st, j * nb + t, n, o);
    const double lo = low[o[0]], scale = high[o[1]] - lo;
    out[j * nb + t] = ((lo == 0.0) & (scale == 1.0)) ? u[j] : (T)fma((double)u[j], scale, lo);
  }
}

template <typename T, bool FLAT>
__global__ void ohr_normal_a(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, T* out, unsigned long long n, const double* loc,
    const double* scale, const long long* desc) {
  OHR_FLAT_STRIDES(2);
  OHR_VECTOR_PROLOGUE(T);
  T z[PER];
  ohr_normals(b, z);
  for (int j = 0; j < PER; ++j) {
    long long o[2];
    ohr_offsets<2, FLAT>(desc, st, j * nb + t, n, o);
    const double mu = loc[o[0]], sigma = scale[o[1]];
    out[j * nb + t] = ((mu == 0.0) & (sigma == 1.0)) ? z[j] : (T)fma((double)z[j], sigma, mu);
  }
}

template <typename T, bool FLAT>
__global__ void ohr_exponential_a(unsigned int k0, unsigned int k1, unsigned int c0,
    unsigned int c1, unsigned int c2, unsigned int c3, T* out, unsigned long long n,
    const double* scale, const long long* desc) {
  OHR_FLAT_STRIDES(1);
  OHR_VECTOR_PROLOGUE(T);
  double d[PER];
  ohr_neglogs(b, (T*)nullptr, d);
  for (int j = 0; j < PER; ++j) {
    long long o[1];
    ohr_offsets<1, FLAT>(desc, st, j * nb + t, n, o);
    out[j * nb + t] = (T)ohr_mul(d[j], scale[o[0]]);
  }
}

// The general walk of uniform_a / normal_a as a second pass over the scalar kernel's standard
// values (low 0 / loc 0, scale 1): out[i] = fma(out[i], b, a) with element i's parameters, the
// one-pass kernels' arithmetic (SPAN: b = p1 - p0, uniform's high - low), so the bits are the
// same.  Two passes because the walk in the same loop keeps GCC from vectorising the CPU
// platform's thread loop around Box-Muller (FLAT descriptors keep the one-pass form).
template <typename T, bool SPAN>
__global__ void ohr_affine_a(T* out, unsigned long long n, const double* p0, const double* p1,
                             const long long* desc) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  long long o[2];
  ohr_param_offsets<2>(desc, i, o);
  const double a = p0[o[0]], b = SPAN ? p1[o[1]] - a : p1[o[1]];
  const T v = out[i];
  out[i] = ((a == 0.0) & (b == 1.0)) ? v : (T)fma((double)v, b, a);
}

// 64-bit keys for permutations: element i's key is its stream's first 64 bits.
__global__ void ohr_keys(unsigned int k0, unsigned int k1, unsigned int c0, unsigned int c1,
    unsigned int c2, unsigned int c3, unsigned long long* out, unsigned long long n) {
  const unsigned long long i = ohr_tid();
  if (i >= n) return;
  OHR_KC_ARRAY;
  ohr_stream s = ohr_stream_open(kc, i, 0);
  out[i] = ohr_next64(s);
}

// ---- XORWOW: one state per subsequence; element i from state i % T, step i / T -------------
// states: T x 6 words (d, v0..v4).
__global__ void ohr_xorwow_raw32(unsigned int* states, unsigned long long T, unsigned int* out,
                                 unsigned long long n) {
  const unsigned long long t = ohr_tid();
  if (t >= T) return;
  ohr_xorwow st;
  st.d = states[t * 6];
  for (int j = 0; j < 5; ++j) st.v[j] = states[t * 6 + 1 + j];
  for (unsigned long long i = t; i < n; i += T) out[i] = ohr_xorwow_next(st);
  states[t * 6] = st.d;
  for (int j = 0; j < 5; ++j) states[t * 6 + 1 + j] = st.v[j];
}

