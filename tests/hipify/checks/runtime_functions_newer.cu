// CUDA Runtime calls later HIPIFY maps (tools/hipify_newer_maps.tsv, as HIPIFY's
// synthetic/runtime_functions_before_13000.cu expects): functions the 2024 tables call unsupported,
// CUDA 12.8's batched copies, and the kernel of cudaLaunchKernel / cudaFuncSetSharedMemConfig cast
// to the const void* HIP takes (not when it is one already).
#include <cuda_runtime.h>

__global__ void k(int *p) { p[0] = 1; }

cudaError_t run(void *func, cudaStream_t s, cudaEvent_t e, void **args, size_t w) {
  // CHECK: hipLaunchConfig_t config;
  // CHECK-NEXT: hipMemcpyAttributes attrs;
  // CHECK-NEXT: hipMemcpy3DBatchOp op;
  cudaLaunchConfig_t config;
  cudaMemcpyAttributes attrs;
  cudaMemcpy3DBatchOp op;
  size_t fail = 0;
  // CHECK: hipEventRecordWithFlags(e, s, 0);
  cudaEventRecordWithFlags(e, s, 0);
  // CHECK: hipLaunchKernelExC(&config, func, args);
  cudaLaunchKernelExC(&config, func, args);
  // CHECK: hipMemcpy3DBatchAsync(1, &op, &fail, 0, s);
  cudaMemcpy3DBatchAsync(1, &op, &fail, 0, s);
  // CHECK: hipFuncSetSharedMemConfig(reinterpret_cast<const void*>(func), hipSharedMemBankSizeDefault);
  cudaFuncSetSharedMemConfig(func, cudaSharedMemBankSizeDefault);
  // CHECK: hipLaunchKernel(reinterpret_cast<const void*>(func), dim3(1), dim3(1), args, 0, s);
  cudaLaunchKernel(func, dim3(1), dim3(1), args, 0, s);
  // CHECK: return hipLaunchKernel(reinterpret_cast<const void*>(&k), dim3(1), dim3(1), args, w, s);
  return cudaLaunchKernel(reinterpret_cast<const void*>(&k), dim3(1), dim3(1), args, w, s);
}
