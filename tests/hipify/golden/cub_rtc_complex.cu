#include <cub/cub.cuh>
#include <nvrtc.h>
#include <cuComplex.h>

using namespace cub;

__global__ void block_sum(const int *in, int *out) {
  typedef cub::BlockReduce<int, 128> BlockReduceT;
  __shared__ typename BlockReduceT::TempStorage temp;
  int v = in[threadIdx.x];
  int sum = BlockReduceT(temp).Sum(v);
  if (threadIdx.x == 0) *out = sum;
}

int compile(const char *src) {
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, src, "kernel.cu", 0, nullptr, nullptr);
  nvrtcResult res = nvrtcCompileProgram(prog, 0, nullptr);
  if (res != NVRTC_SUCCESS) return 1;
  size_t size;
  nvrtcGetPTXSize(prog, &size);
  nvrtcDestroyProgram(&prog);
  cuFloatComplex a = make_cuFloatComplex(1.0f, 2.0f);
  cuFloatComplex b = cuCmulf(a, cuConjf(a));
  return cuCrealf(b) > 0.0f ? 0 : 1;
}

void device_sum(const int *in, int *out, int n, void *tmp, size_t bytes) {
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
}
