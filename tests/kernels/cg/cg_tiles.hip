// openhip: name_expressions = tile_shfl<int>, tile_shfl<float>, tile_shfl<double>, tile_shfl<S16>, tile_shfl<S12>
// Cooperative groups: thread_block_tile<N> shuffles, votes and matches for every N <= 32.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

struct S16 {  // 16 bytes: moved by the tile as two 8-byte shuffles
  int a;
  float b;
  double c;
};
struct S12 {  // 12 bytes: not a multiple of 8
  int a, b, c;
};

// op 0 shfl(v, (rank * 3 + arg) % N) ... the source rank is computed on the host too
template <class T, unsigned N>
__device__ void shfl_tile(const T* in, T* out, int op, int arg) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const unsigned i = block.group_index().x * block.size() + block.thread_rank();
  const T v = in[i];
  T r;
  if (op == 0) {
    r = tile.shfl(v, (int)((tile.thread_rank() * 3 + arg) % N));
  } else if (op == 1) {
    r = tile.shfl_up(v, arg);
  } else if (op == 2) {
    r = tile.shfl_down(v, arg);
  } else {
    r = tile.shfl_xor(v, arg);
  }
  out[i] = r;
}

template <class T>
__global__ void tile_shfl(const T* in, T* out, int n, int op, int arg) {
  switch (n) {
    case 1: shfl_tile<T, 1>(in, out, op, arg); break;
    case 2: shfl_tile<T, 2>(in, out, op, arg); break;
    case 4: shfl_tile<T, 4>(in, out, op, arg); break;
    case 8: shfl_tile<T, 8>(in, out, op, arg); break;
    case 16: shfl_tile<T, 16>(in, out, op, arg); break;
    default: shfl_tile<T, 32>(in, out, op, arg); break;
  }
}

// Per thread: [thread_rank, num_threads, meta_group_rank, meta_group_size, any, all, ballot,
// match_any, match_all, match_all's pred]
template <unsigned N>
__device__ void vote_tile(const int* in, unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const unsigned i = block.group_index().x * block.size() + block.thread_rank();
  const int v = in[i];
  unsigned* o = out + 10 * i;
  o[0] = tile.thread_rank();
  o[1] = tile.num_threads();
  o[2] = tile.meta_group_rank();
  o[3] = tile.meta_group_size();
  o[4] = tile.any(v & 1);
  o[5] = tile.all(v & 1);
  o[6] = tile.ballot(v & 1);
  o[7] = tile.match_any(v >> 1);
  int pred = -1;
  o[8] = tile.match_all(v >> 1, pred);
  o[9] = (unsigned)pred;
  tile.sync();
}

extern "C" __global__ void tile_vote(const int* in, unsigned* out, int n) {
  switch (n) {
    case 1: vote_tile<1>(in, out); break;
    case 2: vote_tile<2>(in, out); break;
    case 4: vote_tile<4>(in, out); break;
    case 8: vote_tile<8>(in, out); break;
    case 16: vote_tile<16>(in, out); break;
    default: vote_tile<32>(in, out); break;
  }
}

// Tiles of tiles: tiled_partition<4>(tile32); ranks relative to the parent tile.
extern "C" __global__ void tile_of_tile(unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(t32);
  const unsigned i = block.thread_rank();
  out[4 * i + 0] = t4.thread_rank();
  out[4 * i + 1] = t4.meta_group_rank();
  out[4 * i + 2] = t4.meta_group_size();
  out[4 * i + 3] = t4.shfl((int)i, 3);
}

// The dynamic form: tiled_partition(block, n) as a thread_group.
extern "C" __global__ void dynamic_tile(unsigned* out, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group g = cg::tiled_partition(block, n);
  const unsigned i = block.thread_rank();
  out[3 * i + 0] = g.thread_rank();
  out[3 * i + 1] = g.size();
  g.sync();
  out[3 * i + 2] = g.num_threads();
}
