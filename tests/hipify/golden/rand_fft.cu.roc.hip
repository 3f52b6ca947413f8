#include <hip/hip_runtime.h>
#include <rocrand/rocrand.h>
#include <rocrand/rocrand_kernel.h>
#include <hipfft/hipfft.h>

__global__ void setup(curandState *states, unsigned long long seed) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  rocrand_init(seed, id, 0, &states[id]);
}

__global__ void sample(curandState *states, float *out) {
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  curandState local = states[id];
  out[id] = rocrand_uniform(&local) + rocrand_normal(&local);
  states[id] = local;
}

void host_side(int n, float *d, hipfftComplex *data) {
  rocrand_generator gen;
  rocrand_create_generator(&gen, ROCRAND_RNG_PSEUDO_DEFAULT);
  rocrand_set_seed(gen, 1234ULL);
  rocrand_generate_normal(gen, d, n, 0.0f, 1.0f);
  rocrand_destroy_generator(gen);

  hipfftHandle plan;
  if (hipfftPlan1d(&plan, n, HIPFFT_C2C, 1) != HIPFFT_SUCCESS) return;
  hipfftExecC2C(plan, data, data, HIPFFT_FORWARD);
  hipfftExecC2C(plan, data, data, HIPFFT_BACKWARD);
  hipfftDestroy(plan);
}
