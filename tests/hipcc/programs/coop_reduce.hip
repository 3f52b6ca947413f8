// A grid-wide reduction with a cooperative launch and grid.sync() (the samples'
// reductionMultiBlockCG style), HIP written directly: occupancy query, hipLaunchCooperativeKernel
// with void** arguments, warp shuffles for the block's partial sums.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

#define HIP_CHECK(expr)                                                              \
  do {                                                                               \
    hipError_t e = (expr);                                                           \
    if (e != hipSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, hipGetErrorString(e)); \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

__device__ float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  return v;
}

__global__ void reduceSinglePassMultiBlockCG(const float *g_idata, float *g_odata, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  __shared__ float warp_sums[32];
  float sum = 0;
  for (unsigned i = grid.thread_rank(); i < n; i += grid.size()) sum += g_idata[i];
  sum = warp_sum(sum);
  if (threadIdx.x % warpSize == 0) warp_sums[threadIdx.x / warpSize] = sum;
  block.sync();
  if (threadIdx.x == 0) {
    float s = 0;
    for (unsigned w = 0; w < blockDim.x / warpSize; ++w) s += warp_sums[w];
    g_odata[blockIdx.x] = s;
  }
  grid.sync();
  if (grid.thread_rank() == 0) {
    float total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += g_odata[b];
    g_odata[0] = total;
  }
}

int main() {
  int dev = 0, supports = 0;
  HIP_CHECK(hipDeviceGetAttribute(&supports, hipDeviceAttributeCooperativeLaunch, dev));
  if (!supports) { printf("no cooperative launch\n"); return 1; }
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, dev));
  int threads = 256, blocksPerSm = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm,
                                                         reduceSinglePassMultiBlockCG, threads, 0));
  int blocks = blocksPerSm * prop.multiProcessorCount;
  printf("%d blocks of %d threads on %s (%d multiprocessors)\n", blocks, threads, prop.name,
         prop.multiProcessorCount);
  unsigned n = 1 << 18;
  std::vector<float> h(n);
  double ref = 0;
  for (unsigned i = 0; i < n; ++i) { h[i] = (float)((int)(i % 13) - 6); ref += h[i]; }
  float *d_in, *d_out;
  HIP_CHECK(hipMalloc(&d_in, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_out, blocks * sizeof(float)));
  HIP_CHECK(hipMemcpy(d_in, h.data(), n * sizeof(float), hipMemcpyHostToDevice));
  void *args[] = {(void *)&d_in, (void *)&d_out, (void *)&n};
  HIP_CHECK(hipLaunchCooperativeKernel((void *)reduceSinglePassMultiBlockCG, dim3(blocks),
                                       dim3(threads), args, 0, 0));
  HIP_CHECK(hipDeviceSynchronize());
  float result = 0;
  HIP_CHECK(hipMemcpy(&result, d_out, sizeof(float), hipMemcpyDeviceToHost));
  // a grid larger than can be co-resident is refused, as on a GPU
  hipError_t big = hipLaunchCooperativeKernel((void *)reduceSinglePassMultiBlockCG,
                                              dim3(blocks * 64), dim3(threads), args, 0, 0);
  printf("too large: %s\n", hipGetErrorName(big));
  (void)hipGetLastError();
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  bool ok = result == (float)ref && big == hipErrorCooperativeLaunchTooLarge;
  printf("GPU result = %f, CPU result = %f\n%s\n", result, ref, ok ? "Test passed" : "Test failed");
  return ok ? 0 : 1;
}
