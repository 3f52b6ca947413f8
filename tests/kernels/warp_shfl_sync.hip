// openhip: name_expressions = shfl_sync_all<int>, shfl_sync_all<float>, shfl_sync_all<double>
// The _sync shuffles with a full-warp mask, and a half-warp mask used by half the lanes.
#include <hip/hip_runtime.h>

template <typename T>
__global__ void shfl_sync_all(const T* in, T* out, int src, unsigned int delta, int lane_mask, int width) {
  const unsigned long long full = warpSize == 64 ? ~0ull : 0xffffffffull;
  const int n = gridDim.x * blockDim.x;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[tid];
  out[tid] = __shfl_sync(full, v, src, width);
  out[n + tid] = __shfl_up_sync(full, v, delta, width);
  out[2 * n + tid] = __shfl_down_sync(full, v, delta, width);
  out[3 * n + tid] = __shfl_xor_sync(full, v, lane_mask, width);
}

// Lanes of the lower half-warp shuffle among themselves (width = warpSize/2) with their own mask.
extern "C" __global__ void shfl_sync_lower_half(const int* in, int* out) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = tid % warpSize;
  const int half = warpSize / 2;
  const unsigned long long lower = (1ull << half) - 1ull;
  int r = -1;
  if (lane < half) r = __shfl_down_sync(lower, in[tid], 1, half);
  out[tid] = r;
}
