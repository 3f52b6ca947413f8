// openhip.numpy reductions (sum prod min max all any count_nonzero mean var std argmax argmin),
// instantiated per (operation, storage types) by openhip/numpy/_reduction.py.
//
// A reduction is given in canonical form (see _reduction.py), by value in OhRed: the kept
// dimensions kn/ks (in the output's C order, strides in elements of the input) and the reduced
// dimensions rn/rs (at least one; the innermost last). Thread t computes output
// o = t / parts over the part p = t % parts of the reduced space (the outermost reduced
// dimension split into `parts` equal ranges), so a reduction to few outputs still has
// enough threads; a second launch combines the partials ((n_out, parts) of rows<> by rows<>,
// (parts, n_out) of cols<> by cols<>). The order of the combination is fixed by the shapes
// alone: results do not depend on the thread count.
//
//   rows<Op, Ti, To>          one thread per (output, part); the innermost reduced dimension
//                            is walked in blocks of 128 (16 accumulators, vectorised when it
//                            is contiguous) whose block values go into a pairwise cascade:
//                            float sums are as accurate as numpy's pairwise summation.
//   cols<Op, Ti, To>          one thread per (16 consecutive outputs, part), for a kept
//                            innermost dimension of stride 1 (e.g. axis 0 of a C-contiguous
//                            matrix): 16 accumulators walk the reduced space row by row
//                            (OH_CW(A): 16 KiB of them on the CPU). Its partials are
//                            (parts, n_out), combined by a second cols<> launch.
//   argrows<Ti, IsMax>       value and flat index of the first maximum (minimum; a NaN wins,
//                            the first NaN as numpy) per (output, part), then argcombine<>.
//
// post: 0 out = acc; 1 out = acc * scale (mean, var); 2 out = sqrt(acc * scale) (std).
// No barrier, no warp function: every kernel runs in the CPU platform's loop mode.
#include "common.h"

#include "reduce_ops.h"

template <class Op, int N>
__device__ __forceinline__ typename Op::Acc oh_tree(typename Op::Acc* a) {
#pragma unroll
  for (int w = N / 2; w >= 1; w /= 2) {
#pragma unroll
    for (int j = 0; j < w; ++j) a[j] = Op::comb(a[j], a[j + w]);
  }
  return a[0];
}

// ---------------------------------------------------------------------------------------
// pairwise cascade of block values: a binary counter of partial sums, so that n block values
// are combined in a balanced tree of depth log2(n)
template <class Op>
struct Cascade {
  typedef typename Op::Acc A;
  A lv[40];
  A lane[OH_RL];  // the running lanes of a non-pairwise operation
  oh_u64 count;
  __device__ __forceinline__ void init() {
    count = 0;
    OH_LANES
    for (int j = 0; j < OH_RL; ++j) lane[j] = Op::id();
  }
  __device__ __forceinline__ void push(A v) {
    int k = 0;
    oh_u64 c = count;
    while (c & 1) {
      v = Op::comb(lv[k], v);
      c >>= 1;
      ++k;
    }
    lv[k] = v;
    ++count;
  }
  __device__ __forceinline__ A result() {
    A r = Op::pairwise ? Op::id() : oh_tree<Op, OH_RL>(lane);
    bool have = !Op::pairwise;
    for (int k = 0; k < 40; ++k) {
      if ((count >> k) & 1) {
        r = have ? Op::comb(lv[k], r) : lv[k];
        have = true;
      }
    }
    return r;
  }
};

#ifdef OPENHIP_CPU_HIP_RUNTIME_H
// The CPU platform's contiguous rows of a non-pairwise operation whose map is the identity
// (max/min/prod of an arithmetic type that is its own accumulator): four vector
// accumulators (GCC vector extensions) held in registers over the row, folded into the
// cascade's lanes at the end. The scalar lane array of the generic path lives in memory
// (GCC keeps a loop over an array in the loop form the vectoriser needs), a store and a
// reload per vector per element block: 4-5x slower than streaming the row.
template <class A> struct oh_vlane { static const bool ok = false; };
#define OH_VLANE(T) template <> struct oh_vlane<T> { static const bool ok = true; };
OH_VLANE(float) OH_VLANE(double) OH_VLANE(signed char) OH_VLANE(unsigned char) OH_VLANE(short)
OH_VLANE(unsigned short) OH_VLANE(int) OH_VLANE(unsigned) OH_VLANE(long long)
OH_VLANE(unsigned long long)
#undef OH_VLANE
template <class A, class B> struct oh_same { static const bool v = false; };
template <class A> struct oh_same<A, A> { static const bool v = true; };

