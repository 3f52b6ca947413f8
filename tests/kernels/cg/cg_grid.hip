// Grid-wide synchronisation with cooperative groups (a cooperative launch): a two-phase sum
// over the grid and the grid group's ranks.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

// Phase 1: each block sums its slice into partial[block]; grid.sync(); phase 2: block 0
// sums the partials into *total; grid.sync(); phase 3: every thread reads the total.
extern "C" __global__ void grid_sum(const float* in, float* partial, float* total, float* seen,
                                    unsigned long long* info, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float sh[256];
  float s = 0.0f;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
    s += in[i];
  sh[block.thread_rank()] = s;
  block.sync();
  if (block.thread_rank() == 0) {
    float b = 0.0f;
    for (unsigned t = 0; t < block.size(); ++t) b += sh[t];
    partial[grid.block_rank()] = b;
  }
  grid.sync();
  if (grid.thread_rank() == 0) {
    float t = 0.0f;
    for (unsigned long long b = 0; b < grid.num_blocks(); ++b) t += partial[b];
    *total = t;
  }
  cg::sync(grid);
  seen[grid.thread_rank()] = *total;
  unsigned long long* o = info + 4 * grid.thread_rank();
  o[0] = grid.thread_rank();
  o[1] = grid.size();
  o[2] = grid.block_rank();
  o[3] = grid.is_valid() ? 1 : 0;
}

// Several grid barriers in a loop: out[b] counts the blocks that finished round r before
// anyone starts round r + 1.
extern "C" __global__ void grid_rounds(unsigned* counter, unsigned* out, int rounds) {
  cg::grid_group grid = cg::this_grid();
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) atomicAdd(counter, 1u);
    grid.sync();
    if (threadIdx.x == 0) out[r * grid.num_blocks() + blockIdx.x] = atomicAdd(counter, 0u);
    grid.sync();
  }
}

// Block 1 leaves before the grid barrier: the others can never pass it.
extern "C" __global__ void grid_exit(unsigned* out) {
  cg::grid_group grid = cg::this_grid();
  if (blockIdx.x == 1) return;
  grid.sync();
  out[blockIdx.x] = 1;
}
