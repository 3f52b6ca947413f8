// openhip CPU platform: shared helpers of the kernel-language headers (intrinsics, math, atomics,
// fp16/bf16/fp8, warp).  Internal: everything lives in namespace openhip::lang.
//
// Rules for every language header:
//  * header-only, `inline` (no ODR clashes between modules), compiler builtins before libraries;
//  * no <iostream>/<functional>/<thread>: a small kernel must compile cold in well under a second;
//  * plain functions (no __device__ needed): on the CPU platform host and device code are one.
#pragma once

#include <stdint.h>

#define OPENHIP_LANG_FN inline __attribute__((always_inline))

namespace openhip {
namespace lang {

template <class To, class From>
OPENHIP_LANG_FN To bit_cast(const From& v) noexcept {
  static_assert(sizeof(To) == sizeof(From), "bit_cast: size mismatch");
  To r;
  __builtin_memcpy(&r, &v, sizeof(To));
  return r;
}

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// The unsigned integer type of a given size.
template <unsigned N>
struct uint_of_size;
template <>
struct uint_of_size<1> { using type = unsigned char; };
template <>
struct uint_of_size<2> { using type = unsigned short; };
template <>
struct uint_of_size<4> { using type = unsigned int; };
template <>
struct uint_of_size<8> { using type = unsigned long long; };
template <class T>
using uint_for = typename uint_of_size<sizeof(T)>::type;

// Makes a floating-point value opaque to the optimiser, so that an operation whose rounding the
// HIP API fixes (__fadd_rn, __fmul_rn, ...) is not contracted into an FMA or folded with its
// neighbours, and so that an operation runs after a change of the rounding mode.
template <class T>
OPENHIP_LANG_FN T opaque(T v) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile("" : "+x"(v));
#elif defined(__aarch64__)
  __asm__ volatile("" : "+w"(v));
#else
  __asm__ volatile("" : "+m"(v));
#endif
  return v;
}

// Rounding modes as the directed intrinsics name them.
enum class rounding : int { rn = 0, rz = 1, ru = 2, rd = 3 };

}  // namespace lang
}  // namespace openhip

#include <fenv.h>

namespace openhip {
namespace lang {

// opaque() that also orders against calls (used around fesetround).
template <class T>
OPENHIP_LANG_FN T opaque_mem(T v) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile("" : "+x"(v) : : "memory");
#elif defined(__aarch64__)
  __asm__ volatile("" : "+w"(v) : : "memory");
#else
  __asm__ volatile("" : "+m"(v) : : "memory");
#endif
  return v;
}

// Runs f() (which must pass its operands through opaque_mem) in rounding mode r.  Used by the
// rarely used directed-rounding intrinsics (__fadd_rz, __dmul_ru, __fma_rd, __int2float_rz ...):
// the hardware does the rounding, so the result is exact by construction.
template <class F>
inline auto with_rounding(rounding r, F f) noexcept -> decltype(f()) {
  if (r == rounding::rn) return f();
  const int old = fegetround();
  fesetround(r == rounding::rz ? FE_TOWARDZERO : r == rounding::ru ? FE_UPWARD : FE_DOWNWARD);
  auto v = opaque_mem(f());
  fesetround(old);
  return v;
}

}  // namespace lang
}  // namespace openhip
