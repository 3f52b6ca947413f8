// Barriers a block can never pass.  On a GPU both are undefined behaviour (they may hang); the
// CPU platform must fail the launch with a deadlock error instead of hanging.
#include <hip/hip_runtime.h>

// Half the threads wait at one __syncthreads, the other half at another.
extern "C" __global__ void divergent_barrier(int* out) {
  if (threadIdx.x < 16) {
    __syncthreads();
    out[threadIdx.x] = 1;
  } else {
    __syncthreads();
    out[threadIdx.x] = 2;
  }
}

// Lanes 0-15 shuffle with a mask naming all 32 lanes while lanes 16-31 wait at a barrier.
extern "C" __global__ void warp_waits_for_barrier(int* out) {
  int v = threadIdx.x;
  if (threadIdx.x < 16) {
    v = __shfl_sync(0xffffffffu, v, 0);
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = v;
}

// Threads that exit do not block a barrier: this one must complete.
extern "C" __global__ void early_exit_ok(int* out) {
  if (threadIdx.x >= 8) return;
  __syncthreads();
  out[threadIdx.x] = 7;
}
