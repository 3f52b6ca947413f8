// openhip.numpy fused elementwise programs: one interpreter kernel per dtype, built once,
// that runs a short opcode program (openhip/numpy/_fusion.py) over the elements, so that
// `a * x + y` reads x and y and writes the result once, with no compile per expression.
//
//   fused<T, To>(OhFused)   T: the storage type of every operand (its compute type C
//                           holds the registers), To: the output's (T, or bool for a
//                           comparison at the root).
//
// Each thread takes OHF_CH consecutive elements (1 on a GPU; on the CPU platform a chunk of
// 4 KiB of compute values, so each opcode is a tight loop the C++ compiler vectorises) and
// runs the program over them, one opcode at a time, with the values in local register
// arrays. The opcodes apply the very functions of the unfused kernels (ops.h, vmath.h) to
// whole register arrays: every intermediate value goes through memory between two opcodes,
// so no floating-point contraction can join two operations and a fused result is bit for
// bit the unfused one.
//
// An instruction is four bytes: opcode, destination (a register, or OHF_OUT: the output),
// operands a and b. An operand is a register (0-7), a leaf read in place (8 + leaf: a
// contiguous array), a constant (16 + slot: a Python scalar) or a 0-d leaf (24 + leaf: its
// element 0); constants and 0-d leaves are scalars, so each operation has a loop for each
// of (array, array), (array, scalar), (scalar, array), (scalar, scalar). The destination
// never aliases an operand (the host's register allocation guarantees it).
#include "ops.h"

#define OHF_NREG 8     // registers
#define OHF_NLEAF 8    // array operands
#define OHF_NCONST 8   // scalar operands
#define OHF_NINS 48    // instructions
#if defined(__HIP_PLATFORM_OPENHIP_CPU__) && !defined(OHF_CHUNK_BYTES)
#define OHF_CHUNK_BYTES 8192
#endif

struct OhFused {
  char* out;
  const char* leaf[OHF_NLEAF];          // contiguous operands (a 0-d one: element 0)
  unsigned long long cval[OHF_NCONST][2];  // scalar operands: storage bytes of T
  int n;                                // elements of this launch (< 2^31)
  int nins;
  unsigned char ins[OHF_NINS][4];
};

// opcodes (mirrored in _fusion.py)
#define OHF_NEG 10
#define OHF_ABS 11
#define OHF_SQUARE 12
#define OHF_EXP 13
#define OHF_LOG 14
#define OHF_SQRT 15
#define OHF_ADD 20
#define OHF_SUB 21
#define OHF_MUL 22
#define OHF_DIV 23
#define OHF_MAX 24
#define OHF_MIN 25
#define OHF_EQ 30      // comparisons: the root, written to out (bool) directly
#define OHF_NE 31
#define OHF_LT 32
#define OHF_LE 33
#define OHF_GT 34
#define OHF_GE 35
#define OHF_OUT 255    // destination: the output

template <class T> struct ohf_float { static const bool v = false; };
template <> struct ohf_float<float> { static const bool v = true; };
template <> struct ohf_float<double> { static const bool v = true; };

// bool results are stored as their byte (GCC does not vectorise stores of C++ bool)
template <class S> struct ohf_st { typedef S T; };
template <> struct ohf_st<bool> { typedef unsigned char T; };

// sc: bit 0 operand a is a scalar (xv), bit 1 operand b (yv)
template <class Op, class C, class D>
__device__ __forceinline__ void ohf_un(D* __restrict__ d, const C* __restrict__ x, C xv,
                                       int sc, int m) {
  if (sc & 1) {
    const D v = (D)Op::f(xv);
    for (int j = 0; j < m; ++j) d[j] = v;
  } else {
    for (int j = 0; j < m; ++j) d[j] = (D)Op::f(x[j]);
  }
}

template <class Op, class C, class D>
__device__ __forceinline__ void ohf_bi(D* __restrict__ d, const C* __restrict__ x,
                                       const C* __restrict__ y, C xv, C yv, int sc, int m) {
  switch (sc) {
    case 0:
      for (int j = 0; j < m; ++j) d[j] = (D)Op::f(x[j], y[j]);
      break;
    case 1:
      for (int j = 0; j < m; ++j) d[j] = (D)Op::f(xv, y[j]);
      break;
    case 2:
      for (int j = 0; j < m; ++j) d[j] = (D)Op::f(x[j], yv);
      break;
    default: {
      const D v = (D)Op::f(xv, yv);
      for (int j = 0; j < m; ++j) d[j] = v;
    }
  }
}

