// openhip CPU platform: device allocations with red zones (included once, by runtime.cpp).
//
// Every buffer from ohcpu_malloc is bracketed so that a kernel writing a little past either end
// is caught and named, instead of corrupting the heap and aborting much later in glibc:
//
//   small (< 4 MiB)  posix_memalign(256): [front red zone, 256 B][user bytes][tail red zone]
//                    The tail runs from the end of the user's bytes to a 256-byte boundary plus
//                    nbytes/8 rounded to 256 (256 B at least, 4 KiB at most).
//   large (>= 4 MiB) mmap: [PROT_NONE guard page][user bytes, 2 MiB aligned, MADV_HUGEPAGE]
//                    [tail red zone up to the page end][PROT_NONE guard page]
//                    A write past the red zone faults on the guard page (reported by the fault
//                    handler as hipErrorIllegalAddress where one is installed).
//
// Red zones hold a canary: the byte at address a is byte (a % 8) of kCanary, so an aligned
// 64-bit load of an intact zone reads kCanary.  They are checked
//   * after each kernel launch completes, on the stream thread, for every buffer one of the
//     launch's 8-byte arguments points into (check_launch: runs after the blocks, so the
//     launch path is untouched), naming the kernel (names from ohcpu_register_kernel);
//     ohcpu_launch_sync (tests, tools) is not checked;
//   * when the buffer is freed (ohcpu_free_checked), and on request (ohcpu_redzone_check).
// A damaged zone is reported once: the canary is written back after the report.  A store that
// jumps over a small buffer's zone, or one equal to the canary byte there, is not seen.
//
// The allocation table (address -> size, layout) is authoritative for frees, so a pointer that
// is not a live allocation (a double free) is refused instead of reaching free().  Freed large
// mappings of up to 32 MiB are kept (64 MiB in all) for the next allocation of their size.
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "memcheck.h"  // memcheck mode: the shadow of the zones below

namespace openhip_redzone {

constexpr int kIllegalAddress = 700;  // hipErrorIllegalAddress
constexpr int kInvalidValue = 1;
constexpr uint64_t kCanary = 0xA7C3E1F96B4D2F85ull;
constexpr uint64_t kFront = 256;               // small buffers: bytes before the user's
constexpr uint64_t kHugePage = uint64_t(2) << 20;
constexpr uint64_t kLargeThreshold = uint64_t(4) << 20;  // numpy's threshold for THP advice

struct Alloc {
  uint64_t nbytes;    // the user's size
  uint64_t tail;      // red-zone bytes after them
  void* base;         // what to release: posix_memalign's block or the mapping's start
  uint64_t map_len;   // 0: posix_memalign; else the mapping's length (munmap)
};

inline std::mutex& table_mu() {
  static std::mutex* mu = new std::mutex();  // never destroyed: frees can come at exit
  return *mu;
}
inline std::map<uintptr_t, Alloc>& table() {
  static auto* t = new std::map<uintptr_t, Alloc>();
  return *t;
}
inline std::mutex& names_mu() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}
inline std::unordered_map<uintptr_t, std::string>& names() {
  static auto* n = new std::unordered_map<uintptr_t, std::string>();
  return *n;
}

inline uint64_t page() {
  static const uint64_t pg = sysconf(_SC_PAGESIZE) > 0 ? uint64_t(sysconf(_SC_PAGESIZE)) : 4096;
  return pg;
}

inline unsigned char canary_byte(uintptr_t a) {
  return static_cast<unsigned char>(kCanary >> (8 * (a & 7)));
}

inline void fill(unsigned char* p, uint64_t n) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uint64_t i = 0;
  for (; i < n && ((a + i) & 7); ++i) p[i] = canary_byte(a + i);
  for (; i + 8 <= n; i += 8) memcpy(p + i, &kCanary, 8);
  for (; i < n; ++i) p[i] = canary_byte(a + i);
}

