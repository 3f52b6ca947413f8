// Scalar products in the style of the CUDA samples (scalarProd): each block computes whole
// dot products of vector pairs, accumulating partial sums in shared memory.
#define ACCUM_N 1024

__global__ void scalarProdGPU(float *d_C, float *d_A, float *d_B, int vectorN, int elementN) {
  // Accumulators cache
  __shared__ float accumResult[ACCUM_N];
  // Cycle through every pair of vectors, taking into account that vector counts can be
  // different from total number of thread blocks
  for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
    int vectorBase = elementN * vec;
    int vectorEnd = vectorBase + elementN;
    // Each accumulator cycles through vectors with stride equal to the total number of
    // accumulators, ACCUM_N
    for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
      float sum = 0;
      for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
        sum += d_A[pos] * d_B[pos];
      accumResult[iAccum] = sum;
    }
    // Perform tree-like reduction of accumulators' results.
    for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
        accumResult[iAccum] += accumResult[stride + iAccum];
    }
    __syncthreads();
    if (threadIdx.x == 0) d_C[vec] = accumResult[0];
  }
}