template <class Op, class Ti>
struct oh_vrow_ok {
  static const bool v = Op::ident_map && oh_vlane<typename Op::Acc>::ok &&
                        oh_same<Ti, typename Op::Acc>::v;
};

// 4 vector accumulators over p[0, n) (n a multiple of 4 vectors). Fast (max/min of floats):
// Op::fcomb, the select without NaN propagation that compiles to compare + blend, and
// z += x * 0, which turns NaN when an element is NaN or infinite; returns whether z did,
// in which case the caller runs the exact comb (a NaN or an infinity in the row: the slow
// path is taken only then).
template <class Op, bool Fast, class V>
__device__ __forceinline__ bool oh_vloop(const typename Op::Acc* __restrict__ p, oh_i64 n,
                                         V* m) {
  typedef typename Op::Acc A;
  enum { VL = 64 / sizeof(A) };
  V z0;
  for (int j = 0; j < VL; ++j) z0[j] = (A)0;
  V z1 = z0, z2 = z0, z3 = z0;
  V m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3];
  for (oh_i64 i = 0; i < n; i += 4 * VL) {
    V x0, x1, x2, x3;
    memcpy(&x0, p + i, 64);
    memcpy(&x1, p + i + VL, 64);
    memcpy(&x2, p + i + 2 * VL, 64);
    memcpy(&x3, p + i + 3 * VL, 64);
    if (Fast) {
      m0 = Op::fcomb(m0, x0);
      m1 = Op::fcomb(m1, x1);
      m2 = Op::fcomb(m2, x2);
      m3 = Op::fcomb(m3, x3);
      z0 = x0 * (A)0 + z0;
      z1 = x1 * (A)0 + z1;
      z2 = x2 * (A)0 + z2;
      z3 = x3 * (A)0 + z3;
    } else {
      m0 = Op::comb(m0, x0);
      m1 = Op::comb(m1, x1);
      m2 = Op::comb(m2, x2);
      m3 = Op::comb(m3, x3);
    }
  }
  m[0] = m0;
  m[1] = m1;
  m[2] = m2;
  m[3] = m3;
  if (!Fast) return false;
  const V z = (z0 + z1) + (z2 + z3);
  bool bad = false;
  for (int j = 0; j < VL; ++j) bad = bad || z[j] != z[j];
  return bad;
}

// the elements [0, returned) of the row, into cas.lane
template <class Op, class Ti>
__device__ __forceinline__ oh_i64 oh_vrow(const Ti* __restrict__ p, oh_i64 len,
                                          Cascade<Op>& cas) {
  typedef typename Op::Acc A;
  enum { VL = 64 / sizeof(A) };
  typedef A V __attribute__((vector_size(64)));
  if (len < 4 * VL) return 0;
  const oh_i64 n = len / (4 * VL) * (4 * VL);
  V m[4];
  for (int j = 0; j < VL; ++j) m[0][j] = Op::id();
  m[1] = m[2] = m[3] = m[0];
  if (oh_vloop<Op, Op::fast_nan, V>(p, n, m)) {
    for (int j = 0; j < VL; ++j) m[0][j] = Op::id();
    m[1] = m[2] = m[3] = m[0];
    oh_vloop<Op, false, V>(p, n, m);
  }
  A t[4 * VL];
  memcpy(t, m, sizeof t);
  for (int j = 0; j < 4 * VL; ++j) cas.lane[j % OH_RL] = Op::comb(cas.lane[j % OH_RL], t[j]);
  return n;
}
#endif

