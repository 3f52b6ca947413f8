"""Issue #10 failure 4: user macros named like the identifiers openhip's generated code used
(the entry points' L, W, b0, b1, sizes; the globals' size; the dynamic shared setter's base),
and short names defined before the cooperative groups header, change nothing: every name
openhip puts into a translation unit is reserved (__openhip_...)."""

from __future__ import annotations

import numpy as np
import pytest

import openhip as hip

ALSO_AS_FIBERS = True

# Every short name the generated footer and engine macros used, as macros that would break
# any code naming them.
FOOTER_MACROS = "\n".join(f"#define {n} @{n}@" for n in (
    "L", "W", "b0", "b1", "sizes", "size", "base", "lt", "ID", "MODE", "NAME"))

SOURCE = r"""
#include <hip/hip_runtime.h>
MACROS
extern __shared__ float ns_dyn[];            // namespace-scope dynamic shared (its setter)
__device__ int counter_global;               // a global (its accessor)
__constant__ float scale_c[4];

extern "C" __global__ void loop_k(float* out, int count) {   // loop mode
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = 2.0f * i + scale_c[0];
}

extern "C" __global__ void barrier_k(float* out) {            // regions (or fibers)
  __shared__ float sh[64];
  sh[threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = sh[63 - threadIdx.x];
}

extern "C" __global__ void warp_k(int* out) {                 // fibers
  int v = threadIdx.x;
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  ns_dyn[threadIdx.x] = 1.0f;
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v + (int)ns_dyn[threadIdx.x];
  if (threadIdx.x == 0) atomicAdd(&counter_global, 1);
}

template <class Tp, int K>
__global__ void templ_k(Tp* out) { out[threadIdx.x] = (Tp)(K * threadIdx.x); }
"""

# Short names defined before the cooperative groups headers are included.
CG_MACROS = "\n".join(f"#define {n} @{n}@" for n in (
    "T", "N", "M", "P", "G", "F", "U", "S", "L", "W", "v", "m", "r", "n", "op", "pred", "src",
    "mask", "lane", "line", "tile", "value", "width", "delta", "bytes", "dst", "parts", "lo",
    "len", "share", "first", "end", "waiting", "base", "low", "parent", "label", "rank", "off",
    "inc", "prev", "out", "gen", "exited", "spins", "coop", "rc", "id", "nblocks", "state",
    "kind", "meta", "lanes"))

CG_SOURCE = r"""
MACROS
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;
struct Wide { double hi, lo_; };
extern "C" __global__ void cg_k(const int* in, int* res) {
  __shared__ int stage[128];
  cg::thread_block blk = cg::this_thread_block();
  cg::memcpy_async(blk, stage, in, sizeof(int) * 128);
  cg::wait(blk);
  cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(blk);
  const int x0 = stage[blk.thread_rank()];
  const int s = cg::reduce(t32, x0, cg::plus<int>());
  const int ps = cg::exclusive_scan(t32, x0);
  Wide w{(double)x0, 0.5};
  Wide got = t32.shfl_xor(w, 1);
  cg::coalesced_group odd = cg::binary_partition(t32, x0 & 1);
  res[blk.thread_rank()] = s + ps + (int)got.hi + (int)odd.num_threads() * 1000;
  cg::sync(blk);
}
"""


def test_footer_names_are_reserved(device):
    m = hip.Module(SOURCE.replace("MACROS", FOOTER_MACROS), name_expressions=["templ_k<int, 3>"])
    out = hip.zeros(64, np.float32)
    hip.memcpy_htod(m.get_global("scale_c"), np.full(4, 0.5, np.float32))
    m.get_function("loop_k")(1, 64, (out, 64))
    np.testing.assert_array_equal(out.get(), 2.0 * np.arange(64) + 0.5)
    m.get_function("barrier_k")(1, 64, (out,))
    np.testing.assert_array_equal(out.get()[:64], 63 - np.arange(64, dtype=np.float32))
    wi = hip.zeros(2, np.int32)
    m.get_function("warp_k")(1, 64, (wi,), shared_mem=256)
    np.testing.assert_array_equal(wi.get(), [sum(range(32)) + 1, sum(range(32, 64)) + 1])
    assert m.get_global("counter_global").get().view(np.int32)[0] == 1
    ti = hip.zeros(8, np.int32)
    m.get_function("templ_k<int, 3>")(1, 8, (ti,))
    np.testing.assert_array_equal(ti.get(), 3 * np.arange(8))


def test_cooperative_groups_names_are_reserved(device):
    if device.platform != "cpu":
        pytest.skip("the CPU platform's cooperative groups headers")
    m = hip.Module(CG_SOURCE.replace("MACROS", CG_MACROS))
    x = np.random.default_rng(0).integers(0, 50, 128).astype(np.int32)
    res = hip.zeros(128, np.int32)
    m.get_function("cg_k")(1, 128, (hip.asarray(x), res))
    seg = x.reshape(4, 32)
    excl = np.concatenate([np.zeros((4, 1), np.int64), np.cumsum(seg, axis=1)[:, :-1]], axis=1)
    odd = (seg & 1)
    count = np.where(odd == 1, odd.sum(axis=1, keepdims=True), 32 - odd.sum(axis=1, keepdims=True))
    want = seg.sum(axis=1, keepdims=True) + excl + seg[:, np.arange(32) ^ 1] + count * 1000
    np.testing.assert_array_equal(res.get(), want.reshape(-1))
