// openhip memcheck: the kernel module's half (force-included after <hip/hip_runtime.h> when a
// module is compiled in memcheck mode, see openhip/tools/memcheck/flags.py).
//
// The module is compiled with -fsanitize=kernel-address: GCC puts an inline check of the shadow
// byte before every load and store (the shadow is mapped and written by the runtime,
// platforms/cpu/src/memcheck.h) and calls __asan_report_<load|store><N>_noabort(address) when
// it fails.  Those functions are defined here, hidden in the module: the first bad access
// stops the launch exactly as a fault does (the engine's on_fault: the launch fails with
// hipErrorIllegalAddress; in loop mode the block is rerun one thread at a time to name the
// thread).  The description names the access (Invalid __global__ write of size 4 bytes), why
// the address is bad (the shadow byte) and the return address as module+offset, which the
// Python side turns into the user's file:line (openhip/tools/memcheck/report.py).
// -fsanitize=alignment,null calls __ubsan_handle_type_mismatch_v1 for a misaligned or null
// typed access, with the source location.
#pragma once

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#ifndef OPENHIP_MEMCHECK_SHADOW
#error "OPENHIP_MEMCHECK_SHADOW (the shadow offset) must be defined in memcheck mode"
#endif

namespace openhip {
namespace memcheck {

static thread_local char t_what[768];

#define OPENHIP_MC_NOCHECK __attribute__((no_sanitize_address))

OPENHIP_MC_NOCHECK inline unsigned char shadow_byte(uintptr_t a) {
  return *reinterpret_cast<const volatile unsigned char*>((a >> 3) + OPENHIP_MEMCHECK_SHADOW);
}

// Whether [a, a+n) is addressable by the shadow.
OPENHIP_MC_NOCHECK inline bool addressable(uintptr_t a, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    const signed char s = static_cast<signed char>(shadow_byte(a + i));
    if (s != 0 && static_cast<signed char>((a + i) & 7) >= s) return false;
  }
  return true;
}

inline const char* why(unsigned char code) {
  switch (code) {
    case 0xfa: return "before the start of a device allocation (out of bounds)";
    case 0xfb: return "past the end of a device allocation (out of bounds)";
    case 0xfd: return "in freed device memory (use after free)";
    case 0xfe: return "past the dynamic shared memory of the launch (out of bounds)";
    case 0xf9: return "past a __device__ variable (out of bounds)";
    case 0xf0: return "null (null pointer)";
    case 0xf4: return "past a static __shared__ array (out of bounds)";
    case 0xf1: return "before a local array (out of bounds)";
    case 0xf2: return "outside a local array (out of bounds)";
    case 0xf3: return "past a local array (out of bounds)";
    default: return "not addressable";
  }
}

inline const char* space(uintptr_t a, unsigned char code = 0) {
  if (code >= 0xf1 && code <= 0xf3) return "__local__";
  if (code == 0xf4) return "__shared__";
  const openhip_worker* w = ::openhip::detail::tstate.worker;
  if (w != nullptr && w->dyn_shared != nullptr && a >= reinterpret_cast<uintptr_t>(w->dyn_shared) &&
      a < reinterpret_cast<uintptr_t>(w->dyn_shared) + w->dyn_shared_cap)
    return "__shared__";
  return "__global__";
}

// Stops the launch (as a fault) with the description in t_what.  Outside a kernel (a module
// constructor) it prints the description and returns.
__attribute__((noinline, cold)) inline void stop(uintptr_t a, void* pc) {
  openhip_worker* w = ::openhip::detail::tstate.worker;
  Dl_info info{};
  char where[320] = "";
  if (pc != nullptr && dladdr(pc, &info) && info.dli_fname != nullptr) {
    snprintf(where, sizeof where, " [pc %s+0x%llx]", info.dli_fname,
             static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pc) -
                                             reinterpret_cast<uintptr_t>(info.dli_fbase)));
  }
  size_t used = strlen(t_what);
  snprintf(t_what + used, sizeof t_what - used, "%s", where);
  if (w == nullptr || !w->in_kernel || w->on_fault == nullptr) {
    fprintf(stderr, "openhip memcheck: %s at address 0x%llx (outside a kernel)\n", t_what,
            static_cast<unsigned long long>(a));
    return;
  }
  w->in_kernel = 0;
  w->fault_signal = SIGSEGV;
  w->fault_code = 0;
  w->fault_status = 700;  // hipErrorIllegalAddress
  w->fault_addr = reinterpret_cast<void*>(a);
  w->fault_what = t_what;
  w->on_fault(w);
}

#ifdef OPENHIP_RACECHECK
__attribute__((noinline)) void race_access(uintptr_t a, uint64_t n, bool write, void* pc);
#endif
#ifdef OPENHIP_INITCHECK
bool in_static_shared(uintptr_t a);  // (below)
#endif

