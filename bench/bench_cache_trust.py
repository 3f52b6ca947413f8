"""The cost of the compile cache's trust checks (issue #14 item 1) on a warm load.

Measures, in one run:
  warm load      a kernel served from the disk cache in a new process (``hip.devices()`` first,
                 then ``hip.Module`` + ``get_function`` timed), goal <= 10 ms
  checks         in-process medians of each check a warm load makes: the cache directory's
                 ownership/mode walk and key (``trust.cache_root``), the entry's HMAC, the runtime
                 library's HMAC (done once per process, before dlopen)
  peer           the same bytes hashed with plain SHA-256 (what the old self-check cost) and just
                 read, so the HMAC's share is a ratio measured alongside

Usage: python bench/bench_cache_trust.py [--repeats N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from bench_cpu import median_time  # bench/ is the script's directory

SAXPY = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void saxpy(float a, const float* x, float* y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

CHILD = textwrap.dedent("""
    import json, sys, time
    import openhip as hip
    src = sys.stdin.read()
    hip.devices()
    t0 = time.perf_counter()
    hip.Module(src).get_function("saxpy")
    print(json.dumps({"seconds": time.perf_counter() - t0}))
""")


def median_us(fn, repeats: int) -> float:
    return median_time(fn, repeats, warmup=1) * 1e6


def warm_loads(cache: str, repeats: int) -> list[float]:
    env = dict(os.environ, OPENHIP_CACHE_DIR=cache, OPENHIP_PLATFORM="cpu")
    run = [sys.executable, "-c", CHILD]
    subprocess.run(run, input=SAXPY, env=env, capture_output=True, text=True, check=True)
    out = []
    for _ in range(repeats):
        r = subprocess.run(run, input=SAXPY, env=env, capture_output=True, text=True, check=True)
        out.append(json.loads(r.stdout)["seconds"] * 1e3)
    return out


def check_costs(cache: str, repeats: int) -> dict:
    os.environ["OPENHIP_CACHE_DIR"] = cache
    from openhip.compiler import cache as cache_mod
    from openhip.compiler import trust
    from openhip.platforms.cpu import runtime_lib

    root = trust.cache_root()
    assert root is not None
    # the newest (the sources of a shared checkout may change the key during a run)
    entry = max((Path(cache) / "cpu").rglob("*.ohc"), key=lambda p: p.stat().st_mtime_ns)
    data = entry.read_bytes()
    label = cache_mod._label("cpu", entry.stem)
    assert cache_mod._deserialise(data, root, label) is not None
    lib = max((Path(cache) / "cpu-runtime").glob("*.so"), key=lambda p: p.stat().st_mtime_ns)
    name = lib.name
    lib_bytes = lib.read_bytes()
    result = {
        "entry_bytes": len(data), "runtime_library_bytes": len(lib_bytes),
        "cache_root_us": median_us(trust.cache_root, repeats),
        "entry_read_us": median_us(lambda: trust.read_artifact(entry), repeats),
        "entry_hmac_us": median_us(lambda: root.verify(data[-32:], label, data[:-32]), repeats),
        "entry_sha256_peer_us": median_us(lambda: hashlib.sha256(data).digest(), repeats),
        "runtime_verify_us": median_us(
            lambda: runtime_lib._verified(lib.parent, name, root), repeats),
        "runtime_sha256_peer_us": median_us(lambda: hashlib.sha256(lib_bytes).digest(),
                                            repeats),
    }
    result["checks_total_us"] = (result["cache_root_us"] + result["entry_hmac_us"]
                                 + result["runtime_verify_us"])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    out: dict = {"load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as cache:
        loads = warm_loads(cache, args.repeats)
        out["warm_load_new_process_ms"] = {"median": statistics.median(loads),
                                           "min": min(loads), "max": max(loads)}
        out["checks"] = check_costs(cache, args.repeats * 20)
    out["load_after"] = os.getloadavg()
    c = out["checks"]
    out["checks_share_of_warm_load"] = c["checks_total_us"] / 1e3 / \
        out["warm_load_new_process_ms"]["median"]
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
