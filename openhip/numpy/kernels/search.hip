// openhip.numpy nonzero and searchsorted, driven by openhip/numpy/_searching.py.
//
//   nz_count<T>(x, counts, a)    thread c: how many elements of its chunk of the C-order index
//                                space are nonzero (x strided as OhNd says).
//   nz_scan(counts, nchunks)     in place: the exclusive scan of the chunk counts, and the
//                                total in counts[nchunks] (the one value the host reads).
//   nz_write<T>(x, counts, out, total, a)   thread c writes the coordinates of its chunk's
//                                nonzero elements, in order, to out[d * total + k].
//   searchsorted<T, Right, Sorted>(x1, sorter, x2, out, n1, n2)   thread per x2 element: a
//                                binary search of the sorted x1 (through `sorter` unless
//                                Sorted), NaN ordered last as numpy's sort puts it; a
//                                sorter entry out of range gives -1 (nothing read there).
// No barrier: loop mode on the CPU platform.
#include "common.h"

struct OhNd {
  oh_i64 ndim, n, chunk, nchunks;
  oh_i64 shape[OH_MAXDIM], strides[OH_MAXDIM];   // strides in elements
};

// position of flat C-order index i: coordinates and element offset
__device__ __forceinline__ oh_i64 oh_nd_start(const OhNd& a, oh_i64 i, oh_i64* idx) {
  oh_i64 off = 0;
  for (int d = (int)a.ndim - 1; d >= 0; --d) {
    const oh_i64 q = i / a.shape[d];
    idx[d] = i - q * a.shape[d];
    off += idx[d] * a.strides[d];
    i = q;
  }
  return off;
}

__device__ __forceinline__ oh_i64 oh_nd_next(const OhNd& a, oh_i64* idx, oh_i64 off) {
  for (int d = (int)a.ndim - 1; d >= 0; --d) {
    off += a.strides[d];
    if (++idx[d] < a.shape[d]) return off;
    off -= idx[d] * a.strides[d];
    idx[d] = 0;
  }
  return off;
}

template <class T>
__global__ void nz_count(const T* __restrict__ x, long long* __restrict__ counts, OhNd a) {
  const oh_i64 c = oh_index();
  if (c >= a.nchunks) return;
  const oh_i64 lo = c * a.chunk, hi = lo + a.chunk < a.n ? lo + a.chunk : a.n;
  oh_i64 idx[OH_MAXDIM];
  oh_i64 k = 0;
  if (lo < hi) {
    oh_i64 off = oh_nd_start(a, lo, idx);
    for (oh_i64 i = lo; i < hi; ++i) {
      k += cvt<bool>(x[off]) ? 1 : 0;
      off = oh_nd_next(a, idx, off);
    }
  }
  counts[c] = k;
}

__global__ void nz_scan(long long* __restrict__ counts, long long nchunks) {
  if (oh_index() != 0) return;
  long long s = 0;
  for (long long c = 0; c < nchunks; ++c) {
    const long long t = counts[c];
    counts[c] = s;
    s += t;
  }
  counts[nchunks] = s;
}

template <class T>
__global__ void nz_write(const T* __restrict__ x, const long long* __restrict__ counts,
                         long long* __restrict__ out, long long total, OhNd a) {
  const oh_i64 c = oh_index();
  if (c >= a.nchunks) return;
  const oh_i64 lo = c * a.chunk, hi = lo + a.chunk < a.n ? lo + a.chunk : a.n;
  if (lo >= hi) return;
  oh_i64 idx[OH_MAXDIM];
  oh_i64 k = counts[c];
  oh_i64 off = oh_nd_start(a, lo, idx);
  for (oh_i64 i = lo; i < hi; ++i) {
    if (cvt<bool>(x[off])) {
      for (int d = 0; d < (int)a.ndim; ++d) out[d * total + k] = idx[d];
      ++k;
    }
    off = oh_nd_next(a, idx, off);
  }
}

// a < b in sort order: NaN after everything
template <class C> __device__ __forceinline__ bool oh_lt(C a, C b) {
  return a < b || (b != b && a == a);
}

template <class T, bool Right, bool Sorted>
__global__ void searchsorted(const T* __restrict__ x1, const long long* __restrict__ sorter,
                             const T* __restrict__ x2, long long* __restrict__ out,
                             long long n1, long long n2) {
  typedef typename oh_ct<T>::C C;
  const oh_i64 i = oh_index();
  if (i >= n2) return;
  const C v = cvt<C>(x2[i]);
  oh_i64 lo = 0, hi = n1;
  while (lo < hi) {
    const oh_i64 mid = lo + (hi - lo) / 2;
    const long long j = Sorted ? mid : sorter[mid];
    if (j < 0 || j >= n1) {  // not a permutation: no wild read, -1 reports it
      lo = -1;
      break;
    }
    const C m = cvt<C>(x1[j]);
    const bool go_right = Right ? !oh_lt(v, m) : oh_lt(m, v);
    if (go_right) lo = mid + 1;
    else hi = mid;
  }
  out[i] = lo;
}
