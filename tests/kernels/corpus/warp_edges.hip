// Warp functions at their edges: widths, lanes out of range, partial warps, exited lanes,
// partial masks under conditions, 2-D blocks, wide types, match_all's predicate, nested calls.

__global__ void shfl_widths(const int *in, int *out, int width_sel) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  int a = __shfl_sync(0xffffffff, v, (threadIdx.x * 7 + 3) % 41 - 4, 8);
  int b = __shfl_up_sync(0xffffffff, v, 3, 16);
  int c = __shfl_down_sync(0xffffffff, v, 5, 16);
  int d = __shfl_xor_sync(0xffffffff, v, 9, 32);
  int e = __shfl_xor_sync(0xffffffff, v, 6, 4);
  int w = width_sel == 0 ? 2 : 32;
  int f = __shfl_down_sync(0xffffffff, v, 1, w);
  out[t * 6 + 0] = a;
  out[t * 6 + 1] = b;
  out[t * 6 + 2] = c;
  out[t * 6 + 3] = d;
  out[t * 6 + 4] = e;
  out[t * 6 + 5] = f;
}

// A block of 48 threads (a partial second warp), some lanes gone before the shuffle.
__global__ void partial_and_exited(const long long *in, long long *out, unsigned *votes) {
  const int t = threadIdx.x;
  long long v = in[blockIdx.x * blockDim.x + t];
  if (t % 11 == 10) return;
  long long r = __shfl_down_sync(0xffffffff, v, 4) + __shfl_xor_sync(0xffffffff, v, 1);
  unsigned b = __ballot_sync(0xffffffff, v & 1);
  unsigned act = __activemask();
  out[blockIdx.x * blockDim.x + t] = r;
  votes[2 * (blockIdx.x * blockDim.x + t)] = b;
  votes[2 * (blockIdx.x * blockDim.x + t) + 1] = act;
}

// Half-warp masks under a lane test (the mask names the lanes that are there).
__global__ void half_masks(const float *in, float *out) {
  const int t = threadIdx.x, lane = t & 31;
  float v = in[blockIdx.x * blockDim.x + t];
  if (lane < 16) {
    v += __shfl_xor_sync(0x0000ffff, v, 1);
    v += __shfl_down_sync(0x0000ffff, v, 2, 16);
  } else {
    v *= __shfl_sync(0xffff0000, v, 31);
  }
  out[blockIdx.x * blockDim.x + t] = v;
}

// 2-D blocks: a warp spans rows of 16 threads.
__global__ void rows_2d(const int *in, int *out) {
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  int v = in[blockIdx.x * 128 + t];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if ((threadIdx.y / 2) % 2 == 0) v = __shfl_sync(0xffffffff, v, threadIdx.x, 16);
  out[blockIdx.x * 128 + t] = v;
}

// match_all with its predicate, a nested call (an active mask as another call's mask), and
// the votes in conditions and returns.
__global__ void match_nested(const int *keys, unsigned *out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int key = keys[t];
  int pred = -1;
  unsigned all = (unsigned)__match_all_sync(0xffffffff, key / 4, &pred);
  unsigned any = (unsigned)__ballot_sync(__activemask(), key > 3);
  unsigned flag = 0;
  if (__any_sync(0xffffffff, key == 7)) flag |= 1;
  if (__all_sync(0xffffffff, key >= 0)) flag |= 2;
  out[4 * t] = all;
  out[4 * t + 1] = (unsigned)pred;
  out[4 * t + 2] = any;
  out[4 * t + 3] = flag;
}

// __syncwarp around shared-memory exchanges inside a warp, under a warp-uniform test.
__global__ void syncwarp_exchange(const int *in, int *out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  if (t / 32 != 1) {
    for (int k = 1; k < 32; k <<= 1) {
      s[t] = v;
      __syncwarp();
      v += s[(t & ~31) | ((t & 31) ^ k)];
      __syncwarp();
    }
  }
  out[blockIdx.x * blockDim.x + t] = v;
}
