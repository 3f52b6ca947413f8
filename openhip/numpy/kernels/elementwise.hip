// openhip.numpy elementwise kernels: one template per arity, instantiated per
// (operation, input storage type, output storage type, layout) by openhip/numpy/_elementwise.py.
//
//   un0<Op, Ti, To>(OhArgs), un<Op, Ti, To, L>(OhArgs)      out = Op(x)
//   bi0<Op, Ti, To>(OhArgs), bi<Op, Ti, To, L>(OhArgs)      out = Op(x, y)  (x, y of type Ti)
//   tri0<Op, Ti, To>(OhArgs), tri<Op, Ti, To, L>(OhArgs)    out = Op(x, y, z) (where: x bool)
//
// The *0 kernels (layout 0): every array operand is C-contiguous with the output's shape (a
// scalar operand is inline, OhArgs::smask). Their index is an int: the host splits a launch
// past 2^30 elements into several (pointers advanced), so it cannot overflow. On the CPU
// platform an int index is what lets the thread loop (loop mode, form 1) be split at the
// bounds check and vectorised, and a kernel that names no 64-bit type is compiled in that one
// loop form only (a faster compile).
// L = 1: arbitrary strides in bytes (broadcast = stride 0), up to OH_MAXDIM dimensions;
// L = 2: the same for (at most) two dimensions after collapsing, over a 2-D grid, so no
// division per element (transposes, column broadcasts, slices); L = 3: two dimensions whose
// inner stride is every array operand's item size (a row vector broadcast over the rows, row
// slices): the inner offset is the column index itself, so the row loop vectorises.
// Ops are structs with a static f() templated on the compute type (see ops.h).
#include "ops.h"

// what a layout-0 kernel loads a storage type as: GCC does not vectorise loads of C++ bool
// (a 1-bit precision type), so bool elements are read as their byte (0 or 1) and converted.
template <class S> struct oh_ldt { typedef S T; };
template <> struct oh_ldt<bool> { typedef unsigned char T; };

#ifdef __HIP_PLATFORM_OPENHIP_CPU__
// On the CPU platform a layout-0 kernel's thread t computes OH_EW_CH consecutive elements
// (the host launches ceil(n / OH_EW_CH) threads: _elementwise.py, Kernel.chunk) in one call
// of a function that is not inlined into the engine's loop forms and fault rerun (so the
// build holds its vectorised loops once: a faster compile), OH_EW_SUB elements a step. When
// the launch's footprint (output and array inputs) is at least OH_NT_BYTES, far past the
// last-level cache, each full step is computed into a small buffer and written out with
// non-temporal stores (oh_stream_copy, common.h): the output's lines are not read for
// ownership first (a tenth of a comparison's memory traffic) and do not evict the inputs.
// Results are the same functions of the same elements as on a GPU, stored once: bit for bit
// the plain loop's.
#define OH_EW_CH 2048
#define OH_EW_SUB 256
#define OH_NT_BYTES (64ll << 20)

// whether an operation is costly per element (ops.h: OH_MATH's exp, log, sin...): its
// launches are not memory bound, and streaming their output measured slower (exp: 9%)
template <class Op, class = void> struct oh_heavy { static const bool v = false; };
template <class Op> struct oh_heavy<Op, decltype((void)Op::heavy)> {
  static const bool v = true;
};

// the elements [base, base + m) of thread t's chunk through body(d, j, len), which computes
// elements j .. j + len - 1 of the chunk into d[0 .. len); streamed unless Op is heavy
template <class Op, class S, class Body>
__device__ __forceinline__ void oh_ew_chunk(S* __restrict__ out, int m, oh_i64 footprint,
                                            Body body) {
  if (!oh_heavy<Op>::v && footprint >= OH_NT_BYTES && ((unsigned long long)out & 63) == 0) {
    alignas(64) S buf[OH_EW_SUB];
    int j = 0;
    for (; j + OH_EW_SUB <= m; j += OH_EW_SUB) {
      body(buf, j, OH_EW_SUB);
      oh_stream_copy((char*)(out + j), (const char*)buf, (int)sizeof(buf));
    }
    if (j < m) body(out + j, j, m - j);
    oh_stream_fence();  // before the launch is seen done
  } else {
    body(out, 0, m);
  }
}

