// openhip CPU platform: cg::memcpy_async, cg::wait, cg::wait_prior
// (CUDA's <cooperative_groups/memcpy_async.h>).  The group's threads each copy a contiguous
// share of the bytes at once; cg::wait(group) / cg::wait_prior<N>(group) synchronise the group,
// after which every thread sees the whole copy (as on a GPU).
#pragma once
#ifndef OPENHIP_CPU_COOPERATIVE_GROUPS_MEMCPY_H
#define OPENHIP_CPU_COOPERATIVE_GROUPS_MEMCPY_H

#include <stddef.h>

#include "openhip_cpu/cooperative_groups.h"

namespace cuda {
// A byte count known to be a multiple of N (CUDA's cuda::aligned_size_t).
template <size_t __openhip_N>
struct aligned_size_t {
  size_t __openhip_value;
  constexpr explicit aligned_size_t(size_t __openhip_v) : __openhip_value(__openhip_v) {}
  constexpr operator size_t() const { return __openhip_value; }
};
}  // namespace cuda

namespace cooperative_groups {
namespace __openhip_detail {
template <class __openhip_G>
inline void __openhip_copy_share(const __openhip_G& __openhip_g, void* __openhip_dst,
                                 const void* __openhip_src, size_t __openhip_bytes) {
  const size_t __openhip_n = (size_t)__openhip_g.num_threads();
  const size_t __openhip_r = (size_t)__openhip_g.thread_rank();
  const size_t __openhip_share = (__openhip_bytes + __openhip_n - 1) / __openhip_n;
  const size_t __openhip_lo = __openhip_r * __openhip_share;
  if (__openhip_lo >= __openhip_bytes) return;
  const size_t __openhip_len =
      __openhip_bytes - __openhip_lo < __openhip_share ? __openhip_bytes - __openhip_lo : __openhip_share;
  __builtin_memcpy(static_cast<unsigned char*>(__openhip_dst) + __openhip_lo,
                   static_cast<const unsigned char*>(__openhip_src) + __openhip_lo, __openhip_len);
}
}  // namespace __openhip_detail

// Copies `bytes` bytes from src to dst, the group's threads together.
template <class __openhip_G, class __openhip_T, class __openhip_S>
inline void memcpy_async(const __openhip_G& __openhip_g, __openhip_T* __openhip_dst,
                         const __openhip_T* __openhip_src, const __openhip_S& __openhip_bytes) {
  __openhip_detail::__openhip_copy_share(__openhip_g, __openhip_dst, __openhip_src,
                                         (size_t)__openhip_bytes);
}
// The element-count form: min(dst_count, src_count) elements.
template <class __openhip_G, class __openhip_T>
inline void memcpy_async(const __openhip_G& __openhip_g, __openhip_T* __openhip_dst,
                         size_t __openhip_dst_count, const __openhip_T* __openhip_src,
                         size_t __openhip_src_count) {
  const size_t __openhip_c = __openhip_dst_count < __openhip_src_count ? __openhip_dst_count
                                                                       : __openhip_src_count;
  __openhip_detail::__openhip_copy_share(__openhip_g, __openhip_dst, __openhip_src,
                                         __openhip_c * sizeof(__openhip_T));
}

// Waits for the group's copies and synchronises it.
template <class __openhip_G>
inline void wait(const __openhip_G& __openhip_g) {
  __openhip_g.sync();
}
template <unsigned int __openhip_N, class __openhip_G>
inline void wait_prior(const __openhip_G& __openhip_g) {
  __openhip_g.sync();
}

}  // namespace cooperative_groups

#endif  // OPENHIP_CPU_COOPERATIVE_GROUPS_MEMCPY_H
