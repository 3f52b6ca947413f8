"""The cost of the CPU platform's always-on guards (issue #14 items 4, 6, 7, 8), before/after.

The guards: a per-block store and cancel check in every kernel (fault reports, cancellation),
the fault handler's entry/exit flags around each entry call, per-fiber guard regions, sliced
interruptible waits, and stream handles looked up under a lock. Measured against the tree
before them (a ``git worktree add /tmp/before <commit>`` checkout) in alternating child
processes, each running bench_cpu.py's own saxpy (vs a plain OpenMP loop on the same buffers,
in the same process), its reduction, its empty-kernel launch loop, and a launch+synchronize
round trip; plus the KeyboardInterrupt latency of an interrupted synchronize() (after only:
before, it never returns).

Usage: python bench/bench_reliability.py --before /tmp/before [--rounds 4] [--json FILE]
Medians over rounds; the machine is shared, so the load average is printed with each row.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = textwrap.dedent("""
    import json, os, signal, statistics, sys, tempfile, threading, time
    from pathlib import Path
    sys.path.insert(0, "bench")
    import numpy as np
    import openhip as hip
    import bench_cpu as b
    out = {"load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        dll = b.build_plain(Path(tmp))
        out["saxpy_int"] = b.bench_saxpy(dll, 6, "saxpy_int")["ratio_vs_plain"]
        out["saxpy_size_t"] = b.bench_saxpy(dll, 6, "saxpy")["ratio_vs_plain"]
        r = b.bench_reduce(dll, 4)
        out["reduce_slowdown"] = r["slowdown_vs_plain"]
    out["launch_us"] = b.bench_launch(5)["us_per_launch"]
    k = hip.Module(b.SAXPY).get_function("empty_kernel")
    rt = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(500):
            k(1, 1, ())
            hip.synchronize()
        rt.append((time.perf_counter() - t0) / 500 * 1e6)
    out["launch_sync_us"] = statistics.median(rt)
    # kernel time alone (events around the launch): the reduction and saxpy, medians of 25
    x = hip.asarray(np.random.default_rng(1).random(b.N, dtype=np.float32))
    y = hip.zeros(b.N, np.float32)
    partial = hip.zeros(b.N // 256, np.float32)
    red = hip.Module(b.REDUCE).get_function("block_sum")
    sax = hip.Module(b.SAXPY).get_function("saxpy_int")
    e0, e1 = hip.Event(), hip.Event()
    def kernel_ms(launch):
        ts = []
        for _ in range(25):
            e0.record()
            launch()
            e1.record()
            e1.synchronize()
            ts.append(hip.Event.elapsed_time(e0, e1))
        return statistics.median(ts)
    out["reduce_kernel_ms"] = kernel_ms(lambda: red(b.N // 256, 256, (x, partial, b.N)))
    out["saxpy_kernel_ms"] = kernel_ms(lambda: sax((b.N + 255) // 256, 256, (2.0, x, y, b.N)))
    if hasattr(hip, "reset_device"):   # the interrupt latency (the old tree never returns)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # even from a background job
        spin = hip.Module(open("tests/reliability/fault_kernels.hip").read()).get_function(
            "spin_blocks")
        lat = []
        for _ in range(3):
            done = hip.zeros(20000, np.int32)
            spin(20000, 1, (done, 20_000))
            sent = []
            def fire():
                time.sleep(0.2)
                sent.append(time.monotonic())
                os.kill(os.getpid(), signal.SIGINT)
            threading.Thread(target=fire).start()
            try:
                hip.synchronize()
            except KeyboardInterrupt:
                lat.append(time.monotonic() - sent[0])
            try:
                hip.synchronize()
            except hip.HipError:
                pass
            hip.reset_device()
        out["interrupt_latency_ms"] = statistics.median(lat) * 1e3
    print("RESULT " + json.dumps(out))
""")


def run(tree: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), OPENHIP_PLATFORM="cpu")
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{tree}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[-1][7:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows: dict[str, list[dict]] = {"before": [], "after": []}
    for i in range(args.rounds):
        for name, tree in (("before", args.before), ("after", HERE)):
            r = run(tree)
            rows[name].append(r)
            print(name, i, json.dumps({k: round(v, 3) for k, v in r.items()}), flush=True)
    keys = ["saxpy_int", "saxpy_size_t", "reduce_slowdown", "launch_us", "launch_sync_us",
            "reduce_kernel_ms", "saxpy_kernel_ms"]
    summary = {name: {k: statistics.median(r[k] for r in rs) for k in keys}
               for name, rs in rows.items()}
    lat = [r["interrupt_latency_ms"] for r in rows["after"] if "interrupt_latency_ms" in r]
    if lat:
        summary["after"]["interrupt_latency_ms"] = statistics.median(lat)
    print("median", json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "median": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
