// openhip CPU platform: cooperative groups (CUDA 12 / HIP 6 semantics), namespace
// cooperative_groups (alias cg in user code).  Reached through <hip/hip_cooperative_groups.h>,
// <cooperative_groups.h> (hipify maps it to the former) and <cooperative_groups/reduce.h>,
// <cooperative_groups/scan.h>, <cooperative_groups/memcpy_async.h>.
//
// SYNCHRONISING CALLS (for the barrier splitter and the source scan):
//   block barrier (__syncthreads):
//     thread_block::sync, thread_block::barrier_arrive, cg::sync(block),
//     this_thread_block().sync, cg::wait(block), cg::wait_prior<N>(block),
//     thread_group::sync (on a block), grid_group::sync (block barrier + grid barrier),
//     cg::sync(grid), thread_block_tile<N>::sync for N > 32 (a barrier of N threads; the
//     whole block's __syncthreads when N covers the block)
//   warp sync points (warp.h's __syncwarp / __shfl*_sync / __ballot_sync / __match_*_sync):
//     thread_block_tile<N>::sync (N <= 32), shfl, shfl_up, shfl_down, shfl_xor, any, all,
//     ballot, match_any, match_all; coalesced_group::sync and the same member functions;
//     coalesced_threads() (__activemask), labeled_partition, binary_partition,
//     tiled_partition(coalesced_group, n), cg::reduce, cg::inclusive_scan,
//     cg::exclusive_scan, cg::sync(tile), cg::wait(tile)
//   not synchronising: thread_rank, size, num_threads, meta_group_rank, meta_group_size,
//     group_index, thread_index, dim_threads, group_dim, tiled_partition<N>(block or tile),
//     tiled_partition(block, n), cg::memcpy_async (each thread copies its share; cg::wait
//     is the synchronisation), this_grid(), grid_group's ranks and sizes.
//
// Tile operations are built on warp.h's primitives with the tile's lane mask and width, so
// they run wherever those do.  Types moved by shuffles: any trivially copyable type; wider
// than 8 bytes, it moves as several 8-byte shuffles (as CUDA does in 4/8-byte pieces).
//
// Every name this header introduces outside namespace cooperative_groups's public API is
// reserved (__openhip_...), parameter names included, so user macros cannot change it.
#pragma once
#ifndef OPENHIP_CPU_COOPERATIVE_GROUPS_H
#define OPENHIP_CPU_COOPERATIVE_GROUPS_H

#include "openhip_cpu/engine.h"
#include "openhip_cpu/warp.h"
#include "openhip_cpu/cg_runtime.h"

