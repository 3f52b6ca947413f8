// openhip.numpy data movement kernels, templated on the element SIZE (1, 2, 4, 8 or 16 bytes),
// so one build serves every dtype (openhip/numpy/_indexing.py, _manipulation.py).
//   copy_s<S>(OhArgs):    out[off0] = in[off1] over a strided layout (broadcast = stride 0);
//                         copy_s2<S> the same over the 2-D grid layout
//   gather<S>(OhGather):  out[i] = src[base(i) + sum_k idx_k(i) * axis_stride_k]
//   scatter<S>(OhGather): dst[base(i) + sum_k idx_k(i) * axis_stride_k] = val[i] (strided)
// Integer indices may be negative (counted from the end); an index out of [-len, len) sets
// *err to 1 and that element is skipped: nothing is read or written out of bounds.
//   mask_count(OhArgs):   counts[t] = trues in chunk t (extra[0] elements per chunk)
//   mask_index(OhArgs):   writes the flat positions of the trues of chunk t from offsets[t]
#include "common.h"

template <int S> struct oh_bytes { unsigned char b[S]; };
template <> struct oh_bytes<1> { unsigned char b; };
template <> struct oh_bytes<2> { unsigned short b; };
template <> struct oh_bytes<4> { unsigned int b; };
template <> struct oh_bytes<8> { oh_u64 b; };
template <> struct oh_bytes<16> { oh_u64 b[2]; };

template <int S>
__global__ void copy_s(OhArgs a) {
  const oh_i64 i = oh_index();
  if (i >= a.n) return;
  oh_i64 off[2];
  oh_offsets<2>(a, i, off);
  *(oh_bytes<S>*)(a.ptr[0] + off[0]) = *(const oh_bytes<S>*)(a.ptr[1] + off[1]);
}

// the 2-D layout (see oh_offsets2 in common.h)
template <int S>
__global__ void copy_s2(OhArgs a) {
  oh_i64 off[2];
  if (!oh_offsets2<2>(a, off)) return;
  *(oh_bytes<S>*)(a.ptr[0] + off[0]) = *(const oh_bytes<S>*)(a.ptr[1] + off[1]);
}

struct OhGather {
  char* out;                          // gather: output; scatter: destination base
  char* src;                          // gather: source base; scatter: values
  const oh_i64* idx[OH_MAXDIM];       // int64 index arrays
  int* err;                           // set to 1 on an index out of bounds
  oh_i64 n;                           // elements to move
  int ndim;                           // dimensions of the iteration shape
  int nidx;                           // index arrays in use
  oh_i64 shape[OH_MAXDIM];            // the iteration shape
  oh_i64 lin_st[OH_MAXDIM];           // gather: out strides / scatter: value strides (bytes)
  oh_i64 base_st[OH_MAXDIM];          // strides into src/dst of the sliced dimensions (bytes)
  oh_i64 idx_st[OH_MAXDIM][OH_MAXDIM];// element strides of index array k along dimension d
  oh_i64 ax_st[OH_MAXDIM];            // byte stride of the axis index array k selects
  oh_i64 ax_len[OH_MAXDIM];           // length of that axis
};

__device__ __forceinline__ bool oh_gather_offsets(const OhGather& g, oh_i64 i, oh_i64* lin,
                                                  oh_i64* base) {
  oh_i64 io[OH_MAXDIM];
  for (int k = 0; k < g.nidx; ++k) io[k] = 0;
  *lin = 0;
  *base = 0;
  for (int d = g.ndim - 1; d >= 0; --d) {
    const oh_i64 s = g.shape[d];
    const oh_i64 q = i / s;
    const oh_i64 c = i - q * s;
    i = q;
    *lin += c * g.lin_st[d];
    *base += c * g.base_st[d];
    for (int k = 0; k < g.nidx; ++k) io[k] += c * g.idx_st[k][d];
  }
  for (int k = 0; k < g.nidx; ++k) {
    oh_i64 v = g.idx[k][io[k]];
    const oh_i64 len = g.ax_len[k];
    if (v < 0) v += len;
    if (v < 0 || v >= len) {
      *g.err = 1;
      return false;
    }
    *base += v * g.ax_st[k];
  }
  return true;
}

template <int S>
__global__ void gather(OhGather g) {
  const oh_i64 i = oh_index();
  if (i >= g.n) return;
  oh_i64 lin, base;
  if (oh_gather_offsets(g, i, &lin, &base)) {
    *(oh_bytes<S>*)(g.out + lin) = *(const oh_bytes<S>*)(g.src + base);
  } else {
    *(oh_bytes<S>*)(g.out + lin) = oh_bytes<S>();
  }
}

template <int S>
__global__ void scatter(OhGather g) {
  const oh_i64 i = oh_index();
  if (i >= g.n) return;
  oh_i64 lin, base;
  if (oh_gather_offsets(g, i, &lin, &base)) {
    *(oh_bytes<S>*)(g.out + base) = *(const oh_bytes<S>*)(g.src + lin);
  }
}

// boolean masks (bool, C-contiguous, a.n elements, extra[0] per chunk; ptr[1] = mask)
__global__ void mask_count(OhArgs a) {
  const oh_i64 t = oh_index();
  const oh_i64 chunk = a.extra[0];
  const oh_i64 lo = t * chunk;
  if (lo >= a.n) return;
  const oh_i64 hi = lo + chunk < a.n ? lo + chunk : a.n;
  const bool* m = (const bool*)a.ptr[1];
  oh_i64 c = 0;
  for (oh_i64 i = lo; i < hi; ++i) c += m[i] ? 1 : 0;
  ((oh_i64*)a.ptr[0])[t] = c;
}

// ptr[0] = positions (int64), ptr[2] = exclusive prefix of the counts per chunk
__global__ void mask_index(OhArgs a) {
  const oh_i64 t = oh_index();
  const oh_i64 chunk = a.extra[0];
  const oh_i64 lo = t * chunk;
  if (lo >= a.n) return;
  const oh_i64 hi = lo + chunk < a.n ? lo + chunk : a.n;
  const bool* m = (const bool*)a.ptr[1];
  oh_i64 o = ((const oh_i64*)a.ptr[2])[t];
  oh_i64* out = (oh_i64*)a.ptr[0];
  for (oh_i64 i = lo; i < hi; ++i)
    if (m[i]) out[o++] = i;
}
