"""Profiler overhead (issue #15): the same loops unprofiled, profiled, and unprofiled again
after a session (the hooks are gone: the original functions are back), in one run.

  launch            2000 launches of an empty kernel on the default stream, then synchronize
  launch (stream)   the same on a created stream
  alloc+free        2000 hip.empty(256, float32) created and dropped (pool allocation + free)
  memcpy HtoD 4 KiB 500 blocking copies

The figure per recorded event is (profiled - unprofiled) / events recorded; the issue's goal is
at most 1 µs on the CPU platform. Each loop is timed in wall time and in the CPU time of the
calling thread (``time.thread_time``: what the recording costs the host thread, without the
time a loaded machine takes the core away). "hook alone" rows time the recording wrapper around
a function that does nothing against that function called directly (100,000 calls, thread CPU
time). The recorder's `finish` (reading the device times of every
kernel's events, building the trace) happens after the timed region and is reported apart.

    OPENHIP_PLATFORM=cpu python bench/bench_profiler.py --repeats 9

Medians over repeats; alternating unprofiled / profiled rounds; the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

import openhip as hip
from openhip.runtime.module import Function

KERNEL = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void empty_kernel(float* x, int n) {}
"""


def hook_costs(k, x, repeats: int) -> list[dict]:
    """The recording cost alone: a hook wrapped around a function that does nothing, against
    that function called directly (kernels: the CPU path, no events; the pool's pair)."""
    from openhip.runtime.pool import MemoryPool
    from openhip.tools.profiler.hooks import Hooks
    from openhip.tools.profiler.recorder import Recorder

    def noop_launch(fn, grid, block, args=(), *, shared_mem=0, stream=None, cooperative=False):
        return None

    def noop_alloc(pool, nbytes, s):
        return buf

    def noop_free(pool, ptr, cls, size, sref):
        return None

    rec = Recorder(10_000_000)
    hooks = Hooks(rec)
    launch = hooks._kernel(noop_launch)
    alloc, free = hooks._alloc(noop_alloc), hooks._free(noop_free)
    pool = MemoryPool()
    buf = pool.malloc(4096)
    stream = hip.Stream._default(pool.device)
    n = 100_000

    def calls(fn, *a):  # CPU time of this thread: what the hook costs, not the waits
        t0 = time.thread_time_ns()
        for _ in range(n):
            fn(*a)
        return (time.thread_time_ns() - t0) / n

    out = []
    for label, plain, hooked, a in (
            ("hook alone: kernel launch record", noop_launch, launch, (k, 1, 1, (x, 256))),
            ("hook alone: pool alloc record", noop_alloc, alloc, (pool, 4096, stream)),
            ("hook alone: pool free record", noop_free, free, (pool, buf._ptr, 4096, 4096,
                                                                 buf._sref))):
        base, wrapped = [], []
        for _ in range(repeats):
            base.append(calls(plain, *a))
            wrapped.append(calls(hooked, *a))
        out.append({"case": label, "events": n,
                    "overhead_us_per_event": round((statistics.median(wrapped) -
                                                    statistics.median(base)) / 1000, 3)})
    rec.finish()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    original_call = Function.__call__
    k = hip.Module(KERNEL, name="bench_profiler.hip").get_function("empty_kernel")
    x = hip.zeros(256, np.float32)
    s = hip.Stream()
    host = np.zeros(1024, np.float32)
    dst = hip.zeros(1024, np.float32)
    n_launch, n_alloc, n_copy = 2000, 2000, 500

    def launches():
        for _ in range(n_launch):
            k(1, 1, (x, 256))
        hip.synchronize()

    def launches_stream():
        for _ in range(n_launch):
            k(1, 1, (x, 256), stream=s)
        s.synchronize()

    def allocs():
        for _ in range(n_alloc):
            hip.empty(256, np.float32)

    def copies():
        for _ in range(n_copy):
            hip.memcpy_htod(dst, host)

    # records per call: a kernel = 1; an array created and dropped = 2 (alloc, free); a
    # blocking copy = 2 (the copy and the device drain before it); the synchronize = 1
    cases = [("launch, default stream", launches, n_launch + 1),
             ("launch, created stream", launches_stream, n_launch + 1),
             ("hip.empty + drop (pool alloc + free)", allocs, 2 * n_alloc),
             ("memcpy HtoD 4 KiB (blocking: the copy and its drain)", copies, 2 * n_copy)]
    rows = []
    for label, fn, events in cases:
        fn()  # warm
        off, on, finish, cpu_off, cpu_on = [], [], [], [], []
        for _ in range(args.repeats):
            c0, t0 = time.thread_time(), time.perf_counter()
            fn()
            off.append(time.perf_counter() - t0)
            cpu_off.append(time.thread_time() - c0)
            session = hip.profile(None)
            session.start()
            c0, t0 = time.thread_time(), time.perf_counter()
            fn()
            on.append(time.perf_counter() - t0)
            cpu_on.append(time.thread_time() - c0)
            t0 = time.perf_counter()
            session.stop()
            finish.append(time.perf_counter() - t0)
            recorded = sum(1 for e in session.trace["traceEvents"]
                           if e["ph"] != "M" and e["cat"] != "launch")
            assert recorded >= events - 1, (label, recorded, events)
        t_off, t_on = statistics.median(off), statistics.median(on)
        rows.append({"case": label, "events": events,
                     "off_us_per_call": round(t_off / events * 1e6, 3),
                     "on_us_per_call": round(t_on / events * 1e6, 3),
                     "overhead_us_per_event": round((t_on - t_off) / events * 1e6, 3),
                     "host_cpu_overhead_us_per_event": round(
                         (statistics.median(cpu_on) - statistics.median(cpu_off)) / events * 1e6,
                         3),
                     "stop_ms": round(statistics.median(finish) * 1e3, 2)})
    rows.extend(hook_costs(k, x, args.repeats))
    assert Function.__call__ is original_call  # the hooks are gone after a session
    # unprofiled before vs after sessions ran: the same code path
    after = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        launches()
        after.append(time.perf_counter() - t0)
    rows.append({"case": "launch, default stream, after the sessions (hooks removed)",
                 "events": n_launch + 1,
                 "off_us_per_call": round(statistics.median(after) / (n_launch + 1) * 1e6, 3)})
    print(json.dumps({"platform": hip.get_device().platform, "load": os.getloadavg(),
                      "script": Path(__file__).name, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
