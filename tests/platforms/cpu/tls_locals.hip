// Kernels for test_split_tls_locals.py: split kernels whose block coordinates, thread index and
// static __shared__ arrays regions.py keeps in locals (TLS_LOCALS), and near misses.
#include <hip/hip_runtime.h>
#define FULL_MASK 0xffffffffu

// the bench's scan (bench/bench_cpu_styles.hip): each block's inclusive prefix sum
extern "C" __global__ void tl_scan(int *data, int *block_sums) {
  __shared__ int sums[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  int value = data[id];
  for (int d = 1; d < 32; d <<= 1) {
    int y = __shfl_up_sync(FULL_MASK, value, d);
    if (lane >= d) value += y;
  }
  if (lane == 31) sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    int s = lane < blockDim.x / 32 ? sums[lane] : 0;
    for (int d = 1; d < 32; d <<= 1) {
      int y = __shfl_up_sync(FULL_MASK, s, d);
      if (lane >= d) s += y;
    }
    sums[lane] = s;
  }
  __syncthreads();
  if (warp > 0) value += sums[warp - 1];
  data[id] = value;
  if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = value;
}

// a 16 x 16 tile transposed through a padded 2-D array, beside a second array and a scalar
// (not renamed); sizeof of the renamed array is the array's
extern "C" __global__ void tl_tile(const float *in, float *out, int *sizes, int width) {
  __shared__ float tile[16][17], edge[16];
  __shared__ int count;
  const unsigned x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (threadIdx.x == 0 && threadIdx.y == 0) count = (int)(blockIdx.x + blockIdx.y);
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  if (threadIdx.x == 15) edge[threadIdx.y] = in[y * width + x];
  __syncthreads();
  const unsigned tx = blockIdx.y * 16 + threadIdx.x, ty = blockIdx.x * 16 + threadIdx.y;
  out[ty * width + tx] = tile[threadIdx.x][threadIdx.y] + edge[threadIdx.x] + (float)count;
  if (threadIdx.x == 0 && threadIdx.y == 0 && blockIdx.x == 0 && blockIdx.y == 0) {
    sizes[0] = (int)sizeof(tile);
    sizes[1] = (int)(sizeof(edge) / sizeof(edge[0]));
    sizes[2] = (int)(gridDim.x * gridDim.y);
  }
}

// a device function that reads threadIdx and blockIdx itself: the thread loops must keep
// setting the global threadIdx
__device__ unsigned tl_global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }

extern "C" __global__ void tl_devfn(const int *in, int *out) {
  __shared__ int buf[256];
  buf[threadIdx.x] = in[tl_global_id()];
  __syncthreads();
  out[tl_global_id()] = buf[blockDim.x - 1 - threadIdx.x] + (int)threadIdx.x;
}

// a lambda in the body (it could not name a local of the function): nothing in locals
extern "C" __global__ void tl_lambda(const int *in, int *out) {
  __shared__ int buf[256];
  auto twice = [](int v) { return 2 * v + (int)blockIdx.x; };
  buf[threadIdx.x] = twice(in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}
