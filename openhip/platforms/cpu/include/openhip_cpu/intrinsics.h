// openhip CPU platform: HIP device intrinsics (integer/bit intrinsics, type punning, conversions
// with explicit rounding, clocks, fences, __ldg, and trap/abort/assert that fail the launch).
// Semantics follow HIP's amd_device_functions.h (which matches CUDA's) exactly; where the two
// differ the comment says which one is followed.
#pragma once

#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <assert.h>

#include "lang_base.h"

// ---------------------------------------------------------------------------------------------
// Trap: __trap(), abort() and a failed assert() inside a kernel fail the launch (the runtime
// raises HipError), the process keeps running.  The engine implements the unwinding:
//   [[noreturn]] void openhip::detail::device_trap(const char* message);
// engine.h defines it; without the engine (a test harness) it is declared weak here, and when it
// is absent the message is printed and the process traps (the only option left).
#if !defined(__HIP_PLATFORM_OPENHIP_CPU__)
#define OPENHIP_LANG_TRAP_WEAK 1
namespace openhip {
namespace detail {
[[noreturn]] void device_trap(const char* message) __attribute__((weak));
}  // namespace detail
}  // namespace openhip
#endif
namespace openhip {
namespace lang {
[[noreturn]] inline __attribute__((noinline, cold)) void trap(const char* message) {
#if defined(OPENHIP_LANG_TRAP_WEAK)
  if (&openhip::detail::device_trap != nullptr) openhip::detail::device_trap(message);
  __builtin_printf("openhip: %s (no engine trap handler; aborting)\n", message);
  __builtin_trap();
#else
  openhip::detail::device_trap(message);
#endif
}
[[noreturn]] inline __attribute__((noinline, cold)) void assert_fail(const char* expr,
                                                                    const char* file,
                                                                    unsigned line,
                                                                    const char* func) {
  static thread_local char buf[512];
  __builtin_snprintf(buf, sizeof buf, "%s:%u: %s: device-side assertion `%s' failed.", file, line,
                     func ? func : "?", expr);
  trap(buf);
}
}  // namespace lang
}  // namespace openhip

[[noreturn]] OPENHIP_LANG_FN void __trap() { openhip::lang::trap("__trap() called in a kernel"); }

// abort() and glibc's assert() (which calls __assert_fail): kernels call the C library's, which
// would kill the process.  This header defines both in the kernel's shared object as weak *hidden*
// (i.e. local) symbols: the calls made from that object bind to them at link time, the rest of the
// process keeps the C library's.  (The visibility is set with an assembler directive because the
// C library has already declared both with default visibility.)  So <cassert> included before or
// after this header fails the launch, not the process.  Define OPENHIP_CPU_NO_ABORT_OVERRIDE to
// opt out.
// (Clang's integrated assembler refuses the directive before a global definition; Clang accepts
// the attributes instead.)
#if !defined(OPENHIP_CPU_NO_ABORT_OVERRIDE) && defined(__ELF__)
#if defined(__clang__)
#define OPENHIP_CPU_LOCAL_OVERRIDE(name) __attribute__((weak, visibility("hidden")))
#else
#define OPENHIP_CPU_LOCAL_OVERRIDE(name) __asm__(".weak " #name "\n\t.hidden " #name);
#endif
OPENHIP_CPU_LOCAL_OVERRIDE(abort)
extern "C" void abort(void) noexcept { openhip::lang::trap("abort() called in a kernel"); }
#if defined(__GLIBC__)
OPENHIP_CPU_LOCAL_OVERRIDE(__assert_fail)
extern "C" void __assert_fail(const char* assertion, const char* file, unsigned int line,
                              const char* function) noexcept {
  openhip::lang::assert_fail(assertion, file, line, function);
}
#endif
#endif

// ---------------------------------------------------------------------------------------------
// Fences.  Blocks run on several OS threads: a fence is a real sequentially consistent fence.
#ifndef OPENHIP_CPU_HAVE_THREADFENCE
#define OPENHIP_CPU_HAVE_THREADFENCE 1
OPENHIP_LANG_FN void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
OPENHIP_LANG_FN void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
OPENHIP_LANG_FN void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#endif

// ---------------------------------------------------------------------------------------------
// Clocks.  clock() stays the C library's (declared by <time.h>; it cannot be redefined).
// clock64()/__clock64() count CPU cycles (TSC on x86); wall_clock64() counts nanoseconds, i.e.
// its rate (hipDeviceAttributeWallClockRate) is 1,000,000 kHz.
OPENHIP_LANG_FN long long wall_clock64() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
OPENHIP_LANG_FN long long clock64() {
#if defined(__x86_64__) || defined(__i386__)
  return (long long)__builtin_ia32_rdtsc();
#elif defined(__aarch64__)
  unsigned long long v;
  __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
  return (long long)v;
#else
  return wall_clock64();
#endif
}
OPENHIP_LANG_FN long long __clock64() { return clock64(); }
OPENHIP_LANG_FN long long __clock() { return clock64(); }

