// openhip.numpy: what every kernel family shares (see openhip/numpy/_kernels.py).
//
// - the element types of the dtypes (bool, signed char ... unsigned long long, __half,
//   __hip_bfloat16, float, double, ohc<float>, ohc<double>) and their compute types
//   (__half and __hip_bfloat16 compute in float);
// - cvt<To>(x): numpy's casting between any two of them (complex -> real takes the real part);
// - OhArgs: the by-value launch argument of elementwise-style kernels: operand pointers,
//   the collapsed shape and each operand's strides in BYTES (operand 0 is the output), and
//   up to OH_NOPS scalar operands stored inline (an operand whose bit is set in `smask` reads
//   its value from `scal[k]` instead of memory);
// - oh_index(): linear thread index over a 1-D or 2-D grid; oh_offsets(): byte offsets of
//   element i for each operand of a strided launch.
// Source is plain HIP C++ and compiles for the CPU platform, NVRTC (nvidia) and hiprtc (amd).
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>

#define OH_MAXDIM 8
#define OH_NOPS 4

typedef long long oh_i64;
typedef unsigned long long oh_u64;

struct OhArgs {
  char* ptr[OH_NOPS];                 // operand base pointers (byte offset included)
  oh_i64 n;                           // elements of the output
  int ndim;                           // dimensions of shape/strides in use
  int smask;                          // bit k: operand k is an inline scalar
  oh_i64 shape[OH_MAXDIM];
  oh_i64 strides[OH_NOPS][OH_MAXDIM]; // bytes
  oh_u64 scal[OH_NOPS][2];            // inline scalars: the operand's storage bytes
  oh_i64 extra[4];                    // per-family extras (e.g. an axis length)
};

__device__ __forceinline__ oh_i64 oh_index() {
  return ((oh_i64)blockIdx.y * gridDim.x + blockIdx.x) * (oh_i64)blockDim.x + threadIdx.x;
}

// ------------------------------------------------------------------------------------------
// complex
template <class R>
struct ohc {
  R re, im;
};
typedef ohc<float> oh_c64;
typedef ohc<double> oh_c128;

template <class R>
__device__ __forceinline__ ohc<R> mkc(R re, R im) {
  ohc<R> z;
  z.re = re;
  z.im = im;
  return z;
}

// ------------------------------------------------------------------------------------------
// traits: compute type C of a storage type T
template <class T> struct oh_ct { typedef T C; };
template <> struct oh_ct<__half> { typedef float C; };
template <> struct oh_ct<__hip_bfloat16> { typedef float C; };

template <class T> struct oh_is_cplx { static const bool v = false; };
template <class R> struct oh_is_cplx<ohc<R> > { static const bool v = true; };

// to a real number (double/float/int); real part for complex
template <class T> __device__ __forceinline__ T oh_re(T x) { return x; }
__device__ __forceinline__ float oh_re(__half x) { return __half2float(x); }
__device__ __forceinline__ float oh_re(__hip_bfloat16 x) { return __bfloat162float(x); }
template <class R> __device__ __forceinline__ R oh_re(ohc<R> x) { return x.re; }
template <class T> __device__ __forceinline__ T oh_imv(T) { return T(0); }
__device__ __forceinline__ float oh_imv(__half) { return 0.0f; }
__device__ __forceinline__ float oh_imv(__hip_bfloat16) { return 0.0f; }
template <class R> __device__ __forceinline__ R oh_imv(ohc<R> x) { return x.im; }

// cvt<To>(x)
template <class To> struct oh_cvt_t {
  template <class F> __device__ __forceinline__ static To f(F x) { return (To)oh_re(x); }
  __device__ __forceinline__ static To f(bool x) { return (To)(x ? 1 : 0); }
};
template <> struct oh_cvt_t<bool> {
  template <class F> __device__ __forceinline__ static bool f(F x) {
    return oh_re(x) != 0 || oh_imv(x) != 0;
  }
};
template <> struct oh_cvt_t<__half> {
  template <class F> __device__ __forceinline__ static __half f(F x) {
    return __float2half((float)oh_re(x));
  }
  __device__ __forceinline__ static __half f(double x) { return __double2half(x); }
  __device__ __forceinline__ static __half f(ohc<double> x) { return __double2half(x.re); }
  __device__ __forceinline__ static __half f(__half x) { return x; }
  __device__ __forceinline__ static __half f(bool x) { return __float2half(x ? 1.0f : 0.0f); }
};
template <> struct oh_cvt_t<__hip_bfloat16> {
  template <class F> __device__ __forceinline__ static __hip_bfloat16 f(F x) {
    return __float2bfloat16((float)oh_re(x));
  }
  __device__ __forceinline__ static __hip_bfloat16 f(__hip_bfloat16 x) { return x; }
  __device__ __forceinline__ static __hip_bfloat16 f(bool x) {
    return __float2bfloat16(x ? 1.0f : 0.0f);
  }
};
template <class R> struct oh_cvt_t<ohc<R> > {
  template <class F> __device__ __forceinline__ static ohc<R> f(F x) {
    return mkc<R>((R)oh_re(x), (R)oh_imv(x));
  }
  __device__ __forceinline__ static ohc<R> f(bool x) { return mkc<R>(x ? R(1) : R(0), R(0)); }
};
template <class To, class F> __device__ __forceinline__ To cvt(F x) { return oh_cvt_t<To>::f(x); }

