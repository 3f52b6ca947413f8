// openhip.numpy unique_values / unique_counts / unique_inverse / unique_all, driven by
// openhip/numpy/_set.py, on the values sorted by sort.hip (stable) and their permutation.
//
//   uq_count<T>(v, counts, n, chunk, nchunks)   thread c: how many groups start in its chunk
//       (a group starts where a value differs from the one before it; NaN != NaN, so every
//       NaN is a group of its own, as the standard asks).
//   uq_scan(counts, nchunks)                    exclusive scan in place, total in counts[nchunks]
//       (the one value the host reads: the number of unique values).
//   uq_write<T>(v, perm, counts, values, first, starts, inverse, n, chunk, nchunks)
//       thread c walks its chunk again: the unique values, the original index of each
//       group's first element (the stable sort keeps the first occurrence first), each
//       group's start in the sorted order, and inverse[perm[i]] = group of sorted element i.
//   uq_counts(starts, counts_out, groups, n)    counts_out[k] = starts[k + 1] - starts[k].
// Pointers may be null for outputs that are not wanted. No barrier: loop mode on the CPU.
#include "common.h"

template <class T>
__device__ __forceinline__ bool oh_starts(const T* v, long long i) {
  typedef typename oh_ct<T>::C C;
  if (i == 0) return true;
  const C a = cvt<C>(v[i]), b = cvt<C>(v[i - 1]);
  return !(a == b);
}

template <class T>
__global__ void uq_count(const T* __restrict__ v, long long* __restrict__ counts, long long n,
                         long long chunk, long long nchunks) {
  const oh_i64 c = oh_index();
  if (c >= nchunks) return;
  const oh_i64 lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
  long long k = 0;
  for (oh_i64 i = lo; i < hi; ++i) k += oh_starts(v, i) ? 1 : 0;
  counts[c] = k;
}

__global__ void uq_scan(long long* __restrict__ counts, long long nchunks) {
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
__global__ void uq_write(const T* __restrict__ v, const long long* __restrict__ perm,
                         const long long* __restrict__ counts, T* __restrict__ values,
                         long long* __restrict__ first, long long* __restrict__ starts,
                         long long* __restrict__ inverse, long long n, long long chunk,
                         long long nchunks) {
  const oh_i64 c = oh_index();
  if (c >= nchunks) return;
  const oh_i64 lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
  long long k = counts[c] - 1;
  for (oh_i64 i = lo; i < hi; ++i) {
    if (oh_starts(v, i)) {
      ++k;
      if (values) values[k] = v[i];
      if (first) first[k] = perm[i];
      if (starts) starts[k] = i;
    }
    if (inverse) inverse[perm[i]] = k;
  }
}

__global__ void uq_counts(const long long* __restrict__ starts, long long* __restrict__ out,
                          long long groups, long long n) {
  const oh_i64 k = oh_index();
  if (k >= groups) return;
  out[k] = (k + 1 < groups ? starts[k + 1] : n) - starts[k];
}
