#include <hip/hip_runtime.h>
#include <hipcub/hipcub.hpp>
#include <hip/hiprtc.h>
#include <hip/hip_complex.h>

using namespace hipcub;

__global__ void block_sum(const int *in, int *out) {
  typedef hipcub::BlockReduce<int, 128> BlockReduceT;
  __shared__ typename BlockReduceT::TempStorage temp;
  int v = in[threadIdx.x];
  int sum = BlockReduceT(temp).Sum(v);
  if (threadIdx.x == 0) *out = sum;
}

int compile(const char *src) {
  hiprtcProgram prog;
  hiprtcCreateProgram(&prog, src, "kernel.cu", 0, nullptr, nullptr);
  hiprtcResult res = hiprtcCompileProgram(prog, 0, nullptr);
  if (res != HIPRTC_SUCCESS) return 1;
  size_t size;
  hiprtcGetCodeSize(prog, &size);
  hiprtcDestroyProgram(&prog);
  hipFloatComplex a = make_hipFloatComplex(1.0f, 2.0f);
  hipFloatComplex b = hipCmulf(a, hipConjf(a));
  return hipCrealf(b) > 0.0f ? 0 : 1;
}

void device_sum(const int *in, int *out, int n, void *tmp, size_t bytes) {
  hipcub::DeviceReduce::Sum(tmp, bytes, in, out, n);
}
