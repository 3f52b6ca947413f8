// openhip.numpy sort / argsort: a stable LSD radix sort over 8-bit digits, driven by
// openhip/numpy/_sorting.py.
//
//   keyify<T, K, Arg>(x, keys, n, descending)   element -> unsigned key whose unsigned order
//       is the sort order: floats get their sign bit flipped (all bits when negative), every
//       NaN becomes the largest key (NaNs last, ascending or descending), descending inverts
//       the other keys; for argsort (Arg) -0.0 becomes +0.0 so that equal values keep their
//       order exactly as numpy's stable sort does.
//   unkey<T, K>(keys, out, n, descending)       the inverse, for sort.
//   iota<V>(v, n)                                v[i] = i (argsort's payload).
//   hist<K, V, RowKey>(..)                       per chunk, the count of each digit value.
//   offsets_total / offsets_scan                  the counts -> each chunk's first output
//       slot per digit (digit-major exclusive scan: stable).
//   scatter<K, V, RowKey, HasV>(..)               each chunk writes its elements, in order,
//       to its slots: one pass of the LSD sort.
//
// Thread c owns the contiguous chunk [c * chunk, min(n, (c + 1) * chunk)) in hist and scatter,
// so each pass is stable and its result independent of how threads are scheduled. Rows of a
// batched sort (along an axis) are sorted with the row number as the most significant key:
// RowKey passes take the digit from payload / row_len. No barrier: loop mode on the CPU.
#include "common.h"

#define OH_RADIX 256

template <class K> struct oh_bits {};
template <> struct oh_bits<unsigned char> { static const int n = 8; };
template <> struct oh_bits<unsigned short> { static const int n = 16; };
template <> struct oh_bits<unsigned int> { static const int n = 32; };
template <> struct oh_bits<unsigned long long> { static const int n = 64; };

// raw bits of a storage type
template <class T, class K> __device__ __forceinline__ K oh_raw(T v) {
  K k;
  memcpy(&k, &v, sizeof(K));
  return k;
}
template <class T, class K> __device__ __forceinline__ T oh_unraw(K k) {
  T v;
  memcpy(&v, &k, sizeof(K));
  return v;
}

template <class T> struct oh_kind { static const int v = 0; };  // 0 unsigned, 1 signed, 2 float
template <> struct oh_kind<signed char> { static const int v = 1; };
template <> struct oh_kind<short> { static const int v = 1; };
template <> struct oh_kind<int> { static const int v = 1; };
template <> struct oh_kind<long long> { static const int v = 1; };
template <> struct oh_kind<__half> { static const int v = 2; };
template <> struct oh_kind<__hip_bfloat16> { static const int v = 2; };
template <> struct oh_kind<float> { static const int v = 2; };
template <> struct oh_kind<double> { static const int v = 2; };

template <class T, class K, bool Arg>
__device__ __forceinline__ K oh_key(T v, bool descending) {
  const K top = (K)((K)1 << (oh_bits<K>::n - 1));
  K k = oh_raw<T, K>(v);
  if (oh_kind<T>::v == 1) {
    k ^= top;
  } else if (oh_kind<T>::v == 2) {
    if (oh_re(v) != oh_re(v)) return (K)~(K)0;          // every NaN: the largest key
    if (Arg && (k & (K)~top) == 0) k = 0;               // -0.0 -> +0.0
    k = (k & top) ? (K)~k : (K)(k | top);
    // finite and infinite keys lie strictly inside (0, ~0): inverting them (descending)
    // never reaches the NaN key
  }
  return descending ? (K)~k : k;
}

template <class T, class K>
__device__ __forceinline__ T oh_unkey(K k, bool descending) {
  const K top = (K)((K)1 << (oh_bits<K>::n - 1));
  if (oh_kind<T>::v == 2 && k == (K)~(K)0) return oh_unraw<T, K>((K)~top);  // +NaN
  if (descending) k = (K)~k;
  if (oh_kind<T>::v == 1) {
    k ^= top;
  } else if (oh_kind<T>::v == 2) {
    k = (k & top) ? (K)(k & (K)~top) : (K)~k;
  }
  return oh_unraw<T, K>(k);
}

