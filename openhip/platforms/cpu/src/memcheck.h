// openhip CPU platform: the runtime's half of memcheck (included once, by redzone.h).
//
// In memcheck mode (OPENHIP_MEMCHECK=1, `openhip memcheck`) kernel modules are compiled with
// GCC's address-sanitizer instrumentation in its self-hosted form (-fsanitize=kernel-address:
// inline shadow checks, no libasan): before every load and store the module reads the shadow
// byte of the address, shadow(a) = (a >> 3) + offset, and calls its own report function when
// the byte says the address is not addressable (openhip/tools/memcheck/include).  This file
// owns the shadow: one MAP_NORESERVE mapping covering the 47-bit user address space (2^44
// bytes, untouched pages cost nothing), and what is written into it:
//   * device allocations: the front red zone (kHeapLeft) and the tail red zone (kHeapRight),
//     a pooled block's bytes beyond the request (resize), freed blocks (kFreed: kept in a
//     quarantine of up to 256 MiB before they are given back, so a use after free is seen);
//   * each worker's dynamic shared memory beyond the launch's size (kShared).
// Shadow byte values follow ASan: 0 = the 8-byte granule is addressable, 1..7 = only its first
// k bytes are, a negative value = none (the value says why).
#pragma once

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <deque>
#include <mutex>

