// openhip.numpy reduction operations shared by reduce.hip and scan.hip: accumulator arithmetic
// on compute types (ohc<R> for complex), min/max identities, and the operations
// Sum Prod Max Min All Any CountNZ SqDev, each with Acc (accumulator type), State (per
// output, from an auxiliary array), id(), map(value, state) and comb(a, b).
#pragma once
#include "common.h"

#define OH_RB 128   // block of the innermost loop
#define OH_RU 16    // accumulators (vector lanes) per block
#define OH_RL 64    // running lanes of a non-pairwise row (4 independent vector chains)
// outputs per thread of cols<> (_reduction.py: cols_tile)
#ifdef OPENHIP_CPU_HIP_RUNTIME_H
#define OH_CW(A) ((int)(16384 / sizeof(A)))
#else
#define OH_CW(A) 16
#endif

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
template <class R> __device__ __forceinline__ ohc<R> oh_sqrt(ohc<R> z) {  // principal root
  const R m = (R)sqrt((double)z.re * z.re + (double)z.im * z.im);
  const R re = (R)sqrt((double)((m + z.re) / 2)), im = (R)sqrt((double)((m - z.re) / 2));
  return mkc<R>(re, z.im < 0 ? -im : im);
}
__device__ __forceinline__ float oh_sqrt(float a) { return sqrtf(a); }

template <class A> struct oh_is_float { static const bool v = false; };
template <> struct oh_is_float<float> { static const bool v = true; };
template <> struct oh_is_float<double> { static const bool v = true; };

template <class A> struct oh_lim {  // identities of min/max (integers)
  static __device__ __forceinline__ A lo() { return (A)(((A)-1) < (A)0 ? (A)1 << (sizeof(A) * 8 - 1) : (A)0); }
  static __device__ __forceinline__ A hi() { return (A)~lo(); }
};
template <> struct oh_lim<bool> {
  static __device__ __forceinline__ bool lo() { return false; }
  static __device__ __forceinline__ bool hi() { return true; }
};
template <> struct oh_lim<float> {
  static __device__ __forceinline__ float lo() { return -__int_as_float(0x7f800000); }
  static __device__ __forceinline__ float hi() { return __int_as_float(0x7f800000); }
};
template <> struct oh_lim<double> {
  static __device__ __forceinline__ double lo() { return -__longlong_as_double(0x7ff0000000000000LL); }
  static __device__ __forceinline__ double hi() { return __longlong_as_double(0x7ff0000000000000LL); }
};

// ---------------------------------------------------------------------------------------
// operations: Acc (accumulator type), State (per output, from aux), id(), map(), comb(), and
// pairwise: whether rows<> combines its blocks in a pairwise cascade (float sums) or keeps
// its 16 lanes running over the whole row (the rest: no scalar work per block)
template <class Ti, class A>
struct Sum {
  typedef A Acc;
  static const bool pairwise = true;
  static const bool ident_map = false;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ A id() { return cvt<A>(0); }
  static __device__ __forceinline__ A map(Ti v, const State&) { return cvt<A>(v); }
  static __device__ __forceinline__ A comb(A a, A b) { return oh_add(a, b); }
};
template <class Ti, class A>
struct Prod {
  typedef A Acc;
  static const bool pairwise = false;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static const bool ident_map = true;  // map(v) is v when Ti is A
  static __device__ __forceinline__ A id() { return cvt<A>(1); }
  static __device__ __forceinline__ A map(Ti v, const State&) { return cvt<A>(v); }
  // X: A, or a vector of A (the CPU platform's vector rows, reduce.hip)
  template <class X>
  static __device__ __forceinline__ X comb(X a, X b) { return oh_mul(a, b); }
  static const bool fast_nan = false;
  template <class X>
  static __device__ __forceinline__ X fcomb(X a, X b) { return oh_mul(a, b); }
};
// max/min propagate NaN (a NaN operand wins), as numpy's maximum.reduce
template <class Ti>
struct Max {
  typedef typename oh_ct<Ti>::C Acc;
  static const bool pairwise = false;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static const bool ident_map = true;
  static __device__ __forceinline__ Acc id() { return oh_lim<Acc>::lo(); }
  static __device__ __forceinline__ Acc map(Ti v, const State&) { return cvt<Acc>(v); }
  // b replaces a when b is greater, equal or NaN; a NaN a stays (b >= NaN is false): of
  // equal values (-0.0, +0.0) the later one, as numpy's maximum.reduce. A bitwise | (no short circuit): the lane
  // loops vectorise to compare + blend.
  template <class X>
  static __device__ __forceinline__ X comb(X a, X b) { return ((b >= a) | (b != b)) ? b : a; }
  // comb without the NaN test (the CPU platform's vector rows detect NaN apart), written as
  // x86's max: GCC emits vmaxps (b on ties, as comb)
  static const bool fast_nan = oh_is_float<Acc>::v;
  template <class X>
  static __device__ __forceinline__ X fcomb(X a, X b) { return (a > b) ? a : b; }
};
template <class Ti>
struct Min {
  typedef typename oh_ct<Ti>::C Acc;
  static const bool pairwise = false;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static const bool ident_map = true;
  static __device__ __forceinline__ Acc id() { return oh_lim<Acc>::hi(); }
  static __device__ __forceinline__ Acc map(Ti v, const State&) { return cvt<Acc>(v); }
  template <class X>
  static __device__ __forceinline__ X comb(X a, X b) { return ((b <= a) | (b != b)) ? b : a; }
  static const bool fast_nan = oh_is_float<Acc>::v;
  template <class X>
  static __device__ __forceinline__ X fcomb(X a, X b) { return (a < b) ? a : b; }
};
// all / any / count_nonzero: the truth of each element (NaN is true)
template <class Ti>
struct All {
  typedef int Acc;
  static const bool pairwise = false;
  static const bool ident_map = false;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ int id() { return 1; }
  static __device__ __forceinline__ int map(Ti v, const State&) { return cvt<bool>(v) ? 1 : 0; }
  static __device__ __forceinline__ int comb(int a, int b) { return a & b; }
};
template <class Ti>
struct Any {
  typedef int Acc;
  static const bool pairwise = false;
  static const bool ident_map = false;
  struct State {};
  static __device__ __forceinline__ State state(const void*, oh_i64) { return State(); }
  static __device__ __forceinline__ int id() { return 0; }
  static __device__ __forceinline__ int map(Ti v, const State&) { return cvt<bool>(v) ? 1 : 0; }
  static __device__ __forceinline__ int comb(int a, int b) { return a | b; }
};
template <class Ti>
struct CountNZ {
  typedef oh_i64 Acc;
  static const bool pairwise = false;
  static const bool ident_map = false;
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
  static const bool pairwise = true;
  static const bool ident_map = false;
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

