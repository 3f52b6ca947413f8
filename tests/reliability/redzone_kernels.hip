// Kernels for tests/reliability/test_redzone.py: each is correct code launched with a wrong
// size (the everyday way a kernel writes past a buffer), in the styles public code uses.
#include <hip/hip_runtime.h>

// NVIDIA's CUDA samples, vectorAdd.
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int numElements) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements) {
        C[i] = A[i] + B[i] + 0.0f;
    }
}

// A grid-stride loop, as the CuPy documentation writes its RawKernel examples.
extern "C" __global__ void fill_strided(float* x, float value, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        x[i] = value;
    }
}

// One store at an index of the caller's choice (negative: before the start).
extern "C" __global__ void store_at(float* x, long long index, float value) {
    if (blockIdx.x == 0 && threadIdx.x == 0) x[index] = value;
}

// A shared-memory tree reduction (barriers: split into regions, or fibers) writing its block
// sums `shift` elements too far.
extern "C" __global__ void block_sum(const float* in, float* out, unsigned n, int shift) {
    __shared__ float tile[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * 256 + tid;
    tile[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (tid < s) tile[tid] += tile[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x + shift] = tile[0];
}

// A warp reduction with shuffles (fibers), its output off by `shift`.
extern "C" __global__ void warp_sum(const float* in, float* out, int shift) {
    float v = in[blockIdx.x * 32 + threadIdx.x];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
    if (threadIdx.x == 0) out[blockIdx.x + shift] = v;
}
