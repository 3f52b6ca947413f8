"""The cost of the always-on memory guards (issue #14 items 5 and 9): red zones checked after
every launch, guard pages on large buffers, export-aware frees.

  launch            empty kernel, and a kernel with three pointer arguments (whose buffers the
                    post-launch check inspects): 2000 launches from Python, then synchronize
  saxpy 2^24        openhip (launch + synchronize) vs a plain C++ OpenMP loop on the same
                    buffers, in alternating blocks (bench_cpu.bench_saxpy)
  malloc/free       4 KiB (heap, canaries) and 8 MiB (mmap, guard pages, first touch included)

Run it on the tree under test and on a checkout of the commit before (same session), e.g.

    git worktree add /tmp/before-mem <commit>
    python bench/bench_guards.py --repeats 11
    PYTHONPATH=/tmp/before-mem python bench/bench_guards.py --repeats 11

(the script prints which openhip it imported). Medians over repeats; load printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_cpu  # noqa: E402 - the saxpy peer and its plain OpenMP loop

import openhip as hip  # noqa: E402

KERNELS = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void empty_kernel() {}
extern "C" __global__ void three_ptrs(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def bench_launch(repeats: int) -> dict:
    mod = hip.Module(KERNELS)
    empty, three = mod.get_function("empty_kernel"), mod.get_function("three_ptrs")
    a, b, c = (hip.zeros(64, np.float32) for _ in range(3))
    count = 2000
    out = {}
    for label, launch in (("empty", lambda: empty(1, 1, ())),
                          ("three_ptrs", lambda: three(1, 64, (a, b, c, 64)))):
        samples = []
        for _ in range(repeats):
            hip.synchronize()
            t0 = time.perf_counter()
            for _ in range(count):
                launch()
            hip.synchronize()
            samples.append((time.perf_counter() - t0) / count)
        out[f"{label}_us_per_launch"] = statistics.median(samples) * 1e6
    return out


def bench_alloc(repeats: int) -> dict:
    out = {}
    for label, nbytes, touch in (("4KiB", 4096, False), ("8MiB_touched", 8 << 20, True)):
        count = 2000 if nbytes <= 4096 else 20
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(count):
                buf = hip.malloc(nbytes)
                if touch:
                    hip.memset(buf, 1)
                buf.free()
            samples.append((time.perf_counter() - t0) / count)
        out[f"malloc_free_{label}_us"] = statistics.median(samples) * 1e6
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    load0 = os.getloadavg()
    result: dict = {"openhip": str(Path(hip.__file__).resolve().parent),
                    "time": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                    "load_before": load0}
    with tempfile.TemporaryDirectory() as tmp:
        dll = bench_cpu.build_plain(Path(tmp))
        result["saxpy"] = bench_cpu.bench_saxpy(dll, args.repeats)
    result["launch"] = bench_launch(args.repeats)
    result["alloc"] = bench_alloc(args.repeats)
    result["load_after"] = os.getloadavg()
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
