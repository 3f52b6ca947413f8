// Kernels of a program of several source files (multi_main.cpp calls them).
#include <hip/hip_runtime.h>
#include "multi.h"

__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// A block reduction split at its barriers (the CPU platform's regions mode).
__global__ void block_sum(const float *x, float *out, int n) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step >>= 1) {
    if (tid < step) s[tid] += s[tid + step];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, s[0]);
}

float run_sum(const float *d_x, int n) {
  float *d_out, out = 0;
  hipMalloc(&d_out, sizeof(float));
  hipMemset(d_out, 0, sizeof(float));
  hipLaunchKernelGGL(block_sum, dim3((n + 255) / 256), dim3(256), 0, 0, d_x, d_out, n);
  hipMemcpy(&out, d_out, sizeof(float), hipMemcpyDeviceToHost);
  hipFree(d_out);
  return out;
}
