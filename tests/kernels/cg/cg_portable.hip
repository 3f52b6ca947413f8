// openhip: name_expressions = tile_sums<float>, tile_sums<int>
// Cooperative groups in the subset that CUDA 12, HIP (ROCm 5.2 and later) and openhip's CPU
// platform all provide: the same source compiles for sm_90, gfx90a and the CPU.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

// Per element: [tile reduce(+), tile inclusive scan(+), shfl_xor(1), shfl_down(1) sum,
// block sum through shared memory]
template <class T>
__global__ void tile_sums(const T* in, T* out) {
  __shared__ T sh[256];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const unsigned i = blockIdx.x * block.size() + block.thread_rank();
  const T v = in[i];
  T* o = out + 5 * i;
  o[0] = cg::reduce(tile, v, cg::plus<T>());
  o[1] = cg::inclusive_scan(tile, v, cg::plus<T>());
  o[2] = tile.shfl_xor(v, 1);
  T s = v;
  for (unsigned off = tile.size() / 2; off > 0; off /= 2) s += tile.shfl_down(s, off);
  tile.sync();
  o[3] = tile.shfl(s, 0);
  sh[block.thread_rank()] = v;
  block.sync();
  T b = 0;
  for (unsigned t = 0; t < block.size(); ++t) b += sh[t];
  o[4] = b;
}

// Grid-wide: each block's sum into partial[], grid.sync(), every thread reads the total.
extern "C" __global__ void grid_total(const float* in, float* partial, float* out) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float sh[256];
  sh[block.thread_rank()] = in[grid.thread_rank()];
  block.sync();
  if (block.thread_rank() == 0) {
    float s = 0.0f;
    for (unsigned t = 0; t < block.size(); ++t) s += sh[t];
    partial[blockIdx.x] = s;
  }
  grid.sync();
  float total = 0.0f;
  for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
  out[grid.thread_rank()] = total;
}
