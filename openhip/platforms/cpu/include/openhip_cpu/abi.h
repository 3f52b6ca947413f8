// openhip CPU platform: the binary interface between the host runtime library (src/runtime.cpp)
// and kernel modules (the shared objects the compiler driver builds from user source).
//
// A kernel module exports, per kernel, an entry point of type openhip_entry_fn.  The runtime
// calls it on a worker thread for a contiguous range of linear block ids; the entry runs those
// blocks to completion (loop mode or fiber mode, see engine.h) and returns a hipError_t value
// (0 = success) with a message in worker->error on failure.
//
// Plain C layout only: this header is compiled into both sides and must not change silently
// (OPENHIP_CPU_ABI_VERSION is part of the compiler identity).
#pragma once
#include <stdint.h>

#define OPENHIP_CPU_ABI_VERSION 3

#ifdef __cplusplus
extern "C" {
#endif

typedef struct openhip_launch {
  uint32_t grid[3];             // gridDim
  uint32_t block[3];            // blockDim
  uint64_t shared_mem;          // dynamic shared memory bytes requested by the launch
  const void* const* args;      // args[i] points at argument i's bytes (copied at enqueue time)
  uint32_t nargs;
  uint32_t reserved;
} openhip_launch;

typedef struct openhip_worker openhip_worker;

struct openhip_worker {
  // Dynamic shared memory of this worker thread: a fixed address for the thread's lifetime
  // (kernels cache it in function-local thread_local pointers), dyn_shared_cap bytes usable.
  unsigned char* dyn_shared;
  uint64_t dyn_shared_cap;
  // Fiber stacks live in one address range reserved by the runtime for all workers: 2^slot_shift
  // bytes per worker, slot-aligned.  A slot starts with a header page (the engine keeps the
  // running Block* in its first word), then a guard page, then the stacks.  So code running on
  // a fiber finds its block from the stack pointer alone, without a TLS lookup.
  unsigned char* fiber_region;
  uint64_t fiber_region_size;
  uint32_t fiber_slot_shift;
  uint32_t reserved0;
  // Fiber stacks: fiber_capacity stacks at a stride of stack_size bytes starting at `stacks`,
  // plus `scratch` (scratch_size bytes) for the engine's per-block bookkeeping.  Grown on demand
  // by ensure_fibers(); never shrink while the thread lives.  The lowest stack_guard bytes of
  // every stride are PROT_NONE (a fiber that overflows its stack faults there, before it
  // reaches its neighbour's); stack_usable bytes above them are the fiber's stack (the rest of
  // the stride staggers the stack tops across cache sets).
  unsigned char* stacks;
  uint64_t stack_size;
  uint32_t fiber_capacity;
  uint32_t reserved;
  unsigned char* scratch;
  uint64_t scratch_size;
  // Makes room for `fibers` stacks and `scratch_bytes` of scratch; returns 0 or a hipError_t.
  int (*ensure_fibers)(openhip_worker* self, uint32_t fibers, uint64_t scratch_bytes);
  // Failure report of the last entry call on this worker.
  char error[1024];
  uint64_t stack_guard;
  uint64_t stack_usable;
  // Faults (runtime.cpp installs the SIGSEGV/SIGBUS/SIGFPE/SIGILL handler).  The engine sets
  // in_kernel while an entry call runs kernel code and on_fault to its recovery function; a
  // fault on this thread while in_kernel is set clears it, records the signal, si_code and
  // si_addr here and calls on_fault(self) on the thread's signal stack, which never returns: it
  // jumps back into the entry call, which fails the launch.  Other faults go to the handler
  // that was installed before (Python's faulthandler) or the default action.
  // The handler also classifies the fault: fault_status is the hipError_t of the launch
  // (hipErrorIllegalAddress for SIGSEGV/SIGBUS, hipErrorLaunchFailure for the others) and
  // fault_what a static description ("SIGSEGV (address not mapped)").
  volatile int in_kernel;
  int fault_signal;
  int fault_code;
  int fault_status;
  void* fault_addr;
  const char* fault_what;
  void (*on_fault)(openhip_worker* self);
  // Nonzero *cancel (written with __atomic stores, read as a volatile) asks the entry call to
  // stop at the next block boundary: a block of the launch failed elsewhere, or it was cancelled.
  const int* cancel;
};

typedef int (*openhip_entry_fn)(const openhip_launch* launch, openhip_worker* worker,
                                uint64_t block_begin, uint64_t block_end);

#ifdef __cplusplus
}
#endif
