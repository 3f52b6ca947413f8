// openhip.numpy creation kernels (openhip/numpy/_creation.py), per storage type T; the output
// is C-contiguous (operand 0), n elements; scalars are inline (OhArgs::scal, T's bytes).
//   fill<T>:     out[i] = scal[1]
//   arange<T>:   out[i] = scal[1] + (extra[3] + i) * scal[2]  (computed in T's compute type)
//   (fill and arange are flat kernels, an int index: Kernel.launch_flat in _kernels.py)
//   linspace<T>: out[i] = scal[1] + i * scal[2] in complex double (scal[k] holds the two
//                doubles); the last = scal[3] when extra[0] (endpoint)
//   eye<T>:      out[r, c] = (c - r == extra[1]) for extra[0] columns
//   tri<T>:      out[..., r, c] = keep ? x[..., r, c] : 0, keep = c - r <= k (tril, extra[3]=0)
//                or c - r >= k (triu, extra[3]=1); extra[0] rows, extra[1] cols, extra[2] k;
//                x (operand 1) strided over the full shape (a.shape/a.strides[1]).
#include "ops.h"

template <class T>
__global__ void fill(OhArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int)a.n) return;
  ((T*)a.ptr[0])[i] = *(const T*)a.scal[1];
}

template <class T>
__global__ void arange(OhArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int)a.n) return;
  typedef typename oh_ct<T>::C C;
  const C start = ld<T>((const char*)a.scal[1]);
  const C step = ld<T>((const char*)a.scal[2]);
  ((T*)a.ptr[0])[i] = cvt<T>(o_add::f(start, o_mul::f(cvt<C>(a.extra[3] + i), step)));
}

template <class T>
__global__ void linspace(OhArgs a) {
  const oh_i64 i = oh_index();
  if (i >= a.n) return;
  // computed in double (or complex double), as numpy does
  const double* p = (const double*)a.scal[1];
  const double* q = (const double*)a.scal[2];
  const double* e = (const double*)a.scal[3];
  double re = p[0] + (double)i * q[0];
  double im = p[1] + (double)i * q[1];
  if (a.extra[0] && i == a.n - 1) {
    re = e[0];
    im = e[1];
  }
  *(T*)(a.ptr[0] + i * (oh_i64)sizeof(T)) = cvt<T>(mkc<double>(re, im));
}

template <class T>
__global__ void eye(OhArgs a) {
  const oh_i64 i = oh_index();
  if (i >= a.n) return;
  const oh_i64 r = i / a.extra[0], c = i - r * a.extra[0];
  *(T*)(a.ptr[0] + i * (oh_i64)sizeof(T)) = cvt<T>((c - r == a.extra[1]) ? 1 : 0);
}

template <class T>
__global__ void tri(OhArgs a) {
  const oh_i64 i = oh_index();
  if (i >= a.n) return;
  oh_i64 off[2];
  oh_offsets<2>(a, i, off);
  const oh_i64 cols = a.extra[1];
  const oh_i64 c = i % cols, r = (i / cols) % a.extra[0];
  const bool keep = a.extra[3] ? (c - r >= a.extra[2]) : (c - r <= a.extra[2]);
  *(T*)(a.ptr[0] + off[0]) = keep ? *(const T*)(a.ptr[1] + off[1]) : cvt<T>(0);
}
