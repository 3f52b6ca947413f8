// __syncthreads_count / _and / _or: every thread writes the block-wide results for a predicate.
#include <hip/hip_runtime.h>

extern "C" __global__ void votes(const int* pred, int* count, int* all, int* any) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int p = pred[i];
  const int c = __syncthreads_count(p);
  const int a = __syncthreads_and(p);
  const int o = __syncthreads_or(p);
  count[i] = c;
  all[i] = a != 0;
  any[i] = o != 0;
}
