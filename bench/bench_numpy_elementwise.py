"""openhip.numpy elementwise throughput and dispatch cost against numpy, in one run.

  python3 bench/bench_numpy_elementwise.py [--n 16777216] [--repeats 7] [--script-only]
                                           [--cpu-time]

``--cpu-time``: the process's CPU time per operation instead of wall time (every openhip worker
thread counted); with ``OPENHIP_CPU_THREADS=1`` the per-core cost against numpy's, the figure a
loaded machine changes least.

Measured (medians over repeats, each openhip timing includes the synchronisation):
- ``a * x + y`` (one fused kernel; two with ``OPENHIP_FUSION=0``), ``exp(x)``, ``log(x)``, ``x < y``, ``x.astype(float64)`` on 2^24
  float32;
- a strided op (``x.T + y`` with 4096x4096 operands) and a broadcast op (matrix + row vector);
- the dispatch overhead of one small warm op (``x + y`` on 16 floats, no synchronisation, the
  enqueue cost a caller pays; numpy's same op for comparison; below fusion's threshold, so
  unfused), with the results dropped and kept, and ``x * 2.0`` (a Python scalar operand);
  and one ``x + y`` at fusion's threshold
  (``_fusion.MIN_ELEMENTS``) fused and unfused: what deferring one operation costs;
- a script of 20 common operations in a fresh process with an empty OPENHIP_CACHE_DIR (cold)
  and again in a fresh process with that cache (warm); with the cold run's CPU time (the
  process and its compilers: the figure a loaded machine changes least).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # run from a checkout without installing

SCRIPT = r"""
import time
t0 = time.perf_counter()
import numpy as np
import openhip.numpy as hnp
x = hnp.arange(100000, dtype=hnp.float32)          # 1 arange
y = hnp.ones(100000, dtype=hnp.float32)            # 2 ones
z = x * 2.0 + y                                    # 3, 4 multiply, add
z = z - x / 3.0                                    # 5, 6 subtract, divide
e = hnp.exp(-x / 1e5)                              # 7, 8 negative, exp
s = hnp.sqrt(hnp.abs(z))                           # 9, 10 abs, sqrt
m = z > 10.0                                       # 11 greater
w = hnp.where(m, z, 0.0)                           # 12 where
c = w.astype(hnp.float64)                          # 13 astype
r = hnp.reshape(x, (100, 1000)).T                  # 14 reshape + transpose (views)
q = r + 1.0                                        # 15 strided add
k = x[10:20000:3]                                  # 16 slice
k2 = x[m]                                          # 17 boolean mask
st = hnp.stack([x, y])                             # 18 stack
mx = hnp.maximum(x, y)                             # 19 maximum
fin = hnp.isfinite(e)                              # 20 isfinite
_ = [a.get() for a in (z, e, s, w, c, q, k, k2, st, mx, fin)]
print(f"{time.perf_counter() - t0:.3f}")
"""


def median(fn, repeats: int, warmup: int = 2, clock=time.perf_counter) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        samples.append(clock() - t0)
    return statistics.median(samples)


def run_script(cache: str) -> tuple[float, float]:
    """(wall seconds the script reports, CPU seconds of its process and its compilers)."""
    env = dict(os.environ, OPENHIP_CACHE_DIR=cache)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return float(out.stdout.strip().splitlines()[-1]), cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--script-only", action="store_true")
    ap.add_argument("--cpu-time", action="store_true",
                    help="CPU time of the process per operation instead of wall time")
    args = ap.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter
    print(f"load: {os.getloadavg()}")

    with tempfile.TemporaryDirectory() as cache:
        cold, cold_cpu = run_script(cache)
        warm = statistics.median(run_script(cache)[0] for _ in range(3))
    print(f"20-op script: cold (empty cache) {cold:.2f} s (CPU {cold_cpu:.2f} s, process and "
          f"compilers), warm {warm:.3f} s")
    if args.script_only:
        return

    import openhip as hip
    import openhip.numpy as hnp

    rng = np.random.default_rng(0)
    n = args.n
    hx = rng.random(n, dtype=np.float32)
    hy = rng.random(n, dtype=np.float32)
    x, y = hnp.asarray(hx), hnp.asarray(hy)
    np.seterr(divide="ignore")  # log(0) in numpy's log(x) case
    side = 4096
    hm = rng.random((side, side), dtype=np.float32)
    hmt = rng.random((side, side), dtype=np.float32)
    hrow = rng.random(side, dtype=np.float32)
    m, mt, row = hnp.asarray(hm), hnp.asarray(hmt), hnp.asarray(hrow)

    def sync(f):
        def g():
            r = f()  # kept through the synchronisation (a pending fused result is computed)
            hip.synchronize()
            return r
        return g

    cases = [
        ("a * x + y (2^24 f32)", sync(lambda: 2.0 * x + y), lambda: 2.0 * hx + hy),
        ("exp(x)", sync(lambda: hnp.exp(x)), lambda: np.exp(hx)),
        ("log(x)", sync(lambda: hnp.log(x)), lambda: np.log(hx)),
        ("x < y", sync(lambda: x < y), lambda: hx < hy),
        ("x.astype(float64)", sync(lambda: x.astype(hnp.float64)),
         lambda: hx.astype(np.float64)),
        ("strided: m.T + m2 (4096^2)", sync(lambda: m.T + mt), lambda: hm.T + hmt),
        ("broadcast: m + row (4096^2)", sync(lambda: m + row), lambda: hm + hrow),
    ]
    kind = "CPU" if args.cpu_time else "wall"
    print(f"{'operation (' + kind + ' time)':32s} {'openhip ms':>11s} {'numpy ms':>9s} "
          f"{'ratio':>6s}")
    for name, fo, fn in cases:
        to = median(fo, args.repeats, clock=clock)
        tn = median(fn, args.repeats, clock=clock)
        print(f"{name:32s} {to * 1e3:11.2f} {tn * 1e3:9.2f} {tn / to:6.2f}x")

    try:
        from openhip.numpy import _fusion
        off = _fusion.enabled(False)
    except ImportError:  # a tree from before fusion
        import contextlib
        _fusion = None
        off = contextlib.nullcontext()

    def loops(n: int, reps: int):
        a, b = hnp.asarray(np.ones(n, np.float32)), hnp.asarray(np.ones(n, np.float32))

        def dropped():
            for _ in range(reps):
                a + b
            hip.synchronize()

        def kept():  # every result alive at the synchronisation: each one computed
            keep = [a + b for _ in range(reps)]
            hip.synchronize()
            return keep
        for _ in range(50):
            a + b
        hip.synchronize()
        return dropped, kept

    nx, ny = np.ones(16, np.float32), np.ones(16, np.float32)
    reps = 2000

    def loop_n():
        for _ in range(reps):
            nx + ny
    dropped, kept = loops(16, reps)
    to = median(dropped, 5, clock=clock) / reps
    tk = median(kept, 5, clock=clock) / reps
    tn = median(loop_n, 5, clock=clock) / reps
    print(f"dispatch of one small op (x + y, 16 f32; below fusion's MIN_ELEMENTS: unfused): "
          f"openhip {to * 1e6:.1f} us (results dropped) / {tk * 1e6:.1f} us (kept); numpy "
          f"{tn * 1e6:.2f} us")
    xs = hnp.asarray(nx)

    def scalar_op():  # a Python scalar operand: packed into the launch at each call
        for _ in range(reps):
            xs * 2.0
        hip.synchronize()

    def loop_ns():
        for _ in range(reps):
            nx * 2.0
    ts = median(scalar_op, 5, clock=clock) / reps
    tns = median(loop_ns, 5, clock=clock) / reps
    print(f"dispatch with a scalar (x * 2.0, 16 f32): openhip {ts * 1e6:.1f} us (dropped); "
          f"numpy {tns * 1e6:.2f} us")
    # a result just at fusion's threshold: the cost of deferring one operation
    n2 = getattr(_fusion, "MIN_ELEMENTS", 1 << 15)
    _, kept2 = loops(n2, 500)
    with off:
        tu = median(kept2, 5, clock=clock) / 500
    tf = median(kept2, 5, clock=clock) / 500
    print(f"one x + y of {n2} f32, results kept: {tu * 1e6:.1f} us unfused, {tf * 1e6:.1f} us "
          f"fused (pending, then its own kernel at the synchronisation)")


if __name__ == "__main__":
    main()
