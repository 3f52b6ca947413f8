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