// Offsets of the first and last damaged bytes of [p, p+n); false if the zone is intact.
inline bool damaged(const unsigned char* p, uint64_t n, uint64_t* first, uint64_t* last) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uint64_t i = 0;
  bool bad = false;
  auto mark = [&](uint64_t k) {
    if (!bad) *first = k;
    *last = k;
    bad = true;
  };
  for (; i < n && ((a + i) & 7); ++i) {
    if (p[i] != canary_byte(a + i)) mark(i);
  }
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    if (__builtin_expect(w != kCanary, 0)) {
      for (uint64_t k = i; k < i + 8; ++k) {
        if (p[k] != canary_byte(a + k)) mark(k);
      }
    }
  }
  for (; i < n; ++i) {
    if (p[i] != canary_byte(a + i)) mark(i);
  }
  return bad;
}

inline uint64_t tail_bytes(uint64_t nbytes) {
  uint64_t extra = (nbytes / 8 + 255) & ~uint64_t(255);
  if (extra < 256) extra = 256;
  if (extra > 4096) extra = 4096;
  return ((nbytes + 255) & ~uint64_t(255)) - nbytes + extra;
}

// True if [p, p+n) still holds the canary (stops at the first difference).
inline bool zone_intact(const unsigned char* p, uint64_t n) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uint64_t i = 0;
  for (; i < n && ((a + i) & 7); ++i) {
    if (p[i] != canary_byte(a + i)) return false;
  }
  uint64_t diff = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    diff |= w ^ kCanary;
  }
  for (; i < n; ++i) {
    if (p[i] != canary_byte(a + i)) return false;
  }
  return diff == 0;
}

inline bool intact(uintptr_t user, const Alloc& al) {
  const unsigned char* u = reinterpret_cast<const unsigned char*>(user);
  return zone_intact(u + al.nbytes, al.tail) &&
         (al.map_len != 0 || zone_intact(u - kFront, kFront));
}

// Checks (and repairs) one allocation's zones; table_mu held.  `who` says what touched it.
inline int check_locked(uintptr_t user, const Alloc& al, const char* who, char* msg, int cap) {
  unsigned char* u = reinterpret_cast<unsigned char*>(user);
  uint64_t first = 0, last = 0;
  uint64_t past = 0, before = 0;
  if (damaged(u + al.nbytes, al.tail, &first, &last)) {
    past = last + 1;
    fill(u + al.nbytes + first, last - first + 1);
  }
  if (al.map_len == 0 && damaged(u - kFront, kFront, &first, &last)) {
    before = kFront - first;
    fill(u - kFront + first, last - first + 1);
  }
  if (past == 0 && before == 0) return 0;
  if (msg != nullptr && cap > 0) {
    std::string what;
    char part[160];
    if (past) {
      snprintf(part, sizeof part, "%llu byte%s past its end%s",
               static_cast<unsigned long long>(past), past == 1 ? "" : "s",
               past == al.tail ? " (at least: the whole red zone after it)" : "");
      what += part;
    }
    if (before) {
      snprintf(part, sizeof part, "%s%llu byte%s before its start%s", past ? " and " : "",
               static_cast<unsigned long long>(before), before == 1 ? "" : "s",
               before == kFront ? " (at least)" : "");
      what += part;
    }
    if (who != nullptr) {
      snprintf(msg, static_cast<size_t>(cap),
               "%s wrote outside device buffer 0x%llx (%llu bytes): %s (its red zone was "
               "overwritten; memory beyond it may be damaged too)",
               who, static_cast<unsigned long long>(user),
               static_cast<unsigned long long>(al.nbytes), what.c_str());
    } else {
      snprintf(msg, static_cast<size_t>(cap),
               "device buffer 0x%llx (%llu bytes) was written outside its bounds, %s, found "
               "when it was freed: not by a kernel launch that received it as an argument "
               "(those are checked when they complete) but through a pointer inside a "
               "struct, from the host, or by a launch that has not been synchronized",
               static_cast<unsigned long long>(user),
               static_cast<unsigned long long>(al.nbytes), what.c_str());
    }
  }
  return kIllegalAddress;
}

