// saxpy.cu: a small CUDA program for `openhip hipify` (see README).
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "cudaError %s at %s:%d\n",                      \
                   cudaGetErrorString(err_), __FILE__, __LINE__);          \
      return 1;                                                            \
    }                                                                      \
  } while (0)

__constant__ float scale;

template <typename T, int BLOCK>
__global__ void saxpy(int n, T a, const T *x, T *y) {
  __shared__ T tile[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : T(0);
  __syncthreads();
  if (i < n) y[i] = scale * (a * tile[threadIdx.x] + y[i]);
}

int main() {
  const int n = 1 << 20;
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  const float one = 1.0f;
  CHECK(cudaMemcpyToSymbol(scale, &one, sizeof(one)));

  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreate(&stream));
  cudaEventCreate(&start);
  cudaEventCreate(&stop, cudaEventBlockingSync);

  cudaEventRecord(start, stream);
  saxpy<float, 256><<<(n + 255) / 256, dim3(256), 0,
                      stream>>>(n, 2.0f, x, y);
  cudaEventRecord(stop, stream);
  CHECK(cudaGetLastError());

  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, stream);
  float alpha = 0.5f;
  cublasSaxpy(blas, n, &alpha, x, 1, y, 1);
  cublasDestroy(blas);

  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  std::printf("saxpy: %.3f ms\n", ms);
  cudaFree(x);
  cudaFree(y);
  cudaStreamDestroy(stream);
  return 0;
}
