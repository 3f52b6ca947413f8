// openhip: name_expressions = reduce0<float>, reduce1<float>, reduce2<float>, reduce3<float>, reduce4<float, 256>, reduce5<float, 256>, reduce6<float, 256, false>, reduce6<float, 256, true>
// The CUDA samples' reduction kernels (6_Advanced/reduction, reduction_kernel.cu), reduce0 to
// reduce6, in their style: a SharedMemory<T> helper over extern __shared__, template block sizes,
// the last warp reduced with __shfl_down_sync.
template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

// Interleaved addressing with divergent branching.
template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if ((tid % (2 * s)) == 0) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Interleaved addressing with bank conflicts.
template <class T>
__global__ void reduce1(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x) {
      sdata[index] += sdata[index + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Sequential addressing.
template <class T>
__global__ void reduce2(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// First add during the global load.
template <class T>
__global__ void reduce3(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// The last warp with shuffles (the samples' current reduce4).
template <class T, unsigned int blockSize>
__global__ void reduce4(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
      mySum += __shfl_down_sync(0xffffffff, mySum, offset);
    }
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// Completely unrolled, the block size a template parameter.
template <class T, unsigned int blockSize>
__global__ void reduce5(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  __syncthreads();
  if ((blockSize >= 512) && (tid < 256)) {
    sdata[tid] = mySum = mySum + sdata[tid + 256];
  }
  __syncthreads();
  if ((blockSize >= 256) && (tid < 128)) {
    sdata[tid] = mySum = mySum + sdata[tid + 128];
  }
  __syncthreads();
  if ((blockSize >= 128) && (tid < 64)) {
    sdata[tid] = mySum = mySum + sdata[tid + 64];
  }
  __syncthreads();
  if (tid < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
      mySum += __shfl_down_sync(0xffffffff, mySum, offset);
    }
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// Multiple elements per thread (a grid-stride loop), unrolled.
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int gridSize = blockSize * gridDim.x;
  T mySum = 0;
  if (nIsPow2) {
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    gridSize = gridSize << 1;
    while (i < n) {
      mySum += g_idata[i];
      if ((i + blockSize) < n) mySum += g_idata[i + blockSize];
      i += gridSize;
    }
  } else {
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    while (i < n) {
      mySum += g_idata[i];
      i += gridSize;
    }
  }
  sdata[tid] = mySum;
  __syncthreads();
  if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
  __syncthreads();
  if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
  __syncthreads();
  if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
      mySum += __shfl_down_sync(0xffffffff, mySum, offset);
    }
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
