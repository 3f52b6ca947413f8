#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>
#include <hiprand/hiprand_kernel.h>
#include <hipfft/hipfft.h>

__global__ void setup(hiprandState *states, unsigned long long seed) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  hiprand_init(seed, id, 0, &states[id]);
}

__global__ void sample(hiprandState *states, float *out) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  hiprandState local = states[id];
  out[id] = hiprand_uniform(&local) + hiprand_normal(&local);
  states[id] = local;
}

void host_side(int n, float *d, hipfftComplex *data) {
  hiprandGenerator_t gen;
  hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT);
  hiprandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  hiprandGenerateNormal(gen, d, n, 0.0f, 1.0f);
  hiprandDestroyGenerator(gen);

  hipfftHandle plan;
  if (hipfftPlan1d(&plan, n, HIPFFT_C2C, 1) != HIPFFT_SUCCESS) return;
  hipfftExecC2C(plan, data, data, HIPFFT_FORWARD);
  hipfftExecC2C(plan, data, data, HIPFFT_BACKWARD);
  hipfftDestroy(plan);
}
