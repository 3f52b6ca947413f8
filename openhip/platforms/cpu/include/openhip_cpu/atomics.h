// openhip CPU platform: HIP's atomic functions.
//
// Blocks run in parallel on several OS threads, so every atomic is a real lock-free hardware
// atomic (GCC/Clang __atomic builtins).  Read-modify-write operations use sequentially consistent
// ordering: on x86 this costs nothing over relaxed (every locked instruction is a full barrier),
// and it keeps the compiler from moving ordinary loads/stores across them, which GPU code written
// for "atomic + __threadfence" patterns relies on.  Floating-point add/min/max and the 16-bit
// types use compare-and-swap loops.  Overloads: HIP's (amd_hip_atomic.h) plus CUDA's extras, each
// also as _system and _block variants (identical on a CPU: one coherent address space).
#pragma once

#include "lang_base.h"

namespace openhip {
namespace lang {
constexpr int kAtomicOrder = __ATOMIC_SEQ_CST;

// Generic compare-and-swap loop: new = f(old); returns old.  T is any trivially copyable type of
// 2, 4 or 8 bytes; the comparison is on the bit pattern (so NaN never loops forever).
template <class T, class F>
inline T atomic_update(T* addr, F f) {
  using U = uint_for<T>;
  U* p = reinterpret_cast<U*>(addr);
  U old = __atomic_load_n(p, __ATOMIC_RELAXED);
  for (;;) {
    const T nv = f(bit_cast<T>(old));
    const U desired = bit_cast<U>(nv);
    if (__atomic_compare_exchange_n(p, &old, desired, true, kAtomicOrder, __ATOMIC_RELAXED))
      return bit_cast<T>(old);
  }
}
// Min/max (integer and floating point; float as HIP does it): store only while the stored value
// is greater (min) or less (max) than val, so a NaN val or NaN stored value is left alone and an
// unchanged value costs no store.
template <class T>
inline T atomic_fmin(T* addr, T val) {
  using U = uint_for<T>;
  U* p = reinterpret_cast<U*>(addr);
  U old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (bit_cast<T>(old) > val) {
    if (__atomic_compare_exchange_n(p, &old, bit_cast<U>(val), true, kAtomicOrder, __ATOMIC_RELAXED))
      break;
  }
  return bit_cast<T>(old);
}
template <class T>
inline T atomic_fmax(T* addr, T val) {
  using U = uint_for<T>;
  U* p = reinterpret_cast<U*>(addr);
  U old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (bit_cast<T>(old) < val) {
    if (__atomic_compare_exchange_n(p, &old, bit_cast<U>(val), true, kAtomicOrder, __ATOMIC_RELAXED))
      break;
  }
  return bit_cast<T>(old);
}
template <class T>
OPENHIP_LANG_FN T atomic_cas(T* addr, T compare, T val) {
  __atomic_compare_exchange_n(addr, &compare, val, false, kAtomicOrder, kAtomicOrder);
  return compare;  // holds the old value whether or not the exchange happened
}
template <class T>
inline T atomic_fcas(T* addr, T compare, T val) {  // float/double CAS on the bit patterns
  using U = uint_for<T>;
  U c = bit_cast<U>(compare);
  __atomic_compare_exchange_n(reinterpret_cast<U*>(addr), &c, bit_cast<U>(val), false,
                              kAtomicOrder, kAtomicOrder);
  return bit_cast<T>(c);
}
}  // namespace lang
}  // namespace openhip

// Each definition below comes in three spellings: NAME, NAME_system, NAME_block.
#define OPENHIP_ATOMIC3(RET, NAME, PARAMS, BODY) \
  OPENHIP_LANG_FN RET NAME PARAMS BODY           \
  OPENHIP_LANG_FN RET NAME##_system PARAMS BODY  \
  OPENHIP_LANG_FN RET NAME##_block PARAMS BODY

