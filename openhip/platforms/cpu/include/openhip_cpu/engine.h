// openhip CPU platform: the execution engine compiled into every kernel module.
//
// What it provides
//   * the HIP qualifiers, dim3, threadIdx/blockIdx/blockDim/gridDim, warpSize (= 32);
//   * static __shared__ (thread_local: a block runs wholly on one worker thread) and dynamic
//     shared memory (OPENHIP_EXTERN_SHARED, HIP_DYNAMIC_SHARED);
//   * __syncthreads and its _count/_and/_or forms, __syncwarp, __threadfence*;
//   * the warp exchange primitive (openhip::detail::warp_exchange) the warp functions use;
//   * the three ways of running a block, chosen per kernel when the module is compiled:
//       loop mode   - no barrier, no warp function: the block's threads are a plain loop
//                     (x innermost) into which the kernel is inlined, so the C++ compiler
//                     vectorises it like hand-written code;
//       regions mode - only __syncthreads() barriers, reached by every thread (checked by the
//                     compiler driver, regions.py): the kernel is split at its barriers into
//                     a function that runs a whole block, each region a thread loop
//                     (OPENHIP_CPU_FOR_EACH_THREAD), values living across barriers kept per
//                     thread in a scratch area (region_scratch);
//       fiber mode  - each GPU thread of the block is a fiber with its own stack; a fiber runs
//                     until it reaches a barrier or a warp operation, then the next ready fiber
//                     runs (fiber.h has the context switch, 6 pushes/pops and a ret).
//   * the per-kernel C entry points (OPENHIP_CPU_KERNEL_ENTRY, used by the generated footer).
//
// State lives in `static thread_local` variables private to the module.  threadIdx & co are
// separate, never address-taken variables on purpose: the compiler then knows that no pointer
// store in a kernel can change them, keeps them in registers and vectorises loop mode.
// (Don't write `&threadIdx` or bind a reference to it in engine code.)
//
// warpSize is 32: CUDA's value and RDNA's, so CUDA-derived code with 0xffffffff masks and
// `__shfl_down(v, 16)` reduction loops is right unchanged (a 64-wide CPU warp would leave lanes
// 32-63 out of such masks, HIP-CPU's defect).  Lanes are linear thread ids modulo 32.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "openhip_cpu/abi.h"
#include "openhip_cpu/fiber.h"

#define __HIP_PLATFORM_OPENHIP_CPU__ 1
#define OPENHIP_CPU_WARP_SIZE 32

// ---- qualifiers -------------------------------------------------------------------------------
// Kernels are inline so the entry point can inline them into the thread loop (loop mode) or the
// fiber body; every __global__ function a module exports is odr-used by its footer.
#define __global__ inline __attribute__((always_inline))
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
// Note: libstdc++'s <memory> spells __attribute__((__noinline__)); include it before this header.
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#ifndef __host__device__
#define __host__device__
#endif

// ---- dim3 and the thread coordinates -------------------------------------------------------------
namespace openhip {
namespace detail {
// The type of threadIdx/blockIdx/blockDim/gridDim: a trivial aggregate (see the note at the top).
struct index3 {
  unsigned int x, y, z;
};
}  // namespace detail
}  // namespace openhip

struct dim3 {
  uint32_t x, y, z;
  constexpr dim3(uint32_t vx = 1, uint32_t vy = 1, uint32_t vz = 1) : x(vx), y(vy), z(vz) {}
  // By value, so that `dim3 b = blockDim;` does not take blockDim's address.
  constexpr dim3(::openhip::detail::index3 i) : x(i.x), y(i.y), z(i.z) {}
};

static thread_local ::openhip::detail::index3 threadIdx, blockIdx, blockDim, gridDim;
// A second name for threadIdx (same storage): the fiber scheduler writes threadIdx through a
// pointer taken from this alias, so threadIdx itself stays never address-taken (see above) and
// a switch needs no TLS lookup.  (_ZL9threadIdx: the Itanium name of the static above.)
extern __thread ::openhip::detail::index3 openhip_cpu_threadIdx_alias
    __attribute__((alias("_ZL9threadIdx"), visibility("hidden")));
static constexpr int warpSize = OPENHIP_CPU_WARP_SIZE;

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