// Large mappings of recent frees, kept for reuse by an allocation of the same size (as glibc
// serves repeated large allocations from its heap once their size has been freed: memory
// already faulted in, on huge pages, instead of a fresh mmap zeroed page by page).  Bounded as
// glibc's dynamic mmap threshold is: mappings of up to 32 MiB, 64 MiB kept in all.
constexpr uint64_t kKeepEach = uint64_t(32) << 20, kKeepTotal = uint64_t(64) << 20;
struct Kept {
  void* base;
  uint64_t len;
};
inline std::vector<Kept>& kept() {
  static auto* k = new std::vector<Kept>();
  return *k;
}
inline uint64_t& kept_bytes() {
  static uint64_t n = 0;
  return n;
}

// A kept mapping of exactly `len` bytes (guard pages included), or nullptr.
inline void* reuse(uint64_t len) {
  std::lock_guard<std::mutex> lock(table_mu());
  auto& k = kept();
  for (size_t i = k.size(); i-- > 0;) {
    if (k[i].len == len) {
      void* base = k[i].base;
      k.erase(k.begin() + static_cast<long>(i));
      kept_bytes() -= len;
      return base;
    }
  }
  return nullptr;
}

// Unmaps kept mappings (oldest first) until at most `keep` bytes remain.
inline void trim_cache(uint64_t keep) {
  std::vector<Kept> drop;
  {
    std::lock_guard<std::mutex> lock(table_mu());
    auto& k = kept();
    size_t n = 0;
    while (n < k.size() && kept_bytes() > keep) kept_bytes() -= k[n++].len;
    drop.assign(k.begin(), k.begin() + static_cast<long>(n));
    k.erase(k.begin(), k.begin() + static_cast<long>(n));
  }
  for (const Kept& d : drop) munmap(d.base, d.len);
}

inline void release(const Alloc& al) {
  if (al.map_len == 0) {
    free(al.base);
    return;
  }
  if (al.map_len - 2 * page() <= kKeepEach) {
    bool kept_it = false;
    {
      std::lock_guard<std::mutex> lock(table_mu());
      try {
        kept().push_back(Kept{al.base, al.map_len});
        kept_bytes() += al.map_len;
        kept_it = true;
      } catch (const std::bad_alloc&) {
      }
    }
    if (kept_it) {
      trim_cache(kKeepTotal);
      return;
    }
  }
  munmap(al.base, al.map_len);
}

inline void* enter(uintptr_t user, const Alloc& al) {
  try {
    std::lock_guard<std::mutex> lock(table_mu());
    table()[user] = al;
  } catch (const std::bad_alloc&) {
    release(al);
    return nullptr;
  }
  openhip_memcheck::on_allocate(user, al.nbytes, al.map_len == 0 ? kFront : 0, al.tail);
  return reinterpret_cast<void*>(user);
}

inline void* allocate(uint64_t nbytes) {
  if (nbytes == 0) nbytes = 1;
  const uint64_t pg = page();
  Alloc al{nbytes, 0, nullptr, 0};
  uintptr_t user;
  if (nbytes < kLargeThreshold) {
    al.tail = tail_bytes(nbytes);
    void* p = nullptr;
    if (posix_memalign(&p, 256, kFront + nbytes + al.tail) != 0) return nullptr;
    al.base = p;
    user = reinterpret_cast<uintptr_t>(p) + kFront;
    fill(static_cast<unsigned char*>(p), kFront);
  } else {
    // Large buffers: 2 MiB aligned and marked for transparent huge pages (the default THP
    // mode, "madvise", gives them only to regions that ask).  A kernel streaming through 4 KiB
    // pages takes a TLB miss and a page walk every 4 KiB, and the hardware prefetchers stop at
    // every 4 KiB boundary: saxpy over 2^24 floats ran about 1.3x slower than on huge pages.
    const uint64_t data = (nbytes + pg - 1) & ~(pg - 1);
    al.tail = data - nbytes;
    al.map_len = data + 2 * pg;
    if ((al.base = reuse(al.map_len)) != nullptr) {
      user = reinterpret_cast<uintptr_t>(al.base) + pg;
      fill(reinterpret_cast<unsigned char*>(user) + nbytes, al.tail);
      return enter(user, al);
    }
    const uint64_t len = data + kHugePage + 2 * pg;
    void* m = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      trim_cache(0);  // give the kept mappings back and try once more
      m = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) return nullptr;
    }
    const uintptr_t raw = reinterpret_cast<uintptr_t>(m);
    user = (raw + pg + kHugePage - 1) & ~(kHugePage - 1);
    const uintptr_t lo = user - pg, hi = user + data + pg;  // guard pages included
    if (lo > raw) munmap(m, lo - raw);
    if (raw + len > hi) munmap(reinterpret_cast<void*>(hi), raw + len - hi);
    if (mprotect(reinterpret_cast<void*>(user), data, PROT_READ | PROT_WRITE) != 0) {
      munmap(reinterpret_cast<void*>(lo), hi - lo);
      return nullptr;
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(reinterpret_cast<void*>(user), data, MADV_HUGEPAGE);  // advice only
#endif
    al.base = reinterpret_cast<void*>(lo);
  }
  fill(reinterpret_cast<unsigned char*>(user) + nbytes, al.tail);
  return enter(user, al);
}

