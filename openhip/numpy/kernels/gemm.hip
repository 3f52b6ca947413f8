// openhip.numpy.linalg: the project's own gemm, C[b] = A[b] @ B[b], for every element type.
//
// Each output element is one fixed chain of multiply-adds, k = 0, 1, ..., K-1 in order, each an
// explicit fma in the accumulation type (float for float/half/bfloat16, double for double, the
// complex struct's parts for complex; integers wrap in 64 bits).  No split of K, no dependence on
// the tiling, the batch size or the thread count: a row's result is bit-identical whether it is
// computed alone or inside a batch.  This is the deterministic gemm; it also serves the types and
// platforms a vendor BLAS does not.
//
// Thread layout: thread t owns a TI x TJ tile of one batch entry (TJ consecutive columns, so on
// the CPU platform the column loop vectorises); tiles_j is the fastest index.
// Strides are in elements.
#include "common.h"

template <class T> struct oh_gemm_acc { typedef typename oh_ct<T>::C type; };
template <> struct oh_gemm_acc<signed char> { typedef unsigned long long type; };
template <> struct oh_gemm_acc<short> { typedef unsigned long long type; };
template <> struct oh_gemm_acc<int> { typedef unsigned long long type; };
template <> struct oh_gemm_acc<long long> { typedef unsigned long long type; };
template <> struct oh_gemm_acc<unsigned char> { typedef unsigned long long type; };
template <> struct oh_gemm_acc<unsigned short> { typedef unsigned long long type; };
template <> struct oh_gemm_acc<unsigned int> { typedef unsigned long long type; };
template <> struct oh_gemm_acc<unsigned long long> { typedef unsigned long long type; };

template <class A> __device__ __forceinline__ A oh_zero() { return A(0); }
template <> __device__ __forceinline__ ohc<float> oh_zero<ohc<float> >() { return mkc<float>(0.f, 0.f); }
template <> __device__ __forceinline__ ohc<double> oh_zero<ohc<double> >() { return mkc<double>(0.0, 0.0); }

template <class A, class T> __device__ __forceinline__ A oh_load(const T* p) { return cvt<A>(*p); }
template <> __device__ __forceinline__ unsigned long long oh_load<unsigned long long, signed char>(const signed char* p) { return (unsigned long long)(long long)*p; }
template <> __device__ __forceinline__ unsigned long long oh_load<unsigned long long, short>(const short* p) { return (unsigned long long)(long long)*p; }
template <> __device__ __forceinline__ unsigned long long oh_load<unsigned long long, int>(const int* p) { return (unsigned long long)(long long)*p; }
template <> __device__ __forceinline__ unsigned long long oh_load<unsigned long long, long long>(const long long* p) { return (unsigned long long)*p; }

__device__ __forceinline__ void oh_mad(float& acc, float a, float b) { acc = fmaf(a, b, acc); }
__device__ __forceinline__ void oh_mad(double& acc, double a, double b) { acc = fma(a, b, acc); }
__device__ __forceinline__ void oh_mad(unsigned long long& acc, unsigned long long a,
                                       unsigned long long b) { acc += a * b; }
template <class R>
__device__ __forceinline__ void oh_mad(ohc<R>& acc, const ohc<R>& a, const ohc<R>& b) {
  acc.re = fma(a.re, b.re, acc.re);
  acc.re = fma(-a.im, b.im, acc.re);
  acc.im = fma(a.re, b.im, acc.im);
  acc.im = fma(a.im, b.re, acc.im);
}

template <class T, class A> __device__ __forceinline__ T oh_store(A v) { return cvt<T>(v); }
#define OH_INT_STORE(T) \
  template <> __device__ __forceinline__ T oh_store<T, unsigned long long>(unsigned long long v) { return (T)v; }
OH_INT_STORE(signed char) OH_INT_STORE(short) OH_INT_STORE(int) OH_INT_STORE(long long)
OH_INT_STORE(unsigned char) OH_INT_STORE(unsigned short) OH_INT_STORE(unsigned int)
OH_INT_STORE(unsigned long long)

template <class T, int TI, int TJ, int IFAST>
__global__ void oh_gemm(const T* A, const T* B, T* C, long long M, long long N, long long K,
                        long long sa_b, long long sa_i, long long sa_k,
                        long long sb_b, long long sb_k, long long sb_j,
                        long long sc_b, long long sc_i, long long sc_j,
                        long long tiles_i, long long tiles_j, long long batch) {
  typedef typename oh_gemm_acc<T>::type Acc;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= batch * tiles_i * tiles_j) return;
  const long long tj = IFAST ? (t / tiles_i) % tiles_j : t % tiles_j;
  const long long ti = IFAST ? t % tiles_i : (t / tiles_j) % tiles_i;
  const long long b = t / (tiles_j * tiles_i);
  const long long i0 = ti * TI, j0 = tj * TJ;
  const T* a = A + b * sa_b + i0 * sa_i;
  const T* bb = B + b * sb_b + j0 * sb_j;
  T* c = C + b * sc_b + i0 * sc_i + j0 * sc_j;
  Acc acc[TI][TJ];
  for (int ii = 0; ii < TI; ++ii)
    for (int jj = 0; jj < TJ; ++jj) acc[ii][jj] = oh_zero<Acc>();
  if (i0 + TI <= M && j0 + TJ <= N && sb_j == 1) {
    // a whole tile, B's rows contiguous: the CPU platform vectorises the jj loop
    for (long long k = 0; k < K; ++k) {
      Acc bk[TJ];
      for (int jj = 0; jj < TJ; ++jj) bk[jj] = oh_load<Acc>(bb + k * sb_k + jj);
      for (int ii = 0; ii < TI; ++ii) {
        const Acc av = oh_load<Acc>(a + ii * sa_i + k * sa_k);
        for (int jj = 0; jj < TJ; ++jj) oh_mad(acc[ii][jj], av, bk[jj]);
      }
    }
    for (int ii = 0; ii < TI; ++ii)
      for (int jj = 0; jj < TJ; ++jj) c[ii * sc_i + jj * sc_j] = oh_store<T>(acc[ii][jj]);
    return;
  }
  const int ni = (int)(M - i0 < TI ? M - i0 : TI);
  const int nj = (int)(N - j0 < TJ ? N - j0 : TJ);
  for (long long k = 0; k < K; ++k) {
    for (int ii = 0; ii < ni; ++ii) {
      const Acc av = oh_load<Acc>(a + ii * sa_i + k * sa_k);
      for (int jj = 0; jj < nj; ++jj)
        oh_mad(acc[ii][jj], av, oh_load<Acc>(bb + k * sb_k + jj * sb_j));
    }
  }
  for (int ii = 0; ii < ni; ++ii)
    for (int jj = 0; jj < nj; ++jj) c[ii * sc_i + jj * sc_j] = oh_store<T>(acc[ii][jj]);
}
