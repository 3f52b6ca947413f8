"""Memcheck's cost (issue #15: checked mode at most 20x slower than unchecked on saxpy and the
shared-memory reduction): each kernel timed unchecked and checked (``OPENHIP_MEMCHECK=1``), in
child processes of this run (the mode is per process), alternating, medians over repeats.

    OPENHIP_PLATFORM=cpu python bench/bench_memcheck.py --repeats 5 --n 4194304
    OPENHIP_CPU_THREADS=1 OPENHIP_PLATFORM=cpu python bench/bench_memcheck.py --clock process

Prints one line per kernel: unchecked ms, checked ms, ratio; and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

KERNELS = Path(__file__).with_name("bench_memcheck.hip")

CHILD = r"""
import json, statistics, sys, time
import numpy as np
import openhip as hip
n, reps = int(sys.argv[1]), int(sys.argv[2])
clock = time.process_time if sys.argv[4] == "process" else time.perf_counter
mod = hip.Module(open(sys.argv[3]).read(), name="bench_memcheck.hip")
x = hip.asarray(np.random.default_rng(0).random(n, dtype=np.float32))
y = hip.asarray(np.ones(n, np.float32))
blocks = (n + 255) // 256
out = hip.zeros(blocks, np.float32)
cases = {
    "saxpy": lambda: mod.get_function("saxpy")(blocks, 256, (np.float32(2.0), x, y, n)),
    "block_sum (static shared)": lambda: mod.get_function("block_sum")(blocks, 256, (x, out, n)),
    "block_sum (dynamic shared)": lambda: mod.get_function("block_sum_dyn")(
        blocks, 256, (x, out, n), shared_mem=1024),
}
res = {}
for name, fn in cases.items():
    fn(); hip.synchronize()  # compile, load, warm
    times = []
    for _ in range(reps):
        t = clock(); fn(); hip.synchronize(); times.append(clock() - t)
    res[name] = statistics.median(times) * 1e3
ref = mod.get_function("block_sum")
ref(blocks, 256, (x, out, n)); hip.synchronize()
assert np.allclose(out.get().sum(), x.get().sum(), rtol=1e-3)
print("RESULT", json.dumps(res))
"""


def child(checked: bool, n: int, reps: int, clock: str) -> dict[str, float]:
    env = dict(os.environ, OPENHIP_PLATFORM="cpu", OPENHIP_MEMCHECK="1" if checked else "0")
    proc = subprocess.run([sys.executable, "-c", CHILD, str(n), str(reps), str(KERNELS), clock],
                          capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"child failed:\n{proc.stderr[-3000:]}")
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1 << 22)
    p.add_argument("--repeats", type=int, default=5, help="child-process rounds per mode")
    p.add_argument("--launches", type=int, default=11, help="timed launches per child")
    p.add_argument("--clock", choices=("wall", "process"), default="wall",
                   help="process: the child's CPU time per launch (with OPENHIP_CPU_THREADS=1, "
                   "the kernel's own time; for a loaded machine)")
    ns = p.parse_args()
    print(f"load average before: {os.getloadavg()}")
    rounds: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    t0 = time.perf_counter()
    for _ in range(ns.repeats):
        for checked in (False, True):
            rounds[checked].append(child(checked, ns.n, ns.launches, ns.clock))
    names = list(rounds[False][0])
    print(f"n = {ns.n}, {ns.repeats} rounds x {ns.launches} launches, {ns.clock} clock, medians "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"{'kernel':30s} {'unchecked ms':>13s} {'checked ms':>11s} {'ratio':>7s}")
    for name in names:
        plain = statistics.median(r[name] for r in rounds[False])
        checked = statistics.median(r[name] for r in rounds[True])
        print(f"{name:30s} {plain:13.3f} {checked:11.3f} {checked / plain:7.2f}x")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
