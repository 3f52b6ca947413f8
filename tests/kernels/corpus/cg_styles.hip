// Cooperative groups in the spellings public code uses (CUDA samples' reduction_kernel.cu cg
// variants, the "Cooperative Groups" blog post, NVIDIA's CUDA C++ guide): block syncs, 32- and
// 16-thread tiles with shuffles, votes and cg::reduce / cg::inclusive_scan.
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;

// The blog's reduce_sum over a thread_group, called with the whole block.
__device__ int reduce_sum(cg::thread_group g, int *temp, int val) {
  int lane = g.thread_rank();
  // Each iteration halves the number of active threads; each thread adds its partial sum[i]
  // to sum[lane+i]
  for (int i = g.size() / 2; i > 0; i /= 2) {
    temp[lane] = val;
    g.sync();  // wait for all threads to store
    if (lane < i) val += temp[lane + i];
    g.sync();  // wait for all threads to load
  }
  return val;  // note: only thread 0 will return full sum
}

__global__ void sum_kernel_block(int *sum, const int *input) {
  __shared__ int temp[256];
  auto g = cg::this_thread_block();
  int my_sum = input[blockIdx.x * blockDim.x + threadIdx.x];
  int block_sum = reduce_sum(g, temp, my_sum);
  if (g.thread_rank() == 0) sum[blockIdx.x] = block_sum;
}

// The samples' cg reduce4 shape: cta.sync(), then the last warp through a 32-thread tile.
__global__ void cg_reduce4(const float *g_idata, float *g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  cg::sync(cta);
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    cg::sync(cta);
  }
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    mySum += sdata[tid + 32];
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) {
      mySum += tile32.shfl_down(mySum, offset);
    }
  }
  if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

// this_thread_block().sync() and tiles of 16 with votes, ballots and shuffles of doubles.
__global__ void tile16_votes(const int *in, int *any_out, int *all_out, unsigned *ballot_out,
                             double *xor_out) {
  __shared__ int staged[128];
  const int t = threadIdx.x;
  staged[t] = in[blockIdx.x * blockDim.x + t];
  cg::this_thread_block().sync();
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  const int v = staged[(t + 5) % blockDim.x];
  const int gid = blockIdx.x * blockDim.x + t;
  any_out[gid] = tile.any(v > 90);
  all_out[gid] = tile.all(v > 5);
  ballot_out[gid] = tile.ballot(v % 2 == 0);
  double d = v * 0.5;
  d += tile.shfl_xor(d, 3);
  tile.sync();
  xor_out[gid] = d + tile.shfl(d, 15);
}

// cg::reduce and cg::inclusive_scan over 32-thread tiles, with cg::plus and cg::greater.
__global__ void tile_collectives(const int *in, int *sums, int *maxes, int *scans) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[gid];
  sums[gid] = cg::reduce(warp, x, cg::plus<int>());
  maxes[gid] = cg::reduce(warp, x, cg::greater<int>());
  scans[gid] = cg::inclusive_scan(warp, x, cg::plus<int>());
}

// A tile of 64 (a barrier of 64 threads, not a warp): left to fibers with the reason.
__global__ void tile64_sync(int *out) {
  __shared__ int s[128];
  auto tile = cg::tiled_partition<64>(cg::this_thread_block());
  s[threadIdx.x] = threadIdx.x;
  tile.sync();
  out[threadIdx.x] = s[threadIdx.x ^ 63];
}
