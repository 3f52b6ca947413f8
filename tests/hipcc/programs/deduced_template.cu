// Template kernels launched without their template arguments: deduced from the call, as CUDA
// does (a loop-mode kernel and one split at its barrier).
#include <cstdio>

template <typename T>
__global__ void fill(T *p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v * i;
}

template <typename T>
__global__ void block_reverse(const T *in, T *out) {
  __shared__ T s[64];
  s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}

int main() {
  const int n = 256;
  double *p, *q;
  cudaMallocManaged(&p, n * sizeof(double));
  cudaMallocManaged(&q, n * sizeof(double));
  fill<<<(n + 63) / 64, 64>>>(p, 0.5, n);
  block_reverse<<<n / 64, 64>>>(p, q);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += p[i] != 0.5 * i;
  for (int b = 0; b < n / 64; ++b)
    for (int t = 0; t < 64; ++t) bad += q[b * 64 + t] != p[b * 64 + 63 - t];
  cudaFree(p);
  cudaFree(q);
  printf("%s (%d errors)\n", bad ? "FAILED" : "PASSED", bad);
  return bad ? 1 : 0;
}