// the value operations: d = op(x, y) over m elements
template <class C>
__device__ __forceinline__ void ohf_value(int op, C* __restrict__ d, const C* x, const C* y,
                                          C xv, C yv, int sc, int m) {
  switch (op) {
    case OHF_NEG: ohf_un<o_neg>(d, x, xv, sc, m); break;
    case OHF_ABS: ohf_un<o_abs>(d, x, xv, sc, m); break;
    case OHF_SQUARE: ohf_un<o_square>(d, x, xv, sc, m); break;
    case OHF_ADD: ohf_bi<o_add>(d, x, y, xv, yv, sc, m); break;
    case OHF_SUB: ohf_bi<o_sub>(d, x, y, xv, yv, sc, m); break;
    case OHF_MUL: ohf_bi<o_mul>(d, x, y, xv, yv, sc, m); break;
    case OHF_MAX: ohf_bi<o_max>(d, x, y, xv, yv, sc, m); break;
    case OHF_MIN: ohf_bi<o_min>(d, x, y, xv, yv, sc, m); break;
    default:
      if constexpr (ohf_float<C>::v) {
        switch (op) {
          case OHF_EXP: ohf_un<o_exp>(d, x, xv, sc, m); break;
          case OHF_LOG: ohf_un<o_log>(d, x, xv, sc, m); break;
          case OHF_SQRT: ohf_un<o_sqrt>(d, x, xv, sc, m); break;
          case OHF_DIV: ohf_bi<o_div>(d, x, y, xv, yv, sc, m); break;
          default: break;
        }
      }
      break;
  }
}

// operand k (not a register) of an instruction: a leaf's elements, or a scalar (into *v,
// with `bit` set in *sc)
template <class T, class C>
__device__ __forceinline__ const C* ohf_operand(const OhFused& a, int k, int base, C* v,
                                                int* sc, int bit) {
  if (k < 16) return (const C*)((const T*)a.leaf[k - 8] + base);
  if (k < 24) {
    *v = ld<T>((const char*)a.cval[k - 16]);
  } else {
    *v = cvt<C>(*(const T*)a.leaf[k - 24]);
  }
  *sc |= bit;
  return 0;
}

// The program of thread t. On the CPU platform it is not inlined into the engine's thread
// loops (the engine compiles a kernel's body several times: its loop forms and the fault
// rerun): the build then holds it once, and a call per chunk costs nothing.
#ifdef __HIP_PLATFORM_OPENHIP_CPU__
#define OHF_RUN __attribute__((noinline))
#else
#define OHF_RUN __forceinline__
#endif

template <class T, class To>
__device__ OHF_RUN void ohf_run(const OhFused& a, const int t) {
  typedef typename oh_ct<T>::C C;
  typedef typename ohf_st<To>::T S;
#ifdef OHF_CHUNK_BYTES
  enum { CH = OHF_CHUNK_BYTES / sizeof(C) };
#else
  enum { CH = 1 };
#endif
  if (t >= (a.n + CH - 1) / CH) return;
  const int base = t * CH;
  const int m = a.n - base < CH ? a.n - base : CH;
  C R[OHF_NREG][CH];
  S* __restrict__ out = (S*)a.out + base;
  for (int p = 0; p < a.nins; ++p) {
    const int op = a.ins[p][0], dst = a.ins[p][1], ia = a.ins[p][2], ib = a.ins[p][3];
    int sc = 0;
    C xv = C(0), yv = C(0);
    const C* x = ia < 8 ? R[ia] : ohf_operand<T, C>(a, ia, base, &xv, &sc, 1);
    const C* y = ib < 8 ? R[ib] : ohf_operand<T, C>(a, ib, base, &yv, &sc, 2);
    if (op >= OHF_EQ) {  // a comparison: the root, into the bool output
      if constexpr (sizeof(To) == 1 && sizeof(T) != 1) {
        switch (op) {
          case OHF_EQ: ohf_bi<o_eq>(out, x, y, xv, yv, sc, m); break;
          case OHF_NE: ohf_bi<o_ne>(out, x, y, xv, yv, sc, m); break;
          case OHF_LT: ohf_bi<o_lt>(out, x, y, xv, yv, sc, m); break;
          case OHF_LE: ohf_bi<o_le>(out, x, y, xv, yv, sc, m); break;
          case OHF_GT: ohf_bi<o_gt>(out, x, y, xv, yv, sc, m); break;
          case OHF_GE: ohf_bi<o_ge>(out, x, y, xv, yv, sc, m); break;
          default: break;
        }
      }
      continue;
    }
    C* d = R[dst < OHF_NREG ? dst : 0];
    if constexpr (sizeof(To) == sizeof(T)) {  // (a bool output holds only a comparison)
      if (dst == OHF_OUT) d = (C*)out;
    }
    ohf_value<C>(op, d, x, y, xv, yv, sc, m);
  }
}

template <class T, class To>
__global__ void fused(OhFused a) {
  ohf_run<T, To>(a, blockIdx.x * blockDim.x + threadIdx.x);
}