// ---------------------------------------------------------------------------------------------
// Read-only cached loads: plain loads on a CPU.
template <class T>
OPENHIP_LANG_FN T __ldg(const T* p) {
  return *p;
}
template <class T>
OPENHIP_LANG_FN T __ldcg(const T* p) { return *p; }
template <class T>
OPENHIP_LANG_FN T __ldca(const T* p) { return *p; }
template <class T>
OPENHIP_LANG_FN T __ldcs(const T* p) { return *p; }
template <class T>
OPENHIP_LANG_FN T __ldlu(const T* p) { return *p; }
template <class T>
OPENHIP_LANG_FN T __ldcv(const T* p) { return *p; }
template <class T>
OPENHIP_LANG_FN void __stwb(T* p, T v) { *p = v; }
template <class T>
OPENHIP_LANG_FN void __stcg(T* p, T v) { *p = v; }
template <class T>
OPENHIP_LANG_FN void __stcs(T* p, T v) { *p = v; }
template <class T>
OPENHIP_LANG_FN void __stwt(T* p, T v) { *p = v; }

// ---------------------------------------------------------------------------------------------
// Integer intrinsics (HIP return types: __popc returns unsigned int, __ffs/__clz int).
OPENHIP_LANG_FN unsigned int __popc(unsigned int x) { return (unsigned)__builtin_popcount(x); }
OPENHIP_LANG_FN unsigned int __popcll(unsigned long long x) {
  return (unsigned)__builtin_popcountll(x);
}
// 1 + index of the least significant set bit; 0 for 0.
OPENHIP_LANG_FN int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
OPENHIP_LANG_FN int __ffs(int x) { return __builtin_ffs(x); }
OPENHIP_LANG_FN int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
OPENHIP_LANG_FN int __ffsll(long long x) { return __builtin_ffsll(x); }
OPENHIP_LANG_FN int __ffsll(unsigned long x) { return __builtin_ffsll((long long)x); }
OPENHIP_LANG_FN int __ffsll(long x) { return __builtin_ffsll((long long)x); }
// Leading zeros; 32 (64) for 0.
OPENHIP_LANG_FN int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
OPENHIP_LANG_FN int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
OPENHIP_LANG_FN unsigned int __brev(unsigned int x) {
#if __has_builtin(__builtin_bitreverse32)
  return __builtin_bitreverse32(x);
#else
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
#endif
}
OPENHIP_LANG_FN unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
// Byte i of the result is byte (s >> 4i) & 7 of the 8-byte value {y:x} (x = bytes 0..3).
OPENHIP_LANG_FN unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
  return r;
}
// 24-bit multiplies: the low 24 bits of each operand (sign-extended for __mul24), low 32 bits of
// the product.
OPENHIP_LANG_FN int __mul24(int x, int y) {
  const long long a = (long long)((int)((unsigned)x << 8) >> 8);
  const long long b = (long long)((int)((unsigned)y << 8) >> 8);
  return (int)(unsigned)(unsigned long long)(a * b);
}
OPENHIP_LANG_FN unsigned int __umul24(unsigned int x, unsigned int y) {
  return (x & 0xFFFFFFu) * (y & 0xFFFFFFu);
}
OPENHIP_LANG_FN int __mulhi(int x, int y) { return (int)(((long long)x * (long long)y) >> 32); }
OPENHIP_LANG_FN unsigned int __umulhi(unsigned int x, unsigned int y) {
  return (unsigned)(((unsigned long long)x * (unsigned long long)y) >> 32);
}
OPENHIP_LANG_FN long long __mul64hi(long long x, long long y) {
  return (long long)(((openhip::lang::i128)x * (openhip::lang::i128)y) >> 64);
}
OPENHIP_LANG_FN unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((openhip::lang::u128)x * (openhip::lang::u128)y) >> 64);
}
// |x - y| + z
OPENHIP_LANG_FN unsigned int __sad(int x, int y, unsigned int z) {
  return (unsigned)(x > y ? (long long)x - y : (long long)y - x) + z;
}
OPENHIP_LANG_FN unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return (x > y ? x - y : y - x) + z;
}
// Averages without overflow: __hadd = (x+y)>>1, __rhadd = (x+y+1)>>1.
OPENHIP_LANG_FN int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
OPENHIP_LANG_FN int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
OPENHIP_LANG_FN unsigned int __uhadd(unsigned int x, unsigned int y) {
  return (unsigned)(((unsigned long long)x + y) >> 1);
}
OPENHIP_LANG_FN unsigned int __urhadd(unsigned int x, unsigned int y) {
  return (unsigned)(((unsigned long long)x + y + 1) >> 1);
}
// Funnel shifts of the 64-bit value {hi:lo}: _l returns the high word after a left shift, _r the
// low word after a right shift; the shift is taken mod 32 (plain) or clamped to 32 (_lc/_rc).
OPENHIP_LANG_FN unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s) {
  const unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (s & 31u)) >> 32);
}
OPENHIP_LANG_FN unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int s) {
  const unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (s > 32u ? 32u : s)) >> 32);
}
OPENHIP_LANG_FN unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s) {
  const unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (s & 31u));
}
OPENHIP_LANG_FN unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int s) {
  const unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (s > 32u ? 32u : s));
}
// Bit-field extract/insert (HIP's __bitextract_u32 / __bitinsert_u32 family).
OPENHIP_LANG_FN unsigned int __bitextract_u32(unsigned int src0, unsigned int src1,
                                              unsigned int src2) {
  const unsigned off = src1 & 31u, w = src2 & 31u;
  return w == 0 ? 0u : (src0 << (32u - off - w)) >> (32u - w);
}
OPENHIP_LANG_FN unsigned long long __bitextract_u64(unsigned long long src0, unsigned int src1,
                                                    unsigned int src2) {
  const unsigned off = src1 & 63u, w = src2 & 63u;
  return w == 0 ? 0ull : (src0 << (64u - off - w)) >> (64u - w);
}
OPENHIP_LANG_FN unsigned int __bitinsert_u32(unsigned int src0, unsigned int src1,
                                             unsigned int src2, unsigned int src3) {
  const unsigned off = src2 & 31u, w = src3 & 31u;
  const unsigned mask = ((1u << w) - 1u) << off;
  return (src0 & ~mask) | ((src1 << off) & mask);
}
OPENHIP_LANG_FN unsigned long long __bitinsert_u64(unsigned long long src0, unsigned long long src1,
                                                   unsigned int src2, unsigned int src3) {
  const unsigned off = src2 & 63u, w = src3 & 63u;
  const unsigned long long mask = ((1ull << w) - 1ull) << off;
  return (src0 & ~mask) | ((src1 << off) & mask);
}
// HIP's lane-mask helpers that take no warp.
OPENHIP_LANG_FN unsigned int __lastbit_u32_u64(unsigned long long x) {
  return x == 0 ? ~0u : (unsigned)__builtin_ctzll(x);
}

