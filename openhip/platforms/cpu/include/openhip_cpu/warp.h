// openhip CPU platform: HIP's warp functions on a 32-lane warp (warpSize = 32).
//
// Built on the engine's contract (openhip::detail::lane_id / warp_live_mask / warp_exchange):
// every participating lane deposits its 64-bit value, then reads the lane it wants.  Semantics are
// HIP's amd_warp_functions.h (= CUDA's) exactly, for every lane and every width:
//   __shfl(v, src, w)       reads lane (src mod w) of the caller's w-wide segment;
//   __shfl_up(v, d, w)      reads lane - d; if that leaves the segment (below its start), own v;
//   __shfl_down(v, d, w)    reads lane + d; if that leaves the segment (past its end), own v;
//   __shfl_xor(v, m, w)     reads lane ^ m; if that is past the end of the caller's segment, own v
//                           (lower segments may be read, as in CUDA and HIP).
// The _sync forms take a mask of participating lanes (32- or 64-bit); the plain forms use every
// live lane of the warp.  Types: any trivially copyable type of at most 8 bytes (int, unsigned,
// long, long long and unsigned variants, float, double, __half, __half2, bfloat16 ...).
// __ballot returns a 64-bit mask as in HIP (lanes 32-63 are always 0 here).
#pragma once

#include "lang_base.h"

#ifdef OPENHIP_CPU_WARP_SIZE
static_assert(OPENHIP_CPU_WARP_SIZE == 32, "warp.h implements a 32-lane warp");
#endif

namespace openhip {
namespace lang {
constexpr int kWarpSize = 32;

// A value's bits, zero-extended to 64.  A 1-, 2-, 4- or 8-byte value goes through the unsigned
// integer of its size (a whole-word conversion, not a partial store into a 64-bit word), so that
// the lane loops of a split kernel vectorise: GCC vectorises `b[lt] = to_u64(v)` and the
// gathers of the reads, and the 64-bit buffer does not alias a float or int variable (TBAA),
// where a buffer of T would and keep the reads scalar.
template <class T>
OPENHIP_LANG_FN uint64_t to_u64(const T& v) {
  static_assert(sizeof(T) <= 8, "warp functions move at most 8 bytes per lane");
  if constexpr (sizeof(T) == 8) {
    uint64_t w;
    __builtin_memcpy(&w, &v, 8);
    return w;
  } else if constexpr (sizeof(T) == 4) {
    uint32_t w;
    __builtin_memcpy(&w, &v, 4);
    return w;
  } else if constexpr (sizeof(T) == 2) {
    uint16_t w;
    __builtin_memcpy(&w, &v, 2);
    return w;
  } else if constexpr (sizeof(T) == 1) {
    uint8_t w;
    __builtin_memcpy(&w, &v, 1);
    return w;
  } else {
    uint64_t r = 0;
    __builtin_memcpy(&r, &v, sizeof(T));
    return r;
  }
}
template <class T>
OPENHIP_LANG_FN T from_u64(uint64_t u) {
  T r;
  if constexpr (sizeof(T) == 4) {
    const uint32_t w = (uint32_t)u;
    __builtin_memcpy(&r, &w, 4);
  } else if constexpr (sizeof(T) == 2) {
    const uint16_t w = (uint16_t)u;
    __builtin_memcpy(&r, &w, 2);
  } else if constexpr (sizeof(T) == 1) {
    const uint8_t w = (uint8_t)u;
    __builtin_memcpy(&r, &w, 1);
  } else {
    __builtin_memcpy(&r, &u, sizeof(T));
  }
  return r;
}
template <class M>
OPENHIP_LANG_FN uint64_t mask64(M m) {
  return (uint64_t)(unsigned long long)m;
}

// Source lane of each shuffle (HIP's index arithmetic; width is a power of two <= 32).
OPENHIP_LANG_FN int src_idx(int self, int src, int width) {
  return (src & (width - 1)) + (self & ~(width - 1));
}
OPENHIP_LANG_FN int src_up(int self, unsigned delta, int width) {
  const int index = self - (int)delta;
  return index < (self & ~(width - 1)) ? self : index;
}
OPENHIP_LANG_FN int src_down(int self, unsigned delta, int width) {
  const int index = self + (int)delta;
  return (int)((self & (width - 1)) + delta) >= width ? self : index;
}
OPENHIP_LANG_FN int src_xor(int self, int lane_mask, int width) {
  const int index = self ^ lane_mask;
  return index >= ((self + width) & ~(width - 1)) ? self : index;
}

template <class T>
OPENHIP_LANG_FN T shfl_from(const T& var, uint64_t mask, int src) {
  const uint64_t* vals = openhip::detail::warp_exchange(to_u64(var), mask);
  return from_u64<T>(vals[(unsigned)src & 31u]);
}
OPENHIP_LANG_FN uint64_t ballot(uint64_t mask, int pred) {
  // Participants: lanes named by the mask that are alive (the caller always participates).
  const uint64_t part = (mask & openhip::detail::warp_live_mask()) |
                        (uint64_t(1) << openhip::detail::lane_id());
  const uint64_t* vals = openhip::detail::warp_exchange(pred != 0, mask);
  uint64_t r = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (((part >> l) & 1u) && vals[l]) r |= uint64_t(1) << l;
  return r;
}
}  // namespace lang
}  // namespace openhip

OPENHIP_LANG_FN int __lane_id() { return (int)openhip::detail::lane_id(); }
// Lane masks relative to the calling lane (HIP's __lanemask_*; CUDA's %lanemask_* registers).
OPENHIP_LANG_FN unsigned long long __lanemask_eq() { return 1ull << __lane_id(); }
OPENHIP_LANG_FN unsigned long long __lanemask_lt() { return (1ull << __lane_id()) - 1ull; }
OPENHIP_LANG_FN unsigned long long __lanemask_le() { return (2ull << __lane_id()) - 1ull; }
OPENHIP_LANG_FN unsigned long long __lanemask_gt() { return 0xFFFFFFFFull & ~((2ull << __lane_id()) - 1ull); }
OPENHIP_LANG_FN unsigned long long __lanemask_ge() { return 0xFFFFFFFFull & ~((1ull << __lane_id()) - 1ull); }

