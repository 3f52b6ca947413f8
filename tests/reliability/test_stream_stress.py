"""Issue #14 item 8: streams destroyed while other threads free memory, query, launch and
compile. Stream handles are ids looked up under a lock and the streams reference-counted in the
native runtime, so nothing here may crash, hang or corrupt the heap.

Bounded for CI: OPENHIP_STRESS_SECONDS (default 8) per run, OPENHIP_STRESS_RUNS (default 2)
runs, each in its own process with a timeout."""

from __future__ import annotations

import os

import pytest
from reliability_child import result, run_child

SECONDS = float(os.environ.get("OPENHIP_STRESS_SECONDS", "8"))
RUNS = int(os.environ.get("OPENHIP_STRESS_RUNS", "2"))

STRESS = """
import gc, random, weakref
SECONDS = float(os.environ["STRESS_SECONDS"])
m = module()
saxpy = m.get_function("saxpy")
platform = hip.get_device()._platform
errors, checks, stale_checked, compiled = [], [0], [0], [0]
stale = []                        # handles of destroyed streams
lock = threading.Lock()
deadline = time.monotonic() + SECONDS

def worker(seed):
    rng = random.Random(seed)
    s = hip.Stream()
    pending = []
    try:
        while time.monotonic() < deadline:
            n = rng.randrange(1, 20000)
            x = np.random.default_rng(rng.randrange(1 << 30)).random(n, dtype=np.float32)
            y = np.ones(n, np.float32)
            dx, dy = hip.asarray(x), hip.asarray(y)
            do = hip.empty(n, np.float32)
            a = float(rng.randrange(1, 9))
            saxpy((n + 255) // 256, 256, (a, dx, dy, do, n), stream=s)
            if rng.random() < 0.5:
                s.synchronize()
            host = np.empty(n, np.float32)
            hip.memcpy_dtoh_async(host, do, stream=s)
            s.synchronize()
            if not np.allclose(host, a * x + y):
                errors.append(f"wrong result n={n}")
            checks[0] += 1
            del dx, dy, do                 # frees: Device._idle queries every stream
            if rng.random() < 0.3:         # destroy the stream while others query it
                pending.append((s.handle, weakref.ref(s)))
                del s
                s = hip.Stream()
            for item in list(pending):     # destroyed once no other thread holds it
                if item[1]() is None:
                    pending.remove(item)
                    with lock:
                        stale.append(item[0])
            if rng.random() < 0.05:
                gc.collect()
    except Exception as exc:               # noqa: BLE001 - reported to the test
        errors.append(repr(exc))

def stale_prober():
    # queries, synchronises and launches on handles of destroyed streams: each an error
    while time.monotonic() < deadline:
        with lock:
            handles = list(stale[-16:])
        for h in handles:
            for call in (lambda: platform.stream_query(0, h),
                         lambda: platform.stream_synchronize(0, h)):
                try:
                    call()
                    errors.append("a destroyed stream's handle was accepted")
                except hip.HipError as exc:
                    if exc.status != "hipErrorInvalidHandle":
                        errors.append(repr(exc))
                stale_checked[0] += 1
        time.sleep(0.001)

def syncer():
    while time.monotonic() < deadline:
        try:
            hip.synchronize()
        except hip.HipError as exc:
            errors.append(repr(exc))
        time.sleep(0.002)

def compiler():
    # compiling and launching a new module on its own stream, twice per run
    for i in range(2):
        if time.monotonic() > deadline:
            break
        try:
            src = ('#include <hip/hip_runtime.h>\\n'
                   'extern "C" __global__ void k(int* o) { o[threadIdx.x] = threadIdx.x * %d + %d; }'
                   % (i + 2, os.getpid()))
            k = hip.Module(src).get_function("k")
            s = hip.Stream()
            o = hip.zeros(64, np.int32)
            k(1, 64, (o,), stream=s)
            s.synchronize()
            if not (o.get() == np.arange(64) * (i + 2) + os.getpid()).all():
                errors.append("compiled kernel wrong")
            compiled[0] += 1
        except Exception as exc:           # noqa: BLE001
            errors.append(repr(exc))

threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
threads += [threading.Thread(target=f) for f in (stale_prober, syncer, compiler)]
for t in threads:
    t.start()
for t in threads:
    t.join()
hip.synchronize()
report(errors=errors[:10], nerrors=len(errors), checks=checks[0], stale=stale_checked[0],
       compiled=compiled[0])
"""


@pytest.mark.parametrize("run", range(RUNS))
def test_streams_destroyed_while_threads_free_query_launch_and_compile(run):
    r = result(run_child(STRESS, timeout=SECONDS * 4 + 90,
                         env={"STRESS_SECONDS": str(SECONDS), "OPENHIP_CPU_THREADS": "4"}))
    assert r["nerrors"] == 0, r["errors"]
    assert r["checks"] > 20 and r["stale"] > 0 and r["compiled"] >= 1
