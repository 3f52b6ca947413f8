// openhip: name_expressions = rotate<float>, rotate<double>
// extern __shared__ arrays sized by the launch: at namespace scope and inside a kernel, of two
// element types sharing the same memory, and in a template.
#include <hip/hip_runtime.h>

extern __shared__ int ns_shared[];

// Reverses each block's slice through dynamic shared memory declared at namespace scope.
extern "C" __global__ void reverse_ns(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  ns_shared[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = ns_shared[blockDim.x - 1 - threadIdx.x];
}

// Uses the dynamic buffer as floats then as ints (in its second half).
extern "C" __global__ void two_views(const float* in, float* out, int* counts) {
  extern __shared__ unsigned char raw[];
  float* f = reinterpret_cast<float*>(raw);
  int* c = reinterpret_cast<int*>(raw + blockDim.x * sizeof(float));
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  f[threadIdx.x] = in[i];
  c[threadIdx.x] = static_cast<int>(threadIdx.x) * 2;
  __syncthreads();
  out[i] = f[(threadIdx.x + 1) % blockDim.x];
  counts[i] = c[(threadIdx.x + 2) % blockDim.x];
}

template <typename T>
__global__ void rotate(const T* in, T* out, int shift) {
  extern __shared__ unsigned char buf[];
  T* s = reinterpret_cast<T*>(buf);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = s[(threadIdx.x + shift) % blockDim.x];
}