namespace openhip {
namespace detail {

// ---- per-OS-thread engine state of this module ---------------------------------------------------
enum : unsigned { kReady = 0, kAtBarrier = 1, kInWarpOp = 2, kDone = 3 };

// One cache line per fiber: the scheduler touches these fields on every switch.
struct alignas(64) Fiber {
  void* sp;                 // saved stack pointer while switched out
  unsigned x, y, z;         // threadIdx
  unsigned linear;          // x + y*bx + z*bx*by
  unsigned state;           // kReady (running or runnable), kAtBarrier, kInWarpOp, kDone
  unsigned line;            // source line of the barrier it waits at (for messages)
  uint64_t want;            // lanes its pending warp exchange waits for
  uint64_t* out;            // this lane's copy of the values of its last warp exchange (32)
};

struct Warp {
  uint64_t live;            // lanes that exist and have not exited
  uint64_t pending;         // lanes that deposited a value and wait for the rest of their mask
  uint64_t vals[32];        // deposited values, index = lane
};

struct Block {
  Fiber* fibers;
  Warp* warps;
  unsigned n, nwarps;
  unsigned live;            // fibers not done
  unsigned ready;           // fibers in kReady (the running one included)
  unsigned cur;             // index of the running fiber
  unsigned bar_arrived;     // fibers waiting at the barrier now
  unsigned bar_line;        // its source line
  unsigned bar_count;       // predicates that were true so far (__syncthreads_count & co)
  unsigned res_count, res_n;  // result of the last barrier: true predicates, participants
  void* home_sp;            // the worker's own context, resumed when the block is finished
  void (*body)(const void*);  // runs the kernel for the current fiber
  const void* args;
  unsigned char* stacks;
  uint64_t stack_size;
  index3* tid;              // this OS thread's threadIdx (through the alias)
};

struct ThreadState {
  Block* block;              // fiber mode: the block being run; loop mode: nullptr
  unsigned char* dyn;        // the worker's dynamic shared memory (fixed per OS thread)
  openhip_worker* worker;
  const char* kernel;        // name of the running kernel, for messages
  const char* violation;     // loop mode: a barrier/warp function was reached (what)
  unsigned violation_line;
  int status;                // hipError_t of a failure that jumped out
  void* jb[5];               // __builtin_setjmp buffer: where a failure inside a kernel lands
  const int* cancel;         // the worker's cancel flag (abi.h): checked at block boundaries
  volatile uint64_t cur_block;  // linear id of the block being run (stored once per block)
  int faulted;               // the jump to jb came from a fault (on_fault)
  int diagnosing;            // loop mode: rerunning a faulted block one thread at a time
  volatile unsigned diag_thread;  // the thread of that rerun being run
  uint64_t fault_block;      // cur_block when the fault happened
  void* diag_jb[5];          // where a fault during the rerun lands
};
static thread_local ThreadState tstate;

#ifdef OPENHIP_RACECHECK
// Racecheck mode (openhip/tools/memcheck/include): a new barrier interval of the block begins
// (a block's start, a barrier's release, a region of a split kernel); defined in that header.
void racecheck_phase();
// ... and threads [first, end) of the block synchronised among themselves (a warp's exchange or
// __syncwarp, a tile's sync): it orders their accesses only, not other warps'.
void racecheck_sync(unsigned first, unsigned end);
#endif
#ifdef OPENHIP_INITCHECK
// Initcheck (the checked header): before each block runs, its shared memory (the launch's
// dynamic bytes and the module's static arrays) is marked never written.
void initcheck_block(const openhip_launch* L);
#endif

// ---- failures ------------------------------------------------------------------------------------
// Records `status` and a message in the worker and jumps out of the kernel (from any fiber
// stack) back to the entry point, which returns the status to the runtime.
[[noreturn]] __attribute__((noinline, cold, format(printf, 2, 3))) inline void fail(
    int status, const char* fmt, ...) {
  openhip_worker* w = tstate.worker;
  if (w != nullptr) {
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    vsnprintf(w->error, sizeof w->error, fmt, ap);
    __builtin_va_end(ap);
  }
  tstate.status = status;
  __builtin_longjmp(tstate.jb, 1);
}

inline const char* kernel_name() { return tstate.kernel ? tstate.kernel : "?"; }

// The recovery function of this module (openhip_worker::on_fault): called by the runtime's
// signal handler, on the faulting worker thread's signal stack, for a fault in kernel code.
// Jumps back to the entry point (or, while a faulted block is rerun to find its thread, to the
// rerun's landing pad); the entry point reports the fault.
[[noreturn]] __attribute__((noinline, cold)) inline void on_fault(openhip_worker*) {
  if (tstate.diagnosing) __builtin_longjmp(tstate.diag_jb, 1);
  tstate.faulted = 1;
  tstate.fault_block = tstate.cur_block;
  __builtin_longjmp(tstate.jb, 1);
}

// The start of a block: remembers which block runs (for fault reports; a volatile store, so the
// compiler keeps it in place) and stops the launch when it was cancelled (abi.h).  Once per
// block: nothing is added per thread.  The flag is read as a volatile, not with __atomic_load:
// GCC treats an atomic load as a memory clobber, which keeps it from sinking the thread loop's
// stores to threadIdx and from splitting the loop at its bounds check (loop mode then ran with
// masked loads, or not vectorised at all: test_loop_mode_vectorises).
[[noreturn]] __attribute__((noinline, cold)) inline void block_cancelled() {
  tstate.status = *static_cast<const volatile int*>(tstate.cancel);
  if (tstate.worker != nullptr) tstate.worker->error[0] = 0;
  __builtin_longjmp(tstate.jb, 1);
}
// The two words a block loop touches, addressed once before the loop (a TLS lookup per block
// would be a __tls_get_addr call per block in a shared object).
struct BlockWatch {
  volatile uint64_t* cur_block;
  const volatile int* cancel;
};
__attribute__((always_inline)) inline BlockWatch block_watch() {
  return BlockWatch{&tstate.cur_block, static_cast<const volatile int*>(tstate.cancel)};
}
__attribute__((always_inline)) inline void block_boundary(const BlockWatch& w, uint64_t blk) {
  *w.cur_block = blk;
  if (__builtin_expect(*w.cancel != 0, 0)) block_cancelled();
}

// A barrier or warp function reached by a kernel compiled in loop mode: the results would be
// wrong, so the launch fails (after the current block) instead of returning them.
__attribute__((noinline, cold)) inline void loop_violation(const char* what, unsigned line) {
  if (tstate.violation == nullptr) {
    tstate.violation = what;
    tstate.violation_line = line;
  }
}

}  // namespace detail

namespace detail {
// Called by __trap(), abort() and failed device assert() (see intrinsics.h): fails the launch.
[[noreturn]] __attribute__((noinline, cold, visibility("hidden"))) void device_trap(
    const char* message);
[[noreturn]] void device_trap(const char* message) {
  const bool is_assert = message != nullptr && strstr(message, "assertion") != nullptr;
  fail(is_assert ? 710 /* hipErrorAssert */ : 719 /* hipErrorLaunchFailure */,
       "kernel '%s' block (%u,%u,%u) thread (%u,%u,%u): %s", kernel_name(), blockIdx.x,
       blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z,
       message ? message : "trap");
}

// ---- the fiber scheduler -------------------------------------------------------------------------
// Makes fiber i the running one: its coordinates become threadIdx (the only place besides the
// loop runner that writes threadIdx).
__attribute__((always_inline)) inline void enter(Block* b, unsigned i) {
  const Fiber& f = b->fibers[i];
  b->cur = i;
  b->tid->x = f.x;
  b->tid->y = f.y;
  b->tid->z = f.z;
}

// The fiber region (abi.h), the same for every worker thread: set by fiber_run.
static unsigned char* g_fiber_region;
static uint64_t g_fiber_region_size;
static unsigned g_fiber_slot_shift;

// The block of the fiber running this code, found from the stack pointer (the header of the
// worker's slot in the fiber region); nullptr when not on a fiber stack, i.e. in loop mode.
__attribute__((always_inline)) inline Block* current_block() {
  const uintptr_t sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  const uintptr_t region = reinterpret_cast<uintptr_t>(
      __atomic_load_n(&g_fiber_region, __ATOMIC_RELAXED));
  const uintptr_t off = sp - region;
  if (off >= __atomic_load_n(&g_fiber_region_size, __ATOMIC_RELAXED)) return nullptr;
  const unsigned shift = __atomic_load_n(&g_fiber_slot_shift, __ATOMIC_RELAXED);
  return *reinterpret_cast<Block* const*>(region + ((off >> shift) << shift));
}

[[noreturn]] __attribute__((noinline, cold)) inline void deadlock(Block* b) {
  unsigned at_barrier = 0, in_warp = 0, done = 0, line = 0;
  for (unsigned i = 0; i < b->n; ++i) {
    const unsigned s = b->fibers[i].state;
    at_barrier += s == kAtBarrier;
    in_warp += s == kInWarpOp;
    done += s == kDone;
    if (s == kAtBarrier) line = b->fibers[i].line;
  }
  fail(719,
       "kernel '%s': deadlock in block (%u,%u,%u): of its %u threads %u wait at __syncthreads "
       "(line %u), %u wait in a warp operation for lanes that never arrive, %u have exited; "
       "none can proceed (a barrier or warp function inside divergent control flow, or a warp "
       "mask naming lanes that do not take part)",
       kernel_name(), blockIdx.x, blockIdx.y, blockIdx.z, b->n, at_barrier, line, in_warp, done);
}

// The running fiber has stopped being ready (it waits or has finished): run the next ready one,
// round robin from the current position.  Returns when someone makes this fiber ready again and
// switches back to it.  No ready fiber left while some are live: nothing can ever wake them.
__attribute__((always_inline)) inline void block_wait(Block* b) {
  if (b->ready == 0) deadlock(b);
  const unsigned from = b->cur;
  unsigned i = from;
  do {
    i = (i + 1 == b->n) ? 0 : i + 1;
  } while (b->fibers[i].state != kReady);
  enter(b, i);
  // Switches mostly go round robin: fetch the fiber after next (its record and the top of its
  // stack) now, so it is in L1 when its turn comes (256 fibers' stacks do not fit in L1).
#ifndef OPENHIP_CPU_NO_PREFETCH
  const unsigned after = (i + 1 == b->n) ? 0 : i + 1;
  __builtin_prefetch(&b->fibers[after]);
  __builtin_prefetch(b->fibers[after].sp);
  __builtin_prefetch(static_cast<char*>(b->fibers[after].sp) + 64);
#endif
  openhip_cpu_switch(&b->fibers[from].sp, b->fibers[i].sp);
  // Resumed: the fiber that switched here has already called enter(b, from).
}

// Opens the barrier: every fiber waiting at it becomes ready (`waiting` of them).
__attribute__((always_inline)) inline void release_barrier(Block* b, unsigned waiting) {
  b->res_count = b->bar_count;
  b->res_n = b->bar_arrived;
  for (unsigned i = 0; i < b->n; ++i) {
    if (b->fibers[i].state == kAtBarrier) b->fibers[i].state = kReady;
  }
  b->ready += waiting;
  b->bar_arrived = 0;
#ifdef OPENHIP_RACECHECK
  racecheck_phase();
#endif
}

// All lanes of `want` have deposited: give each of them a copy of the values (entries of lanes
// outside `want` read 0) and the final participant mask, and make the waiting ones ready.  (A
// private copy per lane, because groups with disjoint masks may complete in any order and the
// result must stay valid until that lane's next exchange.)
inline void warp_complete(Block* b, Warp& w, unsigned base, uint64_t want) {
#ifdef OPENHIP_RACECHECK
  racecheck_sync(base, base + 32);  // a warp's exchange or __syncwarp orders its lanes
#endif
  uint64_t vals[32];
  for (unsigned l = 0; l < 32; ++l) vals[l] = (want >> l & 1) ? w.vals[l] : 0;
  for (uint64_t m = want; m != 0; m &= m - 1) {
    Fiber& g = b->fibers[base + __builtin_ctzll(m)];
    memcpy(g.out, vals, sizeof vals);
    g.want = want;
    if (g.state == kInWarpOp) {
      g.state = kReady;
      ++b->ready;
    }
  }
  w.pending &= ~want;
}

// The running fiber finished the kernel.  Exited threads never block a barrier or a warp
// exchange, so both are re-checked.  Parks the fiber; it is resumed here to run the next block.
// (no_sanitize_address: in memcheck mode these frames stay on a parked fiber's stack when the
// entry call ends, and a frame that never returns would leave its red zones poisoned under the
// next call's frames.)
__attribute__((noinline, no_sanitize_address)) inline void fiber_finish(Block* b) {
  Fiber& f = b->fibers[b->cur];
  f.state = kDone;
  --b->live;
  --b->ready;
  Warp& w = b->warps[f.linear >> 5];
  w.live &= ~(uint64_t(1) << (f.linear & 31));
  for (uint64_t p = w.pending; p != 0; p &= p - 1) {
    Fiber& g = b->fibers[(f.linear & ~31u) + __builtin_ctzll(p)];
    const uint64_t want = g.want & w.live;
    g.want = want;
    if ((w.pending & want) == want && (w.pending >> __builtin_ctzll(p) & 1)) {
      warp_complete(b, w, f.linear & ~31u, want);
    }
  }
  if (b->bar_arrived != 0 && b->bar_arrived == b->live) {
    release_barrier(b, b->bar_arrived);  // all of them wait; the finishing fiber is not one
  }
  if (b->live == 0) {
    openhip_cpu_switch(&f.sp, b->home_sp);  // back to run_fibers; resumed for the next block
    return;
  }
  block_wait(b);  // deadlock if nobody is ready; else resumed for the next block
}

// Where every fiber starts: run the kernel for one thread, park, repeat for the next block.
__attribute__((no_sanitize_address)) inline void fiber_main() {
  for (;;) {
    Block* b = current_block();
    b->body(b->args);
    fiber_finish(current_block());
  }
}

// ---- barriers and warp exchange (used by __syncthreads & co. and by warp.h) ---------------------
// kind: 0 plain, 1 count, 2 and, 3 or.  `line` identifies the barrier: every waiting thread
// must be at the same __syncthreads; threads at two different ones can never all meet (the
// GPU's undefined behaviour), which is reported as a deadlock at once.
__attribute__((noinline)) inline int barrier(unsigned line, int pred, int kind) {
  Block* b = current_block();
  if (__builtin_expect(b == nullptr, 0)) {
    loop_violation("__syncthreads", line);
    return pred;
  }
  if (b->bar_arrived == 0) {
    b->bar_line = line;
    b->bar_count = 0;
  } else if (b->bar_line != line) {
    fail(719,
         "kernel '%s': deadlock in block (%u,%u,%u): thread (%u,%u,%u) reached __syncthreads on "
         "line %u while %u other threads wait at __syncthreads on line %u (a barrier inside "
         "divergent control flow: undefined behaviour on a GPU, where it may hang)",
         kernel_name(), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
         threadIdx.z, line, b->bar_arrived, b->bar_line);
  }
  b->bar_count += pred != 0;
  if (++b->bar_arrived == b->live) {
    // The last one to arrive opens the barrier and carries on (it never stopped being ready).
    release_barrier(b, b->bar_arrived - 1);
  } else {
    Fiber& f = b->fibers[b->cur];
    f.state = kAtBarrier;
    f.line = line;
    --b->ready;
    block_wait(b);
  }
  switch (kind) {
    case 1: return static_cast<int>(b->res_count);
    case 2: return b->res_count == b->res_n;
    case 3: return b->res_count != 0;
    default: return 0;
  }
}

inline unsigned linear_thread_id() {
  Block* b = current_block();
  if (b != nullptr) return b->fibers[b->cur].linear;
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// ---- the contract with the warp functions (warp.h) -------------------------------------------------
inline unsigned lane_id() { return linear_thread_id() & 31u; }
inline unsigned warp_id() { return linear_thread_id() >> 5; }

// Lanes of this warp that exist and have not exited.
inline uint64_t warp_live_mask() {
  Block* b = current_block();
  if (b == nullptr) {
    loop_violation("a warp function", 0);
    return 0xffffffffu;
  }
  return b->warps[b->fibers[b->cur].linear >> 5].live;
}

// Every lane in `mask` (intersected with the live lanes; the caller always included) deposits
// `value`; returns once all of them have, with the warp's 32 deposited values (index = lane),
// valid until this lane's next warp_exchange.
__attribute__((noinline)) inline const uint64_t* warp_exchange(uint64_t value, uint64_t mask) {
  Block* b = current_block();
  if (__builtin_expect(b == nullptr, 0)) {
    loop_violation("a warp function", 0);
    static thread_local uint64_t none[32];
    for (unsigned i = 0; i < 32; ++i) none[i] = value;
    return none;
  }
  Fiber& f = b->fibers[b->cur];
  const unsigned lane = f.linear & 31u;
  Warp& w = b->warps[f.linear >> 5];
  const uint64_t bit = uint64_t(1) << lane;
  const uint64_t want = (mask & w.live) | bit;
  w.vals[lane] = value;
  w.pending |= bit;
  f.want = want;
  if ((w.pending & want) == want) {
    warp_complete(b, w, f.linear & ~31u, want);
  } else {
    f.state = kInWarpOp;
    --b->ready;
    block_wait(b);
  }
  return f.out;
}

inline void warp_sync(uint64_t mask) { (void)warp_exchange(0, mask); }

// The lanes that took part in this lane's last warp_exchange (its values are valid for exactly
// these lanes; others read 0).  Lanes that exit while an exchange waits drop out of it, so this
// can be smaller than `mask & warp_live_mask()` read before the call.
inline uint64_t warp_exchange_mask() {
  Block* b = current_block();
  return b != nullptr ? b->fibers[b->cur].want : 0xffffffffu;
}

// Base of the worker's dynamic shared memory (the same address for the OS thread's lifetime).
inline unsigned char* dynamic_shared_base() { return tstate.dyn; }

// The namespace-scope dynamic shared arrays of the module (OPENHIP_EXTERN_SHARED_NS): each
// registers a setter when the module is loaded; entry() points them at the worker's buffer.
struct DynSharedSetter;
static DynSharedSetter* g_dyn_shared_setters;
struct DynSharedSetter {
  void (*set)(unsigned char*);
  DynSharedSetter* next;
  explicit DynSharedSetter(void (*f)(unsigned char*)) : set(f), next(g_dyn_shared_setters) {
    g_dyn_shared_setters = this;
  }
};
inline void point_dyn_shared(unsigned char* base) {
  for (DynSharedSetter* s = g_dyn_shared_setters; s != nullptr; s = s->next) s->set(base);
}

// ---- running blocks ----------------------------------------------------------------------------
template <unsigned... I>
struct Seq {};
template <unsigned N, unsigned... I>
struct MakeSeq : MakeSeq<N - 1, N - 1, I...> {};
template <unsigned... I>
struct MakeSeq<0, I...> {
  using type = Seq<I...>;
};

template <unsigned I, class T>
struct Leaf {
  T value;
};
template <class S, class... A>
struct TupleImpl;
template <unsigned... I, class... A>
struct TupleImpl<Seq<I...>, A...> : Leaf<I, A>... {};
template <class... A>
using Tuple = TupleImpl<typename MakeSeq<sizeof...(A)>::type, A...>;
template <unsigned I, class T>
__attribute__((always_inline)) inline T& get(Leaf<I, T>& leaf) {
  return leaf.value;
}

template <class F>
struct Signature;
template <class... A>
struct Signature<void (*)(A...)> {
  using Args = Tuple<A...>;
  using Indices = typename MakeSeq<sizeof...(A)>::type;
  static constexpr unsigned count = sizeof...(A);
  template <unsigned... I>
  static void load(Args& t, const void* const* p, Seq<I...>) {
    (void)p;
    (void)t;
    ((void)memcpy(static_cast<void*>(&get<I>(t)), p[I], sizeof(A)), ...);
  }
  template <unsigned... I>
  static void sizes(uint64_t* out, Seq<I...>) {
    (void)out;
    ((void)(out[I] = sizeof(A)), ...);
  }
};

// Blocks run in linear order (x fastest, then y, then z): the coordinates of block `b`, and
// the step to the next one.
__attribute__((always_inline)) inline void first_block(uint64_t b, unsigned gx, unsigned gy,
                                                       unsigned& ix, unsigned& iy, unsigned& iz) {
  ix = static_cast<unsigned>(b % gx);
  iy = static_cast<unsigned>((b / gx) % gy);
  iz = static_cast<unsigned>(b / (uint64_t(gx) * gy));
}
__attribute__((always_inline)) inline void next_block(unsigned& ix, unsigned& iy, unsigned& iz,
                                                      unsigned gx, unsigned gy) {
  if (++ix == gx) {
    ix = 0;
    if (++iy == gy) {
      iy = 0;
      ++iz;
    }
  }
}

// Loop mode: the threads of each block are a loop with x innermost; K is inlined into it.
// Form 0 is the general loop.  Forms 1 and 2 are for launches whose global x index
// blockIdx.x * blockDim.x + threadIdx.x fits in an int (checked before they are chosen): their
// loop counter is that global index itself, so that the kernel's usual bounds check
// `if (i < n)` compares the loop counter, and GCC splits the loop at it (one loop without the
// check up to n, one with the rest) instead of vectorising the check with masked loads and
// stores (microcoded on AMD Zen: about 3x slower) or not at all.  GCC does so only when the
// counter has the type of the kernel's i: form 1 counts in int (CUDA's usual
// `int i = blockIdx.x * blockDim.x + threadIdx.x`), form 2 in 64 bits
// (`size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x`); each form leaves the other
// kind of kernel scalar.  loop_run times both on a kernel's first launches, keeps the faster.
template <auto K, int Form, class... A>
__attribute__((noinline)) void loop_blocks(const openhip_launch* L, uint64_t b0, uint64_t b1,
                                           A... a) {
  const unsigned gx = L->grid[0], gy = L->grid[1];
  const unsigned bx = L->block[0], by = L->block[1], bz = L->block[2];
  // Member by member: a struct copy would take the variables' addresses (see the top note).
  gridDim.x = gx;
  gridDim.y = gy;
  gridDim.z = L->grid[2];
  blockDim.x = bx;
  blockDim.y = by;
  blockDim.z = bz;
  unsigned ix, iy, iz;
  first_block(b0, gx, gy, ix, iy, iz);
  const BlockWatch watch = block_watch();
  for (uint64_t blk = b0; blk < b1; ++blk) {
    block_boundary(watch, blk);
    if (Form != 0) {
      if (bx > 1024u || ix * bx > 0x7fffffffu - 1024u) __builtin_unreachable();
    }
    blockIdx.x = ix;
    blockIdx.y = iy;
    blockIdx.z = iz;
    // The rows of the block (y, z) as one loop: with two nested loops around the thread loop,
    // GCC no longer splits the 64-bit form's loop at the bounds check.
    unsigned y = 0, z = 0;
    for (unsigned row = 0, rows = by * bz; row < rows; ++row) {
      threadIdx.y = y;
      threadIdx.z = z;
      if (Form == 1) {
        // `int i = blockIdx.x * blockDim.x + threadIdx.x` folds to g (an int that cannot
        // overflow here).
        const unsigned base = ix * bx;
        const int first = static_cast<int>(base), last = first + static_cast<int>(bx);
        for (int g = first; g < last; ++g) {
          threadIdx.x = static_cast<unsigned>(g) - base;
          K(a...);
        }
      } else if (Form == 2) {
        // `size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x` folds to g; the range of
        // d is what lets GCC see that (without it, the truncation to threadIdx.x's 32 bits
        // keeps the loop scalar).
        const uint64_t base = uint64_t(ix) * bx;
        for (uint64_t g = base; g < base + bx; ++g) {
          const uint64_t d = g - base;
          if (d >= 1024u) __builtin_unreachable();
          threadIdx.x = static_cast<unsigned>(d);
          K(a...);
        }
        // Its value after the loop (the launch has bx >= 1), stored unconditionally: else GCC
        // sinks the loop's stores to threadIdx.x (visible through the fibers' alias) behind a
        // "was stored" flag, and that flag alone stops it from splitting the loop.
        threadIdx.x = bx - 1;
      } else {
        for (unsigned x = 0; x < bx; ++x) {
          threadIdx.x = x;
          K(a...);
        }
      }
      if (++y == by) {
        y = 0;
        ++z;
      }
    }
    next_block(ix, iy, iz, gx, gy);
  }
}

// CPU time of this thread (time it spends preempted on a busy machine does not count).
inline uint64_t loop_clock_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// `Wide`: the kernel mentions a 64-bit integer type (the compiler driver's scan), so form 2 may
// be the fast one; otherwise only form 1 is compiled (less code, a faster compile).
template <auto K, class Sig, bool Wide, unsigned... I>
__attribute__((noinline)) void loop_run(const openhip_launch* L, uint64_t b0, uint64_t b1,
                                        Seq<I...> seq) {
  typename Sig::Args t;
  Sig::load(t, L->args, seq);
  if (uint64_t(L->grid[0]) * L->block[0] > 0x7fffffffu - 2048u) {
    loop_blocks<K, 0>(L, b0, b1, get<I>(t)...);
    return;
  }
  if constexpr (!Wide) {
    loop_blocks<K, 1>(L, b0, b1, get<I>(t)...);
  } else {
    // The form for this kernel (1 or 2; 0: not chosen yet), per module and process, chosen by
    // timing: about 16k threads with each form, twice (1 2 2 1, so that a trend such as caches
    // warming up weighs on both alike), at the start of a chunk big enough for it.  A form is
    // kept once it is 1.25x faster than the other (where it matters the two differ by about 3x);
    // when they are closer, form 1 runs and a later chunk measures again, 8 times at most.  Both
    // forms run the same threads in the same order: a wrong choice costs speed, never results.
    static int form = 0;
    static int tries = 0;
    int f = __atomic_load_n(&form, __ATOMIC_RELAXED);
    if (f == 0) {
      const uint64_t threads = uint64_t(L->block[0]) * L->block[1] * L->block[2];
      const uint64_t probe = threads >= 16384 ? 1 : 16384 / threads;
      f = 1;
      if (b1 - b0 >= 4 * probe) {
        uint64_t ns[2] = {0, 0};
        for (int k = 0; k < 4; ++k) {
          const int which = (k == 0 || k == 3) ? 0 : 1;
          const uint64_t t0 = loop_clock_ns();
          if (which == 0) {
            loop_blocks<K, 1>(L, b0, b0 + probe, get<I>(t)...);
          } else {
            loop_blocks<K, 2>(L, b0, b0 + probe, get<I>(t)...);
          }
          ns[which] += loop_clock_ns() - t0;
          b0 += probe;
        }
        if (ns[1] * 5 < ns[0] * 4) {
          f = 2;
          __atomic_store_n(&form, 2, __ATOMIC_RELAXED);
        } else if (ns[0] * 5 < ns[1] * 4 ||
                   __atomic_add_fetch(&tries, 1, __ATOMIC_RELAXED) >= 8) {
          __atomic_store_n(&form, 1, __ATOMIC_RELAXED);
        }
      }
    }
    if (f == 2) {
      loop_blocks<K, 2>(L, b0, b1, get<I>(t)...);
    } else {
      loop_blocks<K, 1>(L, b0, b1, get<I>(t)...);
    }
  }
}

// Regions mode: the kernel was split at its barriers by the compiler driver (regions.py) into
// a function that runs one whole block, its regions being loops over the block's threads
// (OPENHIP_CPU_FOR_EACH_THREAD); it is called once per block.
template <auto K, class... A>
__attribute__((noinline)) void region_blocks(const openhip_launch* L, uint64_t b0, uint64_t b1,
                                             A... a) {
  const unsigned gx = L->grid[0], gy = L->grid[1];
  gridDim.x = gx;
  gridDim.y = gy;
  gridDim.z = L->grid[2];
  blockDim.x = L->block[0];
  blockDim.y = L->block[1];
  blockDim.z = L->block[2];
  unsigned ix, iy, iz;
  first_block(b0, gx, gy, ix, iy, iz);
  const BlockWatch watch = block_watch();
  for (uint64_t blk = b0; blk < b1; ++blk) {
    block_boundary(watch, blk);
    blockIdx.x = ix;
    blockIdx.y = iy;
    blockIdx.z = iz;
    K(a...);
    next_block(ix, iy, iz, gx, gy);
  }
}

template <auto K, class Sig, unsigned... I>
__attribute__((noinline)) void region_run(const openhip_launch* L, uint64_t b0, uint64_t b1,
                                          Seq<I...> seq) {
  typename Sig::Args t;
  Sig::load(t, L->args, seq);
  region_blocks<K>(L, b0, b1, get<I>(t)...);
}

// Bytes for `n` per-thread copies of a value of `size` bytes, rounded to a cache line.
__attribute__((always_inline)) inline uint64_t region_slot(uint64_t size, unsigned n) {
  return (size * n + 63) & ~uint64_t(63);
}

// A per-thread stride loop `for (T i = u + threadIdx.x; i < b; i += s)` of a split kernel runs
// interchanged (rewrite.py interchange_stride_loops: a loop over the block's starts u, u + s, ...
// holding a thread loop from each start) when this holds for the values: integers, u, b >= 0,
// s > 0, and no index any thread computes (below b + s + blockDim.x) wraps, in T or in the type
// of u + threadIdx.x; then every comparison and sum of the loop is the numeric one and each
// thread runs the iterations it runs as written.  Otherwise the loop runs as written.
template <class X>
__attribute__((always_inline)) constexpr bool stride_integer() {
  return X(1) / X(2) == X(0) && X(-1) != X(0);
}
template <class X>
__attribute__((always_inline)) inline bool stride_negative(X x) {
  if constexpr (X(-1) < X(0)) return x < X(0);
  else return false;
}
template <class X>
__attribute__((always_inline)) constexpr unsigned long long stride_max() {
  return X(-1) < X(0) ? (1ull << (8 * sizeof(X) - 1)) - 1ull
                      : (sizeof(X) >= 8 ? ~0ull : (1ull << (8 * sizeof(X))) - 1ull);
}
template <class T, class U, class B, class S>
__attribute__((always_inline)) inline bool stride_ok(U u, B b, S s) {
  if constexpr (!stride_integer<T>() || !stride_integer<U>() || !stride_integer<B>() ||
                !stride_integer<S>() || sizeof(T) > 8 || sizeof(U) > 8 || sizeof(B) > 8 ||
                sizeof(S) > 8) {
    return false;
  } else {
    using A = decltype(u + 0u);  // the type of u + threadIdx.x
    if (stride_negative(u) || stride_negative(b) || stride_negative(s) || s == S(0)) return false;
    const unsigned long long uu = (unsigned long long)u, bb = (unsigned long long)b,
                             ss = (unsigned long long)s, bdx = blockDim.x;
    unsigned long long top, first;
    if (__builtin_add_overflow(bb, ss, &top) || __builtin_add_overflow(top, bdx, &top) ||
        __builtin_add_overflow(uu, bdx, &first))
      return false;
    return top <= stride_max<T>() && first <= stride_max<T>() && first <= stride_max<A>();
  }
}
// ... and, for a start g < b of such a loop, whether all the block's blockDim.x indices from g are
// below b (the thread loop then needs no test of its own)
// With the pointers the loop's body subscripts by its index (rewrite.py), each at g, it prefetches
// what the next block reads at this start: a grid-stride loop's starts are pages apart, where the
// hardware prefetcher restarts (addresses as integers: nothing is formed out of bounds).
// One stream's prefetch: the block's blockDim.x elements from p, one block (at least 2 KiB)
// further on, where the next block of a worker (its blocks are consecutive) reads at this start.
// (Always inline: a call of it would be dropped, as a function without effects whose result is
// unused -- GCC counts a prefetch as none.)  3.8 -> 2.4 ms for 2^24 floats in a C++ model of a
// 4096 x 256 grid-stride sum, the bench's shuffle reduction 5.4 -> 3.4-3.6 ms at one thread.
template <class P>
__attribute__((always_inline)) inline void stride_prefetch(P* p) {
  const unsigned long long bytes = (unsigned long long)blockDim.x * sizeof(*p);
  const unsigned long long a = (unsigned long long)(uintptr_t)p + (bytes < 2048 ? 2048 : bytes);
  for (unsigned long long o = 0; o < bytes; o += 64) __builtin_prefetch((const void*)(uintptr_t)(a + o));
}
template <class T, class G, class B, class... P>
__attribute__((always_inline)) inline bool stride_full(G g, B b, P... streams) {
  const bool full = (unsigned long long)b - (unsigned long long)g >= (unsigned long long)blockDim.x;
  if constexpr (sizeof...(P) > 0) {
    if (full) (stride_prefetch(streams), ...);
  }
  return full;
}

// __syncthreads_count/_and/_or in a kernel split at its barriers (regions.py expands each into
// plain barriers around two block counters): one thread's vote. Threads of a region run one
// after another on one OS thread, so plain increments are exact.
__attribute__((always_inline)) inline void vote_add(unsigned& count, unsigned& live, int pred) {
  count += pred != 0;
  ++live;
}

// This OS thread's scratch area for the per-thread copies of values that live across a
// barrier in regions mode: cache-line aligned, grown as needed, reused by every block.
__attribute__((noinline)) inline unsigned char* region_scratch_grow(uint64_t bytes);
static thread_local unsigned char* t_region_scratch;
static thread_local uint64_t t_region_scratch_size;
__attribute__((always_inline)) inline unsigned char* region_scratch(uint64_t bytes) {
  if (__builtin_expect(bytes <= t_region_scratch_size, 1)) return t_region_scratch;
  return region_scratch_grow(bytes);
}
unsigned char* region_scratch_grow(uint64_t bytes) {
  free(t_region_scratch);
  t_region_scratch = nullptr;
  t_region_scratch_size = 0;
  void* p = nullptr;
  const uint64_t want = bytes < 4096 ? 4096 : bytes;
  if (posix_memalign(&p, 64, want) != 0 || p == nullptr) {
    fail(2 /* hipErrorOutOfMemory */,
         "kernel '%s': cannot allocate %llu bytes for the per-thread values that live across "
         "its barriers", kernel_name(), static_cast<unsigned long long>(bytes));
  }
  t_region_scratch = static_cast<unsigned char*>(p);
  t_region_scratch_size = want;
  return t_region_scratch;
}

// Fiber mode: one fiber per thread, set up once per entry call and reused for every block of
// the call (a finished fiber parks in fiber_finish and is resumed for the next block).
inline constexpr uint64_t kStackCanary = 0x6f70656e68697021ull;  // "openhip!"

// The top of fiber i's stack (abi.h: a stride per fiber, its guard at the bottom).  The tops
// are staggered by 9 cache lines per fiber (mod a page): page-aligned tops would all map to the
// same L1/L2 sets, and 256 fibers would thrash them on every switch (measured: 4x slower
// barriers).  The runtime leaves a page of the stride for the stagger.
__attribute__((always_inline)) inline unsigned char* fiber_stack_top(const openhip_worker* W,
                                                                     unsigned i) {
  return W->stacks + uint64_t(i + 1) * W->stack_size - uint64_t((i * 9u) & 63u) * 64u;
}

__attribute__((noinline)) inline int fiber_run(const openhip_launch* L, openhip_worker* W,
                                               uint64_t b0, uint64_t b1,
                                               void (*body)(const void*), const void* args) {
#if !OPENHIP_CPU_HAVE_FIBERS
  (void)L; (void)W; (void)b0; (void)b1; (void)body; (void)args;
  fail(801, "kernel '%s' synchronises (barrier or warp function) and needs fibers, which the "
       "openhip CPU engine implements for x86-64 and aarch64 only", kernel_name());
#else
  const unsigned gx = L->grid[0], gy = L->grid[1];
  const unsigned bx = L->block[0], by = L->block[1], bz = L->block[2];
  const unsigned n = bx * by * bz, nwarps = (n + 31) / 32;
  const uint64_t scratch = sizeof(Block) + 64 + uint64_t(n) * sizeof(Fiber) +
                           uint64_t(nwarps) * sizeof(Warp) + uint64_t(n) * 32 * sizeof(uint64_t);
  if (int rc = W->ensure_fibers(W, n, scratch)) {
    fail(rc, "kernel '%s': cannot allocate %u fiber stacks of %llu KiB", kernel_name(), n,
         static_cast<unsigned long long>(W->stack_size >> 10));
  }
  gridDim.x = gx;
  gridDim.y = gy;
  gridDim.z = L->grid[2];
  blockDim.x = bx;
  blockDim.y = by;
  blockDim.z = bz;
  Block* b = reinterpret_cast<Block*>(W->scratch);
  b->fibers = reinterpret_cast<Fiber*>(W->scratch + ((sizeof(Block) + 63) & ~size_t(63)));
  b->warps = reinterpret_cast<Warp*>(b->fibers + n);
  uint64_t* outs = reinterpret_cast<uint64_t*>(b->warps + nwarps);
  b->n = n;
  b->nwarps = nwarps;
  b->body = body;
  b->args = args;
  b->stacks = W->stacks;
  b->stack_size = W->stack_size;
  b->tid = &openhip_cpu_threadIdx_alias;
  __atomic_store_n(&g_fiber_region, W->fiber_region, __ATOMIC_RELAXED);
  __atomic_store_n(&g_fiber_region_size, W->fiber_region_size, __ATOMIC_RELAXED);
  __atomic_store_n(&g_fiber_slot_shift, W->fiber_slot_shift, __ATOMIC_RELAXED);
  // The slot header (abi.h): how code on these fibers finds the block.
  const uintptr_t slot = (reinterpret_cast<uintptr_t>(W->stacks) -
                          reinterpret_cast<uintptr_t>(W->fiber_region)) >> W->fiber_slot_shift;
  *reinterpret_cast<Block**>(W->fiber_region + (uint64_t(slot) << W->fiber_slot_shift)) = b;
  for (unsigned i = 0; i < n; ++i) {
    Fiber& f = b->fibers[i];
    f.x = i % bx;
    f.y = (i / bx) % by;
    f.z = i / (bx * by);
    f.linear = i;
    f.out = outs + uint64_t(i) * 32;
    unsigned char* lo = W->stacks + uint64_t(i) * W->stack_size + W->stack_guard;
    memcpy(lo, &kStackCanary, sizeof kStackCanary);
    f.sp = fiber_stack(fiber_stack_top(W, i), &fiber_main);
  }
  tstate.block = b;
  unsigned ix, iy, iz;
  first_block(b0, gx, gy, ix, iy, iz);
  const BlockWatch watch = block_watch();
  for (uint64_t blk = b0; blk < b1; ++blk) {
    block_boundary(watch, blk);
    blockIdx.x = ix;
    blockIdx.y = iy;
    blockIdx.z = iz;
    for (unsigned i = 0; i < n; ++i) b->fibers[i].state = kReady;
    for (unsigned w = 0; w < nwarps; ++w) {
      const unsigned lanes = (w + 1) * 32 <= n ? 32 : n - w * 32;
      b->warps[w].live = lanes == 32 ? 0xffffffffull : (uint64_t(1) << lanes) - 1;
      b->warps[w].pending = 0;
    }
    b->live = b->ready = n;
    b->bar_arrived = 0;
#ifdef OPENHIP_RACECHECK
    racecheck_phase();
#endif
    enter(b, 0);
    openhip_cpu_switch(&b->home_sp, b->fibers[0].sp);
    // Every fiber has finished this block (a failure would have jumped to the entry point).
    next_block(ix, iy, iz, gx, gy);
  }
  tstate.block = nullptr;
  for (unsigned i = 0; i < n; ++i) {
    uint64_t canary;
    memcpy(&canary, W->stacks + uint64_t(i) * W->stack_size + W->stack_guard, sizeof canary);
    if (canary != kStackCanary) {
      fail(719, "kernel '%s': the stack of thread %u overflowed its %llu KiB (large local "
           "arrays or deep recursion; raise OPENHIP_CPU_STACK_SIZE)", kernel_name(), i,
           static_cast<unsigned long long>(W->stack_usable >> 10));
    }
  }
  return 0;
#endif
}

template <auto K, class Sig, unsigned... I>
void fiber_body(const void* p) {
  auto& t = *static_cast<typename Sig::Args*>(const_cast<void*>(p));
  K(get<I>(t)...);
}

template <auto K, class Sig, unsigned... I>
__attribute__((noinline)) int fiber_launch(const openhip_launch* L, openhip_worker* W,
                                           uint64_t b0, uint64_t b1, Seq<I...> seq) {
  typename Sig::Args t;
  Sig::load(t, L->args, seq);
  return fiber_run(L, W, b0, b1, &fiber_body<K, Sig, I...>, &t);
}

// The common part of every entry point: checks, the landing pad for failures, mode dispatch.
// How a kernel runs its blocks (chosen by the compiler driver, see compiler.py).
// kModeLoopWide: loop mode for a kernel that mentions 64-bit integer types (see loop_run).
enum : int { kModeLoop = 0, kModeFibers = 1, kModeRegions = 2, kModeLoopWide = 3 };

// ---- fault reports -------------------------------------------------------------------------------
// Loop mode keeps the thread coordinates in registers, so which thread of the faulted block
// faulted is found by running that block again one thread at a time, each thread's id stored
// before it runs.  (The device is marked failed after a fault in any case: the rerun's writes
// land in memory that the report already calls possibly corrupt.)
template <auto K, class... A>
__attribute__((noinline)) void loop_rerun_block(const openhip_launch* L, uint64_t blk, A... a) {
  const unsigned gx = L->grid[0], gy = L->grid[1];
  gridDim.x = gx;
  gridDim.y = gy;
  gridDim.z = L->grid[2];
  blockDim.x = L->block[0];
  blockDim.y = L->block[1];
  blockDim.z = L->block[2];
  unsigned ix, iy, iz;
  first_block(blk, gx, gy, ix, iy, iz);
  blockIdx.x = ix;
  blockIdx.y = iy;
  blockIdx.z = iz;
  unsigned lt = 0;
  for (unsigned z = 0; z < L->block[2]; ++z) {
    for (unsigned y = 0; y < L->block[1]; ++y) {
      for (unsigned x = 0; x < L->block[0]; ++x, ++lt) {
        threadIdx.x = x;
        threadIdx.y = y;
        threadIdx.z = z;
        tstate.diag_thread = lt;
        __asm__ __volatile__("" ::: "memory");
        K(a...);
      }
    }
  }
}

template <auto K, class Sig, unsigned... I>
__attribute__((noinline)) void loop_rerun(const openhip_launch* L, uint64_t blk, Seq<I...> seq) {
  typename Sig::Args t;
  Sig::load(t, L->args, seq);
  loop_rerun_block<K>(L, blk, get<I>(t)...);
}

// Returns true and the faulting thread's linear id if the block faults again.
template <auto K, class Sig>
__attribute__((noinline)) bool loop_find_thread(const openhip_launch* L, openhip_worker* W,
                                                uint64_t blk, unsigned* linear) {
  tstate.diagnosing = 1;
  if (__builtin_setjmp(tstate.diag_jb)) {
    W->in_kernel = 0;
    tstate.diagnosing = 0;
    *linear = tstate.diag_thread;
    return true;
  }
  W->in_kernel = 1;
#ifdef OPENHIP_INITCHECK
  initcheck_block(L);
#endif
  loop_rerun<K, Sig>(L, blk, typename Sig::Indices{});
  W->in_kernel = 0;
  tstate.diagnosing = 0;
  return false;
}

#ifdef OPENHIP_MEMCHECK_SHADOW
// Memcheck mode, regions mode: the per-thread loops of a split kernel do not record their
// thread (a store per thread kept them from vectorising), so the thread of a report is found by
// running the faulted block again with tstate.diagnosing set: the checked header's loops
// (openhip/tools/memcheck/include) then store each thread's linear id in tstate.diag_thread.
// The rerun names the thread only if it faults at the same address with the same description
// (the code address may differ: the rerun runs the loops' recording copy); the report keeps the
// first run's text.  The rerun re-executes the block's earlier regions: a kernel whose path
// depends on what the first run wrote (an atomic counter, a read-modify-write of its output)
// may fault elsewhere or not at all, and then the thread is "unknown".  The device is failed
// after a report in any case (as a GPU context after an illegal address), so what the rerun
// writes is not given back as a result.
static thread_local char t_first_fault[768];
template <auto K, class Sig>
__attribute__((noinline, cold)) bool region_find_thread(const openhip_launch* L,
                                                        openhip_worker* W, uint64_t blk,
                                                        unsigned* linear) {
  snprintf(t_first_fault, sizeof t_first_fault, "%s", W->fault_what ? W->fault_what : "");
  void* const addr = W->fault_addr;
  const int status = W->fault_status;
  tstate.diag_thread = ~0u;
  tstate.diagnosing = 1;
  if (__builtin_setjmp(tstate.diag_jb)) {
    W->in_kernel = 0;
    tstate.diagnosing = 0;
    *linear = tstate.diag_thread;
    const char* again = W->fault_what ? W->fault_what : "";
    const char* pc = strstr(t_first_fault, " [pc ");
    const size_t n = pc ? size_t(pc - t_first_fault) : strlen(t_first_fault);
    const bool same = W->fault_addr == addr && W->fault_status == status &&
                      strncmp(again, t_first_fault, n) == 0 && *linear != ~0u;
    W->fault_addr = addr;
    W->fault_status = status;
    W->fault_what = t_first_fault;
    return same;
  }
  W->in_kernel = 1;
#ifdef OPENHIP_INITCHECK
  initcheck_block(L);  // (the rerun reads what the first run read: never written)
#endif
  region_run<K, Sig>(L, blk, blk + 1, typename Sig::Indices{});
  W->in_kernel = 0;
  tstate.diagnosing = 0;
  W->fault_addr = addr;
  W->fault_what = t_first_fault;
  return false;
}
#endif

// The launch's failure report for a fault in its kernel (W->fault_*, set by the runtime's
// handler): the kernel, the block, the thread, what happened and where.
template <auto K, class Sig, int Mode>
__attribute__((noinline, cold)) int report_fault(const openhip_launch* L, openhip_worker* W,
                                                 const char* name, Block* fb) {
  tstate.faulted = 0;
  const int status = W->fault_status ? W->fault_status : 719;
  const char* what = W->fault_what ? W->fault_what : "fault";
  void* const addr = W->fault_addr;
  const uint64_t blk = tstate.fault_block;
  const unsigned gx = L->grid[0], gy = L->grid[1];
  unsigned ix, iy, iz;
  first_block(blk, gx, gy, ix, iy, iz);
  const unsigned bx = L->block[0], by = L->block[1];
  char thread[160];
  bool overflow = false;
  thread[0] = 0;
  if constexpr (Mode == kModeFibers) {
    const Fiber f = fb != nullptr ? fb->fibers[fb->cur] : Fiber{};
    snprintf(thread, sizeof thread, "thread (%u,%u,%u)", f.x, f.y, f.z);
    // A fault in a fiber's guard page (abi.h) is that fiber's stack overflowing.
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    const uintptr_t lo = reinterpret_cast<uintptr_t>(W->stacks);
    if (W->stack_size != 0 && a >= lo && a < lo + uint64_t(W->fiber_capacity) * W->stack_size &&
        (a - lo) % W->stack_size < W->stack_guard) {
      overflow = true;
      const unsigned j = static_cast<unsigned>((a - lo) / W->stack_size);
      if (fb != nullptr && j < fb->n) {
        const Fiber& g = fb->fibers[j];
        snprintf(thread, sizeof thread, "thread (%u,%u,%u)", g.x, g.y, g.z);
      }
    }
  } else if constexpr (Mode == kModeRegions) {
    (void)fb;
#ifdef OPENHIP_MEMCHECK_SHADOW
    unsigned lt = 0;
    if (region_find_thread<K, Sig>(L, W, blk, &lt)) {
      snprintf(thread, sizeof thread, "thread (%u,%u,%u)", lt % bx, (lt / bx) % by,
               lt / (bx * by));
    } else {
      snprintf(thread, sizeof thread, "thread unknown (the block did not fault again in the "
               "same way when it was rerun to name the thread)");
    }
#else
    snprintf(thread, sizeof thread, "thread unknown (the kernel runs its threads as loops "
             "between its barriers)");
#endif
  } else {
    (void)fb;
    unsigned lt = 0;
    if (loop_find_thread<K, Sig>(L, W, blk, &lt)) {
      snprintf(thread, sizeof thread, "thread (%u,%u,%u)", lt % bx, (lt / bx) % by,
               lt / (bx * by));
    } else {
      snprintf(thread, sizeof thread, "thread unknown (the block did not fault again when its "
               "threads were rerun one at a time)");
    }
  }
  if (overflow) {
    snprintf(W->error, sizeof W->error,
             "kernel '%s' block (%u,%u,%u) %s: stack overflow: the thread's stack of %llu KiB "
             "ran into its guard page at address %p (deep recursion or large local arrays; "
             "raise OPENHIP_CPU_STACK_SIZE)", name, ix, iy, iz, thread,
             static_cast<unsigned long long>(W->stack_usable >> 10), addr);
    return 719;  // hipErrorLaunchFailure
  }
  // si_addr is the faulting address for SIGSEGV/SIGBUS, the instruction's for SIGFPE/SIGILL.
  snprintf(W->error, sizeof W->error, "kernel '%s' block (%u,%u,%u) %s: %s %s %p", name, ix, iy,
           iz, thread, what, status == 700 ? "at address" : "at the instruction at", addr);
  return status;
}

#ifdef OPENHIP_MEMCHECK_SHADOW
// Memcheck mode (openhip/tools/memcheck/include): a failure jumped out of kernel frames that
// never returned, whose local arrays' red zones would stay poisoned on this thread's stack
// and the fiber stacks; this clears them (defined in the checked header).
void memcheck_frames_abandoned(openhip_worker* W);
// ... and, at each entry call, marks this worker's static __shared__ arrays once (their padding
// poisoned; in racecheck mode the arrays tracked).
void memcheck_entry();
#endif

template <auto K, int Mode>
__attribute__((noinline)) int entry(const openhip_launch* L, openhip_worker* W, uint64_t b0,
                                    uint64_t b1, const char* name) {
  using Sig = Signature<decltype(K)>;
  tstate.worker = W;
  tstate.kernel = name;
  tstate.dyn = W->dyn_shared;
  point_dyn_shared(W->dyn_shared);
  tstate.violation = nullptr;
  tstate.block = nullptr;
  if (L->nargs != Sig::count) {
    snprintf(W->error, sizeof W->error, "kernel '%s' takes %u arguments, the launch passed %u",
             name, Sig::count, L->nargs);
    return 1;  // hipErrorInvalidValue
  }
  if (L->shared_mem > W->dyn_shared_cap) {
    snprintf(W->error, sizeof W->error,
             "kernel '%s': %llu bytes of dynamic shared memory requested; the CPU platform "
             "provides at most %llu", name, static_cast<unsigned long long>(L->shared_mem),
             static_cast<unsigned long long>(W->dyn_shared_cap));
    return 9;  // hipErrorInvalidConfiguration
  }
  static const int never_cancelled = 0;
  tstate.cancel = W->cancel != nullptr ? W->cancel : &never_cancelled;
  tstate.faulted = 0;
  tstate.diagnosing = 0;
  W->on_fault = &on_fault;
  tstate.cur_block = b0;
#ifdef OPENHIP_MEMCHECK_SHADOW
  memcheck_entry();
#endif
  if (__builtin_setjmp(tstate.jb)) {
    W->in_kernel = 0;
    Block* const fb = tstate.block;
    tstate.block = nullptr;
#ifdef OPENHIP_MEMCHECK_SHADOW
    memcheck_frames_abandoned(W);
    if (tstate.faulted) {
      const int rc = report_fault<K, Sig, Mode>(L, W, name, fb);  // (it may rerun the block)
      memcheck_frames_abandoned(W);
      return rc;
    }
#else
    if (tstate.faulted) return report_fault<K, Sig, Mode>(L, W, name, fb);
#endif
    return tstate.status;
  }
  W->in_kernel = 1;
#ifdef OPENHIP_INITCHECK
  // initcheck: one block at a time, its shared memory marked never written first
  for (uint64_t blk = b0, last = b1; blk < last; ++blk) {
    b0 = blk;
    b1 = blk + 1;
    tstate.cur_block = blk;
    initcheck_block(L);
#endif
  if constexpr (Mode == kModeFibers) {
    if (int rc = fiber_launch<K, Sig>(L, W, b0, b1, typename Sig::Indices{})) {
      W->in_kernel = 0;
      return rc;
    }
  } else if constexpr (Mode == kModeRegions) {
    region_run<K, Sig>(L, b0, b1, typename Sig::Indices{});
  } else {
#ifdef OPENHIP_RACECHECK
    // racecheck: each block's threads one at a time, each thread's id stored (as a fault's
    // rerun does), so that every shared access knows its thread
    for (uint64_t blk = b0; blk < b1; ++blk) {
      tstate.cur_block = blk;
      racecheck_phase();
      loop_rerun<K, Sig>(L, blk, typename Sig::Indices{});
    }
#else
    loop_run<K, Sig, Mode == kModeLoopWide>(L, b0, b1, typename Sig::Indices{});
#endif
  }
#ifdef OPENHIP_INITCHECK
  }
#endif
  W->in_kernel = 0;
  if (tstate.violation != nullptr) {
    snprintf(W->error, sizeof W->error,
             "kernel '%s' reached %s (line %u) but was compiled to run its threads as %s "
             "(the source scan found no barrier or warp function reachable from it there, e.g. "
             "it is called through a pointer or defined in another header); its results would "
             "be wrong", name, tstate.violation, tstate.violation_line,
             Mode == kModeRegions ? "loops between its barriers" : "a loop");
    return 719;
  }
  return 0;
}

template <auto K>
void param_sizes(uint64_t* out) {
  using Sig = Signature<decltype(K)>;
  Sig::sizes(out, typename Sig::Indices{});
}

}  // namespace detail
}  // namespace openhip

// ---- the user-facing synchronisation functions ----------------------------------------------------
// __builtin_LINE() as a default argument is the caller's line: it names the barrier.
inline void __syncthreads(unsigned line = __builtin_LINE()) {
  (void)::openhip::detail::barrier(line, 0, 0);
}
inline int __syncthreads_count(int pred, unsigned line = __builtin_LINE()) {
  return ::openhip::detail::barrier(line, pred, 1);
}
inline int __syncthreads_and(int pred, unsigned line = __builtin_LINE()) {
  return ::openhip::detail::barrier(line, pred, 2);
}
inline int __syncthreads_or(int pred, unsigned line = __builtin_LINE()) {
  return ::openhip::detail::barrier(line, pred, 3);
}
inline void __syncwarp(unsigned long long mask = 0xffffffffull) {
  ::openhip::detail::warp_sync(mask);
}

#ifndef OPENHIP_CPU_HAVE_THREADFENCE
#define OPENHIP_CPU_HAVE_THREADFENCE 1
// Blocks run on different OS threads: a fence orders this thread's accesses for all of them.
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#endif

// ---- dynamic shared memory --------------------------------------------------------------------------
// `extern __shared__ T name[];` is rewritten (line-preservingly) by the compiler driver into
// OPENHIP_EXTERN_SHARED(name, T); inside a function: a thread_local pointer initialised when
// the declaration is first reached in each worker thread (whose buffer address never changes),
// and into OPENHIP_EXTERN_SHARED_NS(name, T); outside functions: a zero-initialised
// thread_local pointer that every entry call sets, through a setter registered when the module
// is loaded.  (A namespace-scope thread_local with a dynamic initialiser would not do: Clang may
// fold it to its value at thread start, before the entry point sets the buffer.)
#define OPENHIP_EXTERN_SHARED(name, ...)                        \
  static thread_local __VA_ARGS__* const name =                 \
      reinterpret_cast<__VA_ARGS__*>(::openhip::detail::dynamic_shared_base())
#define OPENHIP_EXTERN_SHARED_NS(name, ...)                                                  \
  static thread_local __VA_ARGS__* name;                                                     \
  static ::openhip::detail::DynSharedSetter __openhip_dyn_shared_setter_##name(             \
      [](unsigned char* __openhip_base) { name = reinterpret_cast<__VA_ARGS__*>(__openhip_base); })