OPENHIP_MC_NOCHECK __attribute__((noinline, cold)) inline void bad_access(uintptr_t a, uint64_t n, bool write,
                                                       void* pc) {
#ifdef OPENHIP_INITCHECK
  {  // device memory never written (the runtime's kUninit, 0xf7; or past the k initialised bytes
     // of a granule inside an allocation): a write marks it, a read is reported
    bool uninit = false, bad = false;
    for (uint64_t i = 0; i < n && !bad; ++i) {
      const uintptr_t b = a + i, g = b & ~uintptr_t(7);
      const unsigned char c = shadow_byte(g);
      if (c == 0) continue;
      if (c == 0xf7) {
        uninit = true;
      } else if (c < 8 && (b & 7) >= c) {
        const unsigned char next = shadow_byte(g + 8);
        if (next == 0 || next == 0xf7 || next < 8) uninit = true;
        else bad = true;
      } else if (c >= 8) {
        bad = true;
      }
    }
    if (uninit && !bad) {
      if (!write) {
        const bool shared = in_static_shared(a) || strcmp(space(a), "__shared__") == 0;
        snprintf(t_what, sizeof t_what, "memcheck: Uninitialized %s memory read of size %llu "
                 "bytes: the address is in %s never written (never written)",
                 shared ? "__shared__" : "__global__", static_cast<unsigned long long>(n),
                 shared ? "shared memory the block has" : "device memory a kernel, copy or "
                 "memset has");
        stop(a, pc);
        return;
      }
      for (uintptr_t g = a & ~uintptr_t(7); g < a + n; g += 8) {
        unsigned char* c = reinterpret_cast<unsigned char*>((g >> 3) + OPENHIP_MEMCHECK_SHADOW);
        const uintptr_t lo = g < a ? a : g, hi = a + n < g + 8 ? a + n : g + 8;
        if (*c == 0xf7) {
          // (a never-written granule is a whole one of its allocation; its last one, before the
          // red zone, counts as written whole: "k bytes written" there would read as the
          // allocation's end)
          const unsigned char next = shadow_byte(g + 8);
          const bool last = next != 0 && next != 0xf7 && next >= 8;
          *c = lo > g || hi == g + 8 || last ? 0 : static_cast<unsigned char>(hi - g);
        } else if (*c != 0 && *c < 8) {  // k bytes initialised: a write from at most k on
          *c = lo - g > *c || hi == g + 8 ? 0 : static_cast<unsigned char>(
                                                    hi - g > *c ? hi - g : *c);
        }
      }
      return;
    }
  }
#endif
#ifdef OPENHIP_RACECHECK
  {  // tracked shared memory (the runtime's kTracked, 0xf8): a hazard check, then the access
    bool tracked = n != 0;
    for (uint64_t i = 0; i < n && tracked; ++i) tracked = shadow_byte(a + i) == 0xf8;
    if (tracked) {
      race_access(a, n, write, pc);
      return;
    }
  }
#endif
  // the first bad byte of the access says why
  unsigned char code = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const signed char s = static_cast<signed char>(shadow_byte(a + i));
    if (s != 0 && static_cast<signed char>((a + i) & 7) >= s) {
      code = s < 0 ? static_cast<unsigned char>(s) : shadow_byte(((a + i) | 7) + 1);
      break;
    }
  }
  snprintf(t_what, sizeof t_what, "memcheck: Invalid %s %s of size %llu bytes: the address is %s",
           space(a, code), write ? "write" : "read", static_cast<unsigned long long>(n), why(code));
  stop(a, pc);
}

struct SourceLocation {
  const char* file;
  uint32_t line, column;
};
struct TypeDescriptor {
  uint16_t kind, info;
  char name[1];
};
struct TypeMismatchData {
  SourceLocation loc;
  const TypeDescriptor* type;
  unsigned char log_alignment;
  unsigned char check_kind;
};

__attribute__((noinline, cold)) inline void type_mismatch(TypeMismatchData* d, uintptr_t p,
                                                          void* pc) {
  // check kinds 0 load, 1 store, others: member access, call, binding, ...
  const char* op = d->check_kind == 1 ? "write" : "read";
  const uint64_t align = uint64_t(1) << d->log_alignment;
  if (p == 0) {
    snprintf(t_what, sizeof t_what, "memcheck: Invalid %s %s of %s: the address is null "
             "(null pointer) at %s:%u", "__global__", op, d->type->name, d->loc.file, d->loc.line);
  } else if (p & (align - 1)) {
    snprintf(t_what, sizeof t_what, "memcheck: Invalid %s %s of %s: the address is misaligned "
             "(%llu-byte alignment required) at %s:%u", space(p), op, d->type->name,
             static_cast<unsigned long long>(align), d->loc.file, d->loc.line);
  } else {
    return;  // an object-size check: not reported
  }
  stop(p, pc);
}

}  // namespace memcheck
}  // namespace openhip

