"""CPU-platform benchmarks against peers measured in the same run.

  saxpy over 2^24 floats        vs a plain C++ OpenMP loop on the same buffers, in alternating
                                blocks, and numpy's a*x + y (the kernel with an int index, as
                                CUDA's saxpy is written, and with size_t); openhip is timed from
                                Python around launch + synchronize, the loop inside C++
  256-thread shared-memory tree reduction with __syncthreads over 2^24 floats
                                vs a plain C++ OpenMP reduction
  launch overhead               an empty kernel, launches per second from Python
  compile                       a small kernel cold (empty cache), warm from disk in a new process

Usage: python bench/bench_cpu.py [--repeats N] [--json FILE]
Medians over repeats; the machine is shared, so the load (os.getloadavg) is printed too.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

import openhip as hip

N = 1 << 24

SAXPY = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y,
                                 size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void saxpy_int(float a, const float* __restrict__ x, float* __restrict__ y,
                                     int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void empty_kernel() {}
"""

REDUCE = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void block_sum(const float* in, float* partial, unsigned n) {
    __shared__ float tile[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * 256 + tid;
    tile[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (tid < s) tile[tid] += tile[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = tile[0];
}
"""

PLAIN_CPP = r"""
#include <cstddef>
#include <chrono>
#include <omp.h>
extern "C" double plain_saxpy(float a, const float* __restrict__ x, float* __restrict__ y,
                              size_t n, int repeats, double* times) {
    for (int r = 0; r < repeats; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        #pragma omp parallel for simd schedule(static)
        for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
        auto t1 = std::chrono::steady_clock::now();
        times[r] = std::chrono::duration<double>(t1 - t0).count();
    }
    return 0;
}
extern "C" double plain_sum(const float* x, size_t n, int repeats, double* times) {
    double total = 0;
    for (int r = 0; r < repeats; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        float s = 0;
        #pragma omp parallel for simd reduction(+:s) schedule(static)
        for (size_t i = 0; i < n; ++i) s += x[i];
        auto t1 = std::chrono::steady_clock::now();
        times[r] = std::chrono::duration<double>(t1 - t0).count();
        total = s;
    }
    return total;
}
"""


def build_plain(tmp: Path) -> ctypes.CDLL:
    src = tmp / "plain.cpp"
    src.write_text(PLAIN_CPP)
    lib = tmp / "plain.so"
    cxx = os.environ.get("CXX", "g++")
    subprocess.run([cxx, "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", str(src),
                    "-o", str(lib)], check=True)
    dll = ctypes.CDLL(str(lib))
    dll.plain_saxpy.argtypes = [ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    dll.plain_sum.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    dll.plain_sum.restype = ctypes.c_double
    return dll


def median_time(fn, repeats: int, warmup: int = 2) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def bench_saxpy(dll, repeats: int, kernel: str = "saxpy", block: int = 3) -> dict:
    """openhip timed from Python around launch + synchronize (what a user sees), the plain
    OpenMP loop timed inside C++, on the same buffers (openhip's, shared with numpy without a
    copy on the CPU platform: same pages, same alignment, same huge-page state).

    The two are measured in alternating blocks (one untimed warm-up run, then `block` timed
    runs), so that a change of the machine's load during the run hits both alike; each side
    starts its block after the other's spinning threads have gone idle (libgomp's workers and
    openhip's pool both poll for a while after a run)."""
    rng = np.random.default_rng(0)
    x = rng.random(N, dtype=np.float32)
    y = rng.random(N, dtype=np.float32)
    dx, dy = hip.asarray(x), hip.asarray(y)
    hx, hy = np.asarray(dx), np.asarray(dy)  # the same memory, as numpy arrays
    assert hx.ctypes.data == dx.data.ptr and hy.ctypes.data == dy.data.ptr
    k = hip.Module(SAXPY).get_function(kernel)
    grid = (N + 255) // 256
    want = 2.0 * x[:4096] + y[:4096]
    k(grid, 256, (2.0, dx, dy, N))
    hip.synchronize()
    assert np.allclose(hy[:4096], want, rtol=1e-6), "saxpy result"

    def run_hip():
        k(grid, 256, (2.0, dx, dy, N))
        hip.synchronize()

    t_hip: list[float] = []
    t_plain: list[float] = []
    times = np.zeros(block + 1, np.float64)
    rounds = max(1, -(-repeats // block))
    for _ in range(rounds):
        time.sleep(0.02)
        run_hip()  # warm-up: wakes openhip's threads
        for _ in range(block):
            t0 = time.perf_counter()
            run_hip()
            t_hip.append(time.perf_counter() - t0)
        time.sleep(0.02)
        # one warm-up run (wakes the OpenMP team), then `block` timed runs, each timed in C++
        dll.plain_saxpy(2.0, hx.ctypes.data, hy.ctypes.data, N, block + 1, times.ctypes.data)
        t_plain.extend(times[1:].tolist())
    # The kernel alone as the stream runs it (events recorded around the launch): without the
    # launch call from Python and the wake-up of the synchronising thread.
    e0, e1 = hip.Event(), hip.Event()
    t_stream = []
    for _ in range(repeats):
        e0.record()
        k(grid, 256, (2.0, dx, dy, N))
        e1.record()
        e1.synchronize()
        t_stream.append(hip.Event.elapsed_time(e0, e1) / 1e3)
    t_hip_m, t_plain_m = statistics.median(t_hip), statistics.median(t_plain)
    ny = y.copy()

    def run_numpy():
        np.add(np.multiply(np.float32(2.0), x), ny, out=ny)

    t_numpy = median_time(run_numpy, repeats)
    gbs = lambda t: 12 * N / t / 1e9  # noqa: E731 - read x, read y, write y
    return {"kernel": kernel, "n": N, "samples": len(t_hip), "openhip_ms": t_hip_m * 1e3,
            "openhip_stream_ms": statistics.median(t_stream) * 1e3,
            "plain_openmp_ms": t_plain_m * 1e3, "numpy_ms": t_numpy * 1e3,
            "openhip_GBps": gbs(t_hip_m), "plain_openmp_GBps": gbs(t_plain_m),
            "ratio_vs_plain": t_plain_m / t_hip_m, "ratio_vs_numpy": t_numpy / t_hip_m}


def bench_reduce(dll, repeats: int) -> dict:
    x = np.random.default_rng(1).random(N, dtype=np.float32)
    dx = hip.asarray(x)
    blocks = N // 256
    partial = hip.zeros(blocks, np.float32)
    k = hip.Module(REDUCE).get_function("block_sum")

    def run_hip():
        k(blocks, 256, (dx, partial, N))
        hip.synchronize()

    t_hip = median_time(run_hip, max(3, repeats // 2), warmup=1)
    got = float(partial.get().astype(np.float64).sum())
    want = float(x.astype(np.float64).sum())
    assert abs(got - want) <= 1e-3 * want, (got, want)
    times = np.zeros(repeats, np.float64)
    dll.plain_sum(x.ctypes.data, N, repeats, times.ctypes.data)
    t_plain = float(np.median(times))
    return {"n": N, "openhip_ms": t_hip * 1e3, "plain_openmp_ms": t_plain * 1e3,
            "slowdown_vs_plain": t_hip / t_plain, "hip_cpu_published_ms": 1330.0,
            "speedup_vs_hip_cpu_published": 1330.0 / (t_hip * 1e3)}


def bench_launch(repeats: int) -> dict:
    k = hip.Module(SAXPY).get_function("empty_kernel")
    per_launch = []
    count = 2000
    for _ in range(repeats):
        hip.synchronize()
        t0 = time.perf_counter()
        for _ in range(count):
            k(1, 1, ())
        hip.synchronize()
        per_launch.append((time.perf_counter() - t0) / count)
    return {"launches_per_sample": count, "us_per_launch": statistics.median(per_launch) * 1e6}


CHILD = textwrap.dedent("""
    import time, json, sys
    import openhip as hip
    src = sys.stdin.read()
    hip.devices()
    t0 = time.perf_counter()
    mod = hip.Module(src)
    mod.get_function("saxpy")
    print(json.dumps({"seconds": time.perf_counter() - t0}))
""")


def bench_compile(repeats: int) -> dict:
    """Cold: a kernel never compiled before, in a new process whose cache directory already
    holds the platform's one-time artifacts (runtime library, precompiled header: built once per
    machine); warm: the same kernel again in another new process, from the disk cache."""
    cold, warm, first_use = [], [], []
    for i in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, OPENHIP_CACHE_DIR=cache)
            runs = [("first", SAXPY + f"\n// warm-up {i} {time.time()}\n")]
            src = SAXPY + f"\n// variant {i} {time.time()}\n"
            runs += [("cold", src), ("warm", src)]
            for kind, text in runs:
                r = subprocess.run([sys.executable, "-c", CHILD], input=text, env=env,
                                   capture_output=True, text=True, check=True)
                seconds = json.loads(r.stdout)["seconds"]
                {"first": first_use, "cold": cold, "warm": warm}[kind].append(seconds)
    return {"cold_s": statistics.median(cold), "warm_new_process_ms":
            statistics.median(warm) * 1e3, "first_use_empty_cache_dir_s":
            statistics.median(first_use), "samples": repeats}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    dev = hip.get_device()
    result = {"device": f"{dev.platform}: {dev.name}", "cores": os.cpu_count(),
              "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        dll = build_plain(Path(tmp))
        result["saxpy_int_index"] = bench_saxpy(dll, args.repeats, "saxpy_int")
        print("saxpy (int index)", json.dumps(result["saxpy_int_index"], indent=1), flush=True)
        result["saxpy_size_t_index"] = bench_saxpy(dll, args.repeats, "saxpy")
        print("saxpy (size_t index)", json.dumps(result["saxpy_size_t_index"], indent=1),
              flush=True)
        result["reduction"] = bench_reduce(dll, args.repeats)
        print("reduction", json.dumps(result["reduction"], indent=1), flush=True)
    result["launch"] = bench_launch(args.repeats)
    print("launch", json.dumps(result["launch"], indent=1), flush=True)
    result["compile"] = bench_compile(max(3, args.repeats // 3))
    print("compile", json.dumps(result["compile"], indent=1), flush=True)
    result["load_after"] = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
