#include <curand.h>
#include <curand_kernel.h>
#include <cufft.h>

__global__ void setup(curandState *states, unsigned long long seed) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  curand_init(seed, id, 0, &states[id]);
}

__global__ void sample(curandState *states, float *out) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  curandState local = states[id];
  out[id] = curand_uniform(&local) + curand_normal(&local);
  states[id] = local;
}

void host_side(int n, float *d, cufftComplex *data) {
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  curandGenerateNormal(gen, d, n, 0.0f, 1.0f);
  curandDestroyGenerator(gen);

  cufftHandle plan;
  if (cufftPlan1d(&plan, n, CUFFT_C2C, 1) != CUFFT_SUCCESS) return;
  cufftExecC2C(plan, data, data, CUFFT_FORWARD);
  cufftExecC2C(plan, data, data, CUFFT_INVERSE);
  cufftDestroy(plan);
}