// one row of the innermost reduced dimension: len elements at stride s (elements)
template <class Op, class Ti, bool Unit>
__device__ __forceinline__ void oh_row(const Ti* __restrict__ p, oh_i64 len, oh_i64 s,
                                       const typename Op::State& st, Cascade<Op>& cas) {
  typedef typename Op::Acc A;
  oh_i64 i = 0;
  if (!Op::pairwise) {
#ifdef OPENHIP_CPU_HIP_RUNTIME_H
    if constexpr (Unit && oh_vrow_ok<Op, Ti>::v) i = oh_vrow<Op, Ti>(p, len, cas);
#endif
    for (; i + OH_RL <= len; i += OH_RL) {
      OH_LANES
      for (int j = 0; j < OH_RL; ++j)
        cas.lane[j] = Op::comb(cas.lane[j], Op::map(p[(Unit ? (i + j) : (i + j) * s)], st));
    }
    for (; i < len; ++i) cas.lane[0] = Op::comb(cas.lane[0], Op::map(p[Unit ? i : i * s], st));
    return;
  }
  for (; i + OH_RB <= len; i += OH_RB) {
    A a[OH_RU];
    OH_LANES
    for (int j = 0; j < OH_RU; ++j) a[j] = Op::id();
    for (int k = 0; k < OH_RB; k += OH_RU) {
      OH_LANES
      for (int j = 0; j < OH_RU; ++j)
        a[j] = Op::comb(a[j], Op::map(p[(Unit ? (i + k + j) : (i + k + j) * s)], st));
    }
    cas.push(oh_tree<Op, OH_RU>(a));
  }
  if (i < len) {
    A r = Op::id();
    for (; i < len; ++i) r = Op::comb(r, Op::map(p[Unit ? i : i * s], st));
    cas.push(r);
  }
}

template <class A>
__device__ __forceinline__ A oh_post(A v, oh_i64 post, double scale) {
  if (post == 1) return oh_scale(v, scale);
  if (post == 2) return oh_sqrt(oh_scale(v, scale));
  return v;
}

// base offset (elements) of output o over the kept dimensions
__device__ __forceinline__ oh_i64 oh_kept_offset(const oh_i64* kn, const oh_i64* ks, int nk,
                                                 oh_i64 o) {
  oh_i64 base = 0;
  for (int d = nk - 1; d >= 0; --d) {
    const oh_i64 q = o / kn[d];
    base += (o - q * kn[d]) * ks[d];
    o = q;
  }
  return base;
}

template <class Op, class Ti, class To>
__global__ void rows(const Ti* __restrict__ x, To* __restrict__ out, const void* aux, OhRed r) {
  const oh_i64 t = oh_index();
  if (t >= r.n_out * r.parts) return;
  typedef typename Op::Acc A;
  const int nk = (int)r.nk, nr = (int)r.nr;
  const oh_i64 n_out = r.n_out, parts = r.parts;
  const oh_i64 *kn = r.kn, *ks = r.ks, *rn = r.rn, *rs = r.rs;
  const oh_i64 o = t / parts, p = t - o * parts;
  const Ti* base = x + oh_kept_offset(kn, ks, nk, o);
  const typename Op::State st = Op::state(aux, o);
  const oh_i64 n0 = rn[0], c = (n0 + parts - 1) / parts;
  const oh_i64 lo = p * c < n0 ? p * c : n0, hi = lo + c < n0 ? lo + c : n0;
  Cascade<Op> cas;
  cas.init();
  // the innermost reduced dimension (the outermost's [lo, hi) when it is the only one) is a
  // row; an odometer walks the others (dimension 0 within [lo, hi))
  const bool one = nr == 1;
  const oh_i64 len = one ? hi - lo : rn[nr - 1], s = rs[nr - 1];
  oh_i64 idx[OH_MAXDIM];
  for (int d = 0; d < nr; ++d) idx[d] = 0;
  idx[0] = lo;
  bool empty = lo >= hi;
  for (int d = 1; d < nr; ++d) empty = empty || rn[d] == 0;
  while (!empty) {
    oh_i64 off = one ? lo * s : 0;
    for (int d = 0; d < nr - 1; ++d) off += idx[d] * rs[d];
    if (s == 1) oh_row<Op, Ti, true>(base + off, len, 1, st, cas);
    else oh_row<Op, Ti, false>(base + off, len, s, st, cas);
    if (one) break;
    int d = nr - 2;
    for (; d >= 1; --d) {
      if (++idx[d] < rn[d]) break;
      idx[d] = 0;
    }
    if (d == 0 && ++idx[0] >= hi) break;
  }
  out[t] = cvt<To>(oh_post(cas.result(), r.post, r.scale));
}

