// openhip: name_expressions = tile_reduce_scan<int>, tile_reduce_scan<unsigned int>, tile_reduce_scan<float>, tile_reduce_scan<double>
// cg::reduce, cg::inclusive_scan, cg::exclusive_scan over thread_block_tile<N> (every N <= 32)
// with cg::plus, less, greater, bit_and, bit_or, bit_xor; coalesced groups and partitions.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

template <class T, class G, class Op>
__device__ void collectives(const G& g, T v, T* o, Op op) {
  o[0] = cg::reduce(g, v, op);
  o[1] = cg::inclusive_scan(g, v, op);
  o[2] = cg::exclusive_scan(g, v, op);
}

template <class T, class G>
__device__ void by_op(const G& g, T v, T* o, int op) {
  if constexpr (sizeof(T) <= 8 && (T)0.5 == (T)0) {  // integers: the bitwise operators too
    if (op == 3) return collectives(g, v, o, cg::bit_and<T>());
    if (op == 4) return collectives(g, v, o, cg::bit_or<T>());
    if (op == 5) return collectives(g, v, o, cg::bit_xor<T>());
  }
  if (op == 1) return collectives(g, v, o, cg::less<T>());
  if (op == 2) return collectives(g, v, o, cg::greater<T>());
  collectives(g, v, o, cg::plus<T>());
}

template <class T, unsigned N>
__device__ void on_tile(const T* in, T* out, int op) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const unsigned i = block.group_index().x * block.size() + block.thread_rank();
  by_op(tile, in[i], out + 3 * i, op);
}

template <class T>
__global__ void tile_reduce_scan(const T* in, T* out, int n, int op) {
  switch (n) {
    case 1: on_tile<T, 1>(in, out, op); break;
    case 2: on_tile<T, 2>(in, out, op); break;
    case 4: on_tile<T, 4>(in, out, op); break;
    case 8: on_tile<T, 8>(in, out, op); break;
    case 16: on_tile<T, 16>(in, out, op); break;
    default: on_tile<T, 32>(in, out, op); break;
  }
}

// Threads whose key is odd form a coalesced group; per thread:
// [size, thread_rank, shfl(v, 0), shfl_up(v, 1), shfl_down(v, 1), ballot(v > 0), any, all,
//  reduce(+), inclusive_scan(+), exclusive_scan(+), meta_group_rank, meta_group_size]
// (threads with an even key write -1 everywhere).
extern "C" __global__ void coalesced(const int* key, const int* val, int* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int* o = out + 13 * i;
  const int v = val[i];
  if (key[i] & 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    o[0] = (int)g.size();
    o[1] = (int)g.thread_rank();
    o[2] = g.shfl(v, 0);
    o[3] = g.shfl_up(v, 1);
    o[4] = g.shfl_down(v, 1);
    o[5] = (int)g.ballot(v > 0);
    o[6] = g.any(v > 0);
    o[7] = g.all(v > 0);
    o[8] = cg::reduce(g, v, cg::plus<int>());
    o[9] = cg::inclusive_scan(g, v, cg::plus<int>());
    o[10] = cg::exclusive_scan(g, v, cg::plus<int>());
    o[11] = (int)g.meta_group_rank();
    o[12] = (int)g.meta_group_size();
    g.sync();
  } else {
    for (int j = 0; j < 13; ++j) o[j] = -1;
  }
}

// labeled_partition(tile32, key) and binary_partition(tile32, key & 1); per thread:
// [labeled size, labeled rank, labeled reduce(+), binary size, binary rank, binary reduce(+),
//  binary meta_group_rank]
extern "C" __global__ void partitions(const int* key, const int* val, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int* o = out + 7 * i;
  const int v = val[i];
  cg::coalesced_group lab = cg::labeled_partition(tile, key[i]);
  o[0] = (int)lab.size();
  o[1] = (int)lab.thread_rank();
  o[2] = cg::reduce(lab, v, cg::plus<int>());
  cg::coalesced_group bin = cg::binary_partition(tile, (key[i] & 1) != 0);
  o[3] = (int)bin.size();
  o[4] = (int)bin.thread_rank();
  o[5] = cg::reduce(bin, v, cg::plus<int>());
  o[6] = (int)bin.meta_group_rank();
}
