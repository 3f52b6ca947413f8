// saxpy.cu: a small CUDA program for `openhip hipify` (see README).
#include <cstdio>
#include <hip/hip_runtime.h>
#include <hipblas.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    hipError_t err_ = (call);                                             \
    if (err_ != hipSuccess) {                                             \
      std::fprintf(stderr, "cudaError %s at %s:%d\n",                      \
                   hipGetErrorString(err_), __FILE__, __LINE__);          \
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
  CHECK(hipMalloc(&x, n * sizeof(float)));
  CHECK(hipMalloc(&y, n * sizeof(float)));
  const float one = 1.0f;
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(scale), &one, sizeof(one)));

  hipStream_t stream;
  hipEvent_t start, stop;
  CHECK(hipStreamCreate(&stream));
  hipEventCreate(&start);
  hipEventCreateWithFlags(&stop, hipEventBlockingSync);

  hipEventRecord(start, stream);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(saxpy<float, 256>), dim3((n + 255) / 256), dim3(256), 0, stream, n, 2.0f, x, y);
  hipEventRecord(stop, stream);
  CHECK(hipGetLastError());

  hipblasHandle_t blas;
  hipblasCreate(&blas);
  hipblasSetStream(blas, stream);
  float alpha = 0.5f;
  hipblasSaxpy(blas, n, &alpha, x, 1, y, 1);
  hipblasDestroy(blas);

  CHECK(hipEventSynchronize(stop));
  float ms = 0;
  hipEventElapsedTime(&ms, start, stop);
  std::printf("saxpy: %.3f ms\n", ms);
  hipFree(x);
  hipFree(y);
  hipStreamDestroy(stream);
  return 0;
}
