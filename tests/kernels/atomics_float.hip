// Floating-point atomics: add (sums of exactly representable values, so any order gives the
// same result), min/max, exchange, float and double.
#include <hip/hip_runtime.h>

extern "C" __global__ void atomics_float(const float* xf, const double* xd, float* f, double* d, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  atomicAdd(&f[0], xf[tid]);
  atomicAdd(&d[0], xd[tid]);
  atomicSub(&f[1], 0.5f);
  atomicSub(&d[1], 0.25);
  atomicMin(&f[2], xf[tid]);
  atomicMax(&f[3], xf[tid]);
  atomicMin(&d[2], xd[tid]);
  atomicMax(&d[3], xd[tid]);
  atomicExch(&f[4], 7.0f);
  atomicExch(&d[4], -3.0);
}

// The returned old values of atomicAdd are a permutation of the prefix sums.
extern "C" __global__ void atomic_add_ret(float* acc, float* olds) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  olds[tid] = atomicAdd(acc, 1.0f);
}
