"""__syncthreads_count / __syncthreads_or on the CPU platform: split at the barriers (regions
mode) against the same kernel as fibers (one context switch per thread per barrier, the way
HIP-CPU runs every barrier), in the same process.

    python bench/bench_cpu_votes.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

SRC = r"""
__global__ void votes(const int* in, int* out, int rounds) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t], total = 0;
  for (int r = 0; r < rounds; ++r) {
    int n = __syncthreads_count((v + r) % 3 == 0);
    if (__syncthreads_or(v == r)) total += 1;
    total += n;
  }
  out[t] = total;
}
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=7)
    ns = ap.parse_args()
    import openhip as hip

    x = np.random.default_rng(0).integers(0, 100, 256 * 4096, dtype=np.int32)
    dx = hip.asarray(x)
    results = {}
    for mode in ("regions", "fibers"):
        os.environ["OPENHIP_CPU_REGIONS"] = "1" if mode == "regions" else "0"
        mod = hip.Module(SRC)
        assert mod.program.metadata["kernels"]["votes"]["mode"] == mode
        f = mod.get_function("votes")
        out = hip.zeros(x.size, np.int32)
        f(4096, 256, (dx, out, 8))
        hip.synchronize()
        times = []
        for _ in range(ns.repeats):
            t = time.perf_counter()
            f(4096, 256, (dx, out, 8))
            hip.synchronize()
            times.append(time.perf_counter() - t)
        results[mode] = (statistics.median(times), out.get())
    assert np.array_equal(results["regions"][1], results["fibers"][1])
    r, f = results["regions"][0], results["fibers"][0]
    print(f"2^20 threads (4096 blocks of 256), 8 rounds of __syncthreads_count + "
          f"__syncthreads_or: regions {r * 1e3:.1f} ms, fibers {f * 1e3:.1f} ms "
          f"({f / r:.1f}x), same results")


if __name__ == "__main__":
    main()
