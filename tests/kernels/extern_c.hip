// extern "C" kernels (one in a block, one alone) next to a C++ kernel of another name.
#include <hip/hip_runtime.h>

extern "C" {
__global__ void add_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}
}

extern "C" __global__ void times_two(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2;
}

__global__ void minus_three(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] -= 3;
}