namespace openhip_memcheck {

constexpr uint64_t kShadowSize = uint64_t(1) << 44;  // (2^47 bytes of address space) / 8
constexpr uintptr_t kPreferredOffset = 0x7fff8000;   // ASan's x86-64 offset
constexpr unsigned char kHeapLeft = 0xfa, kHeapRight = 0xfb, kFreed = 0xfd, kShared = 0xfe;
// The first 64 KiB of the address space (never mapped: vm.mmap_min_addr) are poisoned as a null
// pointer's, so the shadow check reports a null (or null + small offset) access: no separate
// null test per access (-fsanitize=null cost the dynamic-shared reduction 3 tests per thread).
constexpr unsigned char kNull = 0xf0;
// Racecheck mode: the launch's dynamic shared memory is marked kTracked (not addressable for
// the inline check), so every access to it goes to the module's report function, which tracks
// hazards there and lets the access happen (openhip/tools/memcheck/include).
constexpr unsigned char kTracked = 0xf8;
constexpr uintptr_t kNullBytes = uintptr_t(1) << 16;
constexpr uint64_t kQuarantineBytes = uint64_t(256) << 20;

inline uintptr_t& offset() {
  static uintptr_t off = 0;  // 0: memcheck is off
  return off;
}
inline bool on() { return offset() != 0; }
inline bool& racecheck() {
  static bool rc = false;
  return rc;
}
// Initcheck mode: the bytes of a device allocation that were never written are kUninit (whole
// 8-byte granules; the module's report function marks what a kernel writes, the runtime what a
// copy or memset writes), so a kernel's read of them is reported.
constexpr unsigned char kUninit = 0xf7;
inline bool& initcheck() {
  static bool ic = false;
  return ic;
}

// Initcheck: [a, a+n) was written (a copy or memset): its uninitialised granules are marked
// initialised (a granule written from its start up to e < 8 keeps "e bytes initialised").
inline void mark_written(uintptr_t a, uint64_t n);

// Maps the shadow (once); returns its offset, 0 if it cannot be mapped.
inline uintptr_t enable() {
  if (on()) return offset();
  void* want = reinterpret_cast<void*>(kPreferredOffset);
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#ifdef MAP_FIXED_NOREPLACE
  void* p = mmap(want, kShadowSize, PROT_READ | PROT_WRITE, flags | MAP_FIXED_NOREPLACE, -1, 0);
#else
  void* p = mmap(want, kShadowSize, PROT_READ | PROT_WRITE, flags, -1, 0);
#endif
  if (p == MAP_FAILED) p = mmap(nullptr, kShadowSize, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) return 0;
  offset() = reinterpret_cast<uintptr_t>(p);
  memset(p, kNull, kNullBytes >> 3);  // shadow(0) is the mapping's start
  return offset();
}

inline unsigned char* shadow(uintptr_t a) {
  return reinterpret_cast<unsigned char*>((a >> 3) + offset());
}

// Marks [a, a+n) not addressable with `code`; a must be 8-aligned (the granule a partial end
// granule shares with what follows is poisoned whole only if it starts in the range).
inline void poison(uintptr_t a, uint64_t n, unsigned char code) {
  if (!on() || n == 0) return;
  const uintptr_t lo = (a + 7) & ~uintptr_t(7), hi = (a + n + 7) & ~uintptr_t(7);
  if (hi > lo) memset(shadow(lo), code, (hi - lo) >> 3);
}

// Marks [a, a+n) addressable (a 8-aligned); a partial last granule gets its byte count.
inline void unpoison(uintptr_t a, uint64_t n) {
  if (!on() || n == 0) return;
  const uintptr_t full = n >> 3;
  memset(shadow(a), 0, full);
  if (n & 7) *shadow(a + (full << 3)) = static_cast<unsigned char>(n & 7);
}

// [a, a+n) addressable, and tracked in racecheck mode (a 8-aligned; a partial last granule is
// tracked whole).
inline void unpoison_shared(uintptr_t a, uint64_t n) {
  if (!on() || n == 0) return;
  if (!racecheck()) return unpoison(a, n);
  memset(shadow(a), kTracked, (n + 7) >> 3);
}

// A device allocation's layout: [front, user) left zone, [user, user+n) user, then the tail.
inline void on_allocate(uintptr_t user, uint64_t n, uint64_t front, uint64_t tail) {
  if (!on()) return;
  if (front) poison(user - front, front, kHeapLeft);
  unpoison(user, n);
  if (initcheck() && n >= 8) memset(shadow(user), kUninit, n >> 3);  // (a partial tail: kept)
  poison((user + n + 7) & ~uintptr_t(7), user + n + tail - ((user + n + 7) & ~uintptr_t(7)),
         kHeapRight);
}

inline void on_resize(uintptr_t user, uint64_t n, uint64_t cap) {
  if (!on()) return;
  if (initcheck()) {  // the granules that join the user's bytes (red zone, freed) are uninit
    for (uintptr_t g = user; g + 8 <= user + n; g += 8) {
      unsigned char& c = *shadow(g);
      if (c != 0) c = kUninit;
    }
    if (n & 7) *shadow(user + (n & ~uint64_t(7))) = static_cast<unsigned char>(n & 7);
  } else {
    unpoison(user, n);
  }
  const uintptr_t end = (user + n + 7) & ~uintptr_t(7);
  if (user + cap > end) poison(end, user + cap - end, kHeapRight);
}

struct Quarantined {
  void* base;        // what release() takes
  uintptr_t lo;      // the shadowed extent [lo, lo + len)
  uint64_t len;
  uint64_t map_len;  // as Alloc::map_len
  uint64_t nbytes, tail;
  uintptr_t user;
};
inline std::mutex& quarantine_mu() {
  static auto* mu = new std::mutex();
  return *mu;
}
inline std::deque<Quarantined>& quarantine() {
  static auto* q = new std::deque<Quarantined>();
  return *q;
}
inline uint64_t& quarantine_bytes() {
  static uint64_t n = 0;
  return n;
}

// Freed user bytes stay poisoned (kFreed) until the block leaves the quarantine.
inline void on_free(uintptr_t user, uint64_t n) {
  if (on()) poison(user, (n + 7) & ~uint64_t(7), kFreed);
}

// The first byte of [a, a+n) that the shadow says is not addressable (and its shadow code):
// false when the whole range is addressable.  One shadow byte per 8 bytes (granule) is read.
inline bool first_bad(uintptr_t a, uint64_t n, uintptr_t* bad, unsigned char* code) {
  if (!on() || n == 0) return false;
  const uintptr_t end = a + n;
  for (uintptr_t g = a & ~uintptr_t(7); g < end; g += 8) {
    const signed char s = static_cast<signed char>(*shadow(g));
    if (s == 0 || static_cast<unsigned char>(s) == kUninit) continue;
    const uintptr_t lo = g < a ? a : g;
    if (s > 0 && lo < g + static_cast<uintptr_t>(s)) {
      if (end <= g + static_cast<uintptr_t>(s)) return false;  // ends in the valid bytes
      *bad = g + static_cast<uintptr_t>(s);
      *code = *shadow(g + 8);
      return true;
    }
    *bad = lo;
    *code = s < 0 ? static_cast<unsigned char>(s) : *shadow(g + 8);
    return true;
  }
  return false;
}

inline void mark_written(uintptr_t a, uint64_t n) {
  if (!on() || !initcheck() || n == 0) return;
  const uintptr_t end = a + n;
  for (uintptr_t g = a & ~uintptr_t(7); g < end; g += 8) {
    unsigned char& c = *shadow(g);
    if (c != kUninit) continue;
    const uintptr_t lo = g < a ? a : g, hi = end < g + 8 ? end : g + 8;
    // (the allocation's last whole granule, before its red zone, counts as written whole: "k
    // bytes written" there would read as the allocation's end; the module does the same)
    const unsigned char next = *shadow(g + 8);
    const bool last = next != 0 && next != kUninit && next >= 8;
    c = lo > g || hi == g + 8 || last ? 0 : static_cast<unsigned char>(hi - g);
  }
}

// Initcheck: the first byte of [a, a+n) never written (false: all of it was written, or it is
// not device memory).  A granule was never written if it is kUninit, or only its first k bytes
// were if it is k < 8 and the granule after it is inside the allocation (0, kUninit or < 8; a
// red zone after it: k is the allocation's tail, all written).
inline bool first_uninit(uintptr_t a, uint64_t n, uintptr_t* bad) {
  if (!on() || !initcheck() || n == 0) return false;
  const uintptr_t end = a + n;
  for (uintptr_t g = a & ~uintptr_t(7); g < end; g += 8) {
    const unsigned char c = *shadow(g);
    if (c == 0) continue;
    const uintptr_t lo = g < a ? a : g;
    if (c == kUninit) {
      *bad = lo;
      return true;
    }
    if (c < 8 && end > g + c) {
      const unsigned char next = *shadow(g + 8);
      if (next == 0 || next == kUninit || next < 8) {
        *bad = lo > g + c ? lo : g + c;
        return true;
      }
    }
  }
  return false;
}

// Initcheck: a device-to-device copy of [src, src+n) to dst (after mark_written(dst, n)): the
// whole granules of dst whose source granule was never written are marked so again (when the
// two are 8-byte aligned alike; otherwise dst counts as written).
inline void copy_uninit(uintptr_t dst, uintptr_t src, uint64_t n) {
  if (!on() || !initcheck() || n == 0 || ((dst - src) & 7) != 0) return;
  for (uintptr_t g = (src + 7) & ~uintptr_t(7); g + 8 <= src + n; g += 8) {
    if (*shadow(g) == kUninit) *shadow(dst + (g - src)) = kUninit;
  }
}

// The freed block a bad address falls in (the most recent one), for reports.
inline bool freed_block(uintptr_t a, uintptr_t* user, uint64_t* n) {
  std::lock_guard<std::mutex> lock(quarantine_mu());
  auto& q = quarantine();
  for (auto it = q.rbegin(); it != q.rend(); ++it) {
    if (a >= it->lo && a < it->lo + it->len) {
      *user = it->user;
      *n = it->nbytes;
      return true;
    }
  }
  return false;
}

}  // namespace openhip_memcheck
