"""openhip.numpy.random against numpy's Generator, in one run, on the CPU platform.

    python bench/bench_random.py [--n 16777216] [--repeats 9] [--cpu-time]

Philox4x32 ``random`` float32/float64, ``normal``, ``exponential`` and ``integers`` of n
values, a 2-D-broadcast ``normal`` and an array-``lam`` ``poisson``: openhip's
kernels (all cores) against ``numpy.random.Generator(numpy.random.Philox)`` (one core; numpy's
Philox is the 4x64 variant, the nearest peer). Medians over the repeats, alternating.
``--cpu-time``: the process's CPU seconds instead of wall time (for a loaded machine; run with
OPENHIP_CPU_THREADS=1 so both sides use one core).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import openhip as hip
import openhip.numpy as hnp
from openhip.numpy.random import default_rng

CLOCK = time.perf_counter


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = CLOCK()
        fn()
        times.append(CLOCK() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--cpu-time", action="store_true",
                    help="CPU seconds of the process (time.process_time) instead of wall time")
    args = ap.parse_args()
    global CLOCK
    if args.cpu_time:
        CLOCK = time.process_time
    n = args.n
    g = default_rng(1)
    ref = np.random.Generator(np.random.Philox(1))
    row = np.linspace(-1.0, 1.0, 1024)
    lam = np.random.default_rng(0).uniform(0.5, 30.0, n // 4)
    hrow, hlam = hnp.asarray(row), hnp.asarray(lam)
    cases = [
        ("random float32", lambda: g.random(n, dtype=np.float32), lambda: ref.random(n, dtype=np.float32)),
        ("random float64", lambda: g.random(n), lambda: ref.random(n)),
        ("normal float32", lambda: g.normal(size=n, dtype=np.float32),
         lambda: ref.standard_normal(n, dtype=np.float32)),
        ("normal float64", lambda: g.normal(size=n), lambda: ref.standard_normal(n)),
        ("exponential float32", lambda: g.exponential(size=n, dtype=np.float32),
         lambda: ref.standard_exponential(n, dtype=np.float32)),
        ("integers [0, 1000) int64", lambda: g.integers(0, 1000, size=n),
         lambda: ref.integers(0, 1000, size=n)),
        (f"normal(row(1024), 2.0, size=({n // 1024}, 1024)) float64 (a 2-D broadcast)",
         lambda: g.normal(hrow, 2.0, size=(n // 1024, 1024)),
         lambda: ref.normal(row, 2.0, size=(n // 1024, 1024))),
        (f"poisson(lam array of {n // 4}, lam in [0.5, 30))", lambda: g.poisson(hlam),
         lambda: ref.poisson(lam)),
    ]
    print(f"n = {n}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, "
          f"device {hip.get_device().platform}, OPENHIP_CPU_THREADS="
          f"{os.environ.get('OPENHIP_CPU_THREADS', '(all)')}, "
          f"{'CPU time' if args.cpu_time else 'wall time'}")
    print("| what | openhip | numpy (Philox) | speed-up |")
    print("| --- | --- | --- | --- |")
    for name, ours, theirs in cases:
        ours()  # build and warm
        hip.synchronize()

        def run_ours(ours=ours):
            ours()
            hip.synchronize()

        ts_o, ts_r = [], []
        for _ in range(args.repeats):  # alternating, so both see the same load
            ts_o.append(median_time(run_ours, 1))
            ts_r.append(median_time(theirs, 1))
        t_ours, t_ref = statistics.median(ts_o), statistics.median(ts_r)
        print(f"| {name} | {t_ours * 1e3:.1f} ms | {t_ref * 1e3:.1f} ms | {t_ref / t_ours:.2f}x |")
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
