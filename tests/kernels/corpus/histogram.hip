// Histograms with per-block sub-histograms in shared memory and shared atomics (the style of
// the CUDA samples' histogram256 and of the "GPU Pro Tip: Fast Histograms Using Shared Atomics"
// post).
#define NUM_BINS 256

__global__ void histogram_smem_atomics(const unsigned char *in, int n, unsigned int *out) {
  // linear thread index within the block, total threads in the grid
  int t = threadIdx.x;
  int nt = blockDim.x;
  __shared__ unsigned int smem[NUM_BINS];
  for (int i = t; i < NUM_BINS; i += nt) smem[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&smem[in[i]], 1);
  __syncthreads();
  for (int i = t; i < NUM_BINS; i += nt) atomicAdd(&out[i], smem[i]);
}

// 64 bins, a 2-D block, the per-block histogram written out and merged by a second kernel.
__global__ void histogram64_blocks(const unsigned *data, int n, unsigned *partial) {
  __shared__ unsigned s_hist[64];
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  for (unsigned b = tid; b < 64; b += threads) s_hist[b] = 0;
  __syncthreads();
  for (unsigned pos = blockIdx.x * threads + tid; pos < n; pos += threads * gridDim.x)
    atomicAdd(&s_hist[data[pos] & 63u], 1u);
  __syncthreads();
  for (unsigned b = tid; b < 64; b += threads) partial[blockIdx.x * 64 + b] = s_hist[b];
}

__global__ void merge_histogram64(const unsigned *partial, int blocks, unsigned *hist) {
  __shared__ unsigned data[256];
  unsigned sum = 0;
  for (int i = threadIdx.x; i < blocks; i += 256) sum += partial[blockIdx.x + i * 64];
  data[threadIdx.x] = sum;
  for (unsigned stride = 256 / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) hist[blockIdx.x] = data[0];
}
