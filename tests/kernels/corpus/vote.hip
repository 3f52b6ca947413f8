// Vote intrinsics in the style of the CUDA samples (simpleVoteIntrinsics) and of warp-level
// ballots counting predicates.
__global__ void VoteAnyKernel1(unsigned int *input, unsigned int *result, int size) {
  int tx = threadIdx.x;
  int mask = 0xffffffff;
  result[tx] = __any_sync(mask, input[tx]);
}

__global__ void VoteAllKernel2(unsigned int *input, unsigned int *result, int size) {
  int tx = threadIdx.x;
  int mask = 0xffffffff;
  result[tx] = __all_sync(mask, input[tx]);
}

__global__ void VoteAnyKernel3(bool *info, int warp_size) {
  int tx = threadIdx.x;
  unsigned int mask = 0xffffffff;
  bool *offs = info + (tx * 3);
  // The following should hold true for the second and third warp
  *offs = __any_sync(mask, (tx >= (warp_size * 3) / 2));
  // The following should hold true for the "upper half" of the second warp, and all of the
  // third warp
  *(offs + 1) = (tx >= (warp_size * 3) / 2 ? true : false);
  if (__all_sync(mask, (tx >= (warp_size * 3) / 2))) {
    *(offs + 2) = true;
  }
}

// Ballots, population counts and the lane masks: how many of a warp's values pass, and each
// passing value's rank among them (stream compaction within the warp).
__global__ void ballot_rank(const int *in, int *count, int *rank, int threshold) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const bool pass = in[i] > threshold;
  const unsigned ballot = __ballot_sync(0xffffffffu, pass);
  count[i] = __popc(ballot);
  rank[i] = pass ? __popc(ballot & ((1u << lane) - 1u)) : -1;
}

// Matches and warp reductions (sm_70/sm_80 names).
__global__ void match_and_reduce(const int *keys, unsigned *peers, int *sums, int *mins) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int key = keys[i];
  peers[i] = (unsigned)__match_any_sync(0xffffffff, key);
  sums[i] = __reduce_add_sync(0xffffffff, key);
  mins[i] = __reduce_min_sync(0xffffffff, key);
}

// The active mask in straight-line code of a block-sized launch, and after an early exit.
__global__ void active_lanes(const int *n, unsigned *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n[0]) return;
  out[i] = __activemask();
}