// ---- shuffles: the _sync forms (templates, any 1-8 byte type, 32- or 64-bit mask) ------------------
template <class MaskT, class T>
OPENHIP_LANG_FN T __shfl_sync(MaskT mask, T var, int src_lane, int width = openhip::lang::kWarpSize) {
  return openhip::lang::shfl_from(var, openhip::lang::mask64(mask),
                                  openhip::lang::src_idx(__lane_id(), src_lane, width));
}
template <class MaskT, class T>
OPENHIP_LANG_FN T __shfl_up_sync(MaskT mask, T var, unsigned int delta,
                                 int width = openhip::lang::kWarpSize) {
  return openhip::lang::shfl_from(var, openhip::lang::mask64(mask),
                                  openhip::lang::src_up(__lane_id(), delta, width));
}
template <class MaskT, class T>
OPENHIP_LANG_FN T __shfl_down_sync(MaskT mask, T var, unsigned int delta,
                                   int width = openhip::lang::kWarpSize) {
  return openhip::lang::shfl_from(var, openhip::lang::mask64(mask),
                                  openhip::lang::src_down(__lane_id(), delta, width));
}
template <class MaskT, class T>
OPENHIP_LANG_FN T __shfl_xor_sync(MaskT mask, T var, int lane_mask,
                                  int width = openhip::lang::kWarpSize) {
  return openhip::lang::shfl_from(var, openhip::lang::mask64(mask),
                                  openhip::lang::src_xor(__lane_id(), lane_mask, width));
}

// ---- shuffles: the plain forms (every live lane).  Templates rather than HIP's overload list, so
// that every type above works whatever the include order; the result type is the argument's.
template <class T>
OPENHIP_LANG_FN T __shfl(T var, int src_lane, int width = openhip::lang::kWarpSize) {
  return __shfl_sync(~0ull, var, src_lane, width);
}
template <class T>
OPENHIP_LANG_FN T __shfl_up(T var, unsigned int delta, int width = openhip::lang::kWarpSize) {
  return __shfl_up_sync(~0ull, var, delta, width);
}
template <class T>
OPENHIP_LANG_FN T __shfl_down(T var, unsigned int delta, int width = openhip::lang::kWarpSize) {
  return __shfl_down_sync(~0ull, var, delta, width);
}
template <class T>
OPENHIP_LANG_FN T __shfl_xor(T var, int lane_mask, int width = openhip::lang::kWarpSize) {
  return __shfl_xor_sync(~0ull, var, lane_mask, width);
}

// ---- votes --------------------------------------------------------------------------------------------
OPENHIP_LANG_FN unsigned long long __ballot(int predicate) {
  return openhip::lang::ballot(~0ull, predicate);
}
template <class MaskT>
OPENHIP_LANG_FN unsigned long long __ballot_sync(MaskT mask, int predicate) {
  return openhip::lang::ballot(openhip::lang::mask64(mask), predicate) & openhip::lang::mask64(mask);
}
OPENHIP_LANG_FN int __any(int predicate) { return openhip::lang::ballot(~0ull, predicate) != 0; }
OPENHIP_LANG_FN int __all(int predicate) {
  const uint64_t part = openhip::detail::warp_live_mask() | (uint64_t(1) << openhip::detail::lane_id());
  return openhip::lang::ballot(~0ull, predicate) == part;
}
template <class MaskT>
OPENHIP_LANG_FN int __any_sync(MaskT mask, int predicate) {
  return openhip::lang::ballot(openhip::lang::mask64(mask), predicate) != 0;
}
template <class MaskT>
OPENHIP_LANG_FN int __all_sync(MaskT mask, int predicate) {
  const uint64_t m = openhip::lang::mask64(mask);
  const uint64_t part = (m & openhip::detail::warp_live_mask()) | (uint64_t(1) << openhip::detail::lane_id());
  return openhip::lang::ballot(m, predicate) == part;
}
template <class MaskT>
OPENHIP_LANG_FN int __uni_sync(MaskT mask, int predicate) {
  const uint64_t m = openhip::lang::mask64(mask);
  const uint64_t part = (m & openhip::detail::warp_live_mask()) | (uint64_t(1) << openhip::detail::lane_id());
  const uint64_t b = openhip::lang::ballot(m, predicate);
  return b == 0 || b == part;
}
// The lanes of the warp that exist and have not exited.  As in HIP (__ballot(true)), a warp-wide
// vote: the lanes run one after the other on a CPU, so reading the live mask without meeting the
// others would see lanes that already ran ahead and exited.
OPENHIP_LANG_FN unsigned long long __activemask() { return openhip::lang::ballot(~0ull, 1); }

