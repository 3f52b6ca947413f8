// Shuffle chains (warp.h wc_chain) under guards: the warp-uniform guard's shortcut (one guard
// byte per warp) and the cases that must keep the lane-by-lane flags (a partial last warp,
// exited lanes, a 2-D block, a per-lane guard). test_warp_guard_chains.py runs each split and
// as fibers and against numpy.
#define FULL 0xffffffffu

// odd warps only (warp-uniform: some warps in, some out)
extern "C" __global__ void gc_odd_warps(const float* in, float* out) {
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  float v = in[blockIdx.x * blockDim.x + t];
  if (warp % 2 == 1) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
    if (lane == 0) out[blockIdx.x * 32 + warp] = v;
  }
}

// nested warp-uniform guards around a chain
extern "C" __global__ void gc_nested(const int* in, int* out) {
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  int v = in[blockIdx.x * blockDim.x + t];
  if (warp >= 1) {
    v += 1;
    if (warp < 3) {
      for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
      out[blockIdx.x * blockDim.x + t] = v;
    }
  }
}

// lanes that returned before a warp-uniform guard: the chain reads the exit flags (fewer lanes
// live in each later block, so an exited lane's slot still holds the previous block's value)
extern "C" __global__ void gc_exit_then_guard(const float* in, float* out, unsigned live) {
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  if (t + 7u * blockIdx.x >= live) return;
  float v = in[blockIdx.x * blockDim.x + t];
  if (warp == 1) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
    out[blockIdx.x * blockDim.x + t] = v;
  }
}

// the block reduction of the bench (warp sums, warp 0 reduces them), in 1-D and 2-D blocks
extern "C" __global__ void gc_block_sum(const float* in, float* out) {
  __shared__ float sums[32];
  const unsigned t = threadIdx.x + threadIdx.y * blockDim.x, lane = t % 32, warp = t / 32;
  const unsigned n = blockDim.x * blockDim.y;
  float v = in[blockIdx.x * n + t];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
  if (lane == 0) sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (n + 31) / 32 ? sums[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// a guard on threadIdx.y: the same for every lane of a warp in a 1-D block, not in a 2-D one
extern "C" __global__ void gc_row_guard(const int* in, int* out) {
  const unsigned t = threadIdx.x + threadIdx.y * blockDim.x;
  int v = in[blockIdx.x * blockDim.x * blockDim.y + t];
  if (threadIdx.y == 1) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
  }
  out[blockIdx.x * blockDim.x * blockDim.y + t] = v;
}

// a per-lane guard: the chain keeps the lane-by-lane flags
extern "C" __global__ void gc_lane_guard(const int* in, int* out) {
  const unsigned t = threadIdx.x, lane = t % 32;
  int v = in[blockIdx.x * blockDim.x + t];
  if (lane < 20) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
  }
  out[blockIdx.x * blockDim.x + t] = v;
}

// the bench's form (threadIdx.x / 32: warp-uniform guard), 1-D blocks
extern "C" __global__ void gc_block_sum_1d(const float* in, float* out) {
  __shared__ float sums[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
  if (lane == 0) sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? sums[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// threadIdx.x / 32 in a 2-D block whose rows are not whole warps: not the same for a warp's lanes
extern "C" __global__ void gc_x_guard(const int* in, int* out) {
  const unsigned t = threadIdx.x + threadIdx.y * blockDim.x;
  int v = in[blockIdx.x * blockDim.x * blockDim.y + t];
  if (threadIdx.x / 32 == 1) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
  }
  out[blockIdx.x * blockDim.x * blockDim.y + t] = v;
}
