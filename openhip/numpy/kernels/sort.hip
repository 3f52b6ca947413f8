// openhip.numpy sort / argsort: a stable LSD radix sort over 8-bit digits, driven by
// openhip/numpy/_sorting.py.
//
// Keys: oh_key<T, K, Arg>(x, descending) maps an element to an unsigned key whose unsigned
// order is the sort order: floats get their sign bit flipped (all bits when negative), every
// NaN becomes the largest key (NaNs last, ascending or descending), descending inverts the
// other keys; for argsort (Arg) -0.0 becomes +0.0 so that equal values keep their order
// exactly as numpy's stable sort does. oh_unkey<T, K> is the inverse.
//
// One pass (digit) of the sort is three launches:
//   hist0<T, K, Arg> / hist<K, V, RowKey>   per chunk, the count of each digit value (hist0
//       keys the input elements first, into buffer a);
//   offsets                                  one thread: the counts -> each chunk's first
//       output slot per digit (digit-major exclusive scan: stable), and the pass state;
//   scatter<T, K, V, First, Last, RowKey, HasV>   each chunk writes its elements, in order, to
//       its slots. The First pass's payload is the element's index (argsort's iota); the Last
//       pass writes the results themselves (the values un-keyed, and/or the payload as int64
//       indices modulo the row length).
//
// The pass state (int st[3], written by offsets only): st[0] the buffer (0: a, 1: b) the
// pass reads, st[1] whether the pass is trivial (every element has the same digit: the
// permutation is the identity, so it is skipped — a plain copy when it is the last), st[2]
// the buffer the next pass reads. Keys of a narrow range (small integers in int64, say) so
// skip most of their passes, without the host reading anything back.
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

template <class K, class V, bool RowKey>
__device__ __forceinline__ unsigned oh_digit(K k, V v, int shift, long long row_len) {
  if (RowKey) return (unsigned)(((unsigned long long)v / (unsigned long long)row_len) >> shift) & 255u;
  return (unsigned)(k >> shift) & 255u;
}

// four interleaved histograms: a run of equal digits is not one chain of increments
struct OhHist {
  unsigned h[4][OH_RADIX];
  __device__ __forceinline__ void clear() {
    for (int j = 0; j < 4; ++j)
      for (int d = 0; d < OH_RADIX; ++d) h[j][d] = 0;
  }
  __device__ __forceinline__ void store(unsigned* __restrict__ out) const {
    for (int d = 0; d < OH_RADIX; ++d) out[d] = h[0][d] + h[1][d] + h[2][d] + h[3][d];
  }
};

// the first pass: keys[i] = the key of x[i] (a vectorised loop over the chunk), then
// counts[c * 256 + d]: how many elements of chunk c have digit d (the keys' lowest 8 bits)
template <class T, class K, bool Arg>
__global__ void hist0(const T* __restrict__ x, K* __restrict__ keys,
                      unsigned* __restrict__ counts, long long n, long long chunk,
                      long long nchunks, int descending) {
  const oh_i64 c = oh_index();
  if (c >= nchunks) return;
  const oh_i64 lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
  const bool desc = descending != 0;
  for (oh_i64 i = lo; i < hi; ++i) keys[i] = oh_key<T, K, Arg>(x[i], desc);
  OhHist h;
  h.clear();
  oh_i64 i = lo;
  for (; i + 4 <= hi; i += 4) {
#pragma unroll
    for (int j = 0; j < 4; ++j) ++h.h[j][(unsigned)keys[i + j] & 255u];
  }
  for (; i < hi; ++i) ++h.h[0][(unsigned)keys[i] & 255u];
  h.store(counts + c * OH_RADIX);
}

