// openhip (GPU platforms whose cooperative groups lack them: HIP on AMD): cg::reduce,
// cg::inclusive_scan, cg::exclusive_scan and cg::plus/less/greater/bit_and/bit_or/bit_xor, as in
// CUDA's <cooperative_groups/reduce.h> and <cooperative_groups/scan.h>, for tiles and coalesced
// groups, over the groups' own shuffles, and cg::memcpy_async with cg::wait; the same
// algorithms as the CPU platform's (so results
// are the same, float rounding included).
#pragma once
#ifndef OPENHIP_GPU_CG_COLLECTIVES_H
#define OPENHIP_GPU_CG_COLLECTIVES_H

namespace cooperative_groups {

template <class __openhip_T>
struct plus {
  __device__ __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a + __openhip_b;
  }
};
// less: the smaller of the two (a min reduction); greater: the larger (a max reduction).
template <class __openhip_T>
struct less {
  __device__ __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_b < __openhip_a ? __openhip_b : __openhip_a;
  }
};
template <class __openhip_T>
struct greater {
  __device__ __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a < __openhip_b ? __openhip_b : __openhip_a;
  }
};
template <class __openhip_T>
struct bit_and {
  __device__ __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a & __openhip_b;
  }
};
template <class __openhip_T>
struct bit_or {
  __device__ __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a | __openhip_b;
  }
};
template <class __openhip_T>
struct bit_xor {
  __device__ __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a ^ __openhip_b;
  }
};


// The op-combination of every participant's value, returned to each of them (the same value:
// rank 0 combines in rank order over a tree, then broadcasts).
template <class __openhip_G, class __openhip_T, class __openhip_Op>
__device__ __openhip_T reduce(const __openhip_G& __openhip_g, __openhip_T __openhip_v, __openhip_Op&& __openhip_op) {
  const unsigned __openhip_n = (unsigned)__openhip_g.size();
  const unsigned __openhip_r = (unsigned)__openhip_g.thread_rank();
  for (unsigned __openhip_off = 1; __openhip_off < __openhip_n; __openhip_off <<= 1) {
    const __openhip_T __openhip_y = __openhip_g.shfl_down(__openhip_v, __openhip_off);
    if ((__openhip_r & (2 * __openhip_off - 1)) == 0 && __openhip_r + __openhip_off < __openhip_n)
      __openhip_v = __openhip_op(__openhip_v, __openhip_y);
  }
  return __openhip_g.shfl(__openhip_v, 0);
}

// Rank r receives op(v_0, ..., v_r).
template <class __openhip_G, class __openhip_T, class __openhip_Op>
__device__ __openhip_T inclusive_scan(const __openhip_G& __openhip_g, __openhip_T __openhip_v,
                           __openhip_Op&& __openhip_op) {
  const unsigned __openhip_n = (unsigned)__openhip_g.size();
  const unsigned __openhip_r = (unsigned)__openhip_g.thread_rank();
  for (unsigned __openhip_off = 1; __openhip_off < __openhip_n; __openhip_off <<= 1) {
    const __openhip_T __openhip_y = __openhip_g.shfl_up(__openhip_v, __openhip_off);
    if (__openhip_r >= __openhip_off) __openhip_v = __openhip_op(__openhip_y, __openhip_v);
  }
  return __openhip_v;
}
template <class __openhip_G, class __openhip_T>
__device__ __openhip_T inclusive_scan(const __openhip_G& __openhip_g, __openhip_T __openhip_v) {
  return inclusive_scan(__openhip_g, __openhip_v, plus<__openhip_T>());
}

