"""GPU benchmarks and cross-platform checks for the nvidia platform (run by bench/gpu_check.sh on
a machine with an NVIDIA GPU; needs CuPy for the launch comparison).

  copy      device-to-device copy bandwidth (hipMemcpyDtoD), bytes read + written / time
  saxpy     y = a*x + y over 2^28 floats (scalar and float4 kernels), 12 bytes per element,
            as a fraction of the copy bandwidth (goal >= 90%)
  launch    an empty kernel and a 4-argument kernel launched from Python: openhip vs CuPy's
            RawKernel, microseconds per launch (goal: openhip no slower)
  bitwise   the conformance suite (tests/conformance) run on the cpu and on the nvidia platform
            with every integer-dtype result recorded; the two records compared bit for bit

Usage: python bench/bench_gpu.py [--out DIR] [--skip-bitwise]
Writes DIR/bench_gpu.json and DIR/results_gpu.md. As a pytest plugin (``-p bench_gpu`` with
bench/ on PYTHONPATH and OPENHIP_RECORD=file.npz) it records the integer results of a test run.
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

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
N = 1 << 28  # 1 GiB of float32 per array

KERNELS = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y,
                                 unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void saxpy4(float a, const float4* __restrict__ x, float4* __restrict__ y,
                                  unsigned long long n4) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 xv = x[i], yv = y[i];
        yv.x = a * xv.x + yv.x; yv.y = a * xv.y + yv.y;
        yv.z = a * xv.z + yv.z; yv.w = a * xv.w + yv.w;
        y[i] = yv;
    }
}
extern "C" __global__ void empty_kernel() {}
extern "C" __global__ void four_args(float a, const float* x, float* y, unsigned long long n) {}
"""


def _time_events(hip, fn, repeats: int) -> float:
    """Median milliseconds of ``fn()`` measured with events, after one warm-up."""
    fn()
    hip.synchronize()
    times = []
    for _ in range(repeats):
        start, end = hip.Event(), hip.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(hip.Event.elapsed_time(start, end))
    return statistics.median(times)


