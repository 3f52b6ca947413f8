// Runtime API basics: memory, streams, events, device queries, symbols.
#include <cstdio>
#include <hip/hip_runtime.h>



#define CUDA_CHECK(expr)                                                   \
  do {                                                                     \
    hipError_t status = (expr);                                           \
    if (status != hipSuccess) {                                           \
      fprintf(stderr, "cudaError: %s\n", hipGetErrorString(status));     \
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
  CUDA_CHECK(hipMalloc(&a, bytes));
  CUDA_CHECK(hipMalloc((void **)&b, bytes));
  CUDA_CHECK(hipMallocManaged(&c, bytes));
  CUDA_CHECK(hipHostMalloc(&host, bytes, hipHostMallocDefault));
  float w[16] = {1};
  CUDA_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(weights), w, sizeof(w)));
  int zero = 0;
  hipMemcpyToSymbolAsync(HIP_SYMBOL(counter), &zero, sizeof(int), 0, hipMemcpyHostToDevice, 0);

  hipDeviceProp_t prop;
  hipGetDeviceProperties(&prop, 0);
  printf("device: %s, cudaMalloc'd %zu bytes\n", prop.name, bytes);

  hipStream_t stream;
  hipStreamCreateWithFlags(&stream, hipStreamNonBlocking);
  hipEvent_t start, stop;
  hipEventCreate(&start);
  hipEventCreateWithFlags(&stop, hipEventDisableTiming);
  hipEventRecord(start, stream);
  hipMemcpyAsync(a, host, bytes, hipMemcpyHostToDevice, stream);
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
  hipEventRecord(stop, stream);
  hipStreamSynchronize(stream);
  int count = 0;
  hipMemcpyFromSymbol(&count, HIP_SYMBOL(counter), sizeof(int));
  hipDeviceSynchronize();  // deprecated
  cudaSetDoubleForDevice(nullptr);  // not in HIP
  hipHostFree(host);
  hipFree(a);
  hipFree(b);
  hipFree(c);
  hipEventDestroy(start);
  hipEventDestroy(stop);
  hipStreamDestroy(stream);
  hipDeviceReset();
  return 0;
}
