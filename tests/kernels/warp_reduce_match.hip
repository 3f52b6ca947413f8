// __reduce_*_sync (CUDA sm_80+, HIP 6.2+) and __match_any_sync / __match_all_sync.
#include <hip/hip_runtime.h>

extern "C" __global__ void reduce_match(const unsigned int* in, unsigned int* out, unsigned long long* match_any,
                                        unsigned long long* match_all, int* match_pred) {
  const unsigned long long full = warpSize == 64 ? ~0ull : 0xffffffffull;
  const int n = gridDim.x * blockDim.x;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int v = in[tid];
  out[tid] = __reduce_add_sync(full, v);
  out[n + tid] = __reduce_min_sync(full, v);
  out[2 * n + tid] = __reduce_max_sync(full, v);
  out[3 * n + tid] = __reduce_and_sync(full, v);
  out[4 * n + tid] = __reduce_or_sync(full, v);
  out[5 * n + tid] = __reduce_xor_sync(full, v);
  match_any[tid] = __match_any_sync(full, v % 4u);
  int pred = -1;
  match_all[tid] = __match_all_sync(full, v / 1000000u, &pred);
  match_pred[tid] = pred;
}