template <class T, class K, bool Arg>
__global__ void keyify(const T* __restrict__ x, K* __restrict__ keys, long long n,
                       int descending) {
  const oh_i64 i = oh_index();
  if (i < n) keys[i] = oh_key<T, K, Arg>(x[i], descending != 0);
}

template <class T, class K>
__global__ void unkey(const K* __restrict__ keys, T* __restrict__ out, long long n,
                      int descending) {
  const oh_i64 i = oh_index();
  if (i < n) out[i] = oh_unkey<T, K>(keys[i], descending != 0);
}

template <class V>
__global__ void iota(V* __restrict__ v, long long n) {
  const oh_i64 i = oh_index();
  if (i < n) v[i] = (V)i;
}

template <class K, class V, bool RowKey>
__device__ __forceinline__ unsigned oh_digit(K k, V v, int shift, long long row_len) {
  if (RowKey) return (unsigned)(((unsigned long long)v / (unsigned long long)row_len) >> shift) & 255u;
  return (unsigned)(k >> shift) & 255u;
}

// counts[d * nchunks + c]: how many elements of chunk c have digit d
template <class K, class V, bool RowKey>
__global__ void hist(const K* __restrict__ keys, const V* __restrict__ vals,
                     unsigned* __restrict__ counts, long long n, long long chunk,
                     long long nchunks, int shift, long long row_len) {
  const oh_i64 c = oh_index();
  if (c >= nchunks) return;
  unsigned h[OH_RADIX];
  for (int d = 0; d < OH_RADIX; ++d) h[d] = 0;
  const oh_i64 lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
  for (oh_i64 i = lo; i < hi; ++i)
    ++h[oh_digit<K, V, RowKey>(RowKey ? (K)0 : keys[i], RowKey ? vals[i] : (V)0, shift, row_len)];
  for (int d = 0; d < OH_RADIX; ++d) counts[d * nchunks + c] = h[d];
}

// totals[d] = sum over chunks of counts[d * nchunks + c]
__global__ void offsets_total(const unsigned* __restrict__ counts,
                              unsigned long long* __restrict__ totals, long long nchunks) {
  const oh_i64 d = oh_index();
  if (d >= OH_RADIX) return;
  unsigned long long s = 0;
  for (oh_i64 c = 0; c < nchunks; ++c) s += counts[d * nchunks + c];
  totals[d] = s;
}

// offs[d * nchunks + c] = first output slot of chunk c's elements of digit d
__global__ void offsets_scan(const unsigned* __restrict__ counts,
                             const unsigned long long* __restrict__ totals,
                             unsigned long long* __restrict__ offs, long long nchunks) {
  const oh_i64 d = oh_index();
  if (d >= OH_RADIX) return;
  unsigned long long base = 0;
  for (oh_i64 e = 0; e < d; ++e) base += totals[e];
  for (oh_i64 c = 0; c < nchunks; ++c) {
    offs[d * nchunks + c] = base;
    base += counts[d * nchunks + c];
  }
}

template <class K, class V, bool RowKey, bool HasV>
__global__ void scatter(const K* __restrict__ kin, K* __restrict__ kout,
                        const V* __restrict__ vin, V* __restrict__ vout,
                        const unsigned long long* __restrict__ offs, long long n,
                        long long chunk, long long nchunks, int shift, long long row_len) {
  const oh_i64 c = oh_index();
  if (c >= nchunks) return;
  unsigned long long o[OH_RADIX];
  for (int d = 0; d < OH_RADIX; ++d) o[d] = offs[d * nchunks + c];
  const oh_i64 lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
  for (oh_i64 i = lo; i < hi; ++i) {
    const K k = kin[i];
    const V v = HasV ? vin[i] : (V)0;
    const unsigned long long j = o[oh_digit<K, V, RowKey>(k, v, shift, row_len)]++;
    kout[j] = k;
    if (HasV) vout[j] = v;
  }
}

// out[i] = (long long)v[i] (argsort's result) or v[i] % row_len (a batched argsort)
template <class V>
__global__ void widen(const V* __restrict__ v, long long* __restrict__ out, long long n,
                      long long row_len) {
  const oh_i64 i = oh_index();
  if (i < n) out[i] = (long long)((unsigned long long)v[i] % (unsigned long long)row_len);
}
