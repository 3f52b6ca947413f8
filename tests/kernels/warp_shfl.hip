// openhip: name_expressions = shfl_all<int>, shfl_all<unsigned int>, shfl_all<float>, shfl_all<double>, shfl_all<long long>
// Warp shuffles (plain forms) for several types, one source lane / delta / xor mask / width per
// launch. out has 4 rows of n values: __shfl, __shfl_up, __shfl_down, __shfl_xor.
#include <hip/hip_runtime.h>

template <typename T>
__global__ void shfl_all(const T* in, T* out, int src, unsigned int delta, int lane_mask, int width) {
  const int n = gridDim.x * blockDim.x;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[tid];
  out[tid] = __shfl(v, src, width);
  out[n + tid] = __shfl_up(v, delta, width);
  out[2 * n + tid] = __shfl_down(v, delta, width);
  out[3 * n + tid] = __shfl_xor(v, lane_mask, width);
}

// The classic reduction: lane 0 of every warp must hold the warp's sum, every lane of the
// butterfly the warp's sum.
extern "C" __global__ void warp_sums(const int* in, int* down_sum, int* xor_sum) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int a = in[tid], b = in[tid];
  for (int o = warpSize / 2; o > 0; o /= 2) a += __shfl_down(a, o);
  for (int o = 1; o < warpSize; o *= 2) b += __shfl_xor(b, o);
  down_sum[tid] = a;
  xor_sum[tid] = b;
}
