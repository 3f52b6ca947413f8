// __constant__ and __device__ variables: set from the host through get_global, read and written
// by kernels.
#include <hip/hip_runtime.h>

__constant__ float coeffs[4];
__device__ int bias;
__device__ float results[64];

// y = c0 + c1 x + c2 x^2 + c3 x^3 + bias
extern "C" __global__ void poly(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3])) + bias;
  }
}

// Writes into a __device__ array the host reads back.
extern "C" __global__ void fill_results(float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64) results[i] = value * i;
}