#define HIP_DYNAMIC_SHARED(type, var) OPENHIP_EXTERN_SHARED(var, type);  // with its ";", as in HIP
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

// ---- what the generated footer uses ------------------------------------------------------------
#define OPENHIP_CPU_EXPORT extern "C" __attribute__((visibility("default"), used))

// One kernel: entry point openhip_kernel_<ID> and its parameter sizes openhip_params_<ID>.
// MODE: 0 loop, 1 fibers, 2 regions (the function is the kernel split at its barriers), 3 loop
// with the 64-bit index form too.
// (Expanded in the user's translation unit after the user's code: every name it introduces is
// reserved, __openhip_..., so that no user macro (`#define W 32`) can change it.)
#define OPENHIP_CPU_KERNEL(ID, MODE, NAME, ...)                                                \
  OPENHIP_CPU_EXPORT int openhip_kernel_##ID(                                                  \
      const openhip_launch* __openhip_L, openhip_worker* __openhip_W, uint64_t __openhip_b0,   \
      uint64_t __openhip_b1) {                                                                 \
    return ::openhip::detail::entry<(__VA_ARGS__), MODE>(__openhip_L, __openhip_W,             \
                                                         __openhip_b0, __openhip_b1, NAME);    \
  }                                                                                            \
  OPENHIP_CPU_EXPORT unsigned openhip_params_##ID(uint64_t* __openhip_sizes) {                 \
    ::openhip::detail::param_sizes<(__VA_ARGS__)>(__openhip_sizes);                            \
    return ::openhip::detail::Signature<decltype(__VA_ARGS__)>::count;                         \
  }

