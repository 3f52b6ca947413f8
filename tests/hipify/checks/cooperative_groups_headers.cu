// CUDA's cooperative-groups reduce and scan headers become HIP's (as newer HIPIFY maps them:
// src/CUDA2HIP.cpp at 06ebcc28); the cg:: names are the same in HIP and are kept.
// CHECK: #include <hip/hip_cooperative_groups.h>
// CHECK-NEXT: #include <hip/cooperative_groups/hip_reduce.h>
// CHECK-NEXT: #include "hip/cooperative_groups/hip_scan.h"
// CHECK-NOT: #include <cooperative_groups/reduce.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "cooperative_groups/scan.h"
namespace cg = cooperative_groups;

__global__ void tile_scan(const int *in, int *out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: out[i] = cg::inclusive_scan(tile, in[i]) + cg::reduce(tile, in[i], cg::plus<int>());
  out[i] = cg::inclusive_scan(tile, in[i]) + cg::reduce(tile, in[i], cg::plus<int>());
}