def bench_bandwidth(hip, n: int = N) -> dict:
    x = hip.zeros(n, np.float32)
    y = hip.zeros(n, np.float32)
    copy_ms = _time_events(hip, lambda: hip.memcpy_dtod(y, x), 20)
    copy_tbs = 2 * x.nbytes / (copy_ms * 1e-3) / 1e12
    mod = hip.Module(KERNELS, name="bench_gpu.hip")
    saxpy, saxpy4 = mod.get_function("saxpy"), mod.get_function("saxpy4")
    block = 256
    ms1 = _time_events(hip, lambda: saxpy(((n + block - 1) // block,), (block,),
                                          (2.0, x, y, n)), 20)
    n4 = n // 4
    ms4 = _time_events(hip, lambda: saxpy4(((n4 + block - 1) // block,), (block,),
                                           (2.0, x, y, n4)), 20)
    out = {"n": n, "copy_ms": copy_ms, "copy_TBps": copy_tbs}
    for name, ms in (("saxpy", ms1), ("saxpy4", ms4)):
        tbs = 12 * n / (ms * 1e-3) / 1e12
        out[name] = {"ms": ms, "TBps": tbs, "fraction_of_copy": tbs / copy_tbs}
    # correctness of the timed kernel on a small slice
    xs = hip.asarray(np.arange(1024, dtype=np.float32))
    ys = hip.asarray(np.ones(1024, dtype=np.float32))
    saxpy4((1,), (256,), (3.0, xs, ys, 256))
    np.testing.assert_array_equal(ys.get(), 3 * np.arange(1024, dtype=np.float32) + 1)
    return out


def bench_launch(hip, launches: int = 20000) -> dict:
    mod = hip.Module(KERNELS, name="bench_gpu.hip")
    empty, four = mod.get_function("empty_kernel"), mod.get_function("four_args")
    x = hip.empty(1024, np.float32)

    def per_launch(call) -> float:
        for _ in range(200):
            call()
        hip.synchronize()
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(launches):
                call()
            hip.synchronize()
            best = min(best, (time.perf_counter() - t0) / launches * 1e6)
        return best

    out = {"launches": launches,
           "openhip_empty_us": per_launch(lambda: empty((1,), (32,))),
           "openhip_4args_us": per_launch(lambda: four((1,), (32,), (2.0, x, x, 1024)))}
    try:
        import cupy as cp
    except ImportError as exc:
        out["cupy"] = f"unavailable: {exc}"
        return out
    raw = cp.RawModule(code=KERNELS.replace("#include <hip/hip_runtime.h>", ""))
    cempty, cfour = raw.get_function("empty_kernel"), raw.get_function("four_args")
    cx = cp.empty(1024, cp.float32)

    def cupy_per_launch(call) -> float:
        for _ in range(200):
            call()
        cp.cuda.runtime.deviceSynchronize()
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(launches):
                call()
            cp.cuda.runtime.deviceSynchronize()
            best = min(best, (time.perf_counter() - t0) / launches * 1e6)
        return best

    out["cupy_empty_us"] = cupy_per_launch(lambda: cempty((1,), (32,), ()))
    out["cupy_4args_us"] = cupy_per_launch(
        lambda: cfour((1,), (32,), (cp.float32(2.0), cx, cx, cp.uint64(1024))))
    return out


# ---- bitwise comparison of conformance results ---------------------------------------------
_records: dict[str, np.ndarray] = {}
_counter: dict[str, int] = {}
_current = ["?"]


def pytest_runtest_setup(item):  # pytest plugin hook (``-p bench_gpu``)
    """Name results by test, with the device id made platform-neutral (cpu0/nvidia0 -> dev0)."""
    key = item.nodeid
    for platform in ("nvidia", "amd", "cpu"):
        key = key.replace(f"[{platform}0", "[dev0").replace(f"-{platform}0", "-dev0")
    _current[0] = key


def pytest_configure(config):
    if not os.environ.get("OPENHIP_RECORD"):
        return
    from openhip.runtime.array import DeviceArray

    original = DeviceArray.get

    def get(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        if isinstance(result, np.ndarray) and result.dtype.kind in "iub":
            key = _current[0]
            index = _counter.get(key, 0)
            _counter[key] = index + 1
            _records[f"{key}#{index}"] = np.array(result, copy=True)
        return result

    DeviceArray.get = get


def pytest_unconfigure(config):
    path = os.environ.get("OPENHIP_RECORD")
    if path:
        np.savez_compressed(path, **{k.replace("/", "|"): v for k, v in _records.items()})


def _record(out_dir: Path, platform: str, tag: str, env: dict) -> tuple[Path, str]:
    record = out_dir / f"record_{tag}_{platform}.npz"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "bench_gpu", "-p", "no:cacheprovider",
         str(ROOT / "tests" / "conformance")],
        env=dict(env, OPENHIP_PLATFORM=platform, OPENHIP_RECORD=str(record)),
        capture_output=True, text=True, timeout=600)
    summary = (proc.stdout.strip().splitlines()[-1:] or [proc.stderr[-300:]])[0]
    return record, summary


def bitwise(out_dir: Path, platforms: tuple[str, str] = ("cpu", "nvidia")) -> dict:
    """Integer results of the conformance suite on two platforms, compared bit for bit. The
    first platform runs twice: results that differ between those two runs depend on thread
    order (the values atomics return, say) and are left out of the comparison."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "bench"), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    rec_a, sum_a = _record(out_dir, platforms[0], "a", env)
    rec_a2, sum_a2 = _record(out_dir, platforms[0], "a2", env)
    rec_b, sum_b = _record(out_dir, platforms[1], "b", env)
    first, again, second = (dict(np.load(r)) for r in (rec_a, rec_a2, rec_b))

    def same(x: np.ndarray, y: np.ndarray) -> bool:
        return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()

    order_dependent = {k for k in set(first) & set(again) if not same(first[k], again[k])}
    common = sorted((set(first) & set(second)) - order_dependent)
    mismatched = [k for k in common if not same(first[k], second[k])]
    for path in (rec_a, rec_a2, rec_b):
        path.unlink(missing_ok=True)
    return {"platforms": f"{platforms[0]} vs {platforms[1]}",
            "pytest": {f"{platforms[0]} (run 1)": sum_a, f"{platforms[0]} (run 2)": sum_a2,
                       platforms[1]: sum_b},
            "compared": len(common), "order_dependent_skipped": sorted(order_dependent),
            "only_first": len(set(first) - set(second)),
            "only_second": len(set(second) - set(first)),
            "mismatched": [k.replace("|", "/") for k in mismatched[:50]],
            "mismatch_count": len(mismatched)}


def report(result: dict) -> str:
    lines = ["# GPU benchmarks (nvidia platform)", "",
             f"Device: {result.get('device', '?')}", ""]
    bw = result.get("bandwidth")
    if isinstance(bw, dict):
        lines += ["| measure | value |", "| --- | --- |",
                  f"| device-to-device copy | {bw['copy_TBps']:.2f} TB/s (read + written) |"]
        for name in ("saxpy", "saxpy4"):
            r = bw[name]
            lines.append(f"| {name}, {bw['n']} floats | {r['TBps']:.2f} TB/s, "
                         f"{100 * r['fraction_of_copy']:.0f}% of copy ({r['ms']:.3f} ms) |")
    la = result.get("launch")
    if isinstance(la, dict):
        lines.append(f"| launch, empty kernel | openhip {la['openhip_empty_us']:.2f} µs, CuPy "
                     f"{la.get('cupy_empty_us', float('nan')):.2f} µs |")
        lines.append(f"| launch, 4 arguments | openhip {la['openhip_4args_us']:.2f} µs, CuPy "
                     f"{la.get('cupy_4args_us', float('nan')):.2f} µs |")
    bits = result.get("bitwise")
    if isinstance(bits, dict):
        lines.append(f"| conformance integer results, {bits['platforms']} | "
                     f"{bits['compared']} compared, {bits['mismatch_count']} differ "
                     f"({len(bits['order_dependent_skipped'])} order-dependent left out) |")
        lines += [f"\n- differs: `{k}`" for k in bits["mismatched"]]
    for key in ("bandwidth", "launch", "bitwise"):
        if isinstance(result.get(key), str):
            lines.append(f"\n{key}: {result[key]}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".")
    parser.add_argument("--skip-bitwise", action="store_true")
    parser.add_argument("--bitwise-only", action="store_true",
                        help="only the bitwise comparison, added to an existing bench_gpu.json")
    parser.add_argument("--n", type=int, default=N, help="elements of the bandwidth tests")
    parser.add_argument("--compare", default="cpu,nvidia",
                        help="the two platforms whose integer results are compared")
    args = parser.parse_args(argv)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("OPENHIP_PLATFORM", "nvidia")
    import openhip as hip

    try:
        dev = hip.get_device()
    except Exception as exc:  # noqa: BLE001 - no GPU: say so in the report
        result = {"device": f"none: {type(exc).__name__}: {exc}"}
        (out_dir / "bench_gpu.json").write_text(json.dumps(result, indent=2))
        (out_dir / "results_gpu.md").write_text(report(result))
        print(report(result))
        return 1
    result: dict = {"device": f"{dev.properties.name} ({dev.properties.arch})"}
    previous = out_dir / "bench_gpu.json"
    if args.bitwise_only and previous.exists():
        result = json.loads(previous.read_text())
    measures = () if args.bitwise_only else (
        ("bandwidth", lambda: bench_bandwidth(hip, args.n)),
        ("launch", lambda: bench_launch(hip)))
    for key, fn in measures:
        try:
            result[key] = fn()
        except Exception as exc:  # noqa: BLE001 - report and go on to the next measure
            result[key] = f"failed: {type(exc).__name__}: {exc}"
        print(key, json.dumps(result[key], default=str), flush=True)
    if not args.skip_bitwise:
        try:
            first, second = args.compare.split(",")
            result["bitwise"] = bitwise(out_dir, (first, second))
        except Exception as exc:  # noqa: BLE001
            result["bitwise"] = f"failed: {type(exc).__name__}: {exc}"
        print("bitwise", json.dumps(result["bitwise"], default=str), flush=True)
    (out_dir / "bench_gpu.json").write_text(json.dumps(result, indent=2, default=str))
    (out_dir / "results_gpu.md").write_text(report(result))
    print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
