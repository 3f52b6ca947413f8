// Kernels of test_region_tails.py: regions whose last statement runs for one thread per block
// or per warp (`if (threadIdx.x == E) S`, `if (lane == E) S`), moved after the region's loop on
// the split path, and regions indexing with the flat global id (the thread loop counts it).
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;

#define FULL_MASK 0xffffffffu

// the bench's inclusive scan: a lane tail (lane == 31), a block tail (x == blockDim.x - 1), the
// flat index `blockIdx.x * blockDim.x + threadIdx.x` in 32 bits
extern "C" __global__ void scan_tails(T *data, T *block_sums) {
  __shared__ T sums[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
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

// tails whose condition can hold for no thread or for a run-time choice: E from a parameter
// (in or out of the block), a lane beyond the warp, a negative lane, the operands swapped, an
// alias of threadIdx.x, `& 31` lanes; each writes its own slot of out
extern "C" __global__ void odd_tails(const float *in, float *out, int pick, int lane_pick) {
  const unsigned tid = threadIdx.x;
  const int lane = threadIdx.x & 31;
  float v = in[blockIdx.x * blockDim.x + tid];
  v = v + __shfl_down_sync(FULL_MASK, v, 1);
  if (tid == (unsigned)pick) out[blockIdx.x * 16 + 0] = v;
  __syncthreads();
  v = v * 2.0f + __shfl_xor_sync(FULL_MASK, v, 2);
  if (lane == 40) out[blockIdx.x * 16 + 1] = v;
  __syncthreads();
  v = v + __shfl_down_sync(FULL_MASK, v, 4);
  if (lane == -1) out[blockIdx.x * 16 + 2] = v;
  __syncthreads();
  v = v - __shfl_down_sync(FULL_MASK, v, 8);
  if (0 == threadIdx.x) out[blockIdx.x * 16 + 3] = v;
  __syncthreads();
  v = v + __shfl_up_sync(FULL_MASK, v, 3);
  if (lane == lane_pick) out[blockIdx.x * 16 + 4 + threadIdx.x / 32] = v;
}

// a tail using a value declared in its own region (stays in the loop), one under a block-uniform
// loop (a later iteration reads the per-thread value again), and a statement after the
// condition's thread that reads what other threads of the region wrote before it
extern "C" __global__ void kept_tails(const int *in, int *out, int rounds) {
  __shared__ int seen[1024];
  int acc = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int r = 0; r < rounds; ++r) {
    acc += __shfl_xor_sync(FULL_MASK, acc, 1 << (r % 5));
    seen[threadIdx.x] = acc;
    __syncthreads();
    int local = acc * 3 + seen[(threadIdx.x + 1) % blockDim.x];
    if (threadIdx.x == 0) out[blockIdx.x * 4 + 0] += local;
    __syncthreads();
    acc = acc + (r & 1);
    if (threadIdx.x == blockDim.x - 1) out[blockIdx.x * 4 + 1] += acc;
    __syncthreads();
  }
  acc += __shfl_down_sync(FULL_MASK, acc, 16);
  out[blockIdx.x * 4 + 2] = seen[0];
  if (threadIdx.x == 0) out[blockIdx.x * 4 + 3] = acc + seen[blockDim.x - 1];
}

// the cooperative-groups form: tile.thread_rank() == 0 (a lane tail), block.thread_rank() == 0
extern "C" __global__ void cg_tails(const float *in, float *partial, unsigned n) {
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
    sum = tile.thread_rank() < (blockDim.x + 31) / 32 ? warp_sums[tile.thread_rank()] : 0.0f;
    sum = cg::reduce(tile, sum, cg::plus<float>());
  }
  if (block.thread_rank() == 0) partial[blockIdx.x] = sum;
}
