"""Memory pool (issue #11): pooled allocation + free against raw ``hip.malloc`` + ``free()``
on the same device, in the same run, and the array creation it serves.

  malloc/free       N allocations then N frees per round, of 4 KiB (heap, canaries on the CPU
                    platform), 1 MiB and 8 MiB (mmap, guard pages) — the first touch of the
                    memory is included (one byte per page written with memset), because that
                    is what a fresh block costs a kernel and what a cached block saves
  hip.empty         an array of 1000 float32 created and dropped (the pool's common case)

    OPENHIP_PLATFORM=cpu python bench/bench_pool.py --repeats 11

Medians over repeats (µs per allocation + free); the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

import openhip as hip
from openhip.runtime.pool import MemoryPool


def per_op_us(fn, n: int, repeats: int) -> float:
    fn()  # warm-up (fills the pool's cache)
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=11)
    args = ap.parse_args()
    dev = hip.get_device()
    pool = MemoryPool(dev)
    rows = []
    for label, size, n in (("4 KiB", 4096, 200), ("1 MiB", 1 << 20, 50),
                           ("8 MiB", 8 << 20, 10)):
        def raw(size=size, n=n):
            bufs = [hip.malloc(size) for _ in range(n)]
            for b in bufs:
                hip.memset(b, 1, nbytes=1)
            for b in bufs:
                b.free()

        def pooled(size=size, n=n):
            bufs = [pool.malloc(size) for _ in range(n)]
            for b in bufs:
                hip.memset(b, 1, nbytes=1)
            for b in bufs:
                b.free()

        # the memset of one byte stands for a first use (it also drains the device queue)
        t_raw = per_op_us(raw, n, args.repeats)
        t_pool = per_op_us(pooled, n, args.repeats)
        rows.append({"case": f"malloc+free {label}", "raw_us": round(t_raw, 2),
                     "pool_us": round(t_pool, 2), "raw/pool": round(t_raw / t_pool, 2)})

    def empty_raw(n=1000):
        for _ in range(n):
            hip.DeviceArray._wrap(hip.malloc(4000), (1000,), np.float32)

    def empty_pooled(n=1000):
        for _ in range(n):
            hip.empty(1000, np.float32)

    t_raw = per_op_us(empty_raw, 1000, args.repeats)
    t_pool = per_op_us(empty_pooled, 1000, args.repeats)
    rows.append({"case": "hip.empty(1000, float32) + drop", "raw_us": round(t_raw, 2),
                 "pool_us": round(t_pool, 2), "raw/pool": round(t_raw / t_pool, 2)})
    print(json.dumps({"platform": dev.platform, "load": os.getloadavg(), "rows": rows},
                     indent=1))


if __name__ == "__main__":
    main()