namespace cooperative_groups {

namespace __openhip_detail {
enum __openhip_kind : unsigned {
  __openhip_k_block = 1,
  __openhip_k_tile = 2,
  __openhip_k_coalesced = 3,
  __openhip_k_grid = 4,
};

template <class __openhip_T>
struct __openhip_false {
  static constexpr bool __openhip_value = false;
};

__attribute__((always_inline)) inline unsigned __openhip_block_size() {
  return blockDim.x * blockDim.y * blockDim.z;
}
__attribute__((always_inline)) inline unsigned __openhip_block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__attribute__((always_inline)) inline unsigned __openhip_lane() {
  return __openhip_block_rank() & 31u;
}
// Lanes [base, base + n) of the caller's warp for an n-wide tile (n a power of two <= 32).
__attribute__((always_inline)) inline unsigned long long __openhip_tile_mask(unsigned __openhip_n) {
  const unsigned __openhip_base = __openhip_lane() & ~(__openhip_n - 1u);
  const unsigned long long __openhip_low =
      __openhip_n >= 32u ? 0xffffffffull : ((1ull << __openhip_n) - 1ull);
  return __openhip_low << __openhip_base;
}
constexpr bool __openhip_pow2(unsigned long long __openhip_n) {
  return __openhip_n != 0 && (__openhip_n & (__openhip_n - 1)) == 0;
}
// Bits of `value` at the positions of `mask`'s set bits, packed into the low bits (pext).
__attribute__((always_inline)) inline unsigned __openhip_compact(unsigned long long __openhip_value,
                                                                 unsigned long long __openhip_mask) {
  unsigned __openhip_out = 0, __openhip_i = 0;
  for (unsigned long long __openhip_m = __openhip_mask; __openhip_m != 0;
       __openhip_m &= __openhip_m - 1, ++__openhip_i) {
    if ((__openhip_value >> __builtin_ctzll(__openhip_m)) & 1ull) __openhip_out |= 1u << __openhip_i;
  }
  return __openhip_out;
}
// The lane of the rank-th set bit of mask (rank < popcount(mask)).
__attribute__((always_inline)) inline int __openhip_nth_lane(unsigned long long __openhip_mask,
                                                             unsigned __openhip_rank) {
  unsigned long long __openhip_m = __openhip_mask;
  for (unsigned __openhip_i = 0; __openhip_i < __openhip_rank; ++__openhip_i)
    __openhip_m &= __openhip_m - 1;
  return __openhip_m ? __builtin_ctzll(__openhip_m) : -1;
}

// Shuffles of any trivially copyable type: 8-byte pieces, each a warp.h shuffle.
template <class __openhip_T, class __openhip_F>
__attribute__((always_inline)) inline __openhip_T __openhip_shfl_any(const __openhip_T& __openhip_v,
                                                                     __openhip_F __openhip_move) {
  static_assert(__is_trivially_copyable(__openhip_T),
                "cooperative groups shuffles need a trivially copyable type");
  if constexpr (sizeof(__openhip_T) <= 8) {
    return __openhip_move(__openhip_v);
  } else {
    constexpr unsigned __openhip_n = (sizeof(__openhip_T) + 7) / 8;
    unsigned long long __openhip_parts[__openhip_n] = {};
    __builtin_memcpy(__openhip_parts, &__openhip_v, sizeof(__openhip_T));
    for (unsigned __openhip_i = 0; __openhip_i < __openhip_n; ++__openhip_i)
      __openhip_parts[__openhip_i] = __openhip_move(__openhip_parts[__openhip_i]);
    __openhip_T __openhip_r;
    __builtin_memcpy(&__openhip_r, __openhip_parts, sizeof(__openhip_T));
    return __openhip_r;
  }
}
}  // namespace __openhip_detail

// ---- thread_group: the type-erased group every group converts to --------------------------------
class thread_group {
 protected:
  unsigned __openhip_kind_;
  unsigned __openhip_tile_;        // tiles: the tile width; others 0
  unsigned long long __openhip_mask_;  // tiles <= 32 and coalesced groups: the warp's lanes
  unsigned __openhip_meta_rank_, __openhip_meta_size_;
  constexpr thread_group(unsigned __openhip_k, unsigned __openhip_t, unsigned long long __openhip_m,
                         unsigned __openhip_mr = 0, unsigned __openhip_ms = 1)
      : __openhip_kind_(__openhip_k), __openhip_tile_(__openhip_t), __openhip_mask_(__openhip_m),
        __openhip_meta_rank_(__openhip_mr), __openhip_meta_size_(__openhip_ms) {}

