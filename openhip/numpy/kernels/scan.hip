// openhip.numpy cumulative_sum / cumulative_prod (inclusive scans along one axis), driven by
// openhip/numpy/_cumulative.py.
//
// OhScan describes the problem: the kept dimensions kn with input strides ks and output
// strides ko (elements), the scanned axis of length len with input stride sa and output
// stride so; `init` set: every output row starts with the identity (include_initial), the
// scan written one slot further.
//
//   scan_rows<Op, Ti, To>   thread = (row, part): a sequential scan of its part of the row,
//                           starting from carry[row * parts + part] when `carry` is given;
//                           with `totals` given it only writes each part's total (phase 1
//                           of a long row: totals, then scan_carry, then scan_rows again).
//   scan_carry<Op>          per row: the exclusive scan of its parts' totals (the carries).
//   scan_cols<Op, Ti, To>   thread = 16 adjacent rows whose kept innermost dimension has
//                           input and output stride 1 (axis 0 of a C-contiguous matrix): the
//                           16 scans advance together, one vector step per element of the axis.
//
// The split into parts depends on the shapes only: the same result on any thread count.
#include "reduce_ops.h"

struct OhScan {
  oh_i64 nk, n_rows, parts, len, sa, so, init;
  oh_i64 kn[OH_MAXDIM], ks[OH_MAXDIM], ko[OH_MAXDIM];
};

__device__ __forceinline__ void oh_scan_offsets(const OhScan& s, oh_i64 row, oh_i64* in_off,
                                                oh_i64* out_off) {
  oh_i64 a = 0, b = 0;
  for (int d = (int)s.nk - 1; d >= 0; --d) {
    const oh_i64 q = row / s.kn[d];
    const oh_i64 c = row - q * s.kn[d];
    a += c * s.ks[d];
    b += c * s.ko[d];
    row = q;
  }
  *in_off = a;
  *out_off = b;
}

template <class Op, class Ti, class To>
__global__ void scan_rows(const Ti* __restrict__ x, To* __restrict__ out,
                          const typename Op::Acc* __restrict__ carry,
                          typename Op::Acc* __restrict__ totals, OhScan s) {
  typedef typename Op::Acc A;
  const oh_i64 t = oh_index();
  if (t >= s.n_rows * s.parts) return;
  const oh_i64 row = t / s.parts, p = t - row * s.parts;
  oh_i64 io, oo;
  oh_scan_offsets(s, row, &io, &oo);
  const oh_i64 c = (s.len + s.parts - 1) / s.parts;
  const oh_i64 lo = p * c < s.len ? p * c : s.len, hi = lo + c < s.len ? lo + c : s.len;
  const typename Op::State st = Op::state((const void*)0, 0);
  const Ti* q = x + io;
  A acc = carry ? carry[t] : Op::id();
  if (totals) {
    for (oh_i64 i = lo; i < hi; ++i) acc = Op::comb(acc, Op::map(q[i * s.sa], st));
    totals[t] = acc;
    return;
  }
  To* w = out + oo;
  if (s.init) {
    if (p == 0) w[0] = cvt<To>(Op::id());
    w += s.so;
  }
  for (oh_i64 i = lo; i < hi; ++i) {
    acc = Op::comb(acc, Op::map(q[i * s.sa], st));
    w[i * s.so] = cvt<To>(acc);
  }
}

template <class Op>
__global__ void scan_carry(typename Op::Acc* __restrict__ v, long long n_rows, long long parts) {
  typedef typename Op::Acc A;
  const oh_i64 row = oh_index();
  if (row >= n_rows) return;
  A acc = Op::id();
  for (oh_i64 p = 0; p < parts; ++p) {
    const A t = v[row * parts + p];
    v[row * parts + p] = acc;
    acc = Op::comb(acc, t);
  }
}

template <class Op, class Ti, class To>
__global__ void scan_cols(const Ti* __restrict__ x, To* __restrict__ out, OhScan s) {
  typedef typename Op::Acc A;
  const oh_i64 inner = s.kn[s.nk - 1];
  const oh_i64 tiles_per = (inner + OH_RU - 1) / OH_RU;
  const oh_i64 t = oh_index();
  if (t >= (s.n_rows / inner) * tiles_per) return;
  const oh_i64 orow = t / tiles_per;
  const oh_i64 j0 = (t - orow * tiles_per) * OH_RU;
  const int w = (int)(inner - j0 < OH_RU ? inner - j0 : OH_RU);
  oh_i64 io, oo;
  oh_scan_offsets(s, orow * inner + j0, &io, &oo);
  const Ti* q = x + io;
  To* o = out + oo;
  const typename Op::State st = Op::state((const void*)0, 0);
  A a[OH_RU];
  OH_LANES
  for (int j = 0; j < OH_RU; ++j) a[j] = Op::id();
  if (s.init) {
    for (int j = 0; j < w; ++j) o[j] = cvt<To>(Op::id());
    o += s.so;
  }
  if (w == OH_RU) {
    for (oh_i64 i = 0; i < s.len; ++i, q += s.sa, o += s.so) {
      OH_LANES
      for (int j = 0; j < OH_RU; ++j) {
        a[j] = Op::comb(a[j], Op::map(q[j], st));
        o[j] = cvt<To>(a[j]);
      }
    }
  } else {
    for (oh_i64 i = 0; i < s.len; ++i, q += s.sa, o += s.so) {
      for (int j = 0; j < w; ++j) {
        a[j] = Op::comb(a[j], Op::map(q[j], st));
        o[j] = cvt<To>(a[j]);
      }
    }
  }
}
