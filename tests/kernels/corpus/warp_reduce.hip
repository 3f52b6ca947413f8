// Warp-shuffle block reductions in the styles of NVIDIA's "Faster Parallel Reductions on Kepler"
// blog post and of public softmax/layer-norm kernels: helper functions with warp shuffles, a
// shared array of per-warp partial sums, xor butterflies, warp reductions under warp_id tests.
#define FULL_MASK 0xffffffff

__inline__ __device__ float warpReduceSum(float val) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    val += __shfl_down_sync(FULL_MASK, val, offset);
  return val;
}

__inline__ __device__ float blockReduceSum(float val) {
  __shared__ float shared[32];  // one partial sum per warp
  int lane = threadIdx.x % warpSize;
  int wid = threadIdx.x / warpSize;
  val = warpReduceSum(val);
  if (lane == 0) shared[wid] = val;
  __syncthreads();
  val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
  if (wid == 0) val = warpReduceSum(val);
  return val;
}

// The blog's deviceReduceKernel: a grid-stride sum, then blockReduceSum.
__global__ void deviceReduceKernel(const float *in, float *out, int N) {
  float sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  sum = blockReduceSum(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// The same written inline, with a warp-level atomicAdd of each warp's sum instead.
__global__ void deviceReduceWarpAtomicKernel(const float *in, float *out, int N) {
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
    sum += in[i];
  sum = warpReduceSum(sum);
  if ((threadIdx.x & (warpSize - 1)) == 0) atomicAdd(out, sum);
}

template <typename T>
__device__ __forceinline__ T warp_allreduce_max(T v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, mask));
  return v;
}

template <typename T>
__device__ __forceinline__ T warp_allreduce_sum(T v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
  return v;
}

// One warp per row: max, then the sum of exponentials, by xor butterflies (softmax style).
__global__ void row_softmax(const float *x, float *y, int rows, int cols) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * (blockDim.x / 32) + warp;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
  m = warp_allreduce_max(m);
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
  s = warp_allreduce_sum(s);
  for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = expf(xr[c] - m) / s;
}

// Integer sums with the legacy mask-less shuffle under a warp-uniform test.
__global__ void warp_sums_legacy(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int warp_id = threadIdx.x >> 5;
  if (warp_id < 2) {
    for (int d = 16; d >= 1; d >>= 1) v += __shfl_xor(v, d);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