 public:
  unsigned long long num_threads() const {
    switch (__openhip_kind_) {
      case __openhip_detail::__openhip_k_block: return __openhip_detail::__openhip_block_size();
      case __openhip_detail::__openhip_k_tile: return __openhip_tile_;
      case __openhip_detail::__openhip_k_coalesced:
        return (unsigned)__builtin_popcountll(__openhip_mask_);
      default:
        return (unsigned long long)__openhip_detail::__openhip_block_size() * gridDim.x *
               gridDim.y * gridDim.z;
    }
  }
  unsigned long long size() const { return num_threads(); }
  unsigned long long thread_rank() const {
    switch (__openhip_kind_) {
      case __openhip_detail::__openhip_k_block: return __openhip_detail::__openhip_block_rank();
      case __openhip_detail::__openhip_k_tile:
        return __openhip_detail::__openhip_block_rank() & (__openhip_tile_ - 1u);
      case __openhip_detail::__openhip_k_coalesced:
        return (unsigned)__builtin_popcountll(__openhip_mask_ &
                                              ((1ull << __openhip_detail::__openhip_lane()) - 1ull));
      default:
        return (blockIdx.x + (unsigned long long)gridDim.x *
                                 (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z)) *
                   __openhip_detail::__openhip_block_size() +
               __openhip_detail::__openhip_block_rank();
    }
  }
  bool is_valid() const { return __openhip_kind_ != 0; }
  unsigned long long meta_group_rank() const { return __openhip_meta_rank_; }
  unsigned long long meta_group_size() const { return __openhip_meta_size_; }
  // Synchronises the group: a block barrier, a warp sync over the group's lanes, or a tile
  // barrier; a grid group's sync needs the grid_group type (see grid_group::sync).
  void sync(unsigned __openhip_line = __builtin_LINE()) const {
    switch (__openhip_kind_) {
      case __openhip_detail::__openhip_k_block: __syncthreads(__openhip_line); return;
      case __openhip_detail::__openhip_k_tile:
        if (__openhip_tile_ > 32u) {
          __openhip_cg_tile_barrier(__openhip_tile_, __openhip_line);
        } else {
          __syncwarp(__openhip_mask_);
        }
        return;
      case __openhip_detail::__openhip_k_coalesced: __syncwarp(__openhip_mask_); return;
      default: __openhip_grid_sync(__openhip_line); return;
    }
  }
  // (openhip) the group's lanes in the caller's warp, for tiles <= 32 and coalesced groups.
  unsigned long long __openhip_lanes() const { return __openhip_mask_; }
  unsigned __openhip_kind() const { return __openhip_kind_; }
  unsigned __openhip_tile() const { return __openhip_tile_; }
};

// ---- thread_block ---------------------------------------------------------------------------------
// Shared storage CUDA needs for tiles wider than 32 threads on older GPUs; accepted and unused.
template <unsigned int __openhip_MaxBlockSize = 1024>
struct block_tile_memory {
  alignas(16) unsigned char __openhip_reserved[16];
};

class thread_block : public thread_group {
  friend thread_block this_thread_block();
  template <unsigned int __openhip_M>
  friend thread_block this_thread_block(block_tile_memory<__openhip_M>&);
  constexpr thread_block() : thread_group(__openhip_detail::__openhip_k_block, 0, 0) {}