#define OPENHIP_MC_HIDDEN extern "C" __attribute__((visibility("hidden"), used))
#define OPENHIP_MC_SIZE(N)                                                                    \
  OPENHIP_MC_HIDDEN void __asan_report_load##N##_noabort(uintptr_t a) {                        \
    ::openhip::memcheck::bad_access(a, N, false, __builtin_return_address(0));                 \
  }                                                                                           \
  OPENHIP_MC_HIDDEN void __asan_report_store##N##_noabort(uintptr_t a) {                       \
    ::openhip::memcheck::bad_access(a, N, true, __builtin_return_address(0));                  \
  }                                                                                           \
  OPENHIP_MC_HIDDEN void __asan_load##N##_noabort(uintptr_t a) {                               \
    if (!::openhip::memcheck::addressable(a, N))                                              \
      ::openhip::memcheck::bad_access(a, N, false, __builtin_return_address(0));               \
  }                                                                                           \
  OPENHIP_MC_HIDDEN void __asan_store##N##_noabort(uintptr_t a) {                              \
    if (!::openhip::memcheck::addressable(a, N))                                              \
      ::openhip::memcheck::bad_access(a, N, true, __builtin_return_address(0));                \
  }
OPENHIP_MC_SIZE(1)
OPENHIP_MC_SIZE(2)
OPENHIP_MC_SIZE(4)
OPENHIP_MC_SIZE(8)
OPENHIP_MC_SIZE(16)
#undef OPENHIP_MC_SIZE

OPENHIP_MC_HIDDEN void __asan_report_load_n_noabort(uintptr_t a, uintptr_t n) {
  ::openhip::memcheck::bad_access(a, n, false, __builtin_return_address(0));
}
OPENHIP_MC_HIDDEN void __asan_report_store_n_noabort(uintptr_t a, uintptr_t n) {
  ::openhip::memcheck::bad_access(a, n, true, __builtin_return_address(0));
}
OPENHIP_MC_HIDDEN void __asan_loadN_noabort(uintptr_t a, uintptr_t n) {
  if (!::openhip::memcheck::addressable(a, n))
    ::openhip::memcheck::bad_access(a, n, false, __builtin_return_address(0));
}
OPENHIP_MC_HIDDEN void __asan_storeN_noabort(uintptr_t a, uintptr_t n) {
  if (!::openhip::memcheck::addressable(a, n))
    ::openhip::memcheck::bad_access(a, n, true, __builtin_return_address(0));
}
OPENHIP_MC_HIDDEN void __asan_handle_no_return() {}

// engine.h: after a failure jumped out of kernel code, the frames it left (on this thread's
// stack below the entry point, and on every fiber stack) are unpoisoned, so that the red zones
// of their local arrays do not stay behind as false reports for later frames there.
OPENHIP_MC_NOCHECK void openhip::detail::memcheck_frames_abandoned(openhip_worker* W) {
  const uintptr_t off = OPENHIP_MEMCHECK_SHADOW;
  auto clear = [off](uintptr_t lo, uintptr_t hi) {
    lo &= ~uintptr_t(7);
    if (hi > lo) memset(reinterpret_cast<void*>((lo >> 3) + off), 0, (hi - lo + 7) >> 3);
  };
  if (W->stacks != nullptr && W->fiber_capacity != 0) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(W->stacks);
    clear(lo, lo + uint64_t(W->fiber_capacity) * W->stack_size);
  }
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* base = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &base, &size) == 0 && base != nullptr) {
      const uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
      const uintptr_t lo = reinterpret_cast<uintptr_t>(base);
      if (here > lo) clear(lo, here);
    }
    pthread_attr_destroy(&attr);
  }
}
// (dynamic initialisation order checking: not done)
OPENHIP_MC_HIDDEN void __asan_before_dynamic_init(const char*) {}
OPENHIP_MC_HIDDEN void __asan_after_dynamic_init() {}

// __device__ / __constant__ variables: their red zones (GCC pads each instrumented global).
struct __openhip_asan_global {
  uintptr_t beg;
  uintptr_t size;
  uintptr_t size_with_redzone;
  const char* name;
  const char* module_name;
  uintptr_t has_dynamic_init;
  void* location;
  uintptr_t odr_indicator;
};
OPENHIP_MC_HIDDEN OPENHIP_MC_NOCHECK void __asan_register_globals(__openhip_asan_global* g, uintptr_t n) {
  for (uintptr_t i = 0; i < n; ++i) {
    const uintptr_t beg = g[i].beg, size = g[i].size, total = g[i].size_with_redzone;
    if (beg & 7) continue;
    unsigned char* s = reinterpret_cast<unsigned char*>((beg >> 3) + OPENHIP_MEMCHECK_SHADOW);
    for (uintptr_t off = 0; off < total; off += 8) {
      s[off >> 3] = off + 8 <= size ? 0 : off < size ? static_cast<unsigned char>(size - off)
                                                     : 0xf9;
    }
  }
}
OPENHIP_MC_HIDDEN OPENHIP_MC_NOCHECK void __asan_unregister_globals(__openhip_asan_global* g, uintptr_t n) {
  for (uintptr_t i = 0; i < n; ++i) {
    if (g[i].beg & 7) continue;
    memset(reinterpret_cast<unsigned char*>((g[i].beg >> 3) + OPENHIP_MEMCHECK_SHADOW), 0,
           (g[i].size_with_redzone + 7) >> 3);
  }
}

