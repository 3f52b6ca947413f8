// Static __shared__ memory with __syncthreads: a tree reduction per block, and a block-wide
// reversal through a shared tile declared inside a __device__ helper.
#include <hip/hip_runtime.h>

#define BLOCK 256

extern "C" __global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float s[BLOCK];
  const unsigned int t = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + t;
  s[t] = i < (unsigned int)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__device__ int reverse_in_block(int v) {
  __shared__ int tile[1024];
  tile[threadIdx.x] = v;
  __syncthreads();
  return tile[blockDim.x - 1 - threadIdx.x];
}

extern "C" __global__ void block_reverse(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = reverse_in_block(in[i]);
}
