// openhip CPU platform: the run-time side of cooperative groups, compiled into every module
// through <hip/hip_runtime.h> (so before any user macro): the barrier of tiles wider than a warp
// and the failure report.  The cooperative groups headers (parsed after the user's macros)
// call only these reserved names; grid_sync.h has grid_group::sync's side.
#pragma once
#ifndef OPENHIP_CPU_CG_RUNTIME_H
#define OPENHIP_CPU_CG_RUNTIME_H

#include "openhip_cpu/engine.h"
#include "openhip_cpu/grid_sync.h"

[[noreturn]] __attribute__((noinline, cold)) inline void __openhip_cg_fail(const char* __openhip_what) {
  ::openhip::detail::fail(719 /* hipErrorLaunchFailure */,
                          "kernel '%s' block (%u,%u,%u) thread (%u,%u,%u): cooperative groups: %s",
                          ::openhip::detail::kernel_name(), blockIdx.x, blockIdx.y, blockIdx.z,
                          threadIdx.x, threadIdx.y, threadIdx.z, __openhip_what);
}

// A barrier of the `tile` consecutive threads (tile a power of two > 32) holding the caller.
// Fiber mode: a waiting thread parks in state __openhip_kAtTile; the last one to arrive makes
// the others ready.  A thread of the tile that has exited can never arrive: reported.
enum : unsigned { __openhip_kAtTile = 4 };  // a Fiber::state beside engine.h's
__attribute__((noinline)) inline void __openhip_cg_tile_barrier(unsigned __openhip_tile,
                                                             unsigned __openhip_line) {
  using namespace ::openhip::detail;
  Block* __openhip_b = current_block();
  if (__openhip_b == nullptr) {
    loop_violation("thread_block_tile::sync", __openhip_line);
    return;
  }
  if (__openhip_tile >= __openhip_b->n) {
    __syncthreads(__openhip_line);
    return;
  }
  Fiber& __openhip_f = __openhip_b->fibers[__openhip_b->cur];
  const unsigned __openhip_first = __openhip_f.linear & ~(__openhip_tile - 1u);
  const unsigned __openhip_end = __openhip_first + __openhip_tile < __openhip_b->n
                                     ? __openhip_first + __openhip_tile
                                     : __openhip_b->n;
  unsigned __openhip_waiting = 0;
  for (unsigned __openhip_i = __openhip_first; __openhip_i < __openhip_end; ++__openhip_i) {
    if (__openhip_i == __openhip_b->cur) continue;
    const unsigned __openhip_s = __openhip_b->fibers[__openhip_i].state;
    if (__openhip_s == __openhip_kAtTile) {
      ++__openhip_waiting;
    } else if (__openhip_s == kDone) {
      fail(719,
           "kernel '%s': deadlock in block (%u,%u,%u): thread_block_tile<%u>::sync (line %u): "
           "thread %u of the tile has exited and can never reach it",
           kernel_name(), blockIdx.x, blockIdx.y, blockIdx.z, __openhip_tile, __openhip_line,
           __openhip_i);
    }
  }
  if (__openhip_waiting + 1 == __openhip_end - __openhip_first) {
    for (unsigned __openhip_i = __openhip_first; __openhip_i < __openhip_end; ++__openhip_i) {
      if (__openhip_b->fibers[__openhip_i].state == __openhip_kAtTile) {
        __openhip_b->fibers[__openhip_i].state = kReady;
        ++__openhip_b->ready;
      }
    }
#ifdef OPENHIP_RACECHECK
    racecheck_sync(__openhip_first, __openhip_end);  // (racecheck: it orders the tile's threads)
#endif
    return;
  }
  __openhip_f.state = __openhip_kAtTile;
  __openhip_f.line = __openhip_line;
  --__openhip_b->ready;
  block_wait(__openhip_b);
}

#endif  // OPENHIP_CPU_CG_RUNTIME_H