#define OPENHIP_ATOMIC_INT_OPS(T)                                                                 \
  OPENHIP_ATOMIC3(T, atomicAdd, (T * a, T v), { return __atomic_fetch_add(a, v, openhip::lang::kAtomicOrder); }) \
  OPENHIP_ATOMIC3(T, atomicSub, (T * a, T v), { return __atomic_fetch_sub(a, v, openhip::lang::kAtomicOrder); }) \
  OPENHIP_ATOMIC3(T, atomicExch, (T * a, T v), { return __atomic_exchange_n(a, v, openhip::lang::kAtomicOrder); }) \
  OPENHIP_ATOMIC3(T, atomicAnd, (T * a, T v), { return __atomic_fetch_and(a, v, openhip::lang::kAtomicOrder); }) \
  OPENHIP_ATOMIC3(T, atomicOr, (T * a, T v), { return __atomic_fetch_or(a, v, openhip::lang::kAtomicOrder); }) \
  OPENHIP_ATOMIC3(T, atomicXor, (T * a, T v), { return __atomic_fetch_xor(a, v, openhip::lang::kAtomicOrder); }) \
  OPENHIP_ATOMIC3(T, atomicMin, (T * a, T v), { return openhip::lang::atomic_fmin(a, v); })      \
  OPENHIP_ATOMIC3(T, atomicMax, (T * a, T v), { return openhip::lang::atomic_fmax(a, v); })      \
  OPENHIP_ATOMIC3(T, atomicCAS, (T * a, T c, T v), { return openhip::lang::atomic_cas(a, c, v); })

OPENHIP_ATOMIC_INT_OPS(int)
OPENHIP_ATOMIC_INT_OPS(unsigned int)
OPENHIP_ATOMIC_INT_OPS(unsigned long)
OPENHIP_ATOMIC_INT_OPS(unsigned long long)
OPENHIP_ATOMIC_INT_OPS(long long)
OPENHIP_ATOMIC_INT_OPS(long)
#undef OPENHIP_ATOMIC_INT_OPS

// 16-bit CAS (CUDA: atomicCAS(unsigned short*)).
OPENHIP_ATOMIC3(unsigned short, atomicCAS, (unsigned short* a, unsigned short c, unsigned short v),
                { return openhip::lang::atomic_cas(a, c, v); })

// atomicInc / atomicDec (unsigned only), wrapping exactly as CUDA/HIP define them:
//   inc: old >= val ? 0 : old + 1        dec: (old == 0 || old > val) ? val : old - 1
OPENHIP_ATOMIC3(unsigned int, atomicInc, (unsigned int* a, unsigned int val), {
  return openhip::lang::atomic_update(a, [val](unsigned int o) { return o >= val ? 0u : o + 1u; });
})
OPENHIP_ATOMIC3(unsigned int, atomicDec, (unsigned int* a, unsigned int val), {
  return openhip::lang::atomic_update(
      a, [val](unsigned int o) { return (o == 0u || o > val) ? val : o - 1u; });
})

// Floating point.
#define OPENHIP_ATOMIC_FLOAT_OPS(T)                                                               \
  OPENHIP_ATOMIC3(T, atomicAdd, (T * a, T v), {                                                   \
    return openhip::lang::atomic_update(a, [v](T o) { return o + v; });                           \
  })                                                                                              \
  OPENHIP_ATOMIC3(T, atomicSub, (T * a, T v), {                                                   \
    return openhip::lang::atomic_update(a, [v](T o) { return o - v; });                           \
  })                                                                                              \
  OPENHIP_ATOMIC3(T, atomicExch, (T * a, T v), {                                                  \
    return openhip::lang::bit_cast<T>(__atomic_exchange_n(                                        \
        reinterpret_cast<openhip::lang::uint_for<T>*>(a), \
        openhip::lang::bit_cast<openhip::lang::uint_for<T>>(v), \
        openhip::lang::kAtomicOrder));                                                            \
  })                                                                                              \
  OPENHIP_ATOMIC3(T, atomicMin, (T * a, T v), { return openhip::lang::atomic_fmin(a, v); })      \
  OPENHIP_ATOMIC3(T, atomicMax, (T * a, T v), { return openhip::lang::atomic_fmax(a, v); })      \
  OPENHIP_ATOMIC3(T, atomicCAS, (T * a, T c, T v), { return openhip::lang::atomic_fcas(a, c, v); }) \
  OPENHIP_LANG_FN T unsafeAtomicAdd(T* a, T v) { return atomicAdd(a, v); }                        \
  OPENHIP_LANG_FN T safeAtomicAdd(T* a, T v) { return atomicAdd(a, v); }                          \
  OPENHIP_LANG_FN T unsafeAtomicMin(T* a, T v) { return atomicMin(a, v); }                        \
  OPENHIP_LANG_FN T safeAtomicMin(T* a, T v) { return atomicMin(a, v); }                          \
  OPENHIP_LANG_FN T unsafeAtomicMax(T* a, T v) { return atomicMax(a, v); }                        \
  OPENHIP_LANG_FN T safeAtomicMax(T* a, T v) { return atomicMax(a, v); }