// ---- reductions and matches (CUDA sm_80 / HIP 6.2 names) ------------------------------------------
namespace openhip {
namespace lang {
template <class T, class MaskT, class F>
OPENHIP_LANG_FN T warp_reduce(MaskT mask, T value, F op) {
  const uint64_t m = mask64(mask);
  const uint64_t part = (m & openhip::detail::warp_live_mask()) | (uint64_t(1) << openhip::detail::lane_id());
  const uint64_t* vals = openhip::detail::warp_exchange(to_u64(value), m);
  bool first = true;
  T r{};
  for (unsigned l = 0; l < 32; ++l) {
    if (!((part >> l) & 1u)) continue;
    const T v = from_u64<T>(vals[l]);
    r = first ? v : op(r, v);
    first = false;
  }
  return r;
}
}  // namespace lang
}  // namespace openhip
template <class MaskT, class T>
OPENHIP_LANG_FN T __reduce_add_sync(MaskT mask, T value) {
  return openhip::lang::warp_reduce(mask, value, [](T a, T b) { return (T)(a + b); });
}
template <class MaskT, class T>
OPENHIP_LANG_FN T __reduce_min_sync(MaskT mask, T value) {
  return openhip::lang::warp_reduce(mask, value, [](T a, T b) { return b < a ? b : a; });
}
template <class MaskT, class T>
OPENHIP_LANG_FN T __reduce_max_sync(MaskT mask, T value) {
  return openhip::lang::warp_reduce(mask, value, [](T a, T b) { return b > a ? b : a; });
}
template <class MaskT, class T>
OPENHIP_LANG_FN T __reduce_and_sync(MaskT mask, T value) {
  return openhip::lang::warp_reduce(mask, value, [](T a, T b) { return (T)(a & b); });
}
template <class MaskT, class T>
OPENHIP_LANG_FN T __reduce_or_sync(MaskT mask, T value) {
  return openhip::lang::warp_reduce(mask, value, [](T a, T b) { return (T)(a | b); });
}
template <class MaskT, class T>
OPENHIP_LANG_FN T __reduce_xor_sync(MaskT mask, T value) {
  return openhip::lang::warp_reduce(mask, value, [](T a, T b) { return (T)(a ^ b); });
}
// Lanes (of the mask) whose value has the same bits as the caller's.
template <class MaskT, class T>
OPENHIP_LANG_FN unsigned long long __match_any_sync(MaskT mask, T value) {
  const uint64_t m = openhip::lang::mask64(mask);
  const uint64_t part = (m & openhip::detail::warp_live_mask()) | (uint64_t(1) << openhip::detail::lane_id());
  const uint64_t mine = openhip::lang::to_u64(value);
  const uint64_t* vals = openhip::detail::warp_exchange(mine, m);
  uint64_t r = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (((part >> l) & 1u) && vals[l] == mine) r |= uint64_t(1) << l;
  return r;
}
// The mask of participants if all have the same value (and *pred = 1), else 0 (and *pred = 0).
template <class MaskT, class T>
OPENHIP_LANG_FN unsigned long long __match_all_sync(MaskT mask, T value, int* pred) {
  const uint64_t m = openhip::lang::mask64(mask);
  const uint64_t part = (m & openhip::detail::warp_live_mask()) | (uint64_t(1) << openhip::detail::lane_id());
  const uint64_t mine = openhip::lang::to_u64(value);
  const uint64_t* vals = openhip::detail::warp_exchange(mine, m);
  for (unsigned l = 0; l < 32; ++l) {
    if (((part >> l) & 1u) && vals[l] != mine) {
      *pred = 0;
      return 0;
    }
  }
  *pred = 1;
  return part;
}

