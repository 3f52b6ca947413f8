// Warp-aggregated atomics in the style of NVIDIA's "CUDA Pro Tip: Optimized Filtering with
// Warp-Aggregated Atomics": one atomicAdd per warp, the leader's result broadcast with
// __shfl_sync, each lane's offset its rank among the active lanes.
__device__ int atomicAggInc(int *ctr) {
  unsigned int active = __activemask();
  int leader = __ffs(active) - 1;
  int change = __popc(active);
  unsigned int rank = __popc(active & __lanemask_lt());
  int warp_res;
  if (rank == 0) warp_res = atomicAdd(ctr, change);
  warp_res = __shfl_sync(active, warp_res, leader);
  return warp_res + rank;
}

// Every thread takes a slot: the helper is reached by whole warps.
__global__ void take_slots(int *slots, int *counter) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int slot = atomicAggInc(counter);
  slots[slot] = i;
}

// Filtering: only the threads that pass take a slot (divergent: __activemask() then means the
// lanes that pass, which cannot be proven ahead: fibers).
__global__ void filter_k(int *dst, int *nres, const int *src, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n && src[i] > 0) dst[atomicAggInc(nres)] = src[i];
}

// The same with an explicit ballot as the mask (the CUDA 9 way): the mask names the lanes.
__global__ void filter_ballot(int *dst, int *nres, const int *src, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int pass = i < n && src[i] > 0;
  unsigned mask = __ballot_sync(0xffffffff, pass);
  int lane = threadIdx.x & 31;
  int leader = __ffs(mask) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(nres, __popc(mask));
  base = __shfl_sync(0xffffffff, base, leader < 0 ? 0 : leader);
  if (pass) dst[base + __popc(mask & ((1u << lane) - 1u))] = src[i];
}