template <class Op, class Ti, class To>
__device__ __attribute__((noinline, noclone)) void un0_loop(typename oh_ldt<To>::T* __restrict__ d,
                                                   const typename oh_ldt<Ti>::T* __restrict__ x,
                                                   int len) {
  typedef typename oh_ct<Ti>::C C;
  for (int j = 0; j < len; ++j) d[j] = cvt<To>(Op::f(cvt<C>(x[j])));
}

template <class Op, class Ti, class To>
__device__ __attribute__((noinline)) void un0_cpu(const OhArgs& a, const int t) {
  typedef typename oh_ldt<To>::T S;
  typedef typename oh_ldt<Ti>::T L;
  const int n = (int)a.n, base = t * OH_EW_CH;
  if (t >= (n + OH_EW_CH - 1) / OH_EW_CH) return;
  const int m = n - base < OH_EW_CH ? n - base : OH_EW_CH;
  const L* __restrict__ x = (const L*)a.ptr[1] + base;
  oh_ew_chunk<Op>((S*)a.ptr[0] + base, m, a.n * (oh_i64)(sizeof(To) + sizeof(Ti)),
              [&](S* d, int j, int len) { un0_loop<Op, Ti, To>(d, x + j, len); });
}

// sm: bit 1 x is the scalar xs, bit 2 y is ys
template <class Op, class Ti, class To>
__device__ __attribute__((noinline, noclone)) void bi0_loop(typename oh_ldt<To>::T* __restrict__ d,
                                                   const typename oh_ldt<Ti>::T* __restrict__ x,
                                                   const typename oh_ldt<Ti>::T* __restrict__ y,
                                                   const OhArgs& a, int len) {
  typedef typename oh_ct<Ti>::C C;
  const int sm = a.smask;
  if (sm & 2) {
    const C xs = ld<Ti>((const char*)a.scal[1]);
    for (int j = 0; j < len; ++j) d[j] = cvt<To>(Op::f(xs, cvt<C>(y[j])));
  } else if (sm & 4) {
    const C ys = ld<Ti>((const char*)a.scal[2]);
    for (int j = 0; j < len; ++j) d[j] = cvt<To>(Op::f(cvt<C>(x[j]), ys));
  } else {
    for (int j = 0; j < len; ++j) d[j] = cvt<To>(Op::f(cvt<C>(x[j]), cvt<C>(y[j])));
  }
}

template <class Op, class Ti, class To>
__device__ __attribute__((noinline)) void bi0_cpu(const OhArgs& a, const int t) {
  typedef typename oh_ldt<To>::T S;
  typedef typename oh_ldt<Ti>::T L;
  const int n = (int)a.n, base = t * OH_EW_CH;
  if (t >= (n + OH_EW_CH - 1) / OH_EW_CH) return;
  const int m = n - base < OH_EW_CH ? n - base : OH_EW_CH;
  const L* __restrict__ x = (const L*)a.ptr[1] + base;
  const L* __restrict__ y = (const L*)a.ptr[2] + base;
  const int arrays = 2 - ((a.smask >> 1) & 1) - ((a.smask >> 2) & 1);
  oh_ew_chunk<Op>((S*)a.ptr[0] + base, m, a.n * (oh_i64)(sizeof(To) + arrays * sizeof(Ti)),
              [&](S* d, int j, int len) { bi0_loop<Op, Ti, To>(d, x + j, y + j, a, len); });
}

template <class Op, class Ti, class To>
__device__ __attribute__((noinline, noclone)) void tri0_loop(
    typename oh_ldt<To>::T* __restrict__ d,
    const typename oh_ldt<typename Op::template first<Ti>::T>::T* __restrict__ x,
    const typename oh_ldt<Ti>::T* __restrict__ y, const typename oh_ldt<Ti>::T* __restrict__ z,
    const OhArgs& a, int len) {
  typedef typename oh_ct<Ti>::C C;
  typedef typename Op::template first<Ti>::T T1;
  typedef typename oh_ct<T1>::C C1;
  const int sm = a.smask;
  const C ys = ld<Ti>((const char*)a.scal[2]), zs = ld<Ti>((const char*)a.scal[3]);
  for (int j = 0; j < len; ++j) {
    const C yv = (sm & 4) ? ys : cvt<C>(y[j]);
    const C zv = (sm & 8) ? zs : cvt<C>(z[j]);
    d[j] = cvt<To>(Op::f(cvt<C1>(x[j]), yv, zv));
  }
}

