// Kernels of bench/bench_memcheck.py (the README's saxpy and a 256-thread shared-memory tree
// reduction in the CUDA samples' reduce2 style).
#include <hip/hip_runtime.h>

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// The same reduction through dynamic shared memory (checked against the launch's size).
extern "C" __global__ void block_sum_dyn(const float* in, float* out, int n) {
    extern __shared__ float sdyn[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdyn[tid] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdyn[tid] += sdyn[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdyn[0];
}
