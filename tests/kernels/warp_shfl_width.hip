// Warp shuffles with every sub-warp width 1, 2, 4, ... warpSize (row k uses width 2^k), in
// double (64-bit lanes) and __half: out[(4*k + op) * n + tid].
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

extern "C" __global__ void shfl_widths(const double* in, double* out, int src, unsigned int delta, int lane_mask) {
  const int n = gridDim.x * blockDim.x;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const double v = in[tid];
  int k = 0;
  for (int w = 1; w <= warpSize; w *= 2, ++k) {
    out[(4 * k + 0) * n + tid] = __shfl(v, src, w);
    out[(4 * k + 1) * n + tid] = __shfl_up(v, delta, w);
    out[(4 * k + 2) * n + tid] = __shfl_down(v, delta, w);
    out[(4 * k + 3) * n + tid] = __shfl_xor(v, lane_mask, w);
  }
}

extern "C" __global__ void shfl_half(const __half* in, __half* out, unsigned int delta, int width) {
  const int n = gridDim.x * blockDim.x;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  out[tid] = __shfl_down(in[tid], delta, width);
  out[n + tid] = __shfl_xor(in[tid], (int)delta, width);
}