// ---------------------------------------------------------------------------------------------
// Type punning.
OPENHIP_LANG_FN int __float_as_int(float x) { return openhip::lang::bit_cast<int>(x); }
OPENHIP_LANG_FN unsigned int __float_as_uint(float x) {
  return openhip::lang::bit_cast<unsigned int>(x);
}
OPENHIP_LANG_FN float __int_as_float(int x) { return openhip::lang::bit_cast<float>(x); }
OPENHIP_LANG_FN float __uint_as_float(unsigned int x) { return openhip::lang::bit_cast<float>(x); }
OPENHIP_LANG_FN long long __double_as_longlong(double x) {
  return openhip::lang::bit_cast<long long>(x);
}
OPENHIP_LANG_FN double __longlong_as_double(long long x) {
  return openhip::lang::bit_cast<double>(x);
}
OPENHIP_LANG_FN int __double2hiint(double x) {
  return (int)(openhip::lang::bit_cast<unsigned long long>(x) >> 32);
}
OPENHIP_LANG_FN int __double2loint(double x) {
  return (int)(unsigned)openhip::lang::bit_cast<unsigned long long>(x);
}
OPENHIP_LANG_FN double __hiloint2double(int hi, int lo) {
  return openhip::lang::bit_cast<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}

// ---------------------------------------------------------------------------------------------
// Conversions with explicit rounding.  Float -> integer conversions saturate to the destination
// range and turn NaN into 0, as the GPU instructions do (cvt.*.sat on NVIDIA, v_cvt_* on AMD).
namespace openhip {
namespace lang {
template <class I, class F>
OPENHIP_LANG_FN I sat_to_int(F r) {  // r is already integral (or NaN / infinite)
  constexpr bool is_signed = I(-1) < I(0);
  constexpr int bits = (int)sizeof(I) * 8;
  constexpr F two_pow = (F)(1ull << (bits - 1));             // 2^(bits-1), exact in F
  constexpr F lo = is_signed ? -two_pow : (F)0;              // smallest representable
  constexpr F hi = is_signed ? two_pow : (F)2 * two_pow;     // first value out of range
  if (r != r) return (I)0;
  if (r <= lo) return is_signed ? (I)(1ull << (bits - 1)) : (I)0;
  if (r >= hi) return is_signed ? (I)((1ull << (bits - 1)) - 1) : (I)~0ull;
  return (I)r;
}
template <class I, class F>
OPENHIP_LANG_FN I to_int(F x, rounding m) {
  F r;
  if constexpr (sizeof(F) == 4) {
    r = m == rounding::rn ? __builtin_rintf(x) : m == rounding::rz ? __builtin_truncf(x)
      : m == rounding::ru ? __builtin_ceilf(x) : __builtin_floorf(x);
  } else {
    r = m == rounding::rn ? __builtin_rint(x) : m == rounding::rz ? __builtin_trunc(x)
      : m == rounding::ru ? __builtin_ceil(x) : __builtin_floor(x);
  }
  return sat_to_int<I, F>(r);
}
}  // namespace lang
}  // namespace openhip

