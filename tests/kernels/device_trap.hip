// __trap(), abort() and a failed assert() inside a kernel fail the launch (HipError), not the
// process; the next launch runs normally.
#include <hip/hip_runtime.h>
#include <cassert>

extern "C" __global__ void maybe_trap(int* out, int which) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i;
  if (i == 37) {
    if (which == 1) __trap();
    if (which == 2) abort();
    if (which == 3) assert(i != 37);
  }
}
