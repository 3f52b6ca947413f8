// Kernels of tests/runtime/test_pool.py.
#include <hip/hip_runtime.h>

// Spins until *flag becomes nonzero (the host sets it through a numpy view on the CPU
// platform), or `limit` iterations (a test that forgets the flag does not hang), then writes
// `value` into out[0..n).
extern "C" __global__ void wait_then_fill(volatile int* flag, long long limit, int* out, int n,
                                          int value) {
  for (long long i = 0; i < limit && *flag == 0; ++i) {
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = value;
}

// Writes x[i] = i for i < n: with n one past the request, one element lands past its end.
extern "C" __global__ void iota(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = static_cast<float>(i);
}