 public:
  struct arrival_token {};
  static constexpr bool __openhip_is_block = true;
  void sync(unsigned __openhip_line = __builtin_LINE()) const { __syncthreads(__openhip_line); }
  // The split barrier: arrive blocks until every thread has arrived (a full barrier), so the
  // wait has nothing left to wait for; both orders of the CUDA contract hold.
  arrival_token barrier_arrive(unsigned __openhip_line = __builtin_LINE()) const {
    __syncthreads(__openhip_line);
    return arrival_token{};
  }
  void barrier_wait(arrival_token&&) const {}
  unsigned int thread_rank() const { return __openhip_detail::__openhip_block_rank(); }
  unsigned int num_threads() const { return __openhip_detail::__openhip_block_size(); }
  unsigned int size() const { return num_threads(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 dim_threads() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  dim3 group_dim() const { return dim_threads(); }
  static constexpr unsigned __openhip_width = 0;
};

inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int __openhip_M>
inline thread_block this_thread_block(block_tile_memory<__openhip_M>&) {
  return thread_block();
}

// ---- grid_group -----------------------------------------------------------------------------------
class grid_group : public thread_group {
  friend grid_group this_grid();
  constexpr grid_group() : thread_group(__openhip_detail::__openhip_k_grid, 0, 0) {}

 public:
  // True in a cooperative launch (k(grid, block, args, cooperative=True)).
  bool is_valid() const { return __openhip_grid_cooperative(); }
  // Every thread of every block arrives before any continues (a cooperative launch only).
  void sync(unsigned __openhip_line = __builtin_LINE()) const {
    __openhip_grid_sync(__openhip_line);
  }
  unsigned long long num_threads() const { return thread_group::num_threads(); }
  unsigned long long size() const { return num_threads(); }
  unsigned long long thread_rank() const { return thread_group::thread_rank(); }
  unsigned long long num_blocks() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  unsigned long long block_rank() const {
    return blockIdx.x + (unsigned long long)gridDim.x *
                            (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  }
  dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  dim3 dim_blocks() const { return group_dim(); }
  dim3 dim_threads() const {
    return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
  }
  dim3 thread_index() const {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }
};
inline grid_group this_grid() { return grid_group(); }

// Multi-device and cluster groups do not exist on the CPU platform (one device, no clusters).
template <class __openhip_T = void>
inline thread_group this_multi_grid() {
  static_assert(__openhip_detail::__openhip_false<__openhip_T>::__openhip_value,
                "openhip: cooperative_groups::this_multi_grid (multi-device launches) is not "
                "supported");
  return this_thread_block();
}
template <class __openhip_T = void>
inline thread_group this_cluster() {
  static_assert(__openhip_detail::__openhip_false<__openhip_T>::__openhip_value,
                "openhip: cooperative_groups::this_cluster (thread block clusters) is not "
                "supported on the CPU platform");
  return this_thread_block();
}

// ---- the warp-level operations shared by tiles (N <= 32) and coalesced groups ------------------
namespace __openhip_detail {
// Lanes of a tile <= 32: rank r is lane base + r; shuffles use warp.h with the tile's width.
template <unsigned __openhip_N>
struct __openhip_tile_ops {
  static_assert(__openhip_N <= 32, "shuffles, votes and matches exist for tiles of at most 32 "
                                   "threads (thread_block_tile<N> with N <= 32)");
  unsigned long long __openhip_m;
  template <class __openhip_T>
  __openhip_T shfl(__openhip_T __openhip_v, int __openhip_src) const {
    const unsigned long long __openhip_mm = __openhip_m;
    return __openhip_shfl_any(__openhip_v, [&](auto __openhip_x) {
      return __shfl_sync(__openhip_mm, __openhip_x, __openhip_src, (int)__openhip_N);
    });
  }
  template <class __openhip_T>
  __openhip_T shfl_up(__openhip_T __openhip_v, unsigned __openhip_d) const {
    const unsigned long long __openhip_mm = __openhip_m;
    return __openhip_shfl_any(__openhip_v, [&](auto __openhip_x) {
      return __shfl_up_sync(__openhip_mm, __openhip_x, __openhip_d, (int)__openhip_N);
    });
  }
  template <class __openhip_T>
  __openhip_T shfl_down(__openhip_T __openhip_v, unsigned __openhip_d) const {
    const unsigned long long __openhip_mm = __openhip_m;
    return __openhip_shfl_any(__openhip_v, [&](auto __openhip_x) {
      return __shfl_down_sync(__openhip_mm, __openhip_x, __openhip_d, (int)__openhip_N);
    });
  }
  template <class __openhip_T>
  __openhip_T shfl_xor(__openhip_T __openhip_v, unsigned __openhip_lm) const {
    const unsigned long long __openhip_mm = __openhip_m;
    return __openhip_shfl_any(__openhip_v, [&](auto __openhip_x) {
      return __shfl_xor_sync(__openhip_mm, __openhip_x, (int)__openhip_lm, (int)__openhip_N);
    });
  }
  unsigned __openhip_base() const { return (unsigned)__builtin_ctzll(__openhip_m); }
  unsigned ballot(int __openhip_p) const {
    return (unsigned)((__ballot_sync(__openhip_m, __openhip_p) & __openhip_m) >> __openhip_base());
  }
  int any(int __openhip_p) const { return __any_sync(__openhip_m, __openhip_p); }
  int all(int __openhip_p) const { return __all_sync(__openhip_m, __openhip_p); }
  template <class __openhip_T>
  unsigned match_any(__openhip_T __openhip_v) const {
    static_assert(sizeof(__openhip_T) <= 8, "match_any takes a value of at most 8 bytes");
    return (unsigned)((__match_any_sync(__openhip_m, __openhip_v) & __openhip_m) >>
                      __openhip_base());
  }
  template <class __openhip_T>
  unsigned match_all(__openhip_T __openhip_v, int& __openhip_pred) const {
    static_assert(sizeof(__openhip_T) <= 8, "match_all takes a value of at most 8 bytes");
    return (unsigned)((__match_all_sync(__openhip_m, __openhip_v, &__openhip_pred) &
                       __openhip_m) >> __openhip_base());
  }
};
}  // namespace __openhip_detail

// ---- thread_block_tile<N> ------------------------------------------------------------------------
template <unsigned int __openhip_N, class __openhip_Parent = void>
class thread_block_tile;

template <unsigned int __openhip_N>
class thread_block_tile<__openhip_N, void> : public thread_group {
  static_assert(__openhip_detail::__openhip_pow2(__openhip_N) && __openhip_N <= 1024,
                "thread_block_tile<N>: N must be a power of two of at most 1024");

 protected:
  thread_block_tile(unsigned __openhip_mr, unsigned __openhip_ms)
      : thread_group(__openhip_detail::__openhip_k_tile, __openhip_N,
                     __openhip_N <= 32 ? __openhip_detail::__openhip_tile_mask(__openhip_N) : 0ull,
                     __openhip_mr, __openhip_ms) {}
  __openhip_detail::__openhip_tile_ops<(__openhip_N <= 32 ? __openhip_N : 32)> __openhip_ops() const {
    return {__openhip_mask_};
  }
  template <unsigned int, class>
  friend class thread_block_tile;
  template <unsigned int __openhip_M, class __openhip_P>
  friend thread_block_tile<__openhip_M, __openhip_P> tiled_partition(const __openhip_P&);

 public:
  static constexpr unsigned int __openhip_width = __openhip_N;
  static constexpr unsigned long long num_threads() { return __openhip_N; }
  static constexpr unsigned long long size() { return __openhip_N; }
  unsigned long long thread_rank() const {
    return __openhip_detail::__openhip_block_rank() & (__openhip_N - 1u);
  }
  unsigned long long meta_group_rank() const { return __openhip_meta_rank_; }
  unsigned long long meta_group_size() const { return __openhip_meta_size_; }
  void sync(unsigned __openhip_line = __builtin_LINE()) const {
    if constexpr (__openhip_N > 32) {
      __openhip_cg_tile_barrier(__openhip_N, __openhip_line);
    } else {
      (void)__openhip_line;
      __syncwarp(__openhip_mask_);
    }
  }
  template <class __openhip_T>
  __openhip_T shfl(__openhip_T __openhip_v, int __openhip_src) const {
    static_assert(__openhip_N <= 32, "thread_block_tile<N>::shfl needs N <= 32");
    return __openhip_ops().shfl(__openhip_v, __openhip_src);
  }
  template <class __openhip_T>
  __openhip_T shfl_up(__openhip_T __openhip_v, unsigned int __openhip_d) const {
    static_assert(__openhip_N <= 32, "thread_block_tile<N>::shfl_up needs N <= 32");
    return __openhip_ops().shfl_up(__openhip_v, __openhip_d);
  }
  template <class __openhip_T>
  __openhip_T shfl_down(__openhip_T __openhip_v, unsigned int __openhip_d) const {
    static_assert(__openhip_N <= 32, "thread_block_tile<N>::shfl_down needs N <= 32");
    return __openhip_ops().shfl_down(__openhip_v, __openhip_d);
  }
  template <class __openhip_T>
  __openhip_T shfl_xor(__openhip_T __openhip_v, unsigned int __openhip_lm) const {
    static_assert(__openhip_N <= 32, "thread_block_tile<N>::shfl_xor needs N <= 32");
    return __openhip_ops().shfl_xor(__openhip_v, __openhip_lm);
  }
  template <class __openhip_U = void>
  int any(int __openhip_p) const {
    static_assert(__openhip_N <= 32 || __openhip_detail::__openhip_false<__openhip_U>::__openhip_value,
                  "thread_block_tile<N>::any needs N <= 32");
    return __openhip_ops().any(__openhip_p);
  }
  template <class __openhip_U = void>
  int all(int __openhip_p) const {
    static_assert(__openhip_N <= 32 || __openhip_detail::__openhip_false<__openhip_U>::__openhip_value,
                  "thread_block_tile<N>::all needs N <= 32");
    return __openhip_ops().all(__openhip_p);
  }
  template <class __openhip_U = void>
  unsigned int ballot(int __openhip_p) const {
    static_assert(__openhip_N <= 32 || __openhip_detail::__openhip_false<__openhip_U>::__openhip_value,
                  "thread_block_tile<N>::ballot needs N <= 32");
    return __openhip_ops().ballot(__openhip_p);
  }
  template <class __openhip_T>
  unsigned int match_any(__openhip_T __openhip_v) const {
    static_assert(__openhip_N <= 32, "thread_block_tile<N>::match_any needs N <= 32");
    return __openhip_ops().match_any(__openhip_v);
  }
  template <class __openhip_T>
  unsigned int match_all(__openhip_T __openhip_v, int& __openhip_pred) const {
    static_assert(__openhip_N <= 32, "thread_block_tile<N>::match_all needs N <= 32");
    return __openhip_ops().match_all(__openhip_v, __openhip_pred);
  }
};

// thread_block_tile<N, Parent> (what tiled_partition<N>(parent) returns) converts to
// thread_block_tile<N>.
template <unsigned int __openhip_N, class __openhip_Parent>
class thread_block_tile : public thread_block_tile<__openhip_N, void> {
  template <unsigned int __openhip_M, class __openhip_P>
  friend thread_block_tile<__openhip_M, __openhip_P> tiled_partition(const __openhip_P&);
  thread_block_tile(unsigned __openhip_mr, unsigned __openhip_ms)
      : thread_block_tile<__openhip_N, void>(__openhip_mr, __openhip_ms) {}
};

// tiled_partition<N>(block or tile): the tile of N consecutive threads holding the caller.
template <unsigned int __openhip_N, class __openhip_P>
thread_block_tile<__openhip_N, __openhip_P> tiled_partition(const __openhip_P& __openhip_parent) {
  static_assert(__openhip_detail::__openhip_pow2(__openhip_N) && __openhip_N <= 1024,
                "tiled_partition<N>: N must be a power of two of at most 1024");
  const unsigned __openhip_r = __openhip_detail::__openhip_block_rank();
  if constexpr (__openhip_P::__openhip_width == 0) {  // a thread_block
    (void)__openhip_parent;
    const unsigned __openhip_n = __openhip_detail::__openhip_block_size();
    return thread_block_tile<__openhip_N, __openhip_P>(__openhip_r / __openhip_N,
                                                       (__openhip_n + __openhip_N - 1) / __openhip_N);
  } else {
    static_assert(__openhip_N <= __openhip_P::__openhip_width,
                  "tiled_partition<N>(tile): N must not exceed the parent tile's size");
    (void)__openhip_parent;
    return thread_block_tile<__openhip_N, __openhip_P>(
        (__openhip_r & (__openhip_P::__openhip_width - 1u)) / __openhip_N,
        __openhip_P::__openhip_width / __openhip_N);
  }
}

// ---- coalesced_group ------------------------------------------------------------------------------
class coalesced_group : public thread_group {
  friend coalesced_group coalesced_threads();
  template <class __openhip_G, class __openhip_L>
  friend coalesced_group labeled_partition(const __openhip_G&, __openhip_L);

 public:
  explicit coalesced_group(unsigned long long __openhip_m, unsigned __openhip_mr = 0,
                           unsigned __openhip_ms = 1)
      : thread_group(__openhip_detail::__openhip_k_coalesced, 0, __openhip_m, __openhip_mr,
                     __openhip_ms) {}
  static constexpr unsigned __openhip_width = 0xffffffffu;
  unsigned long long num_threads() const {
    return (unsigned)__builtin_popcountll(__openhip_mask_);
  }
  unsigned long long size() const { return num_threads(); }
  unsigned long long thread_rank() const { return thread_group::thread_rank(); }
  unsigned long long meta_group_rank() const { return __openhip_meta_rank_; }
  unsigned long long meta_group_size() const { return __openhip_meta_size_; }
  void sync() const { __syncwarp(__openhip_mask_); }
  // Shuffles address ranks (0 .. size()-1), not lanes.
  template <class __openhip_T>
  __openhip_T shfl(__openhip_T __openhip_v, unsigned int __openhip_src) const {
    const unsigned long long __openhip_m = __openhip_mask_;
    const unsigned __openhip_s = __openhip_src % (unsigned)num_threads();
    const int __openhip_lane = __openhip_detail::__openhip_nth_lane(__openhip_m, __openhip_s);
    return __openhip_detail::__openhip_shfl_any(__openhip_v, [&](auto __openhip_x) {
      return __shfl_sync(__openhip_m, __openhip_x, __openhip_lane, 32);
    });
  }
  template <class __openhip_T>
  __openhip_T shfl_up(__openhip_T __openhip_v, unsigned int __openhip_d) const {
    const unsigned long long __openhip_m = __openhip_mask_;
    const long long __openhip_r = (long long)thread_rank() - (long long)__openhip_d;
    const int __openhip_lane = __openhip_r >= 0
                                   ? __openhip_detail::__openhip_nth_lane(__openhip_m, (unsigned)__openhip_r)
                                   : (int)__openhip_detail::__openhip_lane();
    return __openhip_detail::__openhip_shfl_any(__openhip_v, [&](auto __openhip_x) {
      return __shfl_sync(__openhip_m, __openhip_x, __openhip_lane, 32);
    });
  }
  template <class __openhip_T>
  __openhip_T shfl_down(__openhip_T __openhip_v, unsigned int __openhip_d) const {
    const unsigned long long __openhip_m = __openhip_mask_;
    const unsigned long long __openhip_r = thread_rank() + __openhip_d;
    const int __openhip_lane = __openhip_r < num_threads()
                                   ? __openhip_detail::__openhip_nth_lane(__openhip_m, (unsigned)__openhip_r)
                                   : (int)__openhip_detail::__openhip_lane();
    return __openhip_detail::__openhip_shfl_any(__openhip_v, [&](auto __openhip_x) {
      return __shfl_sync(__openhip_m, __openhip_x, __openhip_lane, 32);
    });
  }
  int any(int __openhip_p) const { return __any_sync(__openhip_mask_, __openhip_p); }
  int all(int __openhip_p) const { return __all_sync(__openhip_mask_, __openhip_p); }
  // Bit r of the result: the predicate of rank r.
  unsigned int ballot(int __openhip_p) const {
    return __openhip_detail::__openhip_compact(__ballot_sync(__openhip_mask_, __openhip_p),
                                               __openhip_mask_);
  }
  template <class __openhip_T>
  unsigned int match_any(__openhip_T __openhip_v) const {
    static_assert(sizeof(__openhip_T) <= 8, "match_any takes a value of at most 8 bytes");
    return __openhip_detail::__openhip_compact(__match_any_sync(__openhip_mask_, __openhip_v),
                                               __openhip_mask_);
  }
  template <class __openhip_T>
  unsigned int match_all(__openhip_T __openhip_v, int& __openhip_pred) const {
    static_assert(sizeof(__openhip_T) <= 8, "match_all takes a value of at most 8 bytes");
    return __openhip_detail::__openhip_compact(
        __match_all_sync(__openhip_mask_, __openhip_v, &__openhip_pred), __openhip_mask_);
  }
};

// The threads of the warp that are active here (HIP's __activemask: the lanes that have not
// exited meet; see warp.h).
inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

// ---- partitions -------------------------------------------------------------------------------------
namespace __openhip_detail {
template <class __openhip_G>
__attribute__((always_inline)) inline unsigned long long __openhip_warp_lanes(const __openhip_G& __openhip_g) {
  if constexpr (__openhip_G::__openhip_width == 0) {
    static_assert(__openhip_false<__openhip_G>::__openhip_value,
                  "labeled_partition / binary_partition take a tile of at most 32 threads or a "
                  "coalesced_group, not a thread_block");
    return 0;
  } else if constexpr (__openhip_G::__openhip_width != 0xffffffffu) {
    static_assert(__openhip_G::__openhip_width <= 32,
                  "labeled_partition / binary_partition need a tile of at most 32 threads");
    return __openhip_g.__openhip_lanes();
  } else {
    return __openhip_g.__openhip_lanes();
  }
}
}  // namespace __openhip_detail

// The threads of `g` with the same label (an integer) as the caller.
template <class __openhip_G, class __openhip_L>
coalesced_group labeled_partition(const __openhip_G& __openhip_g, __openhip_L __openhip_label) {
  static_assert(sizeof(__openhip_L) <= 8, "labeled_partition: the label is an integer");
  const unsigned long long __openhip_m = __openhip_detail::__openhip_warp_lanes(__openhip_g);
  return coalesced_group(__match_any_sync(__openhip_m, __openhip_label) & __openhip_m);
}
// The threads of `g` whose predicate equals the caller's (two groups).
template <class __openhip_G>
coalesced_group binary_partition(const __openhip_G& __openhip_g, bool __openhip_pred) {
  const unsigned long long __openhip_m = __openhip_detail::__openhip_warp_lanes(__openhip_g);
  const unsigned long long __openhip_b = __ballot_sync(__openhip_m, __openhip_pred) & __openhip_m;
  return coalesced_group(__openhip_pred ? __openhip_b : (__openhip_m & ~__openhip_b),
                         __openhip_pred ? 1u : 0u, 2u);
}

// tiled_partition(parent, n): the parent's partition into tiles of n threads (a power of two),
// as a thread_group.  A coalesced parent is split by rank into groups of n.
inline thread_group tiled_partition(const thread_group& __openhip_parent, unsigned int __openhip_n) {
  if (!__openhip_detail::__openhip_pow2(__openhip_n) || __openhip_n > 1024u) {
    __openhip_cg_fail(
        "tiled_partition(parent, n): n must be a power of two of at most 1024");
  }
  const unsigned __openhip_r = __openhip_detail::__openhip_block_rank();
  if (__openhip_parent.__openhip_kind() == __openhip_detail::__openhip_k_coalesced) {
    const unsigned long long __openhip_pm = __openhip_parent.__openhip_lanes();
    const unsigned __openhip_rank = (unsigned)__openhip_parent.thread_rank();
    const unsigned __openhip_first = __openhip_rank & ~(__openhip_n - 1u);
    unsigned long long __openhip_m = 0;
    unsigned __openhip_i = 0;
    for (unsigned long long __openhip_x = __openhip_pm; __openhip_x != 0;
         __openhip_x &= __openhip_x - 1, ++__openhip_i) {
      if (__openhip_i >= __openhip_first && __openhip_i < __openhip_first + __openhip_n)
        __openhip_m |= __openhip_x & (~__openhip_x + 1);
    }
    const unsigned __openhip_total = (unsigned)__builtin_popcountll(__openhip_pm);
    return coalesced_group(__openhip_m, __openhip_rank / __openhip_n,
                           (__openhip_total + __openhip_n - 1) / __openhip_n);
  }
  unsigned __openhip_ptile = __openhip_parent.__openhip_kind() == __openhip_detail::__openhip_k_tile
                                 ? __openhip_parent.__openhip_tile()
                                 : 0u;
  if (__openhip_ptile != 0 && __openhip_n > __openhip_ptile) {
    __openhip_cg_fail("tiled_partition(tile, n): n exceeds the parent tile's size");
  }
  struct __openhip_dyn_tile : thread_group {
    __openhip_dyn_tile(unsigned __openhip_t, unsigned __openhip_mr, unsigned __openhip_ms)
        : thread_group(__openhip_detail::__openhip_k_tile, __openhip_t,
                       __openhip_t <= 32 ? __openhip_detail::__openhip_tile_mask(__openhip_t) : 0ull,
                       __openhip_mr, __openhip_ms) {}
  };
  if (__openhip_ptile != 0) {
    return __openhip_dyn_tile(__openhip_n, (__openhip_r & (__openhip_ptile - 1u)) / __openhip_n,
                              __openhip_ptile / __openhip_n);
  }
  const unsigned __openhip_bs = __openhip_detail::__openhip_block_size();
  return __openhip_dyn_tile(__openhip_n, __openhip_r / __openhip_n,
                            (__openhip_bs + __openhip_n - 1) / __openhip_n);
}
inline thread_group tiled_partition(const thread_block& __openhip_parent, unsigned int __openhip_n) {
  return tiled_partition(static_cast<const thread_group&>(__openhip_parent), __openhip_n);
}

// ---- sync / wait ---------------------------------------------------------------------------------------
template <class __openhip_G>
inline void sync(const __openhip_G& __openhip_g) {
  __openhip_g.sync();
}

}  // namespace cooperative_groups

#include "openhip_cpu/cooperative_groups_reduce.h"
#include "openhip_cpu/cooperative_groups_memcpy.h"

#endif  // OPENHIP_CPU_COOPERATIVE_GROUPS_H