inline void quarantine_block(uintptr_t user, const Alloc& al);  // memcheck mode, below

// Frees `p` after checking its zones: 0, kIllegalAddress (freed all the same; msg says what was
// damaged) or kInvalidValue (not a live allocation: nothing is freed).
inline int free_checked(void* p, char* msg, int cap) {
  const uintptr_t user = reinterpret_cast<uintptr_t>(p);
  Alloc al;
  int rc;
  {
    std::lock_guard<std::mutex> lock(table_mu());
    auto it = table().find(user);
    if (it == table().end()) {
      if (msg != nullptr && cap > 0) {
        snprintf(msg, static_cast<size_t>(cap),
                 "0x%llx is not a live device allocation (freed twice?)",
                 static_cast<unsigned long long>(user));
      }
      return kInvalidValue;
    }
    al = it->second;
    rc = check_locked(user, al, nullptr, msg, cap);
    table().erase(it);
  }
  if (openhip_memcheck::on()) {
    quarantine_block(user, al);
    return rc;
  }
  release(al);
  return rc;
}

// Sets the user's size of the live allocation at p to nbytes, within its capacity (the user's
// bytes and the tail red zone together): the tail red zone then starts at the new end.  The
// memory pool (openhip/runtime/pool.py) calls it when a cached block of a size class is handed to
// a smaller request, so the post-launch check and the free see that request's exact end.  The
// bytes that leave the user's part are given the canary; those that join it keep the canary the
// last check left there.  0, or kInvalidValue (not a live allocation, or beyond its capacity).
inline int resize(void* p, uint64_t nbytes) {
  if (nbytes == 0) nbytes = 1;
  const uintptr_t user = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(table_mu());
  auto it = table().find(user);
  if (it == table().end()) return kInvalidValue;
  Alloc& al = it->second;
  const uint64_t cap = al.nbytes + al.tail;
  if (nbytes > cap) return kInvalidValue;
  if (nbytes < al.nbytes) fill(reinterpret_cast<unsigned char*>(user) + nbytes, al.nbytes - nbytes);
  al.tail = cap - nbytes;
  al.nbytes = nbytes;
  openhip_memcheck::on_resize(user, nbytes, cap);
  return 0;
}

// The allocation holding address v (its end included), or table().end(); table_mu held.
inline std::map<uintptr_t, Alloc>::iterator containing(uintptr_t v) {
  auto& t = table();
  auto it = t.upper_bound(v);
  if (it == t.begin()) return t.end();
  --it;
  return v <= it->first + it->second.nbytes ? it : t.end();
}

