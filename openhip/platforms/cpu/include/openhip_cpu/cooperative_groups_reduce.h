// openhip CPU platform: cg::reduce, cg::inclusive_scan, cg::exclusive_scan and their operators
// (CUDA's <cooperative_groups/reduce.h> and <cooperative_groups/scan.h>), for
// thread_block_tile<N> (N <= 32) and coalesced_group.  Built on the groups' shuffles: every
// participant takes part in each step (warp sync points, see cooperative_groups.h).
#pragma once
#ifndef OPENHIP_CPU_COOPERATIVE_GROUPS_REDUCE_H
#define OPENHIP_CPU_COOPERATIVE_GROUPS_REDUCE_H

#include "openhip_cpu/cooperative_groups.h"

namespace cooperative_groups {

template <class __openhip_T>
struct plus {
  __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a + __openhip_b;
  }
};
// less: the smaller of the two (a min reduction); greater: the larger (a max reduction).
template <class __openhip_T>
struct less {
  __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_b < __openhip_a ? __openhip_b : __openhip_a;
  }
};
template <class __openhip_T>
struct greater {
  __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a < __openhip_b ? __openhip_b : __openhip_a;
  }
};
template <class __openhip_T>
struct bit_and {
  __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a & __openhip_b;
  }
};
template <class __openhip_T>
struct bit_or {
  __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a | __openhip_b;
  }
};
template <class __openhip_T>
struct bit_xor {
  __openhip_T operator()(const __openhip_T& __openhip_a, const __openhip_T& __openhip_b) const {
    return __openhip_a ^ __openhip_b;
  }
};

namespace __openhip_detail {
template <class __openhip_G>
constexpr void __openhip_check_collective() {
  static_assert(__openhip_G::__openhip_width != 0 &&
                    (__openhip_G::__openhip_width <= 32 || __openhip_G::__openhip_width == 0xffffffffu),
                "cg::reduce / cg::inclusive_scan / cg::exclusive_scan take a "
                "thread_block_tile<N> with N <= 32 or a coalesced_group");
}
}  // namespace __openhip_detail

// The op-combination of every participant's value, returned to each of them (the same value:
// rank 0 combines in rank order over a tree, then broadcasts).
template <class __openhip_G, class __openhip_T, class __openhip_Op>
__openhip_T reduce(const __openhip_G& __openhip_g, __openhip_T __openhip_v, __openhip_Op&& __openhip_op) {
  __openhip_detail::__openhip_check_collective<__openhip_G>();
  const unsigned __openhip_n = (unsigned)__openhip_g.num_threads();
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
__openhip_T inclusive_scan(const __openhip_G& __openhip_g, __openhip_T __openhip_v,
                           __openhip_Op&& __openhip_op) {
  __openhip_detail::__openhip_check_collective<__openhip_G>();
  const unsigned __openhip_n = (unsigned)__openhip_g.num_threads();
  const unsigned __openhip_r = (unsigned)__openhip_g.thread_rank();
  for (unsigned __openhip_off = 1; __openhip_off < __openhip_n; __openhip_off <<= 1) {
    const __openhip_T __openhip_y = __openhip_g.shfl_up(__openhip_v, __openhip_off);
    if (__openhip_r >= __openhip_off) __openhip_v = __openhip_op(__openhip_y, __openhip_v);
  }
  return __openhip_v;
}
template <class __openhip_G, class __openhip_T>
__openhip_T inclusive_scan(const __openhip_G& __openhip_g, __openhip_T __openhip_v) {
  return inclusive_scan(__openhip_g, __openhip_v, plus<__openhip_T>());
}

// Rank r receives op(v_0, ..., v_{r-1}); rank 0 receives T{} (0 for plus, as in CUDA).
template <class __openhip_G, class __openhip_T, class __openhip_Op>
__openhip_T exclusive_scan(const __openhip_G& __openhip_g, __openhip_T __openhip_v,
                           __openhip_Op&& __openhip_op) {
  const __openhip_T __openhip_inc = inclusive_scan(__openhip_g, __openhip_v, __openhip_op);
  const __openhip_T __openhip_prev = __openhip_g.shfl_up(__openhip_inc, 1);
  return __openhip_g.thread_rank() == 0 ? __openhip_T{} : __openhip_prev;
}
template <class __openhip_G, class __openhip_T>
__openhip_T exclusive_scan(const __openhip_G& __openhip_g, __openhip_T __openhip_v) {
  return exclusive_scan(__openhip_g, __openhip_v, plus<__openhip_T>());
}

}  // namespace cooperative_groups

#endif  // OPENHIP_CPU_COOPERATIVE_GROUPS_REDUCE_H