// ---- lane loops: warp functions in a kernel split at them (regions mode, regions.py) ----------------
// A warp function reached by every lane of a warp is a warp-level split point: the region before
// it deposits each thread's operand in the call's own slot of a per-thread buffer (wc_put*), and
// the region after reads the lanes it wants (wc_*).  The regions are loops over the block's
// threads, so every lane deposited before any reads: the fibers' warp_exchange, with no switch.
// Participants are those of the fibers: the lanes in the mask that exist, have not exited and
// are not held back by the if the call is under (gd: that if's guard flags, gv: the value of a
// lane that takes this branch; null when none), and the caller; a lane that does not
// participate reads 0 (warp_complete).
namespace openhip {
namespace detail {
// The type a shuffle of `var` returns (CUDA's T, deduced from the argument by value).
template <class T> struct wc_decay { using type = T; };
template <class T> struct wc_decay<T&> { using type = typename wc_decay<T>::type; };
template <class T> struct wc_decay<T&&> { using type = typename wc_decay<T>::type; };
template <class T> struct wc_decay<const T> { using type = T; };
template <class T> struct wc_decay<volatile T> { using type = T; };
template <class T> struct wc_decay<const volatile T> { using type = T; };
template <class T>
using wc_t = typename wc_decay<T>::type;

template <class T>
__attribute__((always_inline)) inline void wc_put(uint64_t* b, unsigned long lt, const T& v) {
  b[lt] = openhip::lang::to_u64(v);
}
// The operand of a fixed-distance shuffle (wc_shfl_up/down): a value of at most 4 bytes goes in
// the low 32-bit word of its slot (the read loops then move 16 lanes per 64-byte vector, not 8);
// wider ones as wc_put.  Only the wc_shfl_up/down of the same site read it (wc_word_t).
template <bool Narrow> struct wc_word { using type = uint64_t; using index = long; };
template <> struct wc_word<true> { using type = uint32_t; using index = int; };
template <class T>
using wc_word_t = typename wc_word<(sizeof(T) <= 4)>::type;
template <class T>
__attribute__((always_inline)) inline void wc_put_near(uint64_t* b, unsigned long lt, const T& v) {
  if constexpr (sizeof(T) <= 4)
    reinterpret_cast<uint32_t*>(b)[lt] = (uint32_t)openhip::lang::to_u64(v);
  else
    b[lt] = openhip::lang::to_u64(v);
}
// a vote's predicate, converted as the int parameter of __ballot & co. converts it
__attribute__((always_inline)) inline void wc_put_pred(uint64_t* b, unsigned long lt, int pred) {
  b[lt] = pred != 0;
}
// The participants of thread `lt`'s warp (n threads in the block; ex: exited flags or null).
__attribute__((always_inline)) inline uint64_t wc_part(unsigned long lt, unsigned n,
                                                       const unsigned char* ex, const unsigned char* gd, unsigned gv, uint64_t mask) {
  const unsigned base = lt & ~31u;
  uint64_t part = 0;
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned g = base + l;
    if (g < n && (ex == nullptr || !ex[g]) && (gd == nullptr || gd[g] == gv))
      part |= uint64_t(1) << l;
  }
  return (part & mask) | (uint64_t(1) << (lt & 31u));
}
// Branch-free (the lane loops vectorise): the buffers hold whole warps (wc_words), so b[g] is
// always inside them; what a non-participant deposited (or never did) is masked to 0.
template <class W>
__attribute__((always_inline)) inline W wc_get_w(const W* b, unsigned long lt, unsigned n,
                                                 const unsigned char* ex, const unsigned char* gd, unsigned gv, uint64_t mask,
                                                 int src) {
  const unsigned l = (unsigned)src & 31u, g = (lt & ~31u) + l;
  bool ok = (((uint32_t)mask >> l) & 1u) && g < n;
  if (ex != nullptr) ok = ok && !ex[g];
  if (gd != nullptr) ok = ok && gd[g] == gv;
  ok = ok || g == lt;
  const W v = b[g];
  return ok ? v : W(0);
}
__attribute__((always_inline)) inline uint64_t wc_get(const uint64_t* b, unsigned long lt, unsigned n,
                                                      const unsigned char* ex, const unsigned char* gd, unsigned gv, uint64_t mask,
                                                      int src) {
  return wc_get_w<uint64_t>(b, lt, n, ex, gd, gv, mask, src);
}
// A shuffle by a fixed distance within the warp (__shfl_down/up by delta < width <= 32): lane lt
// reads thread lt + d (d = delta or -delta) when `inseg` (that lane is in its segment), else its
// own value, as wc_get with that source would.  The loads are at lt + d for every thread, so with
// d loop-invariant they are plain vector loads rather than gathers; the buffers and flag arrays
// have a warp of slack on either side (regions.py), so b[g], ex[g] and gd[g] stay inside the
// scratch area whatever lt (what a non-participant holds there is masked).
// W: the slot's word (uint64_t, or uint32_t for the 4-byte-or-narrower operands of wc_put_near),
// I the index of the same width.
template <class W, class I>
__attribute__((always_inline)) inline W wc_get_near_w(const W* b, unsigned long lt, unsigned n,
                                                      const unsigned char* ex, const unsigned char* gd, unsigned gv,
                                                      uint64_t mask, int d, bool inseg) {
  const I g = (I)lt + d;  // signed: lt - delta indexes before the array when lt < delta
  // arithmetic as wide as the values throughout (mixed widths keep GCC scalar)
  // (a full mask, the usual one, is loop-invariant: GCC unswitches the lane loop on it and the
  // loop has no per-lane shift, which it does not vectorise here)
  W ok = (uint32_t)mask == 0xffffffffu ? W(1) : (W)(((W)(uint32_t)mask >> ((W)g & 31u)) & 1u);
  ok &= (W)(g >= 0) & (W)(g < (I)n);
  if (ex != nullptr) ok &= (W)(ex[g] == 0);
  if (gd != nullptr) ok &= (W)(gd[g] == gv);
  ok |= (W)(d == 0);
  const W far = b[g], own = b[lt];
  return inseg ? (ok != 0 ? far : W(0)) : own;
}
__attribute__((always_inline)) inline uint64_t wc_get_near(const uint64_t* b, unsigned long lt, unsigned n,
                                                           const unsigned char* ex, const unsigned char* gd, unsigned gv,
                                                           uint64_t mask, int d, bool inseg) {
  return wc_get_near_w<uint64_t, long>(b, lt, n, ex, gd, gv, mask, d, inseg);
}
// 64-bit slots per warp function for a block of n threads: whole warps.
__attribute__((always_inline)) inline unsigned wc_words(unsigned n) { return (n + 31u) & ~31u; }
template <class T, class M>
__attribute__((always_inline)) inline T wc_shfl(const uint64_t* b, unsigned long lt, unsigned n,
                                                const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask, int src_lane,
                                                int width = openhip::lang::kWarpSize) {
  return openhip::lang::from_u64<T>(wc_get(b, lt, n, ex, gd, gv, openhip::lang::mask64(mask),
      openhip::lang::src_idx((int)(lt & 31u), src_lane, width)));
}
template <class T, class M>
__attribute__((always_inline)) inline T wc_shfl_up(const uint64_t* b, unsigned long lt, unsigned n,
                                                   const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask,
                                                   unsigned delta,
                                                   int width = openhip::lang::kWarpSize) {
  using W = wc_word_t<T>;
  using I = typename wc_word<(sizeof(T) <= 4)>::index;
  const W* const w = reinterpret_cast<const W*>(b);  // as wc_put_near deposited
  if (width > 0 && width <= openhip::lang::kWarpSize && (width & (width - 1)) == 0 &&
      delta < (unsigned)width)
    return openhip::lang::from_u64<T>(wc_get_near_w<W, I>(w, lt, n, ex, gd, gv, openhip::lang::mask64(mask),
        -(int)delta, (lt & (unsigned)(width - 1)) >= delta));
  return openhip::lang::from_u64<T>(wc_get_w<W>(w, lt, n, ex, gd, gv, openhip::lang::mask64(mask),
      openhip::lang::src_up((int)(lt & 31u), delta, width)));
}
template <class T, class M>
__attribute__((always_inline)) inline T wc_shfl_down(const uint64_t* b, unsigned long lt, unsigned n,
                                                     const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask,
                                                     unsigned delta,
                                                     int width = openhip::lang::kWarpSize) {
  using W = wc_word_t<T>;
  using I = typename wc_word<(sizeof(T) <= 4)>::index;
  const W* const w = reinterpret_cast<const W*>(b);  // as wc_put_near deposited
  if (width > 0 && width <= openhip::lang::kWarpSize && (width & (width - 1)) == 0 &&
      delta < (unsigned)width)
    return openhip::lang::from_u64<T>(wc_get_near_w<W, I>(w, lt, n, ex, gd, gv, openhip::lang::mask64(mask),
        (int)delta, (lt & (unsigned)(width - 1)) + delta < (unsigned)width));
  return openhip::lang::from_u64<T>(wc_get_w<W>(w, lt, n, ex, gd, gv, openhip::lang::mask64(mask),
      openhip::lang::src_down((int)(lt & 31u), delta, width)));
}
template <class T, class M>
__attribute__((always_inline)) inline T wc_shfl_xor(const uint64_t* b, unsigned long lt, unsigned n,
                                                    const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask,
                                                    int lane_mask,
                                                    int width = openhip::lang::kWarpSize) {
  return openhip::lang::from_u64<T>(wc_get(b, lt, n, ex, gd, gv, openhip::lang::mask64(mask),
      openhip::lang::src_xor((int)(lt & 31u), lane_mask, width)));
}
// The bits of the participants whose deposited value is nonzero (__ballot's lanes).
template <class M>
__attribute__((always_inline)) inline uint64_t wc_ballot(const uint64_t* b, unsigned long lt,
                                                         unsigned n, const unsigned char* ex, const unsigned char* gd, unsigned gv,
                                                         M mask) {
  const uint64_t part = wc_part(lt, n, ex, gd, gv, openhip::lang::mask64(mask));
  const unsigned base = lt & ~31u;
  uint64_t r = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (((part >> l) & 1u) && b[base + l]) r |= uint64_t(1) << l;
  return r;
}
template <class M>
__attribute__((always_inline)) inline unsigned long long wc_ballot_sync(
    const uint64_t* b, unsigned long lt, unsigned n, const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask) {
  return wc_ballot(b, lt, n, ex, gd, gv, mask) & openhip::lang::mask64(mask);
}
template <class M>
__attribute__((always_inline)) inline int wc_any(const uint64_t* b, unsigned long lt, unsigned n,
                                                 const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask) {
  return wc_ballot(b, lt, n, ex, gd, gv, mask) != 0;
}
template <class M>
__attribute__((always_inline)) inline int wc_all(const uint64_t* b, unsigned long lt, unsigned n,
                                                 const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask) {
  return wc_ballot(b, lt, n, ex, gd, gv, mask) == wc_part(lt, n, ex, gd, gv, openhip::lang::mask64(mask));
}
template <class M>
__attribute__((always_inline)) inline int wc_uni(const uint64_t* b, unsigned long lt, unsigned n,
                                                 const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask) {
  const uint64_t v = wc_ballot(b, lt, n, ex, gd, gv, mask);
  return v == 0 || v == wc_part(lt, n, ex, gd, gv, openhip::lang::mask64(mask));
}
template <class T, class M, class F>
__attribute__((always_inline)) inline T wc_reduce(const uint64_t* b, unsigned long lt, unsigned n,
                                                  const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask, F op) {
  const uint64_t part = wc_part(lt, n, ex, gd, gv, openhip::lang::mask64(mask));
  const unsigned base = lt & ~31u;
  bool first = true;
  T r{};
  for (unsigned l = 0; l < 32; ++l) {
    if (!((part >> l) & 1u)) continue;
    const T v = openhip::lang::from_u64<T>(b[base + l]);
    r = first ? v : op(r, v);
    first = false;
  }
  return r;
}
template <class T, class M>
inline T wc_reduce_add(const uint64_t* b, unsigned long lt, unsigned n, const unsigned char* ex, const unsigned char* gd, unsigned gv, M m) {
  return wc_reduce<T>(b, lt, n, ex, gd, gv, m, [](T x, T y) { return (T)(x + y); });
}
template <class T, class M>
inline T wc_reduce_min(const uint64_t* b, unsigned long lt, unsigned n, const unsigned char* ex, const unsigned char* gd, unsigned gv, M m) {
  return wc_reduce<T>(b, lt, n, ex, gd, gv, m, [](T x, T y) { return y < x ? y : x; });
}
template <class T, class M>
inline T wc_reduce_max(const uint64_t* b, unsigned long lt, unsigned n, const unsigned char* ex, const unsigned char* gd, unsigned gv, M m) {
  return wc_reduce<T>(b, lt, n, ex, gd, gv, m, [](T x, T y) { return y > x ? y : x; });
}
template <class T, class M>
inline T wc_reduce_and(const uint64_t* b, unsigned long lt, unsigned n, const unsigned char* ex, const unsigned char* gd, unsigned gv, M m) {
  return wc_reduce<T>(b, lt, n, ex, gd, gv, m, [](T x, T y) { return (T)(x & y); });
}
template <class T, class M>
inline T wc_reduce_or(const uint64_t* b, unsigned long lt, unsigned n, const unsigned char* ex, const unsigned char* gd, unsigned gv, M m) {
  return wc_reduce<T>(b, lt, n, ex, gd, gv, m, [](T x, T y) { return (T)(x | y); });
}
template <class T, class M>
inline T wc_reduce_xor(const uint64_t* b, unsigned long lt, unsigned n, const unsigned char* ex, const unsigned char* gd, unsigned gv, M m) {
  return wc_reduce<T>(b, lt, n, ex, gd, gv, m, [](T x, T y) { return (T)(x ^ y); });
}
template <class M>
inline unsigned long long wc_match_any(const uint64_t* b, unsigned long lt, unsigned n,
                                       const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask) {
  const uint64_t part = wc_part(lt, n, ex, gd, gv, openhip::lang::mask64(mask));
  const unsigned base = lt & ~31u;
  uint64_t r = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (((part >> l) & 1u) && b[base + l] == b[lt]) r |= uint64_t(1) << l;
  return r;
}
template <class M>
inline unsigned long long wc_match_all(const uint64_t* b, unsigned long lt, unsigned n,
                                       const unsigned char* ex, const unsigned char* gd, unsigned gv, M mask, int& pred) {
  const uint64_t part = wc_part(lt, n, ex, gd, gv, openhip::lang::mask64(mask));
  const unsigned base = lt & ~31u;
  for (unsigned l = 0; l < 32; ++l) {
    if (((part >> l) & 1u) && b[base + l] != b[lt]) {
      pred = 0;
      return 0;
    }
  }
  pred = 1;
  return part;
}

// ---- recognised idioms: a whole shuffle chain per warp (regions.py / rewrite.py) ------------------
// A loop of shuffles of one variable by fixed distances (a warp reduction by halving distances, a
// butterfly, an inclusive scan by doubling ones; cg::reduce over a tile) is one warp-level split
// point rather than one per step: the region before deposits each participant's value (wc_put_near;
// for an update under a condition, the condition's bit per step, wc_put), wc_chain runs once per
// block between the regions and leaves each lane's final value in its slot, and the region after
// reads it (wc_own).  Step by step it computes what the split shuffles compute (same sources, same
// participants, a non-participant source reading 0, the same operation in the same order per lane),
// the warp's 32 values in a local array: the steps are vector loops over 32 lanes.
// Kind: 0 __shfl_down, 1 __shfl_up, 2 __shfl_xor; Width: the shuffles' width (a power of two <= 32);
// D...: the distances, one per step.  op(v, y) is the loop's update (v's new value).
template <class T>
__attribute__((always_inline)) inline T wc_own(const uint64_t* b, unsigned long lt) {
  return openhip::lang::from_u64<T>(reinterpret_cast<const wc_word_t<T>*>(b)[lt]);
}
// The pred slots hold one bit per step, as words of the chain's value width (wc_put_near's).
template <class T>
__attribute__((always_inline)) inline void wc_put_bits(uint64_t* b, unsigned long lt, unsigned long long bits) {
  reinterpret_cast<wc_word_t<T>*>(b)[lt] = (wc_word_t<T>)bits;
}
template <unsigned... I> struct wc_seq {};
template <unsigned N, unsigned... I> struct wc_make_seq : wc_make_seq<N - 1, N - 1, I...> {};
template <unsigned... I> struct wc_make_seq<0, I...> { using type = wc_seq<I...>; };
// Whether lane l applies the update at a step of distance d: Cond 0 the pred bit (or always,
// without pred), 1 cg::reduce's ((rank & (2d - 1)) == 0 && rank + d < Width), 2
// cg::inclusive_scan's (rank >= d); rank = l mod Width (rewrite.py's conditions on the tile's
// linear rank, which is the lane modulo the tile's size).
template <int Cond, int Width, class W>
__attribute__((always_inline)) constexpr bool wc_chain_on(unsigned l, unsigned d, const W* pred, unsigned s) {
  const unsigned r = l & (unsigned)(Width - 1);
  if (Cond == 1) return (r & (2u * d - 1u)) == 0u && r + d < (unsigned)Width;
  if (Cond == 2) return r >= d;
  if (Cond == 4) return l >= d;  // `lane >= d` with lane = threadIdx.x % 32, in a 1-D block
  return pred == nullptr || ((pred[l] >> s) & 1u);
}
// The source lane of lane l at one step of a chain (HIP's index arithmetic, in lane space).
constexpr int wc_chain_src(int kind, int l, unsigned d, int width) {
  if (kind == 0) return (int)((unsigned)(l & (width - 1)) + d) >= width ? l : l + (int)d;
  if (kind == 1) return l - (int)d < (l & ~(width - 1)) ? l : l - (int)d;
  const int index = l ^ (int)d;
  return index >= ((l + width) & ~(width - 1)) ? l : (index & 31);
}
template <int Kind, int Width, int Cond, unsigned D, class W, class T, class Op>
__attribute__((always_inline)) inline void wc_chain_step(T* v, const W* pred, unsigned s, Op& op) {
  // every lane there and every source a participant: a fixed-distance read (v has 32 lanes of
  // slack either side) or the butterfly's permutation
  constexpr unsigned wm = (unsigned)Width - 1u;
  alignas(64) T t[32];
  for (unsigned l = 0; l < 32u; ++l) {
    const T own = v[32 + l];
    T far;
    if constexpr (Kind == 0) {
      far = D < 32u && (l & wm) + D <= wm ? v[32 + l + (D & 31u)] : own;
    } else if constexpr (Kind == 1) {
      far = D < 32u && (l & wm) >= D ? v[32 + l - (D & 31u)] : own;
    } else {
      far = v[32 + wc_chain_src(2, (int)l, D, Width)];
    }
    const bool on = wc_chain_on<Cond, Width>(l, D, pred, s);
    t[l] = on ? (T)op(own, far) : own;
  }
  for (unsigned l = 0; l < 32u; ++l) v[32 + l] = t[l];
}
template <int Kind, int Width, int Cond, class W, class T, class Op>
__attribute__((always_inline)) inline void wc_chain_general(T* v, const W* pred, unsigned s,
                                                            unsigned d, uint32_t act, uint32_t sok, Op& op) {
  // some lanes missing or outside the mask: wc_get's sources and participants, lane by lane
  T t[32];
  for (unsigned l = 0; l < 32u; ++l) {
    const T own = v[32 + l];
    t[l] = own;
    if (!((act >> l) & 1u)) continue;
    const unsigned sl = (unsigned)wc_chain_src(Kind, (int)l, d, Width);
    const T far = sl == l || ((sok >> sl) & 1u) ? v[32 + sl] : openhip::lang::from_u64<T>(0);
    if (wc_chain_on<Cond, Width>(l, d, pred, s)) t[l] = (T)op(own, far);
  }
  for (unsigned l = 0; l < 32u; ++l) v[32 + l] = t[l];
}

#if defined(__GNUC__) && !defined(__clang__)
// The same steps on the warp's 32 values as native vectors (GCC's vector extensions), for a
// value of 4 or 8 bytes with an update the operators do (+ - * & | ^, as the element type does
// them): each step is, per vector, one two-source permutation (constant indices), a select of
// the lanes that read their own value, and the operation.
#if defined(__AVX512F__)
constexpr unsigned kWcVecBytes = 64;
#elif defined(__AVX__)
constexpr unsigned kWcVecBytes = 32;
#else
constexpr unsigned kWcVecBytes = 16;
#endif
template <unsigned Size> struct wc_vec_int;
template <> struct wc_vec_int<4> { using type = int32_t; };
template <> struct wc_vec_int<8> { using type = int64_t; };
template <class T>
struct wc_vec {
  static constexpr unsigned L = kWcVecBytes / sizeof(T);  // lanes per vector
  static constexpr unsigned NV = 32u / L;                  // vectors per warp
  typedef T V __attribute__((vector_size(kWcVecBytes)));
  typedef typename wc_vec_int<sizeof(T)>::type E;
  typedef E I __attribute__((vector_size(kWcVecBytes)));
};
// For output vector j of a step: the two source vectors (a, b) and, per lane, its index into
// them (0..2L-1) or 2L for "own value".
template <int Kind, int Width, unsigned D, unsigned L>
struct wc_vplan {
  static constexpr int src(unsigned j, unsigned i) { return wc_chain_src(Kind, (int)(j * L + i), D, Width); }
  static constexpr unsigned first(unsigned j) {
    for (unsigned i = 0; i < L; ++i)
      if (src(j, i) != (int)(j * L + i)) return (unsigned)src(j, i) / L;
    return j;
  }
  static constexpr int index(unsigned j, unsigned i) {
    const int sl = src(j, i);
    if (sl == (int)(j * L + i)) return 2 * (int)L;
    const unsigned a = first(j);
    return (unsigned)sl / L == a ? sl % (int)L : (int)L + sl % (int)L;
  }
  static constexpr unsigned second(unsigned j) {
    const unsigned a = first(j);
    return a + 1u < 32u / L ? a + 1u : a;
  }
};
template <int Kind, int Width, int Cond, unsigned D, class T, unsigned J, class Op>
__attribute__((always_inline)) inline typename wc_vec<T>::V wc_vstep_one(const typename wc_vec<T>::V* v,
                                                                         const typename wc_vec<T>::I* pm,
                                                                         unsigned s, Op& op) {
  using X = wc_vec<T>;
  using Plan = wc_vplan<Kind, Width, D, X::L>;
  typedef typename X::I I;
  typedef typename X::V V;
  constexpr unsigned a = Plan::first(J), b = Plan::second(J);
  I idx{};
  for (unsigned i = 0; i < X::L; ++i) idx[i] = (typename X::E)Plan::index(J, i);
  const V own = v[J];
  const I take = idx < (typename X::E)(2 * X::L);
  const V moved = __builtin_shuffle(v[a], v[b], idx & (typename X::E)(2 * X::L - 1));
  const V far = take ? moved : own;
  const V r = op(own, far);
  if constexpr (Cond != 0) {
    I on{};
    for (unsigned i = 0; i < X::L; ++i)
      on[i] = wc_chain_on<Cond, Width, int>(J * X::L + i, D, nullptr, 0) ? (typename X::E)-1 : 0;
    return on ? r : own;
  }
  if (pm == nullptr) return r;
  const I on = ((pm[J] >> (typename X::E)s) & (typename X::E)1) != (typename X::E)0;
  return on ? r : own;
}
template <int Kind, int Width, int Cond, unsigned D, class T, class Op, unsigned... J>
__attribute__((always_inline)) inline void wc_vstep(typename wc_vec<T>::V* v, const typename wc_vec<T>::I* pm,
                                                    unsigned s, Op& op, wc_seq<J...>) {
  const typename wc_vec<T>::V out[] = {wc_vstep_one<Kind, Width, Cond, D, T, J>(v, pm, s, op)...};
  ((v[J] = out[J]), ...);
}
#endif

// A whole warp's exit and guard flags at once: 1 every lane takes part, -1 none does (the
// guard holds no lane: an exit cannot add one), 0 mixed.
__attribute__((always_inline)) inline int wc_flags_whole(const unsigned char* ex, const unsigned char* gd,
                                                         unsigned gv, unsigned base) {
  uint64_t e = 0, miss = 0, hit = 0;
  const uint64_t ones = 0x0101010101010101ull, pat = ones * (gv & 0xffu);
  for (unsigned k = 0; k < 4u; ++k) {
    uint64_t x;
    if (ex != nullptr) {
      __builtin_memcpy(&x, ex + base + 8u * k, 8);
      e |= x;
    }
    if (gd != nullptr) {
      __builtin_memcpy(&x, gd + base + 8u * k, 8);
      const uint64_t d = x ^ pat;  // a zero byte where the guard holds
      miss |= d;
      hit |= (d - ones) & ~d & (ones << 7);  // nonzero iff some byte of d is zero
    }
  }
  if (gd != nullptr && hit == 0) return -1;
  return e == 0 && miss == 0 ? 1 : 0;
}
// b: the value slots (wc_put_near), pred: the condition bits (wc_put_bits) or null, n/ex/gd/gv/mask
// as for the split shuffles; Bcast >= 0: then __shfl_sync(bmask, v, Bcast, Width), its result in
// the slots bout (cg::reduce's broadcast of lane 0).  Vec: op also takes vectors of T.  Cond: see
// wc_chain_on.
// gwarp: the guards the chain runs under are warp-uniform (regions.py's guard_warp, every one of
// them, in a 1-D block), so with no exit flags a whole warp's guard bytes are all its first
// lane's: one byte read per warp instead of wc_flags_whole's 32.
template <class T, int Kind, int Width, int Bcast, bool Vec, int Cond, unsigned... D, class Op>
inline void wc_chain_run(uint64_t* b, unsigned n, const unsigned char* ex, const unsigned char* gd,
                         unsigned gv, uint64_t mask, const uint64_t* pred, uint64_t bmask, uint64_t* bout,
                         bool gwarp, Op& op) {
  static_assert(Width > 0 && Width <= 32 && (Width & (Width - 1)) == 0, "a power-of-two width");
  using W = wc_word_t<T>;
  W* const w = reinterpret_cast<W*>(b);
  const W* const pw = reinterpret_cast<const W*>(pred);
  const uint32_t m32 = (uint32_t)mask;
  for (unsigned base = 0; base < n; base += 32u) {
    uint32_t act = 0xffffffffu;
    if (base + 32u > n || ex != nullptr || gd != nullptr) {
      const int whole = base + 32u > n ? 0
                        : gwarp && ex == nullptr ? (gd[base] == (unsigned char)gv ? 1 : -1)
                                                 : wc_flags_whole(ex, gd, gv, base);
      if (whole < 0) continue;  // no lane of this warp takes part
      if (whole == 0) {
        act = 0;
        for (unsigned l = 0; l < 32u; ++l) {
          const unsigned g = base + l;
          const bool a = g < n && (ex == nullptr || !ex[g]) && (gd == nullptr || gd[g] == gv);
          act |= (uint32_t)a << l;
        }
        if (act == 0) continue;
      }
    }
    const W* const p = pw != nullptr ? pw + base : nullptr;
    unsigned s = 0;
    bool done = false;
#if defined(__GNUC__) && !defined(__clang__)
    if constexpr (Vec && (sizeof(T) == 4 || sizeof(T) == 8)) {
      if (act == 0xffffffffu && m32 == 0xffffffffu) {
        using X = wc_vec<T>;
        typename X::V v[X::NV];
        typename X::I pm[X::NV];
        __builtin_memcpy(v, w + base, sizeof(v));
        if (p != nullptr) __builtin_memcpy(pm, p, sizeof(pm));
        (wc_vstep<Kind, Width, Cond, D, T>(v, p != nullptr ? pm : nullptr, s++, op,
                                           typename wc_make_seq<X::NV>::type{}), ...);
        __builtin_memcpy(w + base, v, sizeof(v));
        done = true;
      }
    }
#endif
    if (!done) {
      alignas(64) T v[96];
      for (unsigned l = 0; l < 32u; ++l) v[32 + l] = openhip::lang::from_u64<T>(w[base + l]);
      if (act == 0xffffffffu && m32 == 0xffffffffu) {
        (wc_chain_step<Kind, Width, Cond, D>(v, p, s++, op), ...);
      } else {
        (wc_chain_general<Kind, Width, Cond>(v, p, s++, D, act, act & m32, op), ...);
      }
      for (unsigned l = 0; l < 32u; ++l) w[base + l] = (W)openhip::lang::to_u64(v[32 + l]);
    }
    if constexpr (Bcast >= 0) {
      W* const o = reinterpret_cast<W*>(bout);
      const uint32_t bok = act & (uint32_t)bmask;
      for (unsigned l = 0; l < 32u; ++l) {
        const unsigned sl = (unsigned)openhip::lang::src_idx((int)l, Bcast, Width) & 31u;
        const bool ok = sl == l || ((bok >> sl) & 1u);
        o[base + l] = ok ? w[base + sl] : W(0);
      }
    }
  }
}
// Cond 3: the update's condition is `lane >= d` with lane = threadIdx.x % 32: in a 1-D block
// (lane1d) the lane's own index (Cond 4), else the deposited bits (Cond 0).
template <class T, int Kind, int Width, int Bcast, bool Vec, int Cond, unsigned... D, class Op>
inline void wc_chain(uint64_t* b, unsigned n, const unsigned char* ex, const unsigned char* gd,
                     unsigned gv, uint64_t mask, const uint64_t* pred, uint64_t bmask, uint64_t* bout,
                     bool lane1d, bool gwarp, Op op) {
  gwarp = gwarp && lane1d;  // (regions.py's warp-uniform classes hold in a 1-D block)
  if constexpr (Cond == 3) {
    if (lane1d)
      wc_chain_run<T, Kind, Width, Bcast, Vec, 4, D...>(b, n, ex, gd, gv, mask, nullptr, bmask, bout, gwarp, op);
    else
      wc_chain_run<T, Kind, Width, Bcast, Vec, 0, D...>(b, n, ex, gd, gv, mask, pred, bmask, bout, gwarp, op);
  } else {
    wc_chain_run<T, Kind, Width, Bcast, Vec, Cond, D...>(b, n, ex, gd, gv, mask, pred, bmask, bout, gwarp, op);
  }
}
}  // namespace detail
}  // namespace openhip

// The caller's lane and the lanes of its n-wide tile (cooperative groups'
// thread_block_tile<n>, n <= 32), in a kernel split at its warp functions.
namespace openhip {
namespace detail {
__attribute__((always_inline)) inline unsigned wc_lane_of() { return lane_id(); }
__attribute__((always_inline)) inline unsigned long long wc_tile_mask(unsigned n) {
  const unsigned long long low = n >= 32u ? 0xffffffffull : ((1ull << n) - 1ull);
  return low << (wc_lane_of() & ~(n - 1u));
}
}  // namespace detail
}  // namespace openhip