OPENHIP_ATOMIC_FLOAT_OPS(float)
OPENHIP_ATOMIC_FLOAT_OPS(double)
#undef OPENHIP_ATOMIC_FLOAT_OPS
OPENHIP_LANG_FN void atomicAddNoRet(float* a, float v) { (void)atomicAdd(a, v); }

#undef OPENHIP_ATOMIC3

// ---------------------------------------------------------------------------------------------
// Clang's HIP builtins __hip_atomic_* (so code written against them compiles).  Scopes are
// accepted and ignored.
#ifndef __HIP_MEMORY_SCOPE_SINGLETHREAD
#define __HIP_MEMORY_SCOPE_SINGLETHREAD 1
#define __HIP_MEMORY_SCOPE_WAVEFRONT 2
#define __HIP_MEMORY_SCOPE_WORKGROUP 3
#define __HIP_MEMORY_SCOPE_AGENT 4
#define __HIP_MEMORY_SCOPE_SYSTEM 5
#endif
namespace openhip {
namespace lang {
template <class T>
struct is_fp_atomic {
  static constexpr bool value = false;
};
template <>
struct is_fp_atomic<float> {
  static constexpr bool value = true;
};
template <>
struct is_fp_atomic<double> {
  static constexpr bool value = true;
};
}  // namespace lang
}  // namespace openhip
#if !defined(__clang__)  // Clang has these builtins for every target
template <class T>
OPENHIP_LANG_FN T __hip_atomic_load(T* p, int order, int /*scope*/) {
  T r;
  (void)order;
  __atomic_load(p, &r, __ATOMIC_SEQ_CST);
  return r;
}
template <class T, class V>
OPENHIP_LANG_FN void __hip_atomic_store(T* p, V v, int order, int /*scope*/) {
  T t = (T)v;
  (void)order;
  __atomic_store(p, &t, __ATOMIC_SEQ_CST);
}
template <class T, class V>
OPENHIP_LANG_FN T __hip_atomic_exchange(T* p, V v, int, int) {
  T t = (T)v, r;
  __atomic_exchange(p, &t, &r, __ATOMIC_SEQ_CST);
  return r;
}
template <class T, class V>
OPENHIP_LANG_FN bool __hip_atomic_compare_exchange_strong(T* p, T* expected, V desired, int, int, int) {
  T d = (T)desired;
  return __atomic_compare_exchange(p, expected, &d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
template <class T, class V>
OPENHIP_LANG_FN bool __hip_atomic_compare_exchange_weak(T* p, T* expected, V desired, int, int, int) {
  T d = (T)desired;
  return __atomic_compare_exchange(p, expected, &d, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
#define OPENHIP_HIP_ATOMIC_RMW(NAME, BUILTIN, EXPR)                                         \
  template <class T, class V>                                                               \
  OPENHIP_LANG_FN T NAME(T* p, V v, int, int) {                                             \
    const T val = (T)v;                                                                     \
    if constexpr (openhip::lang::is_fp_atomic<T>::value) {                                  \
      return openhip::lang::atomic_update(p, [val](T o) { return EXPR; });                  \
    } else {                                                                                \
      return BUILTIN(p, val, __ATOMIC_SEQ_CST);                                             \
    }                                                                                       \
  }
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_add, __atomic_fetch_add, o + val)
OPENHIP_HIP_ATOMIC_RMW(__hip_atomic_fetch_sub, __atomic_fetch_sub, o - val)
#undef OPENHIP_HIP_ATOMIC_RMW
#define OPENHIP_HIP_ATOMIC_BIT(NAME, BUILTIN)                   \
  template <class T, class V>                                   \
  OPENHIP_LANG_FN T NAME(T* p, V v, int, int) {                 \
    return BUILTIN(p, (T)v, __ATOMIC_SEQ_CST);                  \
  }
OPENHIP_HIP_ATOMIC_BIT(__hip_atomic_fetch_and, __atomic_fetch_and)
OPENHIP_HIP_ATOMIC_BIT(__hip_atomic_fetch_or, __atomic_fetch_or)
OPENHIP_HIP_ATOMIC_BIT(__hip_atomic_fetch_xor, __atomic_fetch_xor)
#undef OPENHIP_HIP_ATOMIC_BIT
template <class T, class V>
OPENHIP_LANG_FN T __hip_atomic_fetch_min(T* p, V v, int, int) {
  const T val = (T)v;
  return openhip::lang::atomic_fmin(p, val);
}
template <class T, class V>
OPENHIP_LANG_FN T __hip_atomic_fetch_max(T* p, V v, int, int) {
  const T val = (T)v;
  return openhip::lang::atomic_fmax(p, val);
}
#endif  // !__clang__
