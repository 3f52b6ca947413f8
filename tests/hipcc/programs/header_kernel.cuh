// A kernel defined in a local header (the CUDA samples' *_kernel.cuh layout), with dynamic
// shared memory declared in a templated helper and a barrier.
#pragma once

template <typename T>
struct SharedArray {
  __device__ T *get() {
    extern __shared__ int shared_words[];
    return reinterpret_cast<T *>(shared_words);
  }
};

template <typename T>
__global__ void reverse_block(const T *in, T *out) {
  T *s = SharedArray<T>().get();
  unsigned t = threadIdx.x, base = blockIdx.x * blockDim.x;
  s[t] = in[base + t];
  __syncthreads();
  out[base + t] = s[blockDim.x - 1 - t];
}
