// atomicInc / atomicDec wrap-around semantics, atomicCAS (int, unsigned, unsigned long long)
// as a lock-free counter and as a spin lock.
#include <hip/hip_runtime.h>

extern "C" __global__ void inc_dec(unsigned int* c, unsigned int* olds_inc, unsigned int limit) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  olds_inc[tid] = atomicInc(&c[0], limit);  // old >= limit ? 0 : old + 1
  atomicDec(&c[1], limit);                  // (old == 0 || old > limit) ? limit : old - 1
}

extern "C" __global__ void inc_dec_single(unsigned int* c, const unsigned int* start,
                                          unsigned int* out, unsigned int limit) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  c[2 * tid] = start[tid];
  c[2 * tid + 1] = start[tid];
  out[2 * tid] = atomicInc(&c[2 * tid], limit);
  out[2 * tid + 1] = atomicDec(&c[2 * tid + 1], limit);
}

extern "C" __global__ void cas_counter(int* ci, unsigned int* cu, unsigned long long* cl) {
  int old = *ci, assumed;
  do {
    assumed = old;
    old = atomicCAS(ci, assumed, assumed + 1);
  } while (old != assumed);
  unsigned int uo = *cu, ua;
  do {
    ua = uo;
    uo = atomicCAS(cu, ua, ua + 3u);
  } while (uo != ua);
  unsigned long long lo = *cl, la;
  do {
    la = lo;
    lo = atomicCAS(cl, la, la + 0x100000000ull);
  } while (lo != la);
}

// One thread per block takes a spin lock around a non-atomic read-modify-write.
extern "C" __global__ void cas_lock(int* lock, int* value) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *value = *value + 1;
    __threadfence();
    atomicExch(lock, 0);
  }
}