// kept innermost dimension kn[nk-1] of stride 1: thread = (tile of OH_CW(A) outputs, part)
template <class Op, class Ti, class To>
__global__ void cols(const Ti* __restrict__ x, To* __restrict__ out, const void* aux, OhRed r) {
  const int nk = (int)r.nk, nr = (int)r.nr;
  const oh_i64 n_out = r.n_out, parts = r.parts;
  const oh_i64 *kn = r.kn, *ks = r.ks, *rn = r.rn, *rs = r.rs;
  typedef typename Op::Acc A;
  const int CW = OH_CW(A);
  const oh_i64 inner = kn[nk - 1];
  const oh_i64 tiles_per_row = (inner + CW - 1) / CW;
  const oh_i64 n_tiles = (n_out / inner) * tiles_per_row;
  const oh_i64 t = oh_index();
  if (t >= n_tiles * parts) return;
  const oh_i64 tile = t / parts, p = t - tile * parts;
  const oh_i64 orow = tile / tiles_per_row;
  const oh_i64 j0 = (tile - orow * tiles_per_row) * CW;
  const oh_i64 o0 = orow * inner + j0;              // first output of the tile
  const int w = (int)(inner - j0 < CW ? inner - j0 : CW);
  const Ti* base = x + oh_kept_offset(kn, ks, nk, o0);
  const oh_i64 n0 = rn[0], c = (n0 + parts - 1) / parts;
  const oh_i64 lo = p * c < n0 ? p * c : n0, hi = lo + c < n0 ? lo + c : n0;
  A a[OH_CW(A)];
  for (int j = 0; j < CW; ++j) a[j] = Op::id();
  // the innermost reduced dimension (the outermost's [lo, hi) when it is the only one) in a
  // tight loop; an odometer over the others
  const bool one = nr == 1;
  const oh_i64 len = one ? hi - lo : rn[nr - 1], s = rs[nr - 1];
  oh_i64 idx[OH_MAXDIM];
  for (int d = 0; d < nr; ++d) idx[d] = 0;
  idx[0] = lo;
  bool empty = lo >= hi;
  for (int d = 1; d < nr; ++d) empty = empty || rn[d] == 0;
  while (!empty) {
    oh_i64 off = one ? lo * s : 0;
    for (int d = 0; d < nr - 1; ++d) off += idx[d] * rs[d];
    const Ti* q = base + off;
    if (w == CW) {
      // four rows per load and store of the accumulators (the same order of operations
      // as one row at a time: the same results)
      oh_i64 i = 0;
      for (; i + 4 <= len; i += 4, q += 4 * s) {
        OH_LANES
        for (int j = 0; j < CW; ++j) {
          const typename Op::State st = Op::state(aux, o0 + j);
          A v = Op::comb(a[j], Op::map(q[j], st));
          v = Op::comb(v, Op::map(q[s + j], st));
          v = Op::comb(v, Op::map(q[2 * s + j], st));
          a[j] = Op::comb(v, Op::map(q[3 * s + j], st));
        }
      }
      for (; i < len; ++i, q += s) {
        OH_LANES
        for (int j = 0; j < CW; ++j)
          a[j] = Op::comb(a[j], Op::map(q[j], Op::state(aux, o0 + j)));
      }
    } else {
      for (oh_i64 i = 0; i < len; ++i, q += s)
        for (int j = 0; j < w; ++j)
          a[j] = Op::comb(a[j], Op::map(q[j], Op::state(aux, o0 + j)));
    }
    if (one) break;
    int d = nr - 2;
    for (; d >= 1; --d) {
      if (++idx[d] < rn[d]) break;
      idx[d] = 0;
    }
    if (d == 0 && ++idx[0] >= hi) break;
  }
  // split (parts > 1): partials part-major, so each part's are contiguous and a cols<>
  // launch over (parts, n_out) combines them
  for (int j = 0; j < w; ++j) out[p * n_out + o0 + j] = cvt<To>(oh_post(a[j], r.post, r.scale));
}

