// Kernels of test_warp_base_loops.py: regions that read a warp index (threadIdx.x / 32,
// >> 5, / warpSize, a never-changed alias of one) run, in a 1-D block, per warp on the split
// path: the warp index is the lane loop's base / 32 (regions.py `_flush`).  Near misses read
// indices that are not one value per warp (x / 16, y / 32, a narrow alias) or change the alias.
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;

#define FULL_MASK 0xffffffffu

// each thread's value plus the total of the warps before its own and its warp's index
// (the scan's last region), the warp index spelt three ways, through a thread index alias
// and inline
extern "C" __global__ void wb_div(const T *in, T *out) {
  __shared__ T sums[32];
  const int warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[id];
  T s = v;
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL_MASK, s, d);
    if (lane >= d) s += y;
  }
  if (lane == 31 || threadIdx.x == blockDim.x - 1) sums[warp] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    T run = (T)0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) {
      T t = sums[w];
      sums[w] = run;
      run += t;
    }
  }
  __syncthreads();
  out[id] = v + sums[warp] + (T)(warp);
}

extern "C" __global__ void wb_shift(const T *in, T *out) {
  __shared__ T sums[32];
  const unsigned warp = threadIdx.x >> 5;
  const unsigned lane = threadIdx.x % 32;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[id];
  T s = v;
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL_MASK, s, d);
    if (lane >= d) s += y;
  }
  if (lane == 31 || threadIdx.x == blockDim.x - 1) sums[warp] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    T run = (T)0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) {
      T t = sums[w];
      sums[w] = run;
      run += t;
    }
  }
  __syncthreads();
  out[id] = v + sums[warp] + (T)(warp);
}

extern "C" __global__ void wb_warpsize(const T *in, T *out) {
  __shared__ T sums[32];
  int warp = threadIdx.x / warpSize;
  const unsigned lane = threadIdx.x % 32;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[id];
  T s = v;
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL_MASK, s, d);
    if (lane >= d) s += y;
  }
  if (lane == 31 || threadIdx.x == blockDim.x - 1) sums[warp] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    T run = (T)0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) {
      T t = sums[w];
      sums[w] = run;
      run += t;
    }
  }
  __syncthreads();
  out[id] = v + sums[warp] + (T)(warp);
}

extern "C" __global__ void wb_tid_alias(const T *in, T *out) {
  __shared__ T sums[32];
  const int tid = threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[id];
  T s = v;
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL_MASK, s, d);
    if (lane >= d) s += y;
  }
  if (lane == 31 || threadIdx.x == blockDim.x - 1) sums[tid / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    T run = (T)0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) {
      T t = sums[w];
      sums[w] = run;
      run += t;
    }
  }
  __syncthreads();
  out[id] = v + sums[tid / 32] + (T)(tid / 32);
}

extern "C" __global__ void wb_inline(const T *in, T *out) {
  __shared__ T sums[32];
  (void)0;
  const unsigned lane = threadIdx.x % 32;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[id];
  T s = v;
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL_MASK, s, d);
    if (lane >= d) s += y;
  }
  if (lane == 31 || threadIdx.x == blockDim.x - 1) sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    T run = (T)0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) {
      T t = sums[w];
      sums[w] = run;
      run += t;
    }
  }
  __syncthreads();
  out[id] = v + sums[threadIdx.x / 32] + (T)(threadIdx.x / 32);
}

// the scan's form with `blockDim.x * blockIdx.x + tid` (the flat id the other way round)
extern "C" __global__ void wb_scan(T *data, T *block_sums) {
  __shared__ T sums[32];
  const unsigned tid = threadIdx.x;
  const int lane = tid % 32, warp = tid / 32;
  const unsigned id = blockDim.x * blockIdx.x + tid;
  T value = data[id];
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL_MASK, value, d);
    if (lane >= d) value += y;
  }
  if (lane == 31) sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    T s = lane < (int)((blockDim.x + 31) / 32) ? sums[lane] : (T)0;
    for (int d = 1; d < 32; d <<= 1) {
      T y = __shfl_up_sync(FULL_MASK, s, d);
      if (lane >= d) s += y;
    }
    sums[lane] = s;
  }
  __syncthreads();
  if (warp > 0) value += sums[warp - 1];
  data[id] = value;
  if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = value;
}

// near misses: x / 16 (two groups per warp), y / 32, a narrow alias (wraps at 256 threads), the
// alias changed after the barrier (no longer one value per warp)
extern "C" __global__ void wb_near(const float *in, float *out) {
  __shared__ float sums[64];
  const int lane = threadIdx.x % 32;
  const int half = threadIdx.x / 16;
  const unsigned char narrow = threadIdx.x;
  int warp = threadIdx.x / 32;
  const unsigned id = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  float v = in[id];
  float s = v;
  for (int d = 1; d < 32; d <<= 1) {
    float y = __shfl_up_sync(FULL_MASK, s, d);
    if (lane >= d) s += y;
  }
  if (threadIdx.y == 0)
    for (unsigned i = threadIdx.x; i < 64; i += blockDim.x) sums[i] = (float)i;
  __syncthreads();
  warp += lane & 1;
  out[4 * id] = s + sums[half % 64];
  out[4 * id + 1] = sums[(threadIdx.y / 32 + narrow / 32) % 64];
  out[4 * id + 2] = sums[warp % 64];
  out[4 * id + 3] = (float)(narrow / 32) + 100.0f * (float)(threadIdx.y / 32);
}

// a 32-tile's meta_group_rank() (the block's tile index) as the warp index
extern "C" __global__ void wb_tile(const float *in, float *out) {
  __shared__ float sums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[id];
  float s = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) sums[tile.meta_group_rank()] = s;
  block.sync();
  out[id] = v + sums[tile.meta_group_rank()];
}