OPENHIP_MC_HIDDEN void __ubsan_handle_type_mismatch_v1(::openhip::memcheck::TypeMismatchData* d,
                                                       uintptr_t p) {
  ::openhip::memcheck::type_mismatch(d, p, __builtin_return_address(0));
}
OPENHIP_MC_HIDDEN void __ubsan_handle_type_mismatch_v1_abort(
    ::openhip::memcheck::TypeMismatchData* d, uintptr_t p) {
  ::openhip::memcheck::type_mismatch(d, p, __builtin_return_address(0));
}
#undef OPENHIP_MC_HIDDEN
#undef OPENHIP_MC_NOCHECK

// engine.h's per-thread loops of regions mode, storing the thread's linear id before its part
// runs only while a faulted block is rerun to name its thread (engine.h region_find_thread).
// The flag is read once per loop nest into a local, so GCC unswitches the thread loop: the
// checked run's copy has no store per thread and vectorises as the unchecked loop does (a
// volatile store per thread, as before, kept the reductions' loops scalar: 2x).
#undef OPENHIP_CPU_FOR_EACH_THREAD
#undef OPENHIP_CPU_FOR_EACH_THREAD_SIGNED
#undef OPENHIP_CPU_FOR_EACH_THREAD_FROM
#ifdef OPENHIP_RACECHECK
// racecheck: every thread's id is stored, and each loop nest (a region between barriers) is a
// new barrier interval
#define OPENHIP_MC_REGION_SLOT(lt)                                                             \
  for (int lt##_once = (::openhip::detail::racecheck_phase(), 1), lt##_diag = 1; lt##_once;    \
       lt##_once = 0)
#else
#define OPENHIP_MC_REGION_SLOT(lt)                                                             \
  for (int lt##_once = 1, lt##_diag = ::openhip::detail::tstate.diagnosing; lt##_once;         \
       lt##_once = 0)
#endif
#define OPENHIP_MC_RECORD(lt)                                                                  \
  (lt##_diag ? (void)(::openhip::detail::tstate.diag_thread = (unsigned)lt) : (void)0)
#define OPENHIP_CPU_FOR_EACH_THREAD(lt)                                                        \
  OPENHIP_MC_REGION_SLOT(lt)                                                                   \
  for (int lt##_z = 0, lt = 0; lt##_z < (int)blockDim.z; ++lt##_z)                             \
    for (unsigned lt##_y = 0; lt##_y < blockDim.y; ++lt##_y)                                   \
      for (unsigned lt##_x = 0; lt##_x < blockDim.x; ++lt##_x, ++lt)                           \
        if ((threadIdx.x = lt##_x, threadIdx.y = lt##_y, threadIdx.z = (unsigned)lt##_z,       \
             OPENHIP_MC_RECORD(lt)),                                                           \
            false) {                                                                           \
        } else
#define OPENHIP_CPU_FOR_EACH_THREAD_SIGNED(lt)                                                 \
  OPENHIP_MC_REGION_SLOT(lt)                                                                   \
  for (int lt##_z = 0, lt = 0; lt##_z < (int)blockDim.z; ++lt##_z)                             \
    for (unsigned lt##_y = 0; lt##_y < blockDim.y; ++lt##_y)                                   \
      for (int lt##_x = 0; lt##_x < (int)blockDim.x; ++lt##_x, ++lt)                           \
        if ((threadIdx.x = (unsigned)lt##_x, threadIdx.y = lt##_y,                             \
             threadIdx.z = (unsigned)lt##_z, OPENHIP_MC_RECORD(lt)),                           \
            false) {                                                                           \
        } else
#define OPENHIP_CPU_FOR_EACH_THREAD_FROM(lt, si, first)                                        \
  OPENHIP_MC_REGION_SLOT(lt)                                                                   \
  for (int lt##_z = 0, lt = 0; lt##_z < (int)blockDim.z; ++lt##_z)                             \
    for (unsigned lt##_y = 0; lt##_y < blockDim.y; ++lt##_y)                                   \
      for (decltype(first) si = (first), si##_end = (decltype(first))((first) + blockDim.x);    \
           si < si##_end; ++si, ++lt)                                                          \
        if ((threadIdx.x = (unsigned)(si - (first)), threadIdx.y = lt##_y,                     \
             threadIdx.z = (unsigned)lt##_z, OPENHIP_MC_RECORD(lt)),                           \
            false) {                                                                           \
        } else

// Dynamic shared memory (`extern __shared__ T name[];` inside a function): a local pointer,
// aligned as the worker's buffer is, instead of engine.h's static thread_local one.  The checks
// around every access (ASan's, the alignment test) keep GCC from holding a thread_local pointer
// in a register (it was reloaded for every access) and a known-aligned base lets it fold the
// alignment tests of most accesses away.
#undef OPENHIP_EXTERN_SHARED
#define OPENHIP_EXTERN_SHARED(name, ...)                                                       \
  __VA_ARGS__* const name = static_cast<__VA_ARGS__*>(                                         \
      __builtin_assume_aligned(::openhip::detail::dynamic_shared_base(), 64))

// ---- static __shared__ arrays ---------------------------------------------------------------
// They are thread_local variables of the module (one instance per worker thread), aligned to a
// page in checked mode (below) so that most have padding after them, and each declaration is
// preceded by a 32-byte guard (GCC lays a module's thread_local variables out in the reverse of
// their order, so the guard lands right after the array: an array whose size is a multiple of
// the page has a red zone too).  When the module is loaded (openhip/tools/memcheck/tls.py, from
// its symbol table) the runtime passes, as offsets in the module's TLS block, the guards and
// the padding after each array (memcheck: poisoned, an overrun into them is reported) or, for
// racecheck, the arrays (tracked); each worker marks its instances in the shadow at its first
// entry call (engine.h memcheck_entry).  The guard's declaration takes the specifiers written
// before `__shared__`: `static __shared__` is right; a qualifier (`volatile __shared__ T x`)
// is moved after `__shared__` by the CPU compiler in checked mode (compiler.py
// _checked_shared_specifiers), so it stays on x.
#define OPENHIP_MC_GUARD_NAME2(n) __openhip_mc_guard##n
#define OPENHIP_MC_GUARD_NAME(n) OPENHIP_MC_GUARD_NAME2(n)
#undef __shared__
#define __shared__                                                                            \
  thread_local __attribute__((aligned(32), used)) char OPENHIP_MC_GUARD_NAME(__COUNTER__)[32]; \
  static thread_local __attribute__((aligned(4096)))
namespace openhip {
namespace memcheck {
constexpr unsigned kMaxStaticShared = 256;
static uint64_t g_static_shared[2 * kMaxStaticShared];
static unsigned g_static_shared_n = 0;
static uint64_t g_tls_anchor = 0;
static thread_local bool t_static_marked = false;
// the TLS blocks marked so far (one per worker thread), cleared before the module is unloaded
// (openhip_memcheck_static_unmark: the blocks are freed and their memory reused)
constexpr unsigned kMaxMarked = 1024;
static uintptr_t g_marked[kMaxMarked];
static unsigned g_marked_n = 0;

__attribute__((no_sanitize_address, noinline, cold)) inline void mark_static_shared() {
  t_static_marked = true;
  const uintptr_t base = reinterpret_cast<uintptr_t>(&::openhip::detail::tstate) - g_tls_anchor;
  unsigned char* const shadow0 = reinterpret_cast<unsigned char*>(OPENHIP_MEMCHECK_SHADOW);
  if (g_static_shared_n == 0) return;
  const unsigned slot = __atomic_fetch_add(&g_marked_n, 1u, __ATOMIC_RELAXED);
  if (slot >= kMaxMarked) return;  // (not marked: never left stale)
  g_marked[slot] = base;
  for (unsigned i = 0; i < g_static_shared_n; ++i) {
    const uintptr_t a = base + g_static_shared[2 * i], e = a + g_static_shared[2 * i + 1];
#ifdef OPENHIP_RACECHECK
    // the array, whole granules inside it only (a granule shared with another variable stays
    // as it is: its accesses are not tracked)
    const uintptr_t lo = (a + 7) & ~uintptr_t(7), hi = e & ~uintptr_t(7);
    if (hi > lo) memset(shadow0 + (lo >> 3), 0xf8, (hi - lo) >> 3);
#else
    // the padding [a, e) after an array (the bytes of its granule before a stay addressable)
    uintptr_t g = a & ~uintptr_t(7);
    if (g < a) {
      if (g + 8 > e) continue;
      shadow0[g >> 3] = static_cast<unsigned char>(a - g);
      g += 8;
    }
    const uintptr_t hi = e & ~uintptr_t(7);
    if (hi > g) memset(shadow0 + (g >> 3), 0xf4, (hi - g) >> 3);
#endif
  }
}
}  // namespace memcheck
namespace detail {
void memcheck_entry() {
  if (__builtin_expect(!::openhip::memcheck::t_static_marked, 0)) {
    ::openhip::memcheck::mark_static_shared();
  }
}
}  // namespace detail
}  // namespace openhip

// memcpy, memmove and memset: GCC's -fsanitize=kernel-address leaves their calls uninstrumented
// (the kernel's are instrumented), so a kernel's copy out of bounds went unseen, and under
// initcheck its bytes (e.g. cg::memcpy_async into shared memory) stayed "never written".  The
// module's own definitions (bound to its own calls: -Wl,-Bsymbolic) check both ranges as an
// access of that size (initcheck: the destination only, marking it written; racecheck: not
// checked) and then call the C library's.
namespace openhip {
namespace memcheck {
__attribute__((no_sanitize_address)) inline bool clear_range(const void* p, size_t n) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  // (the shadow itself, which this header's own memsets write: not checked)
  if (a >= OPENHIP_MEMCHECK_SHADOW && a < OPENHIP_MEMCHECK_SHADOW + (uint64_t(1) << 44)) return true;
  for (uintptr_t g = a & ~uintptr_t(7); g < a + n; g += 8) {
    const signed char c = static_cast<signed char>(shadow_byte(g));
    // (c in 1..7: the granule's first c bytes are addressable)
    if (c != 0 && (c < 0 || (a + n < g + 8 ? a + n : g + 8) > g + static_cast<uintptr_t>(c)))
      return false;
  }
  return true;
}
// the ranges of a copy of n bytes from s (nullptr: a memset) to d
__attribute__((no_sanitize_address)) inline void check_copy(void* d, const void* s, size_t n,
                                                            void* pc) {
  if (n == 0) return;
#ifdef OPENHIP_RACECHECK
  return;  // (its words are 4 bytes: a group copying a few bytes per thread would "race")
#endif
#ifndef OPENHIP_INITCHECK
  if (s != nullptr && !clear_range(s, n)) bad_access(reinterpret_cast<uintptr_t>(s), n, false, pc);
#endif
  if (!clear_range(d, n)) bad_access(reinterpret_cast<uintptr_t>(d), n, true, pc);
}
template <class F>
__attribute__((no_sanitize_address)) inline F libc(F& cached, const char* name) {
  if (cached == nullptr) cached = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  return cached;
}
}  // namespace memcheck
}  // namespace openhip
extern "C" __attribute__((visibility("hidden"), used, no_sanitize_address)) void* memcpy(
    void* __restrict d, const void* __restrict s, size_t n) noexcept {
  static void* (*real)(void*, const void*, size_t) = nullptr;
  ::openhip::memcheck::check_copy(d, s, n, __builtin_return_address(0));
  return ::openhip::memcheck::libc(real, "memcpy")(d, s, n);
}
extern "C" __attribute__((visibility("hidden"), used, no_sanitize_address)) void* memmove(
    void* d, const void* s, size_t n) noexcept {
  static void* (*real)(void*, const void*, size_t) = nullptr;
  ::openhip::memcheck::check_copy(d, s, n, __builtin_return_address(0));
  return ::openhip::memcheck::libc(real, "memmove")(d, s, n);
}
extern "C" __attribute__((visibility("hidden"), used, no_sanitize_address)) void* memset(
    void* d, int c, size_t n) noexcept {
  static void* (*real)(void*, int, size_t) = nullptr;
  ::openhip::memcheck::check_copy(d, nullptr, n, __builtin_return_address(0));
  return ::openhip::memcheck::libc(real, "memset")(d, c, n);
}


#ifdef OPENHIP_INITCHECK
// ---- initcheck: shared memory never written ----------------------------------------------------
// Before each block runs (engine.h entry, one block at a time in initcheck mode) the launch's
// dynamic shared memory and the module's static __shared__ arrays (their whole granules; the
// arrays' places come from the module's symbol table like the padding's) are marked never
// written (0xf7); a write marks what it writes, a read of the rest is reported.
namespace openhip {
namespace memcheck {
static uint64_t g_init_arrays[2 * kMaxStaticShared];
static unsigned g_init_arrays_n = 0;
__attribute__((no_sanitize_address)) inline void mark_uninit(uintptr_t a, uint64_t n) {
  unsigned char* const shadow0 = reinterpret_cast<unsigned char*>(OPENHIP_MEMCHECK_SHADOW);
  const uintptr_t lo = (a + 7) & ~uintptr_t(7), hi = (a + n) & ~uintptr_t(7);
  if (hi > lo) memset(shadow0 + (lo >> 3), 0xf7, (hi - lo) >> 3);
}
__attribute__((no_sanitize_address)) bool in_static_shared(uintptr_t a) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(&::openhip::detail::tstate) - g_tls_anchor;
  for (unsigned i = 0; i < g_init_arrays_n; ++i) {
    const uintptr_t lo = base + g_init_arrays[2 * i];
    if (a >= lo && a < lo + g_init_arrays[2 * i + 1]) return true;
  }
  return false;
}
}  // namespace memcheck
namespace detail {
__attribute__((no_sanitize_address)) void initcheck_block(const openhip_launch* L) {
  namespace mc = ::openhip::memcheck;
  if (tstate.dyn != nullptr && L->shared_mem != 0) {
    mc::mark_uninit(reinterpret_cast<uintptr_t>(tstate.dyn), L->shared_mem);
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(&tstate) - mc::g_tls_anchor;
  for (unsigned i = 0; i < mc::g_init_arrays_n; ++i) {
    mc::mark_uninit(base + mc::g_init_arrays[2 * i], mc::g_init_arrays[2 * i + 1]);
  }
}
}  // namespace detail
}  // namespace openhip

// The module's static __shared__ arrays, as (TLS offset, bytes) pairs (initcheck mode).
extern "C" __attribute__((visibility("default"), used)) void openhip_memcheck_static_arrays(
    const uint64_t* pairs, unsigned n) {
  namespace mc = ::openhip::memcheck;
  n = n < mc::kMaxStaticShared ? n : mc::kMaxStaticShared;
  for (unsigned i = 0; i < 2 * n; ++i) mc::g_init_arrays[i] = pairs[i];
  mc::g_init_arrays_n = n;
}
#endif

// Clears what the workers marked (the module is about to be unloaded; no kernel of it runs).
extern "C" __attribute__((visibility("default"), used, no_sanitize_address)) void
openhip_memcheck_static_unmark() {
  namespace mc = ::openhip::memcheck;
  const unsigned n = mc::g_marked_n < mc::kMaxMarked ? mc::g_marked_n : mc::kMaxMarked;
  unsigned char* const shadow0 = reinterpret_cast<unsigned char*>(OPENHIP_MEMCHECK_SHADOW);
  auto clear = [shadow0](uintptr_t a, uint64_t bytes) {
    const uintptr_t lo = a & ~uintptr_t(7);
    const uintptr_t hi = (a + bytes + 7) & ~uintptr_t(7);
    memset(shadow0 + (lo >> 3), 0, (hi - lo) >> 3);
  };
  for (unsigned k = 0; k < n; ++k) {
    for (unsigned i = 0; i < mc::g_static_shared_n; ++i) {
      clear(mc::g_marked[k] + mc::g_static_shared[2 * i], mc::g_static_shared[2 * i + 1]);
    }
#ifdef OPENHIP_INITCHECK
    for (unsigned i = 0; i < mc::g_init_arrays_n; ++i) {  // (what initcheck_block marked)
      clear(mc::g_marked[k] + mc::g_init_arrays[2 * i], mc::g_init_arrays[2 * i + 1]);
    }
#endif
  }
  mc::g_marked_n = 0;
}

extern "C" __attribute__((visibility("default"), used)) void openhip_memcheck_static_shared(
    const uint64_t* pairs, unsigned n, uint64_t anchor) {
  namespace mc = ::openhip::memcheck;
  n = n < mc::kMaxStaticShared ? n : mc::kMaxStaticShared;
  for (unsigned i = 0; i < 2 * n; ++i) mc::g_static_shared[i] = pairs[i];
  mc::g_tls_anchor = anchor;
  mc::g_static_shared_n = n;
}

#ifdef OPENHIP_RACECHECK
// ---- racecheck: shared-memory hazards between barriers --------------------------------------
// Every access to the launch's dynamic shared memory reaches race_access (the runtime marks it
// kTracked).  Per 4-byte word this worker keeps, for the current barrier interval (the phase:
// a new one at each block start and barrier release), the last thread that wrote it and the
// first two threads that read it, with their code addresses.  A write after another
// thread's write or read, or a read after another thread's write, within one interval is a
// hazard (two threads touching the word with no barrier between them, one writing): the launch
// fails with hipErrorLaunchFailure and the report names both accesses.  A block's threads run
// one after another on one OS thread, so one interval's accesses all reach this table.
namespace openhip {
namespace detail {
static thread_local uint64_t t_race_phase = 0;
void racecheck_phase() { ++t_race_phase; }
// A warp-level sync (a warp's exchange or __syncwarp, a tile's sync) orders the accesses of the
// warp's own lanes only: each warp of the block has an epoch, a new one at each of its syncs,
// and an access records its warp's epoch; two accesses of one warp are ordered when the epoch
// changed between them, accesses of two warps only by a barrier (a new phase).  A group wider
// than a warp ends the interval for the whole block, as a barrier (no false report).
static thread_local uint64_t t_warp_epoch[32];  // (1024 threads: 32 warps)
static thread_local uint64_t t_epoch_clock = 0;
void racecheck_sync(unsigned first, unsigned end) {
  if (end <= first || (first >> 5) != ((end - 1) >> 5) || (first >> 5) >= 32) {
    racecheck_phase();
    return;
  }
  t_warp_epoch[first >> 5] = ++t_epoch_clock;
}
}  // namespace detail
namespace memcheck {
struct RaceWord {
  uintptr_t addr;
  uint64_t phase;
  unsigned writer, reader, reader2;  // linear thread ids (~0u: none); reader2 != reader
  void *wpc, *rpc, *rpc2;
  uint64_t wepoch, repoch, repoch2;  // the epoch of the access's warp when it happened
};
constexpr unsigned kRaceWords = 1u << 15;  // (128 KiB of shared memory tracked exactly)
static thread_local RaceWord t_race[kRaceWords];

__attribute__((no_sanitize_address)) inline unsigned race_thread() {
  const ::openhip::detail::Block* b = ::openhip::detail::tstate.block;
  if (b != nullptr) return b->fibers[b->cur].linear;  // fiber mode
  return ::openhip::detail::tstate.diag_thread;     // loop and regions modes record it
}

__attribute__((no_sanitize_address)) inline void race_where(char* out, size_t cap, void* pc) {
  Dl_info info{};
  out[0] = 0;
  if (pc != nullptr && dladdr(pc, &info) && info.dli_fname != nullptr) {
    snprintf(out, cap, " [pc %s+0x%llx]", info.dli_fname,
             static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pc) -
                                             reinterpret_cast<uintptr_t>(info.dli_fbase)));
  }
}

__attribute__((no_sanitize_address, noinline, cold)) inline void race_report(
    uintptr_t a, const char* kind, bool first_write, unsigned first, void* first_pc, bool write,
    unsigned me, void* pc) {
  const unsigned bx = blockDim.x ? blockDim.x : 1, by = blockDim.y ? blockDim.y : 1;
  char w1[320], w2[320];
  race_where(w1, sizeof w1, first_pc);
  race_where(w2, sizeof w2, pc);
  snprintf(t_what, sizeof t_what,
           "racecheck: Race hazard (%s) on __shared__ memory at 0x%llx of size 4 bytes: %s by "
           "thread (%u,%u,%u)%s then %s by thread (%u,%u,%u)%s", kind,
           static_cast<unsigned long long>(a), first_write ? "Write" : "Read", first % bx,
           (first / bx) % by, first / (bx * by), w1, write ? "Write" : "Read", me % bx,
           (me / bx) % by, me / (bx * by), w2);
  openhip_worker* w = ::openhip::detail::tstate.worker;
  if (w == nullptr || !w->in_kernel || w->on_fault == nullptr) return;
  w->in_kernel = 0;
  w->fault_signal = SIGSEGV;
  w->fault_code = 0;
  w->fault_status = 719;  // hipErrorLaunchFailure
  w->fault_addr = reinterpret_cast<void*>(a);
  w->fault_what = t_what;
  w->on_fault(w);
}

__attribute__((no_sanitize_address, noinline)) void race_access(uintptr_t a, uint64_t n,
                                                              bool write, void* pc) {
  const uint64_t phase = ::openhip::detail::t_race_phase;
  const unsigned me = race_thread();
  const uint64_t epoch = ::openhip::detail::t_warp_epoch[(me >> 5) & 31];
  // whether an earlier access of thread `t` at its warp's epoch `ep` conflicts with this one
  auto racing = [me, epoch](unsigned t, uint64_t ep) {
    return t != ~0u && t != me && ((t >> 5) != (me >> 5) || ep == epoch);
  };
  for (uintptr_t word = a & ~uintptr_t(3); word < a + n; word += 4) {
    RaceWord& e = t_race[(word >> 2) & (kRaceWords - 1)];
    if (e.addr != word || e.phase != phase) {
      e.addr = word;
      e.phase = phase;
      e.writer = e.reader = e.reader2 = ~0u;
    }
    if (racing(e.writer, e.wepoch)) {
      race_report(word, write ? "write-after-write" : "read-after-write", true, e.writer, e.wpc,
                  write, me, pc);
    }
    if (write && racing(e.reader, e.repoch)) {
      race_report(word, "write-after-read", false, e.reader, e.rpc, write, me, pc);
    }
    if (write && racing(e.reader2, e.repoch2)) {
      race_report(word, "write-after-read", false, e.reader2, e.rpc2, write, me, pc);
    }
    if (write) {
      e.writer = me;
      e.wpc = pc;
      e.wepoch = epoch;
      e.reader = e.reader2 = ~0u;  // (ordered after them, or reported)
    } else if (e.reader == ~0u || e.reader == me) {
      e.reader = me;
      e.rpc = pc;
      e.repoch = epoch;
    } else if (e.reader2 == ~0u || e.reader2 == me) {
      e.reader2 = me;
      e.rpc2 = pc;
      e.repoch2 = epoch;
    }
  }
}
}  // namespace memcheck
}  // namespace openhip

#endif