// Memcheck mode: a freed block stays allocated and poisoned (a use after free is reported as
// one) until the quarantine holds more than kQuarantineBytes; the oldest blocks are then
// unpoisoned and given back.
inline void quarantine_block(uintptr_t user, const Alloc& al) {
  namespace mc = openhip_memcheck;
  mc::on_free(user, al.nbytes);
  const uintptr_t lo = al.map_len == 0 ? user - kFront : user;
  const uint64_t len = (al.map_len == 0 ? kFront : 0) + al.nbytes + al.tail;
  std::vector<mc::Quarantined> out;
  {
    std::lock_guard<std::mutex> lock(mc::quarantine_mu());
    try {
      mc::quarantine().push_back(mc::Quarantined{al.base, lo, len, al.map_len, al.nbytes,
                                                 al.tail, user});
      mc::quarantine_bytes() += len;
    } catch (const std::bad_alloc&) {
      mc::unpoison(lo, len);
      release(al);
      return;
    }
    auto& q = mc::quarantine();
    while (!q.empty() && mc::quarantine_bytes() > mc::kQuarantineBytes) {
      out.push_back(q.front());
      mc::quarantine_bytes() -= q.front().len;
      q.pop_front();
    }
  }
  for (const mc::Quarantined& e : out) {
    mc::unpoison(e.lo, e.len);
    release(Alloc{e.nbytes, e.tail, e.base, e.map_len});
  }
}

// Memcheck reports: where address v is relative to the nearest device allocation (live, or
// freed and still in the quarantine).  Writes one sentence into msg; false when no allocation
// is within 1 MiB.
inline bool describe(uintptr_t v, char* msg, int cap) {
  uintptr_t fu = 0;
  uint64_t fn = 0;
  if (openhip_memcheck::freed_block(v, &fu, &fn)) {
    snprintf(msg, static_cast<size_t>(cap), "Address 0x%llx is %lld bytes inside a %llu-byte "
             "allocation at 0x%llx that was freed (use after free)",
             static_cast<unsigned long long>(v), static_cast<long long>(v - fu),
             static_cast<unsigned long long>(fn), static_cast<unsigned long long>(fu));
    return true;
  }
  std::lock_guard<std::mutex> lock(table_mu());
  auto& t = table();
  if (t.empty()) return false;
  auto hi = t.upper_bound(v);  // first allocation starting after v
  uintptr_t best = 0;
  uint64_t best_n = 0, best_d = UINT64_MAX;
  bool after = false;  // v is after best's end
  if (hi != t.begin()) {
    auto lo = std::prev(hi);
    const uint64_t end = lo->first + lo->second.nbytes;
    if (v < end && openhip_memcheck::on() &&
        *openhip_memcheck::shadow(v) == openhip_memcheck::kFreed) {
      snprintf(msg, static_cast<size_t>(cap), "Address 0x%llx is %llu bytes inside a %llu-byte "
               "block at 0x%llx that the memory pool holds for reuse: its array was freed (use "
               "after free)", static_cast<unsigned long long>(v),
               static_cast<unsigned long long>(v - lo->first),
               static_cast<unsigned long long>(lo->second.nbytes),
               static_cast<unsigned long long>(lo->first));
      return true;
    }
    if (v < end) {
      snprintf(msg, static_cast<size_t>(cap), "Address 0x%llx is %llu bytes inside the "
               "%llu-byte allocation at 0x%llx", static_cast<unsigned long long>(v),
               static_cast<unsigned long long>(v - lo->first),
               static_cast<unsigned long long>(lo->second.nbytes),
               static_cast<unsigned long long>(lo->first));
      return true;
    }
    best = lo->first, best_n = lo->second.nbytes, best_d = v - end, after = true;
  }
  if (hi != t.end() && hi->first - v < best_d) {
    best = hi->first, best_n = hi->second.nbytes, best_d = hi->first - v, after = false;
  }
  if (best_d > (uint64_t(1) << 20)) return false;
  if (after) {
    snprintf(msg, static_cast<size_t>(cap), "Address 0x%llx is %llu bytes after the end of the "
             "nearest allocation at 0x%llx of size %llu bytes",
             static_cast<unsigned long long>(v), static_cast<unsigned long long>(best_d),
             static_cast<unsigned long long>(best), static_cast<unsigned long long>(best_n));
  } else {
    snprintf(msg, static_cast<size_t>(cap), "Address 0x%llx is %llu bytes before the start of "
             "the nearest allocation at 0x%llx of size %llu bytes",
             static_cast<unsigned long long>(v), static_cast<unsigned long long>(best_d),
             static_cast<unsigned long long>(best), static_cast<unsigned long long>(best_n));
  }
  return true;
}

