// openhip CPU platform: grid-wide synchronisation (cooperative_groups::grid_group::sync) for
// cooperative launches (k(grid, block, args, cooperative=True)).
//
// A cooperative launch (runtime.cpp: ohcpu_launch_cooperative) runs every block of the grid at
// the same time, one block per worker thread, each block as fibers; launches larger than the
// pool are refused with hipErrorCooperativeLaunchTooLarge before they start.  One cooperative
// launch runs at a time in the process.  The launch tells the module through
// openhip_launch::reserved: bit 0 set, the launch's id in the bits above.
//
// grid.sync(): a block barrier; then one thread of the block (the first to run past it)
// arrives at the grid barrier (a counter and a generation in this module) and waits for the
// other blocks; then a second block barrier releases the block.  A block that leaves the kernel (or fails) while others
// wait at the grid barrier can never arrive: the waiters fail the launch with a message
// instead of hanging.
//
// The entry point of a kernel that may use grid sync is OPENHIP_CPU_KERNEL_COOP (emitted by
// the compiler driver's footer), which registers the block with the barrier around the run.
#pragma once
#ifndef OPENHIP_CPU_GRID_SYNC_H
#define OPENHIP_CPU_GRID_SYNC_H

#include <sched.h>
#include <time.h>

#include "openhip_cpu/engine.h"

namespace openhip {
namespace grid_sync {

struct State {
  unsigned lock;      // spin lock guarding the reset to a new launch
  unsigned id;        // launch id of the state (0: none yet)
  unsigned nblocks;   // blocks of the launch
  unsigned arrived;   // blocks at the current grid barrier
  unsigned gen;       // grid barriers completed
  unsigned exited;    // blocks that have left the kernel (or failed)
};
static State g_state;
static thread_local int t_cooperative;
static thread_local unsigned t_arrivals;  // threads of the running block past grid_sync's first barrier

inline bool cooperative() { return t_cooperative != 0; }

// A block of launch `id` (of `nblocks` blocks) starts: the first one resets the state.
inline void block_begin(unsigned id, unsigned nblocks) {
  if (__atomic_load_n(&g_state.id, __ATOMIC_ACQUIRE) == id) return;
  while (__atomic_exchange_n(&g_state.lock, 1u, __ATOMIC_ACQUIRE)) sched_yield();
  if (g_state.id != id) {
    __atomic_store_n(&g_state.nblocks, nblocks, __ATOMIC_RELAXED);
    __atomic_store_n(&g_state.arrived, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&g_state.gen, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&g_state.exited, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&g_state.id, id, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&g_state.lock, 0u, __ATOMIC_RELEASE);
}
inline void block_end(unsigned blocks) {
  __atomic_add_fetch(&g_state.exited, blocks, __ATOMIC_SEQ_CST);
}

// Thread 0 of a block: arrive at the grid barrier and wait for every block.
__attribute__((noinline)) inline void grid_arrive_wait(unsigned line) {
  const unsigned gen = __atomic_load_n(&g_state.gen, __ATOMIC_SEQ_CST);
  const unsigned n = __atomic_load_n(&g_state.nblocks, __ATOMIC_RELAXED);
  if (__atomic_add_fetch(&g_state.arrived, 1u, __ATOMIC_SEQ_CST) == n) {
    __atomic_store_n(&g_state.arrived, 0u, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&g_state.gen, 1u, __ATOMIC_SEQ_CST);
    return;
  }
  for (unsigned spins = 0;; ++spins) {
    if (__atomic_load_n(&g_state.gen, __ATOMIC_SEQ_CST) != gen) return;
    const unsigned exited = __atomic_load_n(&g_state.exited, __ATOMIC_SEQ_CST);
    if (exited != 0) {
      if (__atomic_load_n(&g_state.gen, __ATOMIC_SEQ_CST) != gen) return;
      ::openhip::detail::fail(
          719,
          "kernel '%s': deadlock at this_grid().sync() (line %u): block (%u,%u,%u) waits for "
          "all %u blocks, but %u of them have left the kernel (returned or failed) without "
          "reaching it; every block of a cooperative launch must reach each grid.sync()",
          ::openhip::detail::kernel_name(), line, blockIdx.x, blockIdx.y, blockIdx.z, n, exited);
    }
    if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      __asm__ __volatile__("yield");
#endif
    } else if (spins < 4096) {
      sched_yield();
    } else {
      timespec ts{0, 50000};
      nanosleep(&ts, nullptr);
    }
  }
}

// grid_group::sync.
__attribute__((noinline)) inline void grid_sync(unsigned line) {
  if (!t_cooperative) {
    ::openhip::detail::fail(
        98 /* hipErrorInvalidDeviceFunction */,
        "kernel '%s' block (%u,%u,%u): this_grid().sync() (line %u) in a launch that is not "
        "cooperative: launch it with k(grid, block, args, cooperative=True)",
        ::openhip::detail::kernel_name(), blockIdx.x, blockIdx.y, blockIdx.z, line);
  }
  __syncthreads(line);
  // The block's threads run one after another on this OS thread: the first one past the barrier
  // stands for the block at the grid barrier (whichever threads have exited), the others find
  // it done; every thread clears the count after the second barrier, before anyone can start
  // the next grid.sync.
  if (++t_arrivals == 1) grid_arrive_wait(line);
  __syncthreads(line);
  t_arrivals = 0;
}

// The entry point of a cooperative-capable kernel (see the top of this file).
template <auto K, int Mode>
__attribute__((noinline)) int coop_entry(const openhip_launch* L, openhip_worker* W,
                                         uint64_t b0, uint64_t b1, const char* name) {
  const bool coop = (L->reserved & 1u) != 0;
  if (coop) {
    block_begin(L->reserved >> 1,
                unsigned(uint64_t(L->grid[0]) * L->grid[1] * L->grid[2]));
  }
  t_cooperative = coop;
  t_arrivals = 0;
  const int rc = ::openhip::detail::entry<K, Mode>(L, W, b0, b1, name);
  t_cooperative = 0;
  if (coop) block_end(unsigned(b1 - b0));
  return rc;
}

}  // namespace grid_sync
}  // namespace openhip

// What the cooperative groups headers call (reserved names: they are parsed after user macros).
inline void __openhip_grid_sync(unsigned __openhip_line) {
  ::openhip::grid_sync::grid_sync(__openhip_line);
}
inline bool __openhip_grid_cooperative() { return ::openhip::grid_sync::cooperative(); }

// Like OPENHIP_CPU_KERNEL (engine.h), through coop_entry.
#define __OPENHIP_CPU_KERNEL_COOP(ID, MODE, NAME, ...)                                           \
  OPENHIP_CPU_EXPORT int openhip_kernel_##ID(                                                  \
      const openhip_launch* __openhip_L, openhip_worker* __openhip_W, uint64_t __openhip_b0,   \
      uint64_t __openhip_b1) {                                                                 \
    return ::openhip::grid_sync::coop_entry<(__VA_ARGS__), MODE>(                              \
        __openhip_L, __openhip_W, __openhip_b0, __openhip_b1, NAME);                           \
  }                                                                                            \
  OPENHIP_CPU_EXPORT unsigned openhip_params_##ID(uint64_t* __openhip_sizes) {                 \
    ::openhip::detail::param_sizes<(__VA_ARGS__)>(__openhip_sizes);                            \
    return ::openhip::detail::Signature<decltype(__VA_ARGS__)>::count;                         \
  }

#endif  // OPENHIP_CPU_GRID_SYNC_H
