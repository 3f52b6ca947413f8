// Shared-tile transposes in the styles of public code, and the near misses of the split forms
// they use (test_split_transpose_tiles.py): per-thread locals assigned again after a barrier
// (region-private), `int x = U + threadIdx.x` sums (a signed copy of the region's loop), an
// unused cg::thread_block (threadIdx a local).
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;

// The CUDA sample's transposeCoalesced: 32 x 33 tile, 32 x 8 threads, cg::sync (no bounds).
#define TILE 32
#define ROWS 8
extern "C" __global__ void tt_cg(float *out, const float *in, int width, int height) {
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

// 16 x 16 tile without padding, 16 x 4 threads, __syncthreads, bounds (any width and height).
#define T16 16
#define R4 4
extern "C" __global__ void tt_sync_guard(float *out, const float *in, int width, int height) {
  __shared__ float tile[T16][T16];
  int x = blockIdx.x * T16 + threadIdx.x;
  int y = blockIdx.y * T16 + threadIdx.y;
  for (int j = 0; j < T16; j += R4)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * T16 + threadIdx.x;
  y = blockIdx.x * T16 + threadIdx.y;
  for (int j = 0; j < T16; j += R4)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// One element per thread, 8 x 8 blocks, `blockIdx.x * blockDim.x + threadIdx.x` (threadIdx
// second), the block's sync as a member, fresh declarations after the barrier, bounds.
extern "C" __global__ void tt_cta_sync(double *out, const double *in, int width, int height) {
  __shared__ double tile[8][9];
  cg::thread_block block = cg::this_thread_block();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  block.sync();
  int tx = blockIdx.y * blockDim.y + threadIdx.x;
  int ty = blockIdx.x * blockDim.x + threadIdx.y;
  if (tx < height && ty < width) out[ty * height + tx] = tile[threadIdx.x][threadIdx.y];
}

// A copy shifted left by 40: U = blockIdx.x * 32 - 40 is negative in block 0 and 1 (an int:
// the sum wraps in unsigned, the check keeps those blocks on the loop as written).
extern "C" __global__ void tt_shift(int *out, const int *in, int n) {
  __shared__ int s[32];
  int x = (int)blockIdx.x * 32 - 40 + threadIdx.x;
  s[threadIdx.x] = (x >= 0 && x < n) ? in[x] : -1;
  __syncthreads();
  x = blockIdx.x * 32 + threadIdx.x;
  if (x < n) out[x] = s[31 - threadIdx.x];
}

// U near INT_MAX: `BIG + threadIdx.x` converts to a negative int for the last lanes.
#define BIG 2147483600u
extern "C" __global__ void tt_big(int *out) {
  __shared__ int s[64];
  int v = BIG + threadIdx.x;
  s[threadIdx.x] = v;
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}

// isum_of (engine.h) itself, for U of several types: 1 where the signed form may be used.
extern "C" __global__ void tt_isum_of(int *out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  out[0] = ::openhip::detail::isum_of<unsigned>::ok(0u, 1024u);
  out[1] = ::openhip::detail::isum_of<unsigned>::ok(2147483647u - 1023u, 1024u);
  out[2] = ::openhip::detail::isum_of<unsigned>::ok(2147483647u - 1022u, 1024u);
  out[3] = ::openhip::detail::isum_of<int>::ok(-1, 1u);
  out[4] = ::openhip::detail::isum_of<long long>::ok(-4294967296ll + 5, 8u);
  out[5] = ::openhip::detail::isum_of<unsigned long long>::ok(4294967296ull + 5, 8u);
  out[6] = ::openhip::detail::isum_of<float>::ok(3.0f, 8u);
  out[7] = ::openhip::detail::isum_of<double>::ok(0.0, 1u);
  out[8] = ::openhip::detail::isum_of<long long>::ok(2147483647ll, 1u);
  out[9] = ::openhip::detail::isum_of<long long>::ok(2147483647ll, 2u);
  out[10] = ::openhip::detail::isum_of<int>::ok(7, 0u);
}

// Near misses of the region-private local: read before it is assigned again (v + ...), assigned
// under an if, compound-assigned; each keeps its per-thread array.
extern "C" __global__ void tt_near(int *out, const int *in) {
  __shared__ int s[64];
  int v = in[blockIdx.x * 64 + threadIdx.x];
  int w = v * 3;
  int z = v - 1;
  s[threadIdx.x] = v;
  __syncthreads();
  v = v + s[63 - threadIdx.x];
  if (threadIdx.x & 1) w = 5;
  z += s[threadIdx.x ^ 1];
  out[blockIdx.x * 64 + threadIdx.x] = v * 10000 + w * 100 + z;
}

// The group handed to a device function, which reads the thread index through it: threadIdx
// stays the engine's own.
__device__ int rank_of(const cg::thread_block &g) { return (int)g.thread_rank(); }
extern "C" __global__ void tt_group_passed(int *out) {
  __shared__ int s[64];
  cg::thread_block cta = cg::this_thread_block();
  s[threadIdx.x] = rank_of(cta);
  cg::sync(cta);
  out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] + 1000 * (int)blockIdx.x;
}
