// Kernels of test_warp_idioms.py: the warp reduction and scan loops the split path recognises
// (openhip/platforms/cpu/idioms.py) and near misses it must leave to the general expansion.
// T is replaced by each element type; every kernel writes every thread's final value.
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;

#define FULL 0xffffffffu
#define HALF_WARP (warpSize / 2)

// ---- recognised ----------------------------------------------------------------------------------
extern "C" __global__ void down_add_T(const T* in, T* out) {
  const unsigned t = threadIdx.x;
  T v = in[t];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL, v, offset);
  out[t] = v;
}

extern "C" __global__ void down_plus_T(const T* in, T* out) {
  const unsigned t = threadIdx.x;
  T v = in[t];
#pragma unroll
  for (int offset = HALF_WARP; offset > 0; offset >>= 1) v = v + __shfl_down_sync(0xffffffff, v, offset);
  out[t] = v;
}

extern "C" __global__ void xor_add_T(const T* in, T* out) {
  const unsigned t = threadIdx.x;
  T v = in[t];
  for (int mask = warpSize / 2; mask > 0; mask >>= 1) v += __shfl_xor_sync(FULL, v, mask);
  out[t] = v;
}

// counting up, width 16, the value first in a declaration
extern "C" __global__ void down_up16_T(const T* in, T* out) {
  const unsigned t = threadIdx.x;
  T v = in[t];
  for (unsigned o = 1; o < 16; o *= 2) {
    T other = __shfl_down_sync(FULL, v, o, 16);
    v = other + v;
  }
  out[t] = v;
}

// width 8, the plain (maskless) forms
extern "C" __global__ void plain8_T(const T* in, T* out) {
  const unsigned t = threadIdx.x;
  T v = in[t];
  for (int o = 4; o >= 1; o = o / 2) v += __shfl_down(v, o, 8);
  out[t] = v;
}

extern "C" __global__ void scan_up_T(const T* in, T* out) {
  const unsigned t = threadIdx.x;
  const int lane = t % 32;
  T v = in[t];
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL, v, d);
    if (lane >= d) v += y;
  }
  out[t] = v;
}

extern "C" __global__ void scan_up16_T(const T* in, T* out) {
  const unsigned t = threadIdx.x;
  const unsigned lane = t & 15;
  T v = in[t];
  for (int d = 1; d < 16; d *= 2) {
    const T y = __shfl_up_sync(FULL, v, d, 16);
    if (lane >= d) v = v + y;
  }
  out[t] = v;
}

// lane = threadIdx.x % 32: the lane itself in a 1-D block, not in a 2-D one (blockDim.x 16)
extern "C" __global__ void scan_lane_T(const T* in, T* out) {
  const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  const int lane = threadIdx.x % 32;
  T v = in[t];
  for (int d = 1; d < 32; d <<= 1) {
    T y = __shfl_up_sync(FULL, v, d);
    if (lane >= d) v += y;
  }
  out[t] = v;
}

// a block reduction: warp sums, then warp 0 reduces them (a warp-uniform guard)
extern "C" __global__ void block_sum_T(const T* in, T* out) {
  __shared__ T sums[32];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  T v = in[blockIdx.x * blockDim.x + t];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL, v, offset);
  if (lane == 0) sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? sums[lane] : (T)0;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL, v, offset);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// tiles: members and cg::reduce / cg::inclusive_scan
extern "C" __global__ void tile_members_T(const T* in, T* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  T v = in[block.thread_rank()];
  for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
  T w = in[block.thread_rank()];
  for (int o = 8; o > 0; o >>= 1) w += tile.shfl_xor(w, o);
  out[block.thread_rank()] = v + w;
}

extern "C" __global__ void cg_reduce_T(const T* in, T* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  const T v = in[block.thread_rank()];
  T r = cg::reduce(tile, v, cg::plus<T>());
  r += cg::reduce(tile, v, cg::greater<T>()) * (T)3;
  r += cg::reduce(tile, v, cg::less<T>()) * (T)5;
  out[block.thread_rank()] = r;
}

