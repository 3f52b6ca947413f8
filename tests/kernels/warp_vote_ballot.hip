// Votes: __ballot/__any/__all/__activemask and the _sync forms, in a block whose last warp is
// partial and where threads past n have exited.
#include <hip/hip_runtime.h>

extern "C" __global__ void votes(const int* pred, unsigned long long* ballot, int* any, int* all,
                                 unsigned long long* active, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  const int p = pred[tid];
  ballot[tid] = __ballot(p);
  any[tid] = __any(p);
  all[tid] = __all(p);
  active[tid] = __activemask();
}

extern "C" __global__ void votes_sync(const int* pred, unsigned long long* ballot, int* any,
                                      int* all, unsigned long long* even_ballot, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  const unsigned long long mask = __activemask();
  const int p = pred[tid];
  ballot[tid] = __ballot_sync(mask, p);
  any[tid] = __any_sync(mask, p);
  all[tid] = __all_sync(mask, p);
  // only the even lanes vote, with a mask naming the even lanes
  const unsigned long long even = mask & 0x5555555555555555ull;
  unsigned long long e = 0;
  if ((tid % warpSize) % 2 == 0) e = __ballot_sync(even, p);
  even_ballot[tid] = e;
}
