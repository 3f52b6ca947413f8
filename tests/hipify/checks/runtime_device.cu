// OPTIONS: hip_kernel_execution_syntax=1
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_fp16.h>
#include <cuda_fp16.h>
// CHECK-NOT: #include <cuda.h>
#include <cuda.h>
#include <cstdio>

// CHECK: #define CK(x) do { hipError_t e = (x); if (e != hipSuccess) printf("%s\n", hipGetErrorName(e)); } while (0)
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) printf("%s\n", cudaGetErrorName(e)); } while (0)

__constant__ int table[32];

template <typename T, unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce(const T *in, T *out, size_t n) {
  __shared__ T smem[BLOCK];
  T v = 0;
  for (size_t i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) v += in[i];
  // CHECK: v += __shfl_down_sync(0xffffffffu, v, 16);
  v += __shfl_down_sync(0xffffffffu, v, 16);
  smem[threadIdx.x] = v;
  __syncthreads();
  // CHECK: if (threadIdx.x == 0) atomicAdd(out, smem[0] + table[0]);
  if (threadIdx.x == 0) atomicAdd(out, smem[0] + table[0]);
}

__global__ void halves(__half *h, int n) {
  // CHECK: h[threadIdx.x] = __float2half(1.0f);
  h[threadIdx.x] = __float2half(1.0f);
}

int main(int argc, char **argv) {
  int device = 0;
  // CHECK: hipDeviceProp_t prop;
  cudaDeviceProp prop;
  // CHECK: CK(hipGetDeviceCount(&device));
  CK(cudaGetDeviceCount(&device));
  // CHECK: CK(hipSetDevice(0));
  CK(cudaSetDevice(0));
  // CHECK: CK(hipGetDeviceProperties(&prop, 0));
  CK(cudaGetDeviceProperties(&prop, 0));
  // CHECK: int sms = prop.multiProcessorCount;
  int sms = prop.multiProcessorCount;
  float *in, *out;
  size_t n = 1 << 20;
  // CHECK: CK(hipMalloc(&in, n * sizeof(float)));
  CK(cudaMalloc(&in, n * sizeof(float)));
  // CHECK: CK(hipMallocManaged(&out, sizeof(float), hipMemAttachGlobal));
  CK(cudaMallocManaged(&out, sizeof(float), cudaMemAttachGlobal));
  // CHECK: CK(hipMemset(in, 0, n * sizeof(float)));
  CK(cudaMemset(in, 0, n * sizeof(float)));
  int host_table[32] = {0};
  // CHECK: CK(hipMemcpyToSymbol(HIP_SYMBOL(table), host_table, sizeof(host_table)));
  CK(cudaMemcpyToSymbol(table, host_table, sizeof(host_table)));
  // CHECK: hipStream_t streams[2];
  cudaStream_t streams[2];
  // CHECK: for (auto &s : streams) CK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  for (auto &s : streams) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // CHECK: hipEvent_t t0, t1;
  cudaEvent_t t0, t1;
  // CHECK: hipEventCreateWithFlags(&t0, hipEventDefault);
  cudaEventCreate(&t0, cudaEventDefault);
  // CHECK: hipEventCreate(&t1);
  cudaEventCreate(&t1);
  // CHECK: hipEventRecord(t0, streams[0]);
  cudaEventRecord(t0, streams[0]);
  // CHECK: hipLaunchKernelGGL(HIP_KERNEL_NAME(reduce<float, 256>), dim3(std::min<size_t>((n + 255) / 256, 4 * sms)), dim3(256), 0, streams[0], in, out, n);
  reduce<float, 256><<<std::min<size_t>((n + 255) / 256, 4 * sms), 256, 0,
                       streams[0]>>>(in, out, n);
  // CHECK: hipLaunchKernelGGL(halves, dim3(1), dim3(32), 0, 0, reinterpret_cast<__half *>(in), 32);
  halves<<<1, 32>>>(reinterpret_cast<__half *>(in), 32);
  // CHECK: hipEventRecord(t1, streams[0]);
  cudaEventRecord(t1, streams[0]);
  // CHECK: CK(hipEventSynchronize(t1));
  CK(cudaEventSynchronize(t1));
  float ms;
  // CHECK: hipEventElapsedTime(&ms, t0, t1);
  cudaEventElapsedTime(&ms, t0, t1);
  // CHECK: CK(hipPeekAtLastError());
  CK(cudaPeekAtLastError());
  // CHECK: CK(hipDeviceSynchronize());
  CK(cudaDeviceSynchronize());
  // CHECK: for (auto &s : streams) hipStreamDestroy(s);
  for (auto &s : streams) cudaStreamDestroy(s);
  // CHECK: hipFree(in);
  cudaFree(in);
  // CHECK: hipFree(out);
  cudaFree(out);
  return 0;
}