extern "C" __global__ void cg_reduce16_T(const T* in, T* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const T v = in[block.thread_rank()];
  const T r = cg::reduce(tile, v, cg::plus<T>());
  out[block.thread_rank()] = r + cg::inclusive_scan(tile, v, cg::plus<T>());
}

extern "C" __global__ void cg_exclusive_T(const T* in, T* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const T v = in[block.thread_rank()];
  const T e = cg::exclusive_scan(tile, v, cg::plus<T>());
  out[block.thread_rank()] = e + cg::exclusive_scan(tile, v, cg::greater<T>()) * (T)2;
}

// ---- integer-only forms (I: an integer type) -----------------------------------------------------
extern "C" __global__ void int_forms_I(const I* in, I* out) {
  const unsigned t = threadIdx.x;
  I a = in[t], b = in[t], c = in[t];
  for (int o = 16; o > 0; o /= 2) a = max(a, __shfl_down_sync(FULL, a, o));
  for (int o = 16; o > 0; o /= 2) b ^= __shfl_xor_sync(FULL, b, o);
  for (int o = 16; o > 0; o /= 2) c = min(__shfl_xor_sync(FULL, c, o), c);
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  I d = cg::reduce(tile, in[t], cg::bit_xor<I>());
  out[t] = a + 7 * b + 13 * c + 17 * d;
}

extern "C" __global__ void float_max(const float* in, float* out) {
  const unsigned t = threadIdx.x;
  float v = in[t];
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL, v, o));
  out[t] = v;
}

// ---- lanes that do not all take part ------------------------------------------------------------
// a non-warp-uniform guard: lanes held back by it are not participants (a source among them
// reads 0, as in the general expansion and the fibers); exited lanes
extern "C" __global__ void guarded(const int* in, int* out, unsigned runs) {
  const unsigned t = threadIdx.x;
  if (t == 5 || t == 40) return;
  int v = in[t];
  if ((runs >> (t % 32)) & 1u) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(FULL, v, o);
    int s = v;
    for (int d = 1; d < 32; d *= 2) {
      int y = __shfl_up_sync(FULL, s, d);
      if ((t & 31) >= (unsigned)d) s += y;
    }
    v = v * 1000 + s;
  }
  out[t] = v;
}

// a partial mask, called by exactly the lanes it names (a source outside it reads 0)
extern "C" __global__ void masked(const int* in, int* out) {
  const unsigned t = threadIdx.x;
  int v = in[t];
  if ((0x0f0ff0f1u >> (t % 32)) & 1u) {
    for (int o = 1; o < 32; o <<= 1) v += __shfl_xor_sync(0x0f0ff0f1u, v, o);
  }
  out[t] = v;
}

// ---- near misses: left to the general expansion ----------------------------------------------------
extern "C" __global__ void miss_store(const float* in, float* out) {
  const unsigned t = threadIdx.x;
  float v = in[t];
  for (int o = 16; o > 0; o /= 2) {
    v += __shfl_down_sync(FULL, v, o);
    out[t] = v;  // the body also writes memory
  }
}

extern "C" __global__ void miss_other(const float* in, float* out) {
  const unsigned t = threadIdx.x;
  float v = in[t], w = in[t] * 2.0f;
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(FULL, w, o);  // shuffles another variable
  out[t] = v;
}

extern "C" __global__ void miss_index(const int* in, int* out, unsigned mask) {
  const unsigned t = threadIdx.x;
  int v = in[t];
  for (int o = 16; o > 0; o /= 2) v += o * __shfl_down_sync(mask, v, o);  // a run-time mask, o used
  out[t] = v;
}

extern "C" __global__ void miss_cond(const int* in, int* out) {
  const unsigned t = threadIdx.x;
  int v = in[t];
  for (int d = 1; d < 32; d *= 2) {
    int y = __shfl_up_sync(FULL, v, d);
    if (v > d) v += y;  // the condition reads v
  }
  out[t] = v;
}
