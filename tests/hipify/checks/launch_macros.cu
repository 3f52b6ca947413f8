// Launches that macros build are rewritten where the macro is used, as hipify-clang (which sees
// the expansion) does: a macro holding kernel<<<config>>> without arguments, a function-like
// macro holding a whole launch, a macro naming a template kernel.
// OPTIONS: hip_kernel_execution_syntax=1
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>

#define ARGS a, x, y
#define KERNEL_NAME saxpy<float>
#define KERNEL_AND_CONFIG saxpy<float><<<blocks, 256>>>
#define RUN(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__);
#define RUN_ON(kernel, stream, ...) kernel<<<1, 32, 0, stream>>>(__VA_ARGS__)

template <typename T> __global__ void saxpy(T a, const T *x, T *y) { y[threadIdx.x] += a * x[threadIdx.x]; }
__global__ void fill(float *y, float v) { y[threadIdx.x] = v; }

void host(float a, float *x, float *y, int blocks, cudaStream_t s) {
  // CHECK: hipLaunchKernelGGL(HIP_KERNEL_NAME(KERNEL_NAME), dim3(blocks), dim3(256), 0, 0, ARGS);
  KERNEL_NAME<<<blocks, 256>>>(ARGS);
  // CHECK: hipLaunchKernelGGL(HIP_KERNEL_NAME(saxpy<float>), dim3(blocks), dim3(256), 0, 0, a, x, y);
  KERNEL_AND_CONFIG(a, x, y);
  // CHECK: hipLaunchKernelGGL(fill, dim3(blocks), dim3(256), 0, 0, y, 1.0f);
  RUN(fill, blocks, 256, y, 1.0f);
  // CHECK: hipLaunchKernelGGL(fill, dim3(1), dim3(32), 0, s, y, 2.0f);
  RUN_ON(fill, s, y, 2.0f);
  // CHECK: hipStreamSynchronize(s);
  cudaStreamSynchronize(s);
}
