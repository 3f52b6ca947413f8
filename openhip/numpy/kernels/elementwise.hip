// openhip.numpy elementwise kernels: one template per arity, instantiated per
// (operation, input storage type, output storage type, layout) by openhip/numpy/_elementwise.py.
//
//   un<Op, Ti, To, L>(OhArgs)      out = Op(x)
//   bi<Op, Ti, To, L>(OhArgs)      out = Op(x, y)       (x, y already of type Ti)
//   tri<Op, Ti, To, L>(OhArgs)     out = Op(x, y, z)    (where: x is bool)
//
// L = 0: every array operand is C-contiguous with the output's shape (a scalar operand is
// inline, OhArgs::smask); L = 1: arbitrary strides in bytes (broadcast = stride 0), up to
// OH_MAXDIM dimensions; L = 2: the same for (at most) two dimensions after collapsing, over a
// 2-D grid, so no division per element (transposes, row/column broadcasts, slices).
// Ops are structs with a static f() templated on the compute type (see ops.h).
#include "ops.h"

template <class Op, class Ti, class To, int L>
__global__ void un(OhArgs a) {
  if (L == 0) {  // typed, restrict-qualified pointers: the CPU compiler vectorises the loop
    const oh_i64 i = oh_index();
    if (i >= a.n) return;
    To* __restrict__ out = (To*)a.ptr[0];
    const Ti* __restrict__ x = (const Ti*)a.ptr[1];
    out[i] = cvt<To>(Op::f(cvt<typename oh_ct<Ti>::C>(x[i])));
    return;
  }
  oh_i64 off[2];
  if (L == 2) {
    if (!oh_offsets2<2>(a, off)) return;
  } else {
    const oh_i64 i = oh_index();
    if (i >= a.n) return;
    if (L == 0) {
      off[0] = i * (oh_i64)sizeof(To);
      off[1] = i * (oh_i64)sizeof(Ti);
    } else {
      oh_offsets<2>(a, i, off);
    }
  }
  st<To>(a.ptr[0] + off[0], Op::f(ld<Ti>(a.ptr[1] + off[1])));
}

template <class Op, class Ti, class To, int L>
__global__ void bi(OhArgs a) {
  typedef typename oh_ct<Ti>::C C;
  if (L == 0) {
    const oh_i64 i = oh_index();
    if (i >= a.n) return;
    const int sm = a.smask;
    To* __restrict__ out = (To*)a.ptr[0];
    const Ti* __restrict__ x = (const Ti*)a.ptr[1];
    const Ti* __restrict__ y = (const Ti*)a.ptr[2];
    const C xs = ld<Ti>((const char*)a.scal[1]), ys = ld<Ti>((const char*)a.scal[2]);
    if (sm & 2) {
      out[i] = cvt<To>(Op::f(xs, cvt<C>(y[i])));
    } else if (sm & 4) {
      out[i] = cvt<To>(Op::f(cvt<C>(x[i]), ys));
    } else {
      out[i] = cvt<To>(Op::f(cvt<C>(x[i]), cvt<C>(y[i])));
    }
    return;
  }
  oh_i64 off[3];
  if (L == 2) {
    if (!oh_offsets2<3>(a, off)) return;
  } else {
    const oh_i64 i = oh_index();
    if (i >= a.n) return;
    if (L == 0) {
      off[0] = i * (oh_i64)sizeof(To);
      off[1] = off[2] = i * (oh_i64)sizeof(Ti);
    } else {
      oh_offsets<3>(a, i, off);
    }
  }
  st<To>(a.ptr[0] + off[0], Op::f(oh_get<Ti>(a, 1, off[1]), oh_get<Ti>(a, 2, off[2])));
}

// where(cond, x, y): cond is bool; clip(x, lo, hi): all Ti
template <class Op, class Ti, class To, int L>
__global__ void tri(OhArgs a) {
  typedef typename Op::template first<Ti>::T T1;
  oh_i64 off[4];
  if (L == 2) {
    if (!oh_offsets2<4>(a, off)) return;
  } else {
    const oh_i64 i = oh_index();
    if (i >= a.n) return;
    if (L == 0) {
      off[0] = i * (oh_i64)sizeof(To);
      off[1] = i * (oh_i64)sizeof(T1);
      off[2] = off[3] = i * (oh_i64)sizeof(Ti);
    } else {
      oh_offsets<4>(a, i, off);
    }
  }
  st<To>(a.ptr[0] + off[0], Op::f(oh_get<T1>(a, 1, off[1]), oh_get<Ti>(a, 2, off[2]),
                                  oh_get<Ti>(a, 3, off[3])));
}
