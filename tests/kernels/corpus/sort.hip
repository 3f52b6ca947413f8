// Shared-memory sorting networks in the style of the CUDA samples (2_Concepts_and_Techniques/
// sortingNetworks: bitonicSortShared, oddEvenMergeSortShared): each block sorts 2 * blockDim.x
// keys with values.
#define SHARED_SIZE_LIMIT 1024U

__device__ inline void Comparator(unsigned &keyA, unsigned &valA, unsigned &keyB,
                                  unsigned &valB, unsigned dir) {
  unsigned t;
  if ((keyA > keyB) == dir) {
    t = keyA; keyA = keyB; keyB = t;
    t = valA; valA = valB; valB = t;
  }
}

__global__ void bitonicSortShared(unsigned *d_DstKey, unsigned *d_DstVal, unsigned *d_SrcKey,
                                  unsigned *d_SrcVal, unsigned arrayLength, unsigned dir) {
  __shared__ unsigned s_key[SHARED_SIZE_LIMIT];
  __shared__ unsigned s_val[SHARED_SIZE_LIMIT];
  d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  s_key[threadIdx.x + 0] = d_SrcKey[0];
  s_val[threadIdx.x + 0] = d_SrcVal[0];
  s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
  s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[(SHARED_SIZE_LIMIT / 2)];

  for (unsigned size = 2; size < arrayLength; size <<= 1) {
    // Bitonic merge
    unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], ddd);
    }
  }
  // ddd == dir for the last bitonic merge step
  {
    for (unsigned stride = arrayLength / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], dir);
    }
  }
  __syncthreads();
  d_DstKey[0] = s_key[threadIdx.x + 0];
  d_DstVal[0] = s_val[threadIdx.x + 0];
  d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
  d_DstVal[(SHARED_SIZE_LIMIT / 2)] = s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}

__global__ void oddEvenMergeSortShared(unsigned *d_DstKey, unsigned *d_DstVal,
                                       unsigned *d_SrcKey, unsigned *d_SrcVal,
                                       unsigned arrayLength, unsigned dir) {
  __shared__ unsigned s_key[SHARED_SIZE_LIMIT];
  __shared__ unsigned s_val[SHARED_SIZE_LIMIT];
  d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  s_key[threadIdx.x + 0] = d_SrcKey[0];
  s_val[threadIdx.x + 0] = d_SrcVal[0];
  s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
  s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[(SHARED_SIZE_LIMIT / 2)];

  for (unsigned size = 2; size <= arrayLength; size <<= 1) {
    unsigned stride = size / 2;
    unsigned offset = threadIdx.x & (stride - 1);
    {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], dir);
      stride >>= 1;
    }
    for (; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      if (offset >= stride)
        Comparator(s_key[pos - stride], s_val[pos - stride], s_key[pos + 0], s_val[pos + 0], dir);
    }
  }
  __syncthreads();
  d_DstKey[0] = s_key[threadIdx.x + 0];
  d_DstVal[0] = s_val[threadIdx.x + 0];
  d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
  d_DstVal[(SHARED_SIZE_LIMIT / 2)] = s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}

// A warp-level bitonic sort of 32 keys per warp with __shfl_xor_sync (no shared memory).
__global__ void warp_bitonic_sort(const int *in, int *out) {
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  int v = in[gid];
  for (int k = 2; k <= 32; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      int partner = __shfl_xor_sync(0xffffffff, v, j);
      bool up = ((lane & k) == 0);
      bool lower = ((lane & j) == 0);
      v = (lower == up) ? min(v, partner) : max(v, partner);
    }
  }
  out[gid] = v;
}
