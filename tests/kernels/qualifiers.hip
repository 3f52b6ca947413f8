// The function and variable qualifiers: __launch_bounds__, __forceinline__, __noinline__,
// __host__ __device__, __restrict__, __managed__, and a kernel calling __device__ helpers.
#include <hip/hip_runtime.h>

__managed__ int managed_scale;

__host__ __device__ inline int twice(int v) { return 2 * v; }
__device__ __forceinline__ int plus_one(int v) { return v + 1; }
__device__ __noinline__ int square(int v) { return v * v; }

extern "C" __global__ void __launch_bounds__(256) combine(const int* __restrict__ in,
                                                          int* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = square(plus_one(twice(in[i]))) * managed_scale;
}
