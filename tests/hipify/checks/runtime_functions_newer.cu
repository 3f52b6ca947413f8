// CUDA Runtime calls of CUDA 12.x as HIPIFY rocm-7.0.2 maps them: cudaEventRecordWithFlags, the
// HIP_EXPERIMENTAL launch config and cudaLaunchKernelExC (--experimental); CUDA 12.8's batched
// copies kept with a warning (7.0.2: HIP_UNSUPPORTED); the kernel of cudaLaunchKernel /
// cudaFuncSetSharedMemConfig cast to the const void* HIP takes (not when it is one already).
// OPTIONS: experimental=1
#include <cuda_runtime.h>

__global__ void k(int *p) { p[0] = 1; }

cudaError_t run(void *func, cudaStream_t s, cudaEvent_t e, void **args, size_t w) {
  // CHECK: hipLaunchConfig_t config;
  // CHECK-NEXT: cudaMemcpyAttributes attrs;
  // CHECK-NEXT: cudaMemcpy3DBatchOp op;
  cudaLaunchConfig_t config;
  cudaMemcpyAttributes attrs;
  cudaMemcpy3DBatchOp op;
  size_t fail = 0;
  // CHECK: hipEventRecordWithFlags(e, s, 0);
  cudaEventRecordWithFlags(e, s, 0);
  // CHECK: hipLaunchKernelExC(&config, func, args);
  cudaLaunchKernelExC(&config, func, args);
  // CHECK: cudaMemcpy3DBatchAsync(1, &op, &fail, 0, s);
  cudaMemcpy3DBatchAsync(1, &op, &fail, 0, s);
  // CHECK: hipFuncSetSharedMemConfig(reinterpret_cast<const void*>(func), hipSharedMemBankSizeDefault);
  cudaFuncSetSharedMemConfig(func, cudaSharedMemBankSizeDefault);
  // CHECK: hipLaunchKernel(reinterpret_cast<const void*>(func), dim3(1), dim3(1), args, 0, s);
  cudaLaunchKernel(func, dim3(1), dim3(1), args, 0, s);
  // CHECK: return hipLaunchKernel(reinterpret_cast<const void*>(&k), dim3(1), dim3(1), args, w, s);
  return cudaLaunchKernel(reinterpret_cast<const void*>(&k), dim3(1), dim3(1), args, w, s);
}
