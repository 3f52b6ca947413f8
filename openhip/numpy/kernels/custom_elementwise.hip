// openhip.numpy ElementwiseKernel template (openhip/numpy/custom.py fills the @...@ fields).
//
// One thread per element i of the broadcast shape: _ind holds the collapsed shape, the byte
// strides of each broadcast operand (@NB@ of them) and, for each raw operand (@NR@), its size,
// shape and byte strides; raw operands are _Raw<T> views indexed by a flat C-order index.
// No barrier: loop mode on the CPU platform.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>

#define _OH_MAXDIM @MAXDIM@
#define _OH_NB @NB@
#define _OH_NR @NR@

struct _OhInd {
  long long n, ndim;
  long long shape[_OH_MAXDIM];
  long long st[_OH_NB][_OH_MAXDIM];
  long long rsize[_OH_NR], rndim[_OH_NR];
  long long rshape[_OH_NR][_OH_MAXDIM];
  long long rst[_OH_NR][_OH_MAXDIM];
  __device__ long long size() const { return n; }
};

template <class T>
struct _Raw {
  char* p;
  const _OhInd* ind;
  int k;
  __device__ _Raw(char* ptr, const _OhInd& a, int which) : p(ptr), ind(&a), k(which) {}
  __device__ long long size() const { return ind->rsize[k]; }
  __device__ T& operator[](long long idx) const {
    long long off = 0;
    for (int d = (int)ind->rndim[k] - 1; d >= 0; --d) {
      const long long q = idx / ind->rshape[k][d];
      off += (idx - q * ind->rshape[k][d]) * ind->rst[k][d];
      idx = q;
    }
    return *(T*)(p + off);
  }
};

@TYPEDEFS@
@PREAMBLE@

extern "C" __global__ void @NAME@(@PARAMS@, _OhInd _ind) {
  const long long i = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * (long long)blockDim.x +
                      threadIdx.x;
  if (i >= _ind.n) return;
  long long _off[_OH_NB];
  for (int k = 0; k < _OH_NB; ++k) _off[k] = 0;
  {
    long long r = i;
    for (int d = (int)_ind.ndim - 1; d >= 0; --d) {
      const long long q = r / _ind.shape[d];
      const long long c = r - q * _ind.shape[d];
      for (int k = 0; k < _OH_NB; ++k) _off[k] += c * _ind.st[k][d];
      r = q;
    }
  }
@BINDINGS@
  @LOOP_PREP@
  {
    @OPERATION@;
  }
  @AFTER_LOOP@
}