// the same for a later pass, over the keys (payloads) the previous pass left in buffer st[2]
template <class K, class V, bool RowKey>
__global__ void hist(const K* __restrict__ ka, const K* __restrict__ kb,
                     const V* __restrict__ va, const V* __restrict__ vb,
                     const int* __restrict__ st, unsigned* __restrict__ counts, long long n,
                     long long chunk, long long nchunks, int shift, long long row_len) {
  const oh_i64 c = oh_index();
  if (c >= nchunks) return;
  const K* keys = st[2] ? kb : ka;
  const V* vals = st[2] ? vb : va;
  OhHist h;
  h.clear();
  const oh_i64 lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
  oh_i64 i = lo;
  for (; i + 4 <= hi; i += 4) {
#pragma unroll
    for (int j = 0; j < 4; ++j)
      ++h.h[j][oh_digit<K, V, RowKey>(RowKey ? (K)0 : keys[i + j], RowKey ? vals[i + j] : (V)0,
                                       shift, row_len)];
  }
  for (; i < hi; ++i)
    ++h.h[0][oh_digit<K, V, RowKey>(RowKey ? (K)0 : keys[i], RowKey ? vals[i] : (V)0, shift,
                                    row_len)];
  h.store(counts + c * OH_RADIX);
}

// one thread: offs[c * 256 + d] = first output slot of chunk c's elements of digit d, and the
// pass state (see the top of the file); first: the pass that reads the input elements
__global__ void offsets(const unsigned* __restrict__ counts, unsigned long long* __restrict__ offs,
                        int* __restrict__ st, long long n, long long nchunks, int first) {
  if (oh_index() != 0) return;
  unsigned long long base = 0;
  bool trivial = false;
  for (int d = 0; d < OH_RADIX; ++d) {
    unsigned long long tot = 0;
    for (oh_i64 c = 0; c < nchunks; ++c) {
      offs[c * OH_RADIX + d] = base + tot;
      tot += counts[c * OH_RADIX + d];
    }
    trivial = trivial || tot == (unsigned long long)n;
    base += tot;
  }
  if (first) {  // never skipped: it writes the first payload (the indices)
    st[0] = 0;
    st[1] = 0;
    st[2] = 1;
  } else {
    st[0] = st[2];
    st[1] = trivial ? 1 : 0;
    st[2] = trivial ? st[0] : 1 - st[0];
  }
}

// one pass: chunk c's elements, in order, to their slots, from buffer st[0] into the other.
// First: the keys of hist0 in buffer a, the payload the element's index. Last: into the
// results (vout: the values, iout: the payload % row_len as int64; either may be null), a
// plain copy when the pass is trivial.
template <class T, class K, class V, bool First, bool Last, bool RowKey, bool HasV>
__global__ void scatter(K* __restrict__ ka, K* __restrict__ kb,
                        V* __restrict__ va, V* __restrict__ vb, const int* __restrict__ st,
                        const unsigned long long* __restrict__ offs, T* __restrict__ vout,
                        long long* __restrict__ iout, long long n, long long chunk,
                        long long nchunks, int shift, long long row_len, int descending) {
  const oh_i64 c = oh_index();
  if (c >= nchunks) return;
  const bool desc = descending != 0;
  const int src = First ? 0 : st[0];
  const bool trivial = !First && st[1] != 0;
  if (trivial && !Last) return;
  const K* kin = src ? kb : ka;
  const V* vin = src ? vb : va;
  K* kout = src ? ka : kb;
  V* vout2 = src ? va : vb;
  const oh_i64 lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
  // row_len >= n: one row, the payload is the index itself
  const bool modulo = row_len < n;
  if (trivial) {  // the last pass, the identity permutation
    for (oh_i64 i = lo; i < hi; ++i) {
      if (vout) vout[i] = oh_unkey<T, K>(kin[i], desc);
      if (HasV && iout) {
        const unsigned long long v = (unsigned long long)vin[i];
        iout[i] = (long long)(modulo ? v % (unsigned long long)row_len : v);
      }
    }
    return;
  }
  unsigned long long o[OH_RADIX];
  for (int d = 0; d < OH_RADIX; ++d) o[d] = offs[c * OH_RADIX + d];
  for (oh_i64 i = lo; i < hi; ++i) {
    const K k = kin[i];
    const V v = HasV ? (First ? (V)i : vin[i]) : (V)0;
    const unsigned long long j = o[oh_digit<K, V, RowKey>(k, v, shift, row_len)]++;
    if (Last) {
      if (vout) vout[j] = oh_unkey<T, K>(k, desc);
      if (HasV && iout) {
        const unsigned long long u = (unsigned long long)v;
        iout[j] = (long long)(modulo ? u % (unsigned long long)row_len : u);
      }
    } else {
      kout[j] = k;
      if (HasV) vout2[j] = v;
    }
  }
}
