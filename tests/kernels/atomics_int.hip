// Integer atomics under contention: every thread of every block hits the same few addresses.
// ctr layout (int): [0] add, [1] sub, [2] and, [3] or, [4] xor, [5] min, [6] max, [7] exch
#include <hip/hip_runtime.h>

extern "C" __global__ void atomics_int(int* ctr, unsigned int* uctr, unsigned long long* ull,
                                       long long* ll, int* old_exch) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&ctr[0], tid % 7);
  atomicSub(&ctr[1], 3);
  atomicAnd(&ctr[2], ~(1 << (tid % 31)));
  atomicOr(&ctr[3], 1 << (tid % 29));
  atomicXor(&ctr[4], tid);
  atomicMin(&ctr[5], 1000 - tid);
  atomicMax(&ctr[6], tid - 1000);
  old_exch[tid] = atomicExch(&ctr[7], tid);

  atomicAdd(&uctr[0], 2u);
  atomicSub(&uctr[1], 1u);
  atomicMin(&uctr[2], (unsigned int)tid + 5u);
  atomicMax(&uctr[3], (unsigned int)tid * 3u);
  atomicAnd(&uctr[4], ~(1u << (tid % 32)));
  atomicOr(&uctr[5], 1u << (tid % 32));
  atomicXor(&uctr[6], (unsigned int)tid * 2654435761u);

  atomicAdd(&ull[0], 0x100000001ull);
  atomicMin(&ull[1], 0xFFFFFFFF00000000ull + tid);
  atomicMax(&ull[2], (unsigned long long)tid << 40);
  atomicAnd(&ull[3], ~(1ull << (tid % 64)));
  atomicOr(&ull[4], 1ull << (tid % 64));
  atomicXor(&ull[5], (unsigned long long)tid << 20);

  atomicMin(&ll[0], -(long long)tid * 1000000007LL);
  atomicMax(&ll[1], (long long)tid * 1000000007LL);
}

// A histogram: the classic contended atomicAdd.
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
}
