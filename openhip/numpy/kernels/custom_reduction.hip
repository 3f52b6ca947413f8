// openhip.numpy ReductionKernel template (openhip/numpy/custom.py fills the @...@ fields).
//
// _r holds the kept dimensions kn (the output's order) and the reduced ones rn, with every
// array input's byte strides over each (@NA@ inputs) and each output's byte strides over
// the kept dimensions (@NO@ outputs). Thread t = (output o, part p) walks part p of the
// reduced space (the outermost reduced dimension split in `parts` ranges) in C order:
// a = REDUCE(a, MAP(element)). With one part it applies the post-map to the outputs; with
// several it stores (a, have) in the 16-byte slot t of _part, and @NAME@_combine folds the
// parts of each output in part order. No barrier: loop mode on the CPU platform.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>

#define _OH_MAXDIM @MAXDIM@
#define _OH_NA @NA@
#define _OH_NO @NO@

struct _OhRedK {
  long long n_out, parts, nk, nr;
  long long kn[_OH_MAXDIM], rn[_OH_MAXDIM];
  long long ks[_OH_NA][_OH_MAXDIM], rs[_OH_NA][_OH_MAXDIM];
  long long os[_OH_NO][_OH_MAXDIM];
};

@TYPEDEFS@
typedef @REDUCE_TYPE@ _type_reduce;
static_assert(sizeof(_type_reduce) <= 16, "ReductionKernel: reduce_type wider than 16 bytes");
@PREAMBLE@

#define _OH_REDUCE(a, b) (@REDUCE@)

extern "C" __global__ void @NAME@(@PARAMS@, char* _part, unsigned char* _have, _OhRedK _r) {
  const long long t = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * (long long)blockDim.x +
                      threadIdx.x;
  if (t >= _r.n_out * _r.parts) return;
  const long long o = t / _r.parts, p = t - o * _r.parts;
  long long _base[_OH_NA], _ooff[_OH_NO];
  for (int k = 0; k < _OH_NA; ++k) _base[k] = 0;
  for (int k = 0; k < _OH_NO; ++k) _ooff[k] = 0;
  {
    long long rem = o;
    for (int d = (int)_r.nk - 1; d >= 0; --d) {
      const long long q = rem / _r.kn[d];
      const long long c = rem - q * _r.kn[d];
      for (int k = 0; k < _OH_NA; ++k) _base[k] += c * _r.ks[k][d];
      for (int k = 0; k < _OH_NO; ++k) _ooff[k] += c * _r.os[k][d];
      rem = q;
    }
  }
  const int nr = (int)_r.nr;
  const long long n0 = nr ? _r.rn[0] : 1;
  const long long cl = (n0 + _r.parts - 1) / _r.parts;
  const long long lo = p * cl < n0 ? p * cl : n0, hi = lo + cl < n0 ? lo + cl : n0;
  _type_reduce a = _type_reduce(@IDENTITY@);
  bool have = @HAS_IDENTITY@;
  long long idx[_OH_MAXDIM];
  for (int d = 0; d < _OH_MAXDIM; ++d) idx[d] = 0;
  idx[0] = lo;
  bool empty = lo >= hi;
  for (int d = 1; d < nr; ++d) empty = empty || _r.rn[d] == 0;
  while (!empty) {
    long long _off[_OH_NA];
    for (int k = 0; k < _OH_NA; ++k) {
      _off[k] = _base[k];
      for (int d = 0; d < nr; ++d) _off[k] += idx[d] * _r.rs[k][d];
    }
    {
@LOADS@
      const _type_reduce b = (_type_reduce)(@MAP@);
      if (have) {
        a = _OH_REDUCE(a, b);
      } else {
        a = b;
        have = true;
      }
    }
    if (nr == 0) break;
    int d = nr - 1;
    for (; d >= 1; --d) {
      if (++idx[d] < _r.rn[d]) break;
      idx[d] = 0;
    }
    if (d == 0 && ++idx[0] >= hi) break;
  }
  if (_part) {
    *(_type_reduce*)(_part + t * 16) = a;
    _have[t] = have ? 1 : 0;
    return;
  }
  {
@OUTS@
    @POST_MAP@;
  }
}

extern "C" __global__ void @NAME@_combine(@OUT_PARAMS@, char* _part, unsigned char* _have,
                                         _OhRedK _r) {
  const long long o = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * (long long)blockDim.x +
                      threadIdx.x;
  if (o >= _r.n_out) return;
  long long _ooff[_OH_NO];
  for (int k = 0; k < _OH_NO; ++k) _ooff[k] = 0;
  {
    long long rem = o;
    for (int d = (int)_r.nk - 1; d >= 0; --d) {
      const long long q = rem / _r.kn[d];
      const long long c = rem - q * _r.kn[d];
      for (int k = 0; k < _OH_NO; ++k) _ooff[k] += c * _r.os[k][d];
      rem = q;
    }
  }
  _type_reduce a = _type_reduce(@IDENTITY@);
  bool have = @HAS_IDENTITY@;
  for (long long p = 0; p < _r.parts; ++p) {
    if (!_have[o * _r.parts + p]) continue;
    const _type_reduce b = *(const _type_reduce*)(_part + (o * _r.parts + p) * 16);
    if (have) {
      a = _OH_REDUCE(a, b);
    } else {
      a = b;
      have = true;
    }
  }
  {
@OUTS@
    @POST_MAP@;
  }
}
