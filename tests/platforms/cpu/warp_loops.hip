// Kernels of tests/platforms/cpu/test_warp_loops.py: per-thread stride loops interchanged with
// the thread loop, and regions under warp-uniform guards run as loops over warps (regions.py).
#define FULL 0xffffffffu

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(FULL, v, offset);
  return v;
}

// CUDA samples' style: a grid-stride sum, a shuffle reduction per warp, warp 0 reduces the
// warps' sums (a guard the same for each warp's lanes)
extern "C" __global__ void gs_sum(const float *in, float *partial, unsigned n) {
  __shared__ float warp_sums[32];
  float sum = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
    sum = warp_sum(sum);
    if (lane == 0) partial[blockIdx.x] = sum;
  }
}

// a block-stride loop through an alias of threadIdx.x, a size_t index, i = i + step
extern "C" __global__ void bs_alias(const int *in, long long *out, size_t n) {
  __shared__ long long s[256];
  const unsigned tid = threadIdx.x;
  long long acc = 0;
  for (size_t i = tid; i < n; i = i + blockDim.x) acc += in[i] * (long long)(i % 7);
  s[tid] = acc;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 2-D blocks: each row of threads strides along one row of the matrix
extern "C" __global__ void rows2d(const float *in, float *out, int w) {
  __shared__ float sm[8][32];
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0.0f;
  for (int i = threadIdx.x; i < w; i += blockDim.x) s += in[y * w + i] * (float)(i & 3);
  sm[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float r = 0.0f;
    for (unsigned k = 0; k < blockDim.x; ++k) r += sm[threadIdx.y][k];
    out[y] = r;
  }
}

// a start below zero: the run-time check keeps the loop as written (int + unsigned wraps)
extern "C" __global__ void neg_start(int *out, int base, int n) {
  __shared__ int seen;
  int cnt = 0, last = -1000;
  for (int i = base + threadIdx.x; i < n; i += blockDim.x) {
    cnt++;
    last = i;
  }
  if (threadIdx.x == 0) seen = 1;
  __syncthreads();
  out[2 * threadIdx.x] = cnt * seen;
  out[2 * threadIdx.x + 1] = last;
}

// not interchanged: a bound read from memory, a bound that depends on the thread, a float
// atomic in the body, a break; each still split and right
extern "C" __global__ void not_interchanged(const float *in, const int *lens, float *out, int n) {
  __shared__ float acc;
  __shared__ float rows[256];
  if (threadIdx.x == 0) acc = 0.0f;
  __syncthreads();
  float a = 0.0f, b = 0.0f, c = 0.0f;
  for (int i = threadIdx.x; i < lens[blockIdx.x]; i += blockDim.x) a += in[i];
  for (int i = threadIdx.x; i < (int)threadIdx.x * 3 + 5; i += 2) b += in[i % n];
  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&acc, in[i] * 0.1f);
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (in[i] > 2.5f) break;
    c += in[i];
  }
  rows[threadIdx.x] = a + 10.0f * b + 100.0f * c;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = rows[blockDim.x - 1 - threadIdx.x] + acc;
}

// nested warp-uniform guards, and a guard that is not warp-uniform (a partial mask)
extern "C" __global__ void guards(const int *in, int *out) {
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  int v = in[blockIdx.x * blockDim.x + t];
  int r = -1;
  __syncthreads();
  if (warp < 4) {
    v += __shfl_down_sync(FULL, v, 1);
    if (warp & 1) {
      v = __shfl_xor_sync(FULL, v, 3);
    } else {
      v = __shfl_up_sync(FULL, v, 2) * 3;
    }
  }
  if (lane % 2 == 0) r = __shfl_down_sync(0x55555555u, v, 2);
  out[blockIdx.x * blockDim.x + t] = v * 1000 + r;
}

// a warp-uniform guard in a kernel whose threads may exit: the thread loop as before
extern "C" __global__ void guard_exits(const int *in, int *out, unsigned limit) {
  const unsigned t = threadIdx.x;
  if (t >= limit) return;
  int v = in[t];
  __syncthreads();
  if (t / 32 == 1) v += __shfl_down_sync(FULL, v, 4);
  out[t] = v;
}

// the thread index in a signed local (HIP's macro spelling, a while loop): the thread loops
// count x in an int, so that `if (t < k)` splits
extern "C" __global__ void signed_tree(const float *in, float *out) {
  __shared__ float s[256];
  int t = hipThreadIdx_x;
  s[t] = in[hipBlockIdx_x * hipBlockDim_x + t];
  __syncthreads();
  int k = hipBlockDim_x / 2;
  while (k > 0) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
    k /= 2;
  }
  if (t == 0) out[hipBlockIdx_x] = s[0];
}

// a helper returning the block's sum after its barriers: its result lives in the last region
template <unsigned N>
__device__ __forceinline__ float block_sum(float v, float *smem) {
  const unsigned t = threadIdx.x;
  smem[t] = v;
  __syncthreads();
  for (unsigned k = N / 2; k > 0; k >>= 1) {
    if (t < k) smem[t] += smem[t + k];
    __syncthreads();
  }
  return smem[0];
}

extern "C" __global__ void helper_sum(const float *in, float *out) {
  __shared__ float smem[256];
  float total = block_sum<256>(in[blockIdx.x * 256 + threadIdx.x], smem);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// a stride loop after some threads exited, and one under #pragma unroll (left as written)
extern "C" __global__ void gs_exits(const float *in, float *out, int n, unsigned limit) {
  __shared__ float s[256];
  if (threadIdx.x >= limit) return;
  float a = 0.0f, b = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) a += in[i];
#pragma unroll 4
  for (int i = threadIdx.x; i < n; i += blockDim.x) b += 2.0f * in[i];
  s[threadIdx.x] = a + b;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x] + s[0];
}
