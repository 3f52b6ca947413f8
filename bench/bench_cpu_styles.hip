// Kernels of bench/bench_cpu_styles.py: the styles real CUDA code is written in, each of which
// the CPU platform runs split at its barriers and warp functions (regions mode).
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;

#define FULL_MASK 0xffffffffu

// ---- block reductions over a grid-stride sum: warp shuffles + one shared array --------------------
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

extern "C" __global__ void shfl_block_sum(const float *in, float *partial, unsigned n) {
  __shared__ float warp_sums[32];
  float sum = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    sum = warp_sum(sum);
    if (lane == 0) partial[blockIdx.x] = sum;
  }
}

// The same through cooperative groups: a 32-thread tile and cg::reduce.
extern "C" __global__ void cg_block_sum(const float *in, float *partial, unsigned n) {
  __shared__ float warp_sums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float sum = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sum = cg::reduce(tile, sum, cg::plus<float>());
  if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = sum;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    sum = tile.thread_rank() < blockDim.x / 32 ? warp_sums[tile.thread_rank()] : 0.0f;
    sum = cg::reduce(tile, sum, cg::plus<float>());
    if (tile.thread_rank() == 0) partial[blockIdx.x] = sum;
  }
}

// ---- an inclusive scan: warp shuffles, the warps' totals scanned by warp 0 ------------------------
extern "C" __global__ void shfl_scan(int *data, int *block_sums) {
  __shared__ int sums[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  int value = data[id];
  for (int d = 1; d < 32; d <<= 1) {
    int y = __shfl_up_sync(FULL_MASK, value, d);
    if (lane >= d) value += y;
  }
  if (lane == 31) sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    int s = lane < blockDim.x / 32 ? sums[lane] : 0;
    for (int d = 1; d < 32; d <<= 1) {
      int y = __shfl_up_sync(FULL_MASK, s, d);
      if (lane >= d) s += y;
    }
    sums[lane] = s;
  }
  __syncthreads();
  if (warp > 0) value += sums[warp - 1];
  data[id] = value;
  if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = value;
}

extern "C" __global__ void add_block_offsets(int *data, const int *scanned_sums) {
  if (blockIdx.x > 0) data[blockIdx.x * blockDim.x + threadIdx.x] += scanned_sums[blockIdx.x - 1];
}

// ---- transposes: shared tile (cg::sync), and the naive loop ----------------------------------------
#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose_tile_cg(float *out, const float *in, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  cg::thread_block cta = cg::this_thread_block();
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  cg::sync(cta);
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void transpose_naive(float *out, const float *in, int width, int height) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[x * height + (y + j)] = in[(y + j) * width + x];
}

// ---- the 256-thread tree reduction, in two declarations and in one --------------------------------
extern "C" __global__ void tree_two_lines(const float *in, float *partial) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * 256 + t;
  s[t] = in[i];
  __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

extern "C" __global__ void tree_one_line(const float *in, float *partial) {
  __shared__ float s[256];
  unsigned t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = in[i];
  __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