// load element of storage type T as its compute type
template <class T> __device__ __forceinline__ typename oh_ct<T>::C ld(const char* p) {
  return cvt<typename oh_ct<T>::C>(*(const T*)p);
}
template <class T, class V> __device__ __forceinline__ void st(char* p, V v) {
  *(T*)p = cvt<T>(v);
}

// the 2-D layout (L = 2): shape[0] rows x shape[1] columns over a grid of
// (ceil(cols / blockDim.x), rows split into gridDim.y * gridDim.z); no division per element.
// Sets off[k] for operands 0..K-1; false outside the array.
template <int K>
__device__ __forceinline__ bool oh_offsets2(const OhArgs& a, oh_i64* off) {
  const oh_i64 c = (oh_i64)blockIdx.x * blockDim.x + threadIdx.x;
  const oh_i64 r = (oh_i64)blockIdx.z * gridDim.y + blockIdx.y;
  if (c >= a.shape[1] || r >= a.shape[0]) return false;
#pragma unroll
  for (int k = 0; k < K; ++k) off[k] = r * a.strides[k][0] + c * a.strides[k][1];
  return true;
}

// byte offsets of element i of a strided launch, for operands 0..K-1
template <int K>
__device__ __forceinline__ void oh_offsets(const OhArgs& a, oh_i64 i, oh_i64* off) {
#pragma unroll
  for (int k = 0; k < K; ++k) off[k] = 0;
  for (int d = a.ndim - 1; d >= 0; --d) {
    oh_i64 s = a.shape[d];
    oh_i64 q = i / s;
    oh_i64 c = i - q * s;
    i = q;
#pragma unroll
    for (int k = 0; k < K; ++k) off[k] += c * a.strides[k][d];
  }
}

// operand k's element at byte offset `off` (its inline scalar when bit k of smask is set)
template <class T>
__device__ __forceinline__ typename oh_ct<T>::C oh_get(const OhArgs& a, int k, oh_i64 off) {
  return (a.smask >> k) & 1 ? ld<T>((const char*)a.scal[k]) : ld<T>(a.ptr[k] + off);
}

#ifdef __HIP_PLATFORM_OPENHIP_CPU__
// ------------------------------------------------------------------------------------------
// CPU platform: streaming (non-temporal) stores of a large output (elementwise.hip, fused.hip)
// bytes (a multiple of 64) from src (64-byte aligned) to dst (64-byte aligned) with streaming
// stores; the compilers' builtins, not <immintrin.h> (whose parse would cost every build
// about 0.2 s), on vector types that may alias the buffer's element type (as __m512i does:
// else GCC's IPA mod/ref lets it read the buffer before the loop that wrote it).
// oh_stream_fence(): the streamed lines are visible before what follows.
typedef long long oh_v8di __attribute__((vector_size(64), may_alias));
typedef long long oh_v4di __attribute__((vector_size(32), may_alias));
typedef long long oh_v2di __attribute__((vector_size(16), may_alias));
__device__ __forceinline__ void oh_stream_copy(char* __restrict__ dst, const char* __restrict__ src,
                                               int bytes) {
#if defined(__clang__)
  for (int k = 0; k < bytes; k += 64)
    __builtin_nontemporal_store(*(const oh_v8di*)(src + k), (oh_v8di*)(dst + k));
#elif defined(__AVX512F__)
  for (int k = 0; k < bytes; k += 64)
    __builtin_ia32_movntdq512((oh_v8di*)(dst + k), *(const oh_v8di*)(src + k));
#elif defined(__AVX__)
  for (int k = 0; k < bytes; k += 32)
    __builtin_ia32_movntdq256((oh_v4di*)(dst + k), *(const oh_v4di*)(src + k));
#elif defined(__SSE2__)
  for (int k = 0; k < bytes; k += 16)
    __builtin_ia32_movntdq((oh_v2di*)(dst + k), *(const oh_v2di*)(src + k));
#else
  __builtin_memcpy(dst, src, bytes);
#endif
}
__device__ __forceinline__ void oh_stream_fence() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}
#endif  // __HIP_PLATFORM_OPENHIP_CPU__
