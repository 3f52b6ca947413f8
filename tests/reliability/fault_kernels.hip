// Kernels of the reliability tests (tests/reliability/test_kernel_faults.py, test_fiber_stack.py,
// test_interrupt.py, test_fork.py, test_stream_stress.py): each misbehaves in one way a real
// kernel does by mistake.
#include <hip/hip_runtime.h>

// CUDA samples' vectorAdd, with one thread (`bad`) writing through a wild pointer.
extern "C" __global__ void vector_add_wild(const float* a, const float* b, float* c, int n,
                                           int bad, long long wild) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i == bad) *reinterpret_cast<float*>(wild) = 1.0f;
  if (i < n) c[i] = a[i] + b[i];
}

// CuPy-docs style elementwise kernel over a size_t index that reads far past its buffer in
// thread `bad` (an index computed from a wrong stride).
extern "C" __global__ void gather_oob(const float* x, float* y, size_t n, size_t bad) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  size_t j = i == bad ? i + (size_t(1) << 40) : i;
  y[i] = x[j] * 2.0f;
}

// Integer division by a value that is zero for one thread.
extern "C" __global__ void divide(const int* num, const int* den, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = num[i] / den[i];
}

// A trap the compiler emits (ud2 on x86-64): an illegal instruction.
extern "C" __global__ void illegal(int* out, int bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == bad) __builtin_trap();
  out[i] = i;
}

// A shared-memory reversal (runs as fibers with OPENHIP_CPU_REGIONS=0) in which one thread
// writes through a wild pointer (e.g. a near-null one, a null struct pointer's member) between
// the barriers.
extern "C" __global__ void reverse_wild(int* out, int bad, long long wild) {
  __shared__ int tile[256];
  const int t = threadIdx.x;
  tile[t] = blockIdx.x * blockDim.x + t;
  __syncthreads();
  if (int(blockIdx.x * blockDim.x) + t == bad) *reinterpret_cast<int*>(wild) = 1;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}

// Recursion `depth` deep in thread `who` (about 300 bytes of stack per level); every thread
// writes its own result, which a silent overflow into a neighbour's stack would change.
__device__ __noinline__ int descend(int depth, int salt) {
  volatile int frame[64];
  frame[0] = depth ^ salt;
  frame[63] = depth;
  if (depth <= 0) return frame[0];
  return descend(depth - 1, salt) + (frame[63] & 1);
}
extern "C" __global__ void recurse(int* out, int depth, int who) {
  __shared__ int tile[256];
  const int t = threadIdx.x;
  int mine = t * 3 + 1;  // kept on this thread's stack across the barrier
  tile[t] = t;
  __syncthreads();
  int r = t == who ? descend(depth, t) : 0;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t] + mine + r;
}

// Every block spins for `us` microseconds: a long but well-behaved launch (it reaches a block
// boundary every `us`).
extern "C" __global__ void spin_blocks(int* out, long long us) {
  long long start = wall_clock64();
  while (wall_clock64() - start < us * 1000) {
  }
  if (threadIdx.x == 0) out[blockIdx.x] = 1;
}

// Spins until the host sets *flag (the interrupt test never does: a runaway kernel that never
// reaches a block boundary; the fork test does after the fork). Sets *started first, so that
// the host knows it runs.
extern "C" __global__ void spin_forever(volatile int* flag, volatile int* started) {
  *started = 1;
  while (*flag == 0) {
  }
}

// out[i] = a * x[i] + y[i] (the stress test's kernel, checked against numpy).
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