// Regions mode: a region's `int x = U + threadIdx.x;` (U block-uniform: the block's coordinates,
// literals, constants) runs in a copy of the region's thread loop written `(int)(U) +
// (int)threadIdx.x` where isum_of<decltype((U) + 0)>::ok(U, blockDim.x) holds: U integral and
// 0 <= U <= INT_MAX - (blockDim.x - 1), so both are the same value for every thread, and the
// signed sum is one GCC may assume does not wrap: what x subscripts has affine addresses in the
// loop (an unsigned sum converted to int may wrap for all GCC knows: an index computed and
// sign-extended per access, no vector loop).  Other U (floating, negative, too large): the
// region's loop as written (regions.py _isum_subs).
namespace openhip {
namespace detail {
template <class U, bool = static_cast<U>(1) / static_cast<U>(2) == static_cast<U>(0)>
struct isum_of {
  static bool ok(U, unsigned) { return false; }
};
template <class U>
struct isum_of<U, true> {
  __attribute__((always_inline)) static bool ok(U u, unsigned n) {
    const unsigned long long v = static_cast<unsigned long long>(u);
    return v <= 0x7fffffffull && v + n <= 0x80000000ull;
  }
};
}  // namespace detail
}  // namespace openhip

// Regions mode: runs the statement that follows once per thread of the block, threadIdx set,
// `lt` the linear thread id (x fastest); `continue` in it goes on with the next thread.
// lt is a signed int (it cannot overflow, so per-thread arrays indexed by it have affine
// addresses in 64 bits and the lane loops vectorise; an unsigned lt that starts at an outer
// loop's value may wrap for all GCC knows, and a 64-bit lt and x kept `if (tid < s)` loops
// from splitting); threadIdx.x counts in unsigned, as in loop mode.
#define OPENHIP_CPU_FOR_EACH_THREAD(lt)                                                        \
  for (int lt##_z = 0, lt = 0; lt##_z < (int)blockDim.z; ++lt##_z)                             \
    for (unsigned lt##_y = 0; lt##_y < blockDim.y; ++lt##_y)                                   \
      for (unsigned lt##_x = 0; lt##_x < blockDim.x; ++lt##_x, ++lt)                           \
        if ((threadIdx.x = lt##_x, threadIdx.y = lt##_y, threadIdx.z = (unsigned)lt##_z),      \
            false) {                                                                           \
        } else

// The same with a signed x counter, for kernels whose thread index is a signed local
// (`int t = threadIdx.x;`, regions.py): GCC splits `if (t < k)` loops and keeps the addresses
// affine only when the comparison's type is the counter's (int t of an unsigned counter, or
// unsigned t of an int one, is a conversion that may wrap for all it knows).
#define OPENHIP_CPU_FOR_EACH_THREAD_SIGNED(lt)                                                 \
  for (int lt##_z = 0, lt = 0; lt##_z < (int)blockDim.z; ++lt##_z)                             \
    for (unsigned lt##_y = 0; lt##_y < blockDim.y; ++lt##_y)                                   \
      for (int lt##_x = 0; lt##_x < (int)blockDim.x; ++lt##_x, ++lt)                           \
        if ((threadIdx.x = (unsigned)lt##_x, threadIdx.y = lt##_y,                             \
             threadIdx.z = (unsigned)lt##_z),                                                  \
            false) {                                                                           \
        } else

// The same over a stride loop's threads (stride_ok above): the counter is the loop's index `si`,
// from `first` (block-uniform) for the blockDim.x threads of each row, so that the index is the
// loop's own non-wrapping counter and what it subscripts has affine addresses (GCC does not know
// that a 32-bit `first + threadIdx.x` does not wrap).
#define OPENHIP_CPU_FOR_EACH_THREAD_FROM(lt, si, first)                                        \
  for (int lt##_z = 0, lt = 0; lt##_z < (int)blockDim.z; ++lt##_z)                             \
    for (unsigned lt##_y = 0; lt##_y < blockDim.y; ++lt##_y)                                   \
      for (decltype(first) si = (first), si##_end = (decltype(first))((first) + blockDim.x);    \
           si < si##_end; ++si, ++lt)                                                          \
        if ((threadIdx.x = (unsigned)(si - (first)), threadIdx.y = lt##_y,                     \
             threadIdx.z = (unsigned)lt##_z),                                                  \
            false) {                                                                           \
        } else

// One __constant__/__device__ variable: its address and size.
#define OPENHIP_CPU_GLOBAL(ID, ...)                                             \
  OPENHIP_CPU_EXPORT void* openhip_global_##ID(uint64_t* __openhip_size) {     \
    *__openhip_size = sizeof(__VA_ARGS__);                                     \
    return (void*)&(__VA_ARGS__);                                              \
  }
