// Runtime API basics: memory, streams, events, device queries, symbols.
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda.h>
#include <device_launch_parameters.h>

#define CUDA_CHECK(expr)                                                   \
  do {                                                                     \
    cudaError_t status = (expr);                                           \
    if (status != cudaSuccess) {                                           \
      fprintf(stderr, "cudaError: %s\n", cudaGetErrorString(status));     \
      return 1;                                                            \
    }                                                                      \
  } while (0)

__constant__ float weights[16];
__device__ int counter;

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = weights[i % 16] * (a[i] + b[i]);
  atomicAdd(&counter, 1);
}

int main() {
  const int n = 1024;
  const size_t bytes = n * sizeof(float);
  float *a, *b, *c, *host;
  CUDA_CHECK(cudaMalloc(&a, bytes));
  CUDA_CHECK(cudaMalloc((void **)&b, bytes));
  CUDA_CHECK(cudaMallocManaged(&c, bytes));
  CUDA_CHECK(cudaMallocHost(&host, bytes));
  float w[16] = {1};
  CUDA_CHECK(cudaMemcpyToSymbol(weights, w, sizeof(w)));
  int zero = 0;
  cudaMemcpyToSymbolAsync(counter, &zero, sizeof(int), 0, cudaMemcpyHostToDevice, 0);

  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("device: %s, cudaMalloc'd %zu bytes\n", prop.name, bytes);

  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop, cudaEventDisableTiming);
  cudaEventRecord(start, stream);
  cudaMemcpyAsync(a, host, bytes, cudaMemcpyHostToDevice, stream);
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
  cudaEventRecord(stop, stream);
  cudaStreamSynchronize(stream);
  int count = 0;
  cudaMemcpyFromSymbol(&count, counter, sizeof(int));
  cudaThreadSynchronize();  // deprecated
  cudaSetDoubleForDevice(nullptr);  // not in HIP
  cudaFreeHost(host);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaDeviceReset();
  return 0;
}