#define OPENHIP_LANG_F2I(NAME, FT, IT)                                                              \
  OPENHIP_LANG_FN IT NAME##_rn(FT x) { return openhip::lang::to_int<IT>(x, openhip::lang::rounding::rn); } \
  OPENHIP_LANG_FN IT NAME##_rz(FT x) { return openhip::lang::to_int<IT>(x, openhip::lang::rounding::rz); } \
  OPENHIP_LANG_FN IT NAME##_ru(FT x) { return openhip::lang::to_int<IT>(x, openhip::lang::rounding::ru); } \
  OPENHIP_LANG_FN IT NAME##_rd(FT x) { return openhip::lang::to_int<IT>(x, openhip::lang::rounding::rd); }
OPENHIP_LANG_F2I(__float2int, float, int)
OPENHIP_LANG_F2I(__float2uint, float, unsigned int)
OPENHIP_LANG_F2I(__float2ll, float, long long)
OPENHIP_LANG_F2I(__float2ull, float, unsigned long long)
OPENHIP_LANG_F2I(__double2int, double, int)
OPENHIP_LANG_F2I(__double2uint, double, unsigned int)
OPENHIP_LANG_F2I(__double2ll, double, long long)
OPENHIP_LANG_F2I(__double2ull, double, unsigned long long)
#undef OPENHIP_LANG_F2I

// Conversions to floating point with a rounding mode: the hardware rounds (see with_rounding).
#define OPENHIP_LANG_X2F(NAME, ST, DT)                                                            \
  OPENHIP_LANG_FN DT NAME##_rn(ST x) { return (DT)x; }                                            \
  inline DT NAME##_rz(ST x) {                                                                     \
    return openhip::lang::with_rounding(openhip::lang::rounding::rz,                              \
                                        [&] { return (DT)openhip::lang::opaque_mem(x); });        \
  }                                                                                               \
  inline DT NAME##_ru(ST x) {                                                                     \
    return openhip::lang::with_rounding(openhip::lang::rounding::ru,                              \
                                        [&] { return (DT)openhip::lang::opaque_mem(x); });        \
  }                                                                                               \
  inline DT NAME##_rd(ST x) {                                                                     \
    return openhip::lang::with_rounding(openhip::lang::rounding::rd,                              \
                                        [&] { return (DT)openhip::lang::opaque_mem(x); });        \
  }
OPENHIP_LANG_X2F(__double2float, double, float)
OPENHIP_LANG_X2F(__ll2float, long long, float)
OPENHIP_LANG_X2F(__ull2float, unsigned long long, float)
OPENHIP_LANG_X2F(__ll2double, long long, double)
OPENHIP_LANG_X2F(__ull2double, unsigned long long, double)
#undef OPENHIP_LANG_X2F
// 32-bit integers: through double (exact), then round the double.
OPENHIP_LANG_FN float __int2float_rn(int x) { return (float)x; }
inline float __int2float_rz(int x) { return __double2float_rz((double)x); }
inline float __int2float_ru(int x) { return __double2float_ru((double)x); }
inline float __int2float_rd(int x) { return __double2float_rd((double)x); }
OPENHIP_LANG_FN float __uint2float_rn(unsigned int x) { return (float)x; }
inline float __uint2float_rz(unsigned int x) { return __double2float_rz((double)x); }
inline float __uint2float_ru(unsigned int x) { return __double2float_ru((double)x); }
inline float __uint2float_rd(unsigned int x) { return __double2float_rd((double)x); }
OPENHIP_LANG_FN double __int2double_rn(int x) { return (double)x; }
OPENHIP_LANG_FN double __uint2double_rn(unsigned int x) { return (double)x; }

// __saturatef: clamp to [0, 1]; NaN gives 0.
OPENHIP_LANG_FN float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }

// __fdividef: fast division (plain IEEE division on a CPU).
OPENHIP_LANG_FN float __fdividef(float x, float y) { return x / y; }

// Sleep/yield hints.
OPENHIP_LANG_FN void __nanosleep(unsigned int) {}