// Rank r receives op(v_0, ..., v_{r-1}); rank 0 receives T{} (0 for plus, as in CUDA).
template <class __openhip_G, class __openhip_T, class __openhip_Op>
__device__ __openhip_T exclusive_scan(const __openhip_G& __openhip_g, __openhip_T __openhip_v,
                           __openhip_Op&& __openhip_op) {
  const __openhip_T __openhip_inc = inclusive_scan(__openhip_g, __openhip_v, __openhip_op);
  const __openhip_T __openhip_prev = __openhip_g.shfl_up(__openhip_inc, 1);
  return __openhip_g.thread_rank() == 0 ? __openhip_T{} : __openhip_prev;
}
template <class __openhip_G, class __openhip_T>
__device__ __openhip_T exclusive_scan(const __openhip_G& __openhip_g, __openhip_T __openhip_v) {
  return exclusive_scan(__openhip_g, __openhip_v, plus<__openhip_T>());
}

}  // namespace cooperative_groups

// cg::memcpy_async / cg::wait / cg::wait_prior (each thread copies its share; wait syncs).
namespace cuda {
// A byte count known to be a multiple of N (CUDA's cuda::aligned_size_t).
template <__SIZE_TYPE__ __openhip_N>
struct aligned_size_t {
  __SIZE_TYPE__ __openhip_value;
  __host__ __device__ constexpr explicit aligned_size_t(__SIZE_TYPE__ __openhip_v) : __openhip_value(__openhip_v) {}
  __host__ __device__ constexpr operator __SIZE_TYPE__() const { return __openhip_value; }
};
}  // namespace cuda

namespace cooperative_groups {
namespace __openhip_detail {
template <class __openhip_G>
__device__ inline void __openhip_copy_share(const __openhip_G& __openhip_g, void* __openhip_dst,
                                 const void* __openhip_src, __SIZE_TYPE__ __openhip_bytes) {
  const __SIZE_TYPE__ __openhip_n = (__SIZE_TYPE__)__openhip_g.size();
  const __SIZE_TYPE__ __openhip_r = (__SIZE_TYPE__)__openhip_g.thread_rank();
  const __SIZE_TYPE__ __openhip_share = (__openhip_bytes + __openhip_n - 1) / __openhip_n;
  const __SIZE_TYPE__ __openhip_lo = __openhip_r * __openhip_share;
  if (__openhip_lo >= __openhip_bytes) return;
  const __SIZE_TYPE__ __openhip_len =
      __openhip_bytes - __openhip_lo < __openhip_share ? __openhip_bytes - __openhip_lo : __openhip_share;
  __builtin_memcpy(static_cast<unsigned char*>(__openhip_dst) + __openhip_lo,
                   static_cast<const unsigned char*>(__openhip_src) + __openhip_lo, __openhip_len);
}
}  // namespace __openhip_detail

// Copies `bytes` bytes from src to dst, the group's threads together.
template <class __openhip_G, class __openhip_T, class __openhip_S>
__device__ inline void memcpy_async(const __openhip_G& __openhip_g, __openhip_T* __openhip_dst,
                         const __openhip_T* __openhip_src, const __openhip_S& __openhip_bytes) {
  __openhip_detail::__openhip_copy_share(__openhip_g, __openhip_dst, __openhip_src,
                                         (__SIZE_TYPE__)__openhip_bytes);
}
// The element-count form: min(dst_count, src_count) elements.
template <class __openhip_G, class __openhip_T>
__device__ inline void memcpy_async(const __openhip_G& __openhip_g, __openhip_T* __openhip_dst,
                         __SIZE_TYPE__ __openhip_dst_count, const __openhip_T* __openhip_src,
                         __SIZE_TYPE__ __openhip_src_count) {
  const __SIZE_TYPE__ __openhip_c = __openhip_dst_count < __openhip_src_count ? __openhip_dst_count
                                                                       : __openhip_src_count;
  __openhip_detail::__openhip_copy_share(__openhip_g, __openhip_dst, __openhip_src,
                                         __openhip_c * sizeof(__openhip_T));
}

// Waits for the group's copies and synchronises it.
template <class __openhip_G>
__device__ inline void wait(const __openhip_G& __openhip_g) {
  __openhip_g.sync();
}
template <unsigned int __openhip_N, class __openhip_G>
__device__ inline void wait_prior(const __openhip_G& __openhip_g) {
  __openhip_g.sync();
}

}  // namespace cooperative_groups

#endif  // OPENHIP_GPU_CG_COLLECTIVES_H
