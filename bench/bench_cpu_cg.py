"""Cooperative groups on the CPU platform against the warp and block primitives they are built
on, in the same process: cg::reduce over 32-thread tiles against the same reduction written
with __shfl_down_sync, and this_grid().sync() (a cooperative launch) against __syncthreads().

    python bench/bench_cpu_cg.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

SRC = r"""
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg(const float* in, float* out, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  v = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) atomicAdd(out, v);
}

extern "C" __global__ void reduce_shfl(const float* in, float* out, unsigned n) {
  float v = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

extern "C" __global__ void grid_rounds(unsigned* out, int rounds) {
  cg::grid_group grid = cg::this_grid();
  unsigned s = 0;
  for (int r = 0; r < rounds; ++r) {
    s += threadIdx.x;
    grid.sync();
  }
  out[grid.thread_rank()] = s;
}

extern "C" __global__ void block_rounds(unsigned* out, int rounds) {
  unsigned s = 0;
  for (int r = 0; r < rounds; ++r) {
    s += threadIdx.x;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""


def _median_ms(fn, repeats: int) -> float:
    import openhip as hip

    fn()
    hip.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        hip.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=7)
    ns = ap.parse_args()
    import openhip as hip

    m = hip.Module(SRC)
    n = 1 << 22
    x = hip.asarray(np.random.default_rng(0).integers(-4, 4, n).astype(np.float32))
    out = hip.zeros(1, np.float32)
    grid, block = 64, 256
    t = {}
    for name in ("reduce_cg", "reduce_shfl"):
        k = m.get_function(name)
        t[name] = _median_ms(lambda k=k: k(grid, block, (x, out, n)), ns.repeats)
    blocks = hip.get_device().properties.extra["cooperative_max_blocks"]
    rounds, threads = 200, 64
    u = hip.zeros(blocks * threads, np.uint32)
    kg, kb = m.get_function("grid_rounds"), m.get_function("block_rounds")
    t["grid_rounds"] = _median_ms(lambda: kg(blocks, threads, (u, rounds), cooperative=True),
                                  ns.repeats)
    t["block_rounds"] = _median_ms(lambda: kb(blocks, threads, (u, rounds)), ns.repeats)
    mode = {k: v["mode"] for k, v in m.program.metadata["kernels"].items()}
    print("modes:", mode)
    print(f"cg::reduce over tile<32>, 2^22 floats, {grid}x{block}: {t['reduce_cg']:.2f} ms; "
          f"__shfl_down_sync loop: {t['reduce_shfl']:.2f} ms; ratio "
          f"{t['reduce_cg'] / t['reduce_shfl']:.2f}x")
    print(f"{rounds} x this_grid().sync(), {blocks} blocks x {threads}: {t['grid_rounds']:.2f} ms "
          f"({t['grid_rounds'] / rounds * 1e3:.1f} us per grid barrier); {rounds} x "
          f"__syncthreads(): {t['block_rounds']:.2f} ms; ratio "
          f"{t['grid_rounds'] / t['block_rounds']:.2f}x")


if __name__ == "__main__":
    main()
