// Kernels of tests/tools/test_profiler*.py, in the styles public code uses.
#include <hip/hip_runtime.h>

// CUDA samples' style: out = a * x + y.
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

// A block reduction through dynamic shared memory (extern __shared__), one partial sum per block.
extern "C" __global__ void block_sum(const float* in, float* partial, int n) {
  extern __shared__ float tile[];
  const unsigned t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  tile[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = tile[0];
}
