// openhip.numpy reductions (sum prod min max all any count_nonzero mean var std argmax argmin),
// instantiated per (operation, storage types) by openhip/numpy/_reduction.py.
//
// A reduction is given in canonical form (see _reduction.py), by value in OhRed: the kept
// dimensions kn/ks (in the output's C order, strides in elements of the input) and the reduced
// dimensions rn/rs (at least one; the innermost last). Thread t computes output
// o = t / parts over the part p = t % parts of the reduced space (the outermost reduced
// dimension split into `parts` equal ranges), so a reduction to few outputs still has
// enough threads; a second launch of rows<> combines the (n_out, parts) partials. The order
// of the combination is fixed by the shapes alone: results do not depend on the thread
// count.
//
//   rows<Op, Ti, To>          one thread per (output, part); the innermost reduced dimension
//                            is walked in blocks of 128 (16 accumulators, vectorised when it
//                            is contiguous) whose block values go into a pairwise cascade:
//                            float sums are as accurate as numpy's pairwise summation.
//   cols<Op, Ti, To>          one thread per (16 consecutive outputs, part), for a kept
//                            innermost dimension of stride 1 (e.g. axis 0 of a C-contiguous
//                            matrix): 16 accumulators walk the reduced space row by row.
//   argrows<Ti, IsMax>       value and flat index of the first maximum (minimum; a NaN wins,
//                            the first NaN as numpy) per (output, part), then argcombine<>.
//
// post: 0 out = acc; 1 out = acc * scale (mean, var); 2 out = sqrt(acc * scale) (std).
// No barrier, no warp function: every kernel runs in the CPU platform's loop mode.
#include "common.h"

#define OH_RB 128   // block of the innermost loop
#define OH_RU 16    // accumulators (vector lanes) per block

// The 16-lane loops stay loops for GCC (its complete unrolling runs before the vectoriser,
// and the unrolled form of a select (max/min) does not vectorise): one vector operation each.
#ifdef OPENHIP_CPU_HIP_RUNTIME_H
#define OH_LANES _Pragma("GCC unroll 1")
#else
#define OH_LANES _Pragma("unroll")
#endif

struct OhRed {
  oh_i64 nk, nr, n_out, parts, post;
  double scale;
  oh_i64 kn[OH_MAXDIM], ks[OH_MAXDIM], rn[OH_MAXDIM], rs[OH_MAXDIM];
};