template <class Op, class Ti, class To>
__device__ __attribute__((noinline)) void tri0_cpu(const OhArgs& a, const int t) {
  typedef typename oh_ldt<To>::T S;
  typedef typename Op::template first<Ti>::T T1;
  typedef typename oh_ldt<T1>::T L1;
  typedef typename oh_ldt<Ti>::T L;
  const int n = (int)a.n, base = t * OH_EW_CH;
  if (t >= (n + OH_EW_CH - 1) / OH_EW_CH) return;
  const int m = n - base < OH_EW_CH ? n - base : OH_EW_CH;
  const L1* __restrict__ x = (const L1*)a.ptr[1] + base;  // operand 1 is an array
  const L* __restrict__ y = (const L*)a.ptr[2] + base;
  const L* __restrict__ z = (const L*)a.ptr[3] + base;
  const int arrays = 2 - ((a.smask >> 2) & 1) - ((a.smask >> 3) & 1);
  oh_ew_chunk<Op>((S*)a.ptr[0] + base, m,
              a.n * (oh_i64)(sizeof(To) + sizeof(T1) + arrays * sizeof(Ti)),
              [&](S* d, int j, int len) {
                tri0_loop<Op, Ti, To>(d, x + j, y + j, z + j, a, len);
              });
}

template <class Op, class Ti, class To>
__global__ void un0(OhArgs a) {
  un0_cpu<Op, Ti, To>(a, blockIdx.x * blockDim.x + threadIdx.x);
}

template <class Op, class Ti, class To>
__global__ void bi0(OhArgs a) {
  bi0_cpu<Op, Ti, To>(a, blockIdx.x * blockDim.x + threadIdx.x);
}

template <class Op, class Ti, class To>
__global__ void tri0(OhArgs a) {
  tri0_cpu<Op, Ti, To>(a, blockIdx.x * blockDim.x + threadIdx.x);
}
#else
template <class Op, class Ti, class To>
__global__ void un0(OhArgs a) {
  typedef typename oh_ct<Ti>::C C;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int)a.n) return;
  To* __restrict__ out = (To*)a.ptr[0];
  const typename oh_ldt<Ti>::T* __restrict__ x = (const typename oh_ldt<Ti>::T*)a.ptr[1];
  out[i] = cvt<To>(Op::f(cvt<C>(x[i])));
}

template <class Op, class Ti, class To>
__global__ void bi0(OhArgs a) {
  typedef typename oh_ct<Ti>::C C;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int)a.n) return;
  const int sm = a.smask;
  typedef typename oh_ldt<Ti>::T L;
  To* __restrict__ out = (To*)a.ptr[0];
  const L* __restrict__ x = (const L*)a.ptr[1];
  const L* __restrict__ y = (const L*)a.ptr[2];
  if (sm & 2) {
    out[i] = cvt<To>(Op::f(ld<Ti>((const char*)a.scal[1]), cvt<C>(y[i])));
  } else if (sm & 4) {
    out[i] = cvt<To>(Op::f(cvt<C>(x[i]), ld<Ti>((const char*)a.scal[2])));
  } else {
    out[i] = cvt<To>(Op::f(cvt<C>(x[i]), cvt<C>(y[i])));
  }
}

