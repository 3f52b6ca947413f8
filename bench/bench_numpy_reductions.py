"""openhip.numpy reductions and sorting against numpy, in one run (CPU platform).

    python3 bench/bench_numpy_reductions.py [--repeats 7] [--json out.json] [--cpu-time]

- sum / max / mean over all elements and along each axis of a 4096x4096 float32 array
  (issue #11's goal: at least 1.2x numpy's throughput);
- sort / argsort of 2^22 float32 (goal: at least 0.5x numpy): the standard's sort is stable,
  so the peer is numpy's stable sort (``kind="stable"``); numpy's default sort (an unstable
  SIMD quicksort) is reported too.

Each figure is the median of ``--repeats`` timed runs after warm-up (openhip: launch +
synchronize, as a user waits for the result), the two sides alternating per operation so
a change of load hits both. The machine's load average is printed: on a shared machine the
ratios move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np


def median_time(fn, repeats: int, warmup: int = 2, clock=time.perf_counter) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        samples.append(clock() - t0)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time the process's CPU time instead of wall time (for a loaded "
                         "machine, with OPENHIP_CPU_THREADS=1: one core each; openhip's "
                         "figure then also holds its idle threads' polling, so it errs "
                         "against openhip)")
    args = ap.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter

    import openhip as hip
    import openhip.numpy as hnp

    dev = hip.get_device()
    print(f"device: {dev.properties.name} ({dev.platform}), threads "
          f"{dev.properties.extra.get('threads', '?')}; load average "
          f"{os.getloadavg()[0]:.2f}; {'CPU' if args.cpu_time else 'wall'} time")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 4096)).astype(np.float32)
    d = hnp.asarray(x)
    rows = []

    def run(label, fn_np, fn_oh, check):
        got = fn_oh()
        hip.synchronize()
        check(got)
        t_np = median_time(fn_np, args.repeats, clock=clock)

        def oh():
            fn_oh()
            hip.synchronize()

        t_oh = median_time(oh, args.repeats, clock=clock)
        rows.append({"op": label, "numpy_ms": t_np * 1e3, "openhip_ms": t_oh * 1e3,
                     "ratio": t_np / t_oh})
        print(f"{label:28s} numpy {t_np * 1e3:8.2f} ms   openhip {t_oh * 1e3:8.2f} ms   "
              f"ratio {t_np / t_oh:5.2f}x", flush=True)

    for name in ("sum", "max", "mean"):
        for axis in (None, 0, 1):
            want = getattr(np, name)(x, axis=axis)

            def check(got, want=want):
                np.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-2)

            run(f"{name} axis={axis} 4096^2 f32",
                lambda name=name, axis=axis: getattr(np, name)(x, axis=axis),
                lambda name=name, axis=axis: getattr(hnp, name)(d, axis=axis), check)

    s = rng.standard_normal(1 << 22).astype(np.float32)
    ds = hnp.asarray(s)

    def check_sort(got):
        np.testing.assert_array_equal(got.get(), np.sort(s))

    def check_argsort(got):
        np.testing.assert_array_equal(got.get(), np.argsort(s, kind="stable"))

    run("sort 2^22 f32 (vs stable)", lambda: np.sort(s, kind="stable"), lambda: hnp.sort(ds),
        check_sort)
    run("sort 2^22 f32 (vs default)", lambda: np.sort(s), lambda: hnp.sort(ds), check_sort)
    run("argsort 2^22 f32 (vs stable)", lambda: np.argsort(s, kind="stable"),
        lambda: hnp.argsort(ds), check_argsort)
    run("argsort 2^22 f32 (vs default)", lambda: np.argsort(s), lambda: hnp.argsort(ds),
        check_argsort)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
