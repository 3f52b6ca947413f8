// Cooperative groups at block level: thread_block's ranks and indices, cg::sync, the split
// barrier, tiles wider than a warp (64 ... 512 threads) with their barrier, memcpy_async + wait.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

namespace cg = cooperative_groups;

// Per thread: [thread_rank, size, num_threads, group_index.x/y/z, thread_index.x/y/z,
// dim_threads.x/y/z, neighbour's rank after cg::sync, after barrier_arrive/wait]
extern "C" __global__ void block_info(unsigned* out) {
  __shared__ unsigned sh[1024];
  cg::thread_block block = cg::this_thread_block();
  const unsigned r = block.thread_rank();
  const unsigned blk = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned* o = out + 14 * (blk * block.size() + r);
  o[0] = r;
  o[1] = block.size();
  o[2] = block.num_threads();
  const dim3 gi = block.group_index(), ti = block.thread_index(), dt = block.dim_threads();
  o[3] = gi.x; o[4] = gi.y; o[5] = gi.z;
  o[6] = ti.x; o[7] = ti.y; o[8] = ti.z;
  o[9] = dt.x; o[10] = dt.y; o[11] = dt.z;
  sh[r] = r * 7u;
  cg::sync(block);
  o[12] = sh[(r + 1) % block.size()];
  cg::sync(block);
  sh[r] = r * 3u;
  auto token = block.barrier_arrive();
  block.barrier_wait(std::move(token));
  o[13] = sh[(r + 5) % block.size()];
}

// Tiles of N > 32 threads: each writes, the tile synchronises, each reads a neighbour in its
// tile; three rounds.  Per thread: [thread_rank, meta_group_rank, meta_group_size, read 1..3]
template <unsigned N>
__device__ void big_tile(unsigned* out) {
  __shared__ unsigned sh[1024];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const unsigned r = block.thread_rank();
  const unsigned base = r - tile.thread_rank();
  unsigned* o = out + 6 * r;
  o[0] = tile.thread_rank();
  o[1] = tile.meta_group_rank();
  o[2] = tile.meta_group_size();
  unsigned v = r;
  for (int round = 0; round < 3; ++round) {
    sh[r] = v;
    tile.sync();
    v = sh[base + (tile.thread_rank() + 1) % N] + 1000u;
    tile.sync();
    o[3 + round] = v;
  }
}

extern "C" __global__ void big_tiles(unsigned* out, int n) {
  switch (n) {
    case 64: big_tile<64>(out); break;
    case 128: big_tile<128>(out); break;
    case 256: big_tile<256>(out); break;
    default: big_tile<512>(out); break;
  }
}

// A tile barrier that a thread of the tile never reaches: reported, not a hang.
extern "C" __global__ void big_tile_exit(unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
  if (tile.thread_rank() == 5) return;
  tile.sync();
  out[block.thread_rank()] = 1;
}

// memcpy_async of a block's slice of `in` into shared memory, then cg::wait(block).
extern "C" __global__ void staged_copy(const float* in, float* out, int n) {
  __shared__ float tile[512];
  cg::thread_block block = cg::this_thread_block();
  const int base = blockIdx.x * (int)block.size();
  const int count = n - base < (int)block.size() ? n - base : (int)block.size();
  cg::memcpy_async(block, tile, in + base, sizeof(float) * count);
  cg::wait(block);
  const unsigned r = block.thread_rank();
  if ((int)r < count) out[base + r] = 2.0f * tile[(r + 1) % count];
}

// The element-count form with a tile as the group, and cg::wait_prior<0>.
extern "C" __global__ void staged_copy_tile(const int* in, int* out) {
  __shared__ int sh[256];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const unsigned w = block.thread_rank() / 32;
  cg::memcpy_async(tile, sh + 32 * w, 32, in + blockIdx.x * block.size() + 32 * w, 32);
  cg::wait_prior<0>(tile);
  out[blockIdx.x * block.size() + block.thread_rank()] = sh[32 * w + (tile.thread_rank() ^ 1)];
}
