// One 256-thread reduction written in the styles public code uses: two declarations, one
// multi-declarator line, a const tid, the barrier loop in a __device__ helper, the HIP macro
// spellings, a while loop, a reduction helper taking the shared array.
#define BLOCK 256

__global__ void red_two_lines(const float *in, float *out) {
  __shared__ float s[BLOCK];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * BLOCK + t;
  s[t] = in[i];
  __syncthreads();
  for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void red_one_line(const float *in, float *out) {
  __shared__ float s[BLOCK];
  unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
  s[t] = in[i];
  __syncthreads();
  for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void red_const(const float *__restrict__ in, float *__restrict__ out) {
  __shared__ float s[BLOCK];
  const unsigned int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = in[gid];
  __syncthreads();
  for (unsigned int k = blockDim.x / 2, pass = 0; k > 0; k >>= 1, ++pass) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

__device__ void tree_reduce(float *s, unsigned t) {
  for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
}

__global__ void red_helper(const float *in, float *out) {
  __shared__ float s[BLOCK];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  tree_reduce(s, t);
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void red_hip_macros(const float *in, float *out) {
  __shared__ float s[BLOCK];
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

template <unsigned N>
__device__ __forceinline__ float block_sum(float v, float *smem) {
  const unsigned t = threadIdx.x;
  smem[t] = v;
  __syncthreads();
#pragma unroll
  for (unsigned k = N / 2; k > 0; k >>= 1) {
    if (t < k) smem[t] += smem[t + k];
    __syncthreads();
  }
  return smem[0];
}

__global__ void red_template_helper(const float *in, float *out) {
  __shared__ float smem[BLOCK];
  float total = block_sum<BLOCK>(in[blockIdx.x * BLOCK + threadIdx.x], smem);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// __syncwarp between the steps of a warp-synchronous tail (the post-Volta form).
__global__ void red_syncwarp_tail(const float *in, float *out) {
  __shared__ float s[BLOCK];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  for (unsigned k = BLOCK / 2; k > 32; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) {
    float v = s[t] + s[t + 32];
    __syncwarp();
    s[t] = v;
    __syncwarp();
    for (int k = 16; k > 0; k >>= 1) {
      if (t < k) v += s[t + k];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
