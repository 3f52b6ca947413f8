// Kernels of test_cg_inline_groups.py: cooperative-groups collectives whose group is made in the
// call (`cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), v, op)`), which the CPU
// platform's split path rewrites like the same call on a tile variable.
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void inline_reduce(const float *in, float *out) {
  __shared__ float part[32];
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  v = cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), v, cg::plus<float>());
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  cg::sync(cg::this_thread_block());
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) s += part[w];
    out[blockIdx.x] = s;
  }
}

// a block variable as the parent, a 16-thread tile, an inclusive scan and a max
extern "C" __global__ void inline_scan_max(const int *in, int *scan, int *maxes) {
  cg::thread_block block = cg::this_thread_block();
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int s = cg::inclusive_scan(cg::tiled_partition<16>(block), v, cg::plus<int>());
  block.sync();
  int m = cg::reduce(cg::tiled_partition<16>(block), v, cg::greater<int>());
  scan[blockIdx.x * blockDim.x + threadIdx.x] = s;
  maxes[blockIdx.x * blockDim.x + threadIdx.x] = m;
}

// near miss: a tile of a tile, both made in the call, is not rewritten (the header's cg::reduce)
extern "C" __global__ void inline_wide(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  block.sync();
  int s = cg::reduce(cg::tiled_partition<8>(cg::tiled_partition<16>(block)), v, cg::plus<int>());
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// two collectives in one statement (both rewritten, in source order), and one inside another's
// operand (rewritten first, the outer one reading its result)
extern "C" __global__ void two_in_one(const float *in, float *out, int *nested) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[id];
  float r = cg::reduce(tile, v, cg::plus<float>()) +
            cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), v * 2.0f,
                       cg::greater<float>());
  out[id] = r;
  int k = (int)v;
  nested[id] = cg::reduce(tile, cg::reduce(tile, k, cg::plus<int>()), cg::less<int>());
}
