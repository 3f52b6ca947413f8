// Warp-shuffle scans in the style of the CUDA samples (2_Concepts_and_Techniques/shfl_scan).

// shfl_scan_test: an inclusive scan of each block; a warp's partial sums scanned by warp 0.
__global__ void shfl_scan_test(int *data, int width, int *partial_sums = NULL) {
  extern __shared__ int sums[];
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  int lane_id = id % warpSize;
  // determine a warp_id within a block
  int warp_id = threadIdx.x / warpSize;

  // Below is the basic structure of using a shfl instruction for a scan.
  int value = data[id];

  // Now accumulate in log steps up the chain
  for (int i = 1; i <= width; i *= 2) {
    unsigned int mask = 0xffffffff;
    int n = __shfl_up_sync(mask, value, i, width);
    if (lane_id >= i) value += n;
  }

  // value now holds the scan value for the individual thread; the last lane of each warp
  // writes its sum
  if (threadIdx.x % warpSize == warpSize - 1) {
    sums[warp_id] = value;
  }
  __syncthreads();

  // scan the sum of each warp in the first warp
  if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
    int warp_sum = sums[lane_id];
    int mask = (1 << (blockDim.x / warpSize)) - 1;
    for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
      int n = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));
      if (lane_id >= i) warp_sum += n;
    }
    sums[lane_id] = warp_sum;
  }
  __syncthreads();

  // add the previous warps' sums to each thread's value
  int blockSum = 0;
  if (warp_id > 0) {
    blockSum = sums[warp_id - 1];
  }
  value += blockSum;
  data[id] = value;
  if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) {
    partial_sums[blockIdx.x] = value;
  }
}

// uniform_add: add each block's scanned partial sum (as the sample's second pass does).
__global__ void uniform_add(int *data, int *partial_sums, int len) {
  __shared__ int buf;
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  if (id > len) return;
  if (threadIdx.x == 0) {
    buf = partial_sums[blockIdx.x];
  }
  __syncthreads();
  data[id] += buf;
}

// An exclusive warp scan with __shfl_up_sync, written as a helper (CUB-like).
__device__ __forceinline__ unsigned warp_exclusive_scan(unsigned x, unsigned lane) {
  unsigned inclusive = x;
  for (int d = 1; d < 32; d <<= 1) {
    unsigned y = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += y;
  }
  return inclusive - x;
}

__global__ void exclusive_scan_warps(const unsigned *in, unsigned *out) {
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  out[gid] = warp_exclusive_scan(in[gid], lane);
}