// Memcheck mode: the memory pool's cache (openhip/runtime/pool.py).  freed != 0: the block's
// array was released and the block went to the cache: its bytes are poisoned as freed, so a
// use after `del` of a pooled array is reported; 0: the block is handed out again with its
// first nbytes addressable.  0, or kInvalidValue (not a live allocation, beyond its capacity).
inline int pool_mark(void* p, uint64_t nbytes, int freed) {
  if (!openhip_memcheck::on()) return 0;
  const uintptr_t user = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(table_mu());
  auto it = table().find(user);
  if (it == table().end()) return kInvalidValue;
  const Alloc& al = it->second;
  const uint64_t cap = al.nbytes + al.tail;
  if (freed) {
    openhip_memcheck::on_free(user, al.nbytes);
    return 0;
  }
  if (nbytes > cap) return kInvalidValue;
  openhip_memcheck::on_resize(user, nbytes == 0 ? 1 : nbytes, cap);
  return 0;
}

// The live allocations (address, size) into out[0..2*max), for the leak report; the count.
inline uint64_t live(uint64_t* out, uint64_t max) {
  std::lock_guard<std::mutex> lock(table_mu());
  uint64_t n = 0;
  for (const auto& [user, al] : table()) {
    if (n < max) {
      out[2 * n] = user;
      out[2 * n + 1] = al.nbytes;
    }
    ++n;
  }
  return n;
}

inline int check_one(void* p, char* msg, int cap) {
  std::lock_guard<std::mutex> lock(table_mu());
  auto it = containing(reinterpret_cast<uintptr_t>(p));
  if (it == table().end()) return kInvalidValue;
  return check_locked(it->first, it->second, nullptr, msg, cap);
}

inline void register_name(const void* entry, const char* name) {
  std::lock_guard<std::mutex> lock(names_mu());
  names()[reinterpret_cast<uintptr_t>(entry)] = name ? name : "";
}

inline std::string kernel_label(const void* entry) {
  std::lock_guard<std::mutex> lock(names_mu());
  auto it = names().find(reinterpret_cast<uintptr_t>(entry));
  char buf[64];
  snprintf(buf, sizeof buf, "%p", entry);
  return it == names().end() || it->second.empty() ? std::string("the kernel at ") + buf
                                                   : "kernel '" + it->second + "'";
}

// After a launch: checks every buffer an 8-byte argument points into.  `args[i]` points at
// argument i inside [bytes, bytes + nbytes).  Returns 0 or kIllegalAddress with msg filled.
inline int check_launch(const void* entry, const void* const* args, uint32_t nargs,
                        const unsigned char* bytes, uint64_t nbytes, char* msg, int cap) {
  if (nargs == 0) return 0;
  int rc = 0;
  std::lock_guard<std::mutex> lock(table_mu());
  if (table().empty()) return 0;
  for (uint32_t i = 0; i < nargs; ++i) {
    const unsigned char* a = static_cast<const unsigned char*>(args[i]);
    const unsigned char* end = i + 1 < nargs ? static_cast<const unsigned char*>(args[i + 1])
                                             : bytes + nbytes;
    if (a < bytes || end - a < 8 || a + 8 > bytes + nbytes) continue;
    uint64_t v;
    memcpy(&v, a, 8);
    auto it = containing(static_cast<uintptr_t>(v));
    if (it == table().end() || intact(it->first, it->second)) continue;  // the common case
    if (rc != 0) {  // already reporting: repair the others quietly
      (void)check_locked(it->first, it->second, "", nullptr, 0);
      continue;
    }
    char who[200];
    const std::string label = kernel_label(entry);
    snprintf(who, sizeof who, "%s (argument %u)", label.c_str(), i);
    rc = check_locked(it->first, it->second, who, msg, cap);
  }
  return rc;
}

// In a fork child: the parent's threads may have held the locks.
inline void after_fork_child() {
  new (&table_mu()) std::mutex();
  new (&names_mu()) std::mutex();
}

}  // namespace openhip_redzone