// ---------------------------------------------------------------------------------------
// argmax / argmin: the first extreme value's flat index in the reduced space (C order)
template <class C, bool IsMax>
__device__ __forceinline__ bool oh_better(C v, C best) {
  if (best != best) return false;   // a NaN already won
  if (v != v) return true;
  return IsMax ? v > best : v < best;
}

template <class Ti, bool IsMax>
__global__ void argrows(const Ti* __restrict__ x, typename oh_ct<Ti>::C* __restrict__ vals,
                        oh_i64* __restrict__ idxs, OhRed r) {
  typedef typename oh_ct<Ti>::C C;
  const oh_i64 t = oh_index();
  if (t >= r.n_out * r.parts) return;
  const int nk = (int)r.nk, nr = (int)r.nr;
  const oh_i64 n_out = r.n_out, parts = r.parts;
  const oh_i64 *kn = r.kn, *ks = r.ks, *rn = r.rn, *rs = r.rs;
  const oh_i64 o = t / parts, p = t - o * parts;
  const Ti* base = x + oh_kept_offset(kn, ks, nk, o);
  oh_i64 inner_total = 1;
  for (int d = 1; d < nr; ++d) inner_total *= rn[d];
  const oh_i64 n0 = rn[0], c = (n0 + parts - 1) / parts;
  const oh_i64 lo = p * c < n0 ? p * c : n0, hi = lo + c < n0 ? lo + c : n0;
  oh_i64 idx[OH_MAXDIM];
  for (int d = 0; d < nr; ++d) idx[d] = 0;
  idx[0] = lo;
  oh_i64 flat = lo * inner_total, best_i = -1;
  C best = C(0);
  bool empty = lo >= hi || inner_total == 0;
  const oh_i64 len = rn[nr - 1], s = rs[nr - 1];
  while (!empty) {
    oh_i64 off = 0;
    for (int d = 0; d < nr - 1; ++d) off += idx[d] * rs[d];
    const Ti* q = base + off;
    if (nr == 1) {
      q = base;
      for (oh_i64 i = lo; i < hi; ++i, ++flat) {
        const C v = cvt<C>(q[i * s]);
        if (best_i < 0 || oh_better<C, IsMax>(v, best)) {
          best = v;
          best_i = flat;
        }
      }
      break;
    }
    for (oh_i64 i = 0; i < len; ++i, ++flat) {
      const C v = cvt<C>(q[i * s]);
      if (best_i < 0 || oh_better<C, IsMax>(v, best)) {
        best = v;
        best_i = flat;
      }
    }
    int d = nr - 2;
    for (; d >= 1; --d) {
      if (++idx[d] < rn[d]) break;
      idx[d] = 0;
    }
    if (d == 0 && ++idx[0] >= hi) break;
  }
  vals[t] = best;
  idxs[t] = best_i;
}

// the (n_out, parts) partials of argrows: the first part's winner on ties
template <class C, bool IsMax>
__global__ void argcombine(const C* __restrict__ vals, const oh_i64* __restrict__ idxs,
                           long long* __restrict__ out, long long n_out, long long parts) {
  const oh_i64 o = oh_index();
  if (o >= n_out) return;
  oh_i64 bi = -1;
  C best = C(0);
  for (oh_i64 p = 0; p < parts; ++p) {
    const oh_i64 i = idxs[o * parts + p];
    if (i < 0) continue;
    const C v = vals[o * parts + p];
    if (bi < 0 || oh_better<C, IsMax>(v, best)) {
      best = v;
      bi = i;
    }
  }
  out[o] = bi;
}
