#include <cuda_runtime.h>
#include <algorithm>

namespace kernels {
template <typename T, int N>
__global__ void fill(T *out, T value) { out[threadIdx.x] = value; }
__global__ void plain(int *out) { out[0] = 1; }
}  // namespace kernels

template <typename T>
__global__ void deduced(T *out) { out[0] = T(); }

struct Cfg { int x, y; };

#define LAUNCH(kern, grid, block, ...) kern<<<grid, block>>>(__VA_ARGS__)

void launch_all(int *d, float *f, int n, cudaStream_t s, Cfg cfg) {
  kernels::plain<<<1, 1>>>(d);
  kernels::fill<float, 4><<<dim3(n, 2), dim3(32, 4, 1), 0, s>>>(f, 1.0f);
  kernels::fill<int, (4 > 2 ? 8 : 2)><<<1, 64>>>(d, 7);
  deduced<<<1, 1>>>(d);
  deduced<float><<<std::min<int>(n, 1024), std::max(cfg.x, cfg.y),
                   sizeof(float) * n,
                   s>>>(f);
  kernels::plain<<<(n + 255) / 256, 256, (n % 32) * sizeof(int)>>>(
      d /* the output */);
  LAUNCH(kernels::plain, 1, 1, d);
  kernels::plain <<< 1 , 2 >>> ( d ) ;
}
