#include <hip/hip_runtime.h>
#include <algorithm>

namespace kernels {
template <typename T, int N>
__global__ void fill(T *out, T value) { out[threadIdx.x] = value; }
__global__ void plain(int *out) { out[0] = 1; }
}  // namespace kernels

template <typename T>
__global__ void deduced(T *out) { out[0] = T(); }

struct Cfg { int x, y; };

#define LAUNCH(kern, grid, block, ...) hipLaunchKernelGGL(kern, dim3(grid), dim3(block), 0, 0, __VA_ARGS__)

void launch_all(int *d, float *f, int n, hipStream_t s, Cfg cfg) {
  hipLaunchKernelGGL(kernels::plain, dim3(1), dim3(1), 0, 0, d);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(kernels::fill<float, 4>), dim3(n, 2), dim3(32, 4, 1), 0, s, f, 1.0f);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(kernels::fill<int, (4 > 2 ? 8 : 2)>), dim3(1), dim3(64), 0, 0, d, 7);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(deduced), dim3(1), dim3(1), 0, 0, d);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(deduced<float>), dim3(std::min<int>(n, 1024)), dim3(std::max(cfg.x, cfg.y)), sizeof(float) * n, s, f);
  hipLaunchKernelGGL(kernels::plain, dim3((n + 255) / 256), dim3(256), (n % 32) * sizeof(int), 0, d);
  hipLaunchKernelGGL(kernels::plain, dim3(1), dim3(1), 0, 0, d);
  hipLaunchKernelGGL(kernels::plain, dim3(1), dim3(2), 0, 0, d) ;
}
