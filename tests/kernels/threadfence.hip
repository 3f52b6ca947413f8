// __threadfence: the "last block" pattern.  Each block writes its partial sum, fences, and takes
// a ticket; the block that takes the last ticket sums the partials (it must see all of them).
#include <hip/hip_runtime.h>

__device__ unsigned int tickets;

extern "C" __global__ void sum_last_block(const float* in, float* partial, float* total, int n) {
  __shared__ float s[256];
  __shared__ bool last;
  const unsigned int t = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + t;
  s[t] = i < (unsigned int)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    const unsigned int ticket = atomicInc(&tickets, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t == 0) {
    float sum = 0.0f;
    for (unsigned int b = 0; b < gridDim.x; ++b) sum += partial[b];
    total[0] = sum;
    tickets = 0;
  }
  __threadfence_block();
  __threadfence_system();
}