template <class Op, class Ti, class To>
__global__ void tri0(OhArgs a) {
  typedef typename oh_ct<Ti>::C C;
  typedef typename Op::template first<Ti>::T T1;
  typedef typename oh_ct<T1>::C C1;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int)a.n) return;
  const int sm = a.smask;
  typedef typename oh_ldt<T1>::T L1;
  typedef typename oh_ldt<Ti>::T L;
  To* __restrict__ out = (To*)a.ptr[0];
  const L1* __restrict__ x = (const L1*)a.ptr[1];
  const L* __restrict__ y = (const L*)a.ptr[2];
  const L* __restrict__ z = (const L*)a.ptr[3];
  const C1 xv = cvt<C1>(x[i]);  // operand 1 is an array (where's condition, clip's x)
  const C yv = (sm & 4) ? ld<Ti>((const char*)a.scal[2]) : cvt<C>(y[i]);
  const C zv = (sm & 8) ? ld<Ti>((const char*)a.scal[3]) : cvt<C>(z[i]);
  out[i] = cvt<To>(Op::f(xv, yv, zv));
}

#endif  // __HIP_PLATFORM_OPENHIP_CPU__

// layout 3: shape[0] rows x shape[1] columns (each < 2^31) over the 2-D grid; every array
// operand's column stride is its item size, strides[k][0] (bytes) its row stride.
__device__ __forceinline__ bool oh_rc3(const OhArgs& a, int* r, int* c) {
  *c = blockIdx.x * blockDim.x + threadIdx.x;
  *r = (int)(blockIdx.z * gridDim.y + blockIdx.y);
  return *c < (int)a.shape[1] && *r < (int)a.shape[0];
}

template <class Op, class Ti, class To>
__global__ void un3(OhArgs a) {
  typedef typename oh_ct<Ti>::C C;
  int r, c;
  if (!oh_rc3(a, &r, &c)) return;
  To* __restrict__ out = (To*)(a.ptr[0] + r * a.strides[0][0]);
  const typename oh_ldt<Ti>::T* __restrict__ x =
      (const typename oh_ldt<Ti>::T*)(a.ptr[1] + r * a.strides[1][0]);
  out[c] = cvt<To>(Op::f(cvt<C>(x[c])));
}

template <class Op, class Ti, class To>
__global__ void bi3(OhArgs a) {
  typedef typename oh_ct<Ti>::C C;
  typedef typename oh_ldt<Ti>::T L;
  int r, c;
  if (!oh_rc3(a, &r, &c)) return;
  const int sm = a.smask;
  To* __restrict__ out = (To*)(a.ptr[0] + r * a.strides[0][0]);
  const L* __restrict__ x = (const L*)(a.ptr[1] + r * a.strides[1][0]);
  const L* __restrict__ y = (const L*)(a.ptr[2] + r * a.strides[2][0]);
  if (sm & 2) {
    out[c] = cvt<To>(Op::f(ld<Ti>((const char*)a.scal[1]), cvt<C>(y[c])));
  } else if (sm & 4) {
    out[c] = cvt<To>(Op::f(cvt<C>(x[c]), ld<Ti>((const char*)a.scal[2])));
  } else {
    out[c] = cvt<To>(Op::f(cvt<C>(x[c]), cvt<C>(y[c])));
  }
}

template <class Op, class Ti, class To>
__global__ void tri3(OhArgs a) {
  typedef typename oh_ct<Ti>::C C;
  typedef typename Op::template first<Ti>::T T1;
  typedef typename oh_ct<T1>::C C1;
  typedef typename oh_ldt<T1>::T L1;
  typedef typename oh_ldt<Ti>::T L;
  int r, c;
  if (!oh_rc3(a, &r, &c)) return;
  const int sm = a.smask;
  To* __restrict__ out = (To*)(a.ptr[0] + r * a.strides[0][0]);
  const L1* __restrict__ x = (const L1*)(a.ptr[1] + r * a.strides[1][0]);
  const L* __restrict__ y = (const L*)(a.ptr[2] + r * a.strides[2][0]);
  const L* __restrict__ z = (const L*)(a.ptr[3] + r * a.strides[3][0]);
  const C1 xv = cvt<C1>(x[c]);  // operand 1 is an array (where's condition, clip's x)
  const C yv = (sm & 4) ? ld<Ti>((const char*)a.scal[2]) : cvt<C>(y[c]);
  const C zv = (sm & 8) ? ld<Ti>((const char*)a.scal[3]) : cvt<C>(z[c]);
  out[c] = cvt<To>(Op::f(xv, yv, zv));
}

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