// ---------------------------------------------------------------------------------------
// accumulator arithmetic on compute types (ohc<R> for complex)
template <class A> __device__ __forceinline__ A oh_add(A a, A b) { return a + b; }
template <class R> __device__ __forceinline__ ohc<R> oh_add(ohc<R> a, ohc<R> b) {
  return mkc<R>(a.re + b.re, a.im + b.im);
}
template <class A> __device__ __forceinline__ A oh_mul(A a, A b) { return a * b; }
template <class R> __device__ __forceinline__ ohc<R> oh_mul(ohc<R> a, ohc<R> b) {
  return mkc<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <class A> __device__ __forceinline__ A oh_scale(A a, double s) { return (A)(a * s); }
template <class R> __device__ __forceinline__ ohc<R> oh_scale(ohc<R> a, double s) {
  return mkc<R>((R)(a.re * s), (R)(a.im * s));
}
template <class A> __device__ __forceinline__ A oh_sqrt(A a) { return (A)sqrt((double)a); }
__device__ __forceinline__ float oh_sqrt(float a) { return sqrtf(a); }

template <class A> struct oh_lim {  // identities of min/max (integers)
  static __device__ __forceinline__ A lo() { return (A)(((A)-1) < (A)0 ? (A)1 << (sizeof(A) * 8 - 1) : (A)0); }
  static __device__ __forceinline__ A hi() { return (A)~lo(); }
};
template <> struct oh_lim<bool> {
  static __device__ __forceinline__ bool lo() { return false; }
  static __device__ __forceinline__ bool hi() { return true; }
};
template <> struct oh_lim<float> {
  static __device__ __forceinline__ float lo() { return -HUGE_VALF; }
  static __device__ __forceinline__ float hi() { return HUGE_VALF; }
};
template <> struct oh_lim<double> {
  static __device__ __forceinline__ double lo() { return -HUGE_VAL; }
  static __device__ __forceinline__ double hi() { return HUGE_VAL; }
};

// ---------------------------------------------------------------------------------------
// operations: Acc (accumulator type), State (per output, from aux), id(), map(), comb()
template <class Ti, class A>
struct Sum {
  typedef A Acc;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ A id() { return cvt<A>(0); }
  static __device__ __forceinline__ A map(Ti v, const State&) { return cvt<A>(v); }
  static __device__ __forceinline__ A comb(A a, A b) { return oh_add(a, b); }
};
template <class Ti, class A>
struct Prod {
  typedef A Acc;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ A id() { return cvt<A>(1); }
  static __device__ __forceinline__ A map(Ti v, const State&) { return cvt<A>(v); }
  static __device__ __forceinline__ A comb(A a, A b) { return oh_mul(a, b); }
};
// max/min propagate NaN (a NaN operand wins), as numpy's maximum.reduce
template <class Ti>
struct Max {
  typedef typename oh_ct<Ti>::C Acc;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ Acc id() { return oh_lim<Acc>::lo(); }
  static __device__ __forceinline__ Acc map(Ti v, const State&) { return cvt<Acc>(v); }
  // b replaces a when b is greater or NaN; a NaN a stays (nothing is greater than it)
  static __device__ __forceinline__ Acc comb(Acc a, Acc b) { return (b > a || b != b) ? b : a; }
};
template <class Ti>
struct Min {
  typedef typename oh_ct<Ti>::C Acc;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ Acc id() { return oh_lim<Acc>::hi(); }
  static __device__ __forceinline__ Acc map(Ti v, const State&) { return cvt<Acc>(v); }
  static __device__ __forceinline__ Acc comb(Acc a, Acc b) { return (b < a || b != b) ? b : a; }
};
// all / any / count_nonzero: the truth of each element (NaN is true)
template <class Ti>
struct All {
  typedef int Acc;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ int id() { return 1; }
  static __device__ __forceinline__ int map(Ti v, const State&) { return cvt<bool>(v) ? 1 : 0; }
  static __device__ __forceinline__ int comb(int a, int b) { return a & b; }
};
template <class Ti>
struct Any {
  typedef int Acc;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ int id() { return 0; }
  static __device__ __forceinline__ int map(Ti v, const State&) { return cvt<bool>(v) ? 1 : 0; }
  static __device__ __forceinline__ int comb(int a, int b) { return a | b; }
};
template <class Ti>
struct CountNZ {
  typedef oh_i64 Acc;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ oh_i64 id() { return 0; }
  static __device__ __forceinline__ oh_i64 map(Ti v, const State&) { return cvt<bool>(v) ? 1 : 0; }
  static __device__ __forceinline__ oh_i64 comb(oh_i64 a, oh_i64 b) { return a + b; }
};
// |x - mean|^2 with the output's mean M (compute type of Ti) from aux; A is real
template <class Ti, class M, class A>
struct SqDev {
  typedef A Acc;
  struct State { M m; };
  static __device__ __forceinline__ State state(const void* aux, oh_i64 o) {
    State s;
    s.m = ((const M*)aux)[o];
    return s;
  }
  static __device__ __forceinline__ A id() { return A(0); }
  static __device__ __forceinline__ A map(Ti v, const State& s) {
    M x = cvt<M>(v);
    A re = (A)oh_re(x) - (A)oh_re(s.m), im = (A)oh_imv(x) - (A)oh_imv(s.m);
    return re * re + im * im;
  }
  static __device__ __forceinline__ A comb(A a, A b) { return a + b; }
};

// ---------------------------------------------------------------------------------------
// pairwise cascade of block values: a binary counter of partial sums, so that n block values
// are combined in a balanced tree of depth log2(n)
template <class Op>
struct Cascade {
  typedef typename Op::Acc A;
  A lv[40];
  oh_u64 count;
  __device__ __forceinline__ void init() { count = 0; }
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
  __device__ __forceinline__ A result() const {
    A r = Op::id();
    bool have = false;
    for (int k = 0; k < 40; ++k) {
      if ((count >> k) & 1) {
        r = have ? Op::comb(lv[k], r) : lv[k];
        have = true;
      }
    }
    return r;
  }
};

template <class Op>
__device__ __forceinline__ typename Op::Acc oh_tree16(typename Op::Acc* a) {
#pragma unroll
  for (int w = OH_RU / 2; w >= 1; w /= 2) {
#pragma unroll
    for (int j = 0; j < w; ++j) a[j] = Op::comb(a[j], a[j + w]);
  }
  return a[0];
}

// one row of the innermost reduced dimension: len elements at stride s (elements)
template <class Op, class Ti, bool Unit>
__device__ __forceinline__ void oh_row(const Ti* __restrict__ p, oh_i64 len, oh_i64 s,
                                       const typename Op::State& st, Cascade<Op>& cas) {
  typedef typename Op::Acc A;
  oh_i64 i = 0;
  for (; i + OH_RB <= len; i += OH_RB) {
    A a[OH_RU];
    OH_LANES
    for (int j = 0; j < OH_RU; ++j) a[j] = Op::id();
    for (int k = 0; k < OH_RB; k += OH_RU) {
      OH_LANES
      for (int j = 0; j < OH_RU; ++j)
        a[j] = Op::comb(a[j], Op::map(p[(Unit ? (i + k + j) : (i + k + j) * s)], st));
    }
    cas.push(oh_tree16<Op>(a));
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

// kept innermost dimension kn[nk-1] of stride 1: thread = (tile of OH_RU outputs, part)
template <class Op, class Ti, class To>
__global__ void cols(const Ti* __restrict__ x, To* __restrict__ out, const void* aux, OhRed r) {
  const int nk = (int)r.nk, nr = (int)r.nr;
  const oh_i64 n_out = r.n_out, parts = r.parts;
  const oh_i64 *kn = r.kn, *ks = r.ks, *rn = r.rn, *rs = r.rs;
  const oh_i64 inner = kn[nk - 1];
  const oh_i64 tiles_per_row = (inner + OH_RU - 1) / OH_RU;
  const oh_i64 n_tiles = (n_out / inner) * tiles_per_row;
  const oh_i64 t = oh_index();
  if (t >= n_tiles * parts) return;
  typedef typename Op::Acc A;
  const oh_i64 tile = t / parts, p = t - tile * parts;
  const oh_i64 orow = tile / tiles_per_row;
  const oh_i64 j0 = (tile - orow * tiles_per_row) * OH_RU;
  const oh_i64 o0 = orow * inner + j0;              // first output of the tile
  const int w = (int)(inner - j0 < OH_RU ? inner - j0 : OH_RU);
  const Ti* base = x + oh_kept_offset(kn, ks, nk, o0);
  const oh_i64 n0 = rn[0], c = (n0 + parts - 1) / parts;
  const oh_i64 lo = p * c < n0 ? p * c : n0, hi = lo + c < n0 ? lo + c : n0;
  typename Op::State st[OH_RU];
  A a[OH_RU];
  for (int j = 0; j < OH_RU; ++j) {
    st[j] = Op::state(aux, o0 + (j < w ? j : 0));
    a[j] = Op::id();
  }
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
    if (w == OH_RU) {
      for (oh_i64 i = 0; i < len; ++i, q += s) {
        OH_LANES
        for (int j = 0; j < OH_RU; ++j) a[j] = Op::comb(a[j], Op::map(q[j], st[j]));
      }
    } else {
      for (oh_i64 i = 0; i < len; ++i, q += s)
        for (int j = 0; j < w; ++j) a[j] = Op::comb(a[j], Op::map(q[j], st[j]));
    }
    if (one) break;
    int d = nr - 2;
    for (; d >= 1; --d) {
      if (++idx[d] < rn[d]) break;
      idx[d] = 0;
    }
    if (d == 0 && ++idx[0] >= hi) break;
  }
  for (int j = 0; j < w; ++j) out[(o0 + j) * parts + p] = cvt<To>(oh_post(a[j], r.post, r.scale));
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
