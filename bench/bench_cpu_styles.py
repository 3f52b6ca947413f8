"""The styles real CUDA code is written in, on the CPU platform: each kernel split at its
barriers and warp functions (regions mode) against a plain C++ peer or another kernel, measured
in the same run.

  warp-shuffle block reduction over 2^24 floats (__shfl_down_sync loop + shared memory, and the
      same through cg::reduce on a 32-thread tile)      vs a plain OpenMP sum (and as fibers)
  warp-shuffle inclusive scan over 2^24 ints            vs a plain serial C++ scan (and fibers)
  shared-tile transpose with cg::sync, 4096^2 floats    vs the naive transpose (loop mode)
  256-thread tree reduction, one multi-declarator line  vs the same in two declarations
  the same reduction in the corpus's other styles       vs the two-declaration form
  the corpus (tests/kernels/corpus): kernels per mode, with this splitter and, given
      --before DIR (an older openhip tree, e.g. from `git archive`), with that one

Kernels: bench/bench_cpu_styles.hip; C++ peers: bench/bench_cpu_styles.cpp.

    python bench/bench_cpu_styles.py [--repeats 7] [--before DIR] [--json FILE] [--cpu-time]

Medians over repeats; the machine is shared, so the load (os.getloadavg) is printed too.
A kernel and its peer are timed back to back, repeat after repeat (the transposes and the
declarator pair alternating which goes first), and a ratio is the median of the per-repeat
ratios: this VM's host has slow spells, from a fraction of a second to minutes, in which every
thread runs slower (openhip's kernels up to ~2.2x, the same loops in plain C++ 1.15-1.6x), and a
spell that falls on one kernel's repeats but not on its peer's used to move the ratio by itself.
Each figure also records ``canary_ms``, a register-only C++ loop (machine_canary, ~1.5 ms when
the machine is quiet) timed after every repeat: ~15% higher medians mark a slow spell.
``--cpu-time``: one worker thread (OPENHIP_CPU_THREADS=1) and one OpenMP thread, every figure
timed in CPU time (the process's for the kernels, the thread's for the C++ peers), so that the
waits of a loaded machine do not count; the ratios are then one thread against one.
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
import time
from pathlib import Path

import numpy as np
from bench_cpu import median_time  # bench/ is the script's directory

HERE = Path(__file__).resolve().parent
N = 1 << 24
#: the clock of the reductions and scans (time.process_time with --cpu-time)
CLOCK = time.perf_counter


def build_plain(tmp: Path) -> ctypes.CDLL:
    lib = tmp / "styles_plain.so"
    cxx = os.environ.get("CXX", "g++")
    subprocess.run([cxx, "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC",
                    str(HERE / "bench_cpu_styles.cpp"), "-o", str(lib)], check=True)
    dll = ctypes.CDLL(str(lib))
    dll.plain_sum.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    dll.plain_sum.restype = ctypes.c_double
    dll.plain_scan.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                               ctypes.c_void_p]
    dll.machine_canary.argtypes = [ctypes.c_long]
    dll.machine_canary.restype = ctypes.c_double
    dll.use_cpu_clock(1 if CLOCK is time.process_time else 0)
    return dll


#: iterations of machine_canary per sample (~1.5 ms on a quiet machine)
CANARY_ITERATIONS = 2_000_000


def canary(dll: ctypes.CDLL) -> float:
    """One sample of the machine-state canary, in ms (the peers' clock)."""
    return dll.machine_canary(CANARY_ITERATIONS) * 1e3


def paired(fa, fb, repeats: int, dll: ctypes.CDLL) -> tuple[list[float], list[float], list[float]]:
    """``fa`` and ``fb`` timed back to back with CLOCK, ``repeats`` times, alternating which
    goes first (after one untimed run of each); returns their times (s) and a canary sample (ms)
    after each pair."""
    fa()
    fb()
    ta: list[float] = []
    tb: list[float] = []
    tc: list[float] = []
    for i in range(repeats):
        for f, t in ((fa, ta), (fb, tb)) if i % 2 == 0 else ((fb, tb), (fa, ta)):
            t0 = CLOCK()
            f()
            t.append(CLOCK() - t0)
        tc.append(canary(dll))
    return ta, tb, tc


def median_ratio(a: list[float], b: list[float]) -> float:
    """The median of the per-repeat ratios a[i] / b[i]."""
    return statistics.median([x / y for x, y in zip(a, b, strict=True)])


def load(hip, mode: str):
    os.environ["OPENHIP_CPU_REGIONS"] = "1" if mode == "regions" else "0"
    mod = hip.Module((HERE / "bench_cpu_styles.hip").read_text(), name="bench_cpu_styles.hip")
    return mod, {k: v["mode"] for k, v in mod.program.metadata["kernels"].items()}


def bench_reduce(hip, mods, dll, repeats: int, fiber_repeats: int) -> dict:
    x = np.random.default_rng(1).integers(0, 4, N).astype(np.float32)
    dx = hip.asarray(x)
    want = float(x.astype(np.float64).sum())
    out: dict = {}
    hx = np.asarray(dx)  # the same memory as the kernel reads (the CPU platform shares it)
    one = np.zeros(1, np.float64)

    def plain() -> float:
        dll.plain_sum(hx.ctypes.data, N, 1, one.ctypes.data)  # a warm-up run, then one timed
        return float(one[0])

    plain_all: list[float] = []
    for kernel in ("shfl_block_sum", "cg_block_sum"):
        for grid in (4096, N // 256):
            partial = hip.zeros(grid, np.float32)
            for mode, (mod, modes) in mods.items():
                f = mod.get_function(kernel)

                def run(f=f, grid=grid, partial=partial):
                    f(grid, 256, (dx, partial, np.uint32(N)))
                    hip.synchronize()

                run()
                # alternating: the peer and the kernel one after the other, on the same buffer,
                # so that the cache and the machine's load treat both alike
                t_k, t_p, t_c = [], [], []
                for _ in range(repeats if mode == "regions" else fiber_repeats):
                    t_p.append(plain())
                    t0 = CLOCK()
                    run()
                    t_k.append(CLOCK() - t0)
                    if mode == "regions":
                        t_c.append(canary(dll))
                got = float(partial.get().astype(np.float64).sum())
                assert got == want, (kernel, mode, got, want)
                key = f"{kernel}_grid{grid}_{mode}"
                out[key + "_ms"] = statistics.median(t_k) * 1e3
                out[key + "_mode"] = modes[kernel]
                if mode == "regions":
                    out[key + "_plain_ms"] = statistics.median(t_p) * 1e3
                    out[key + "_canary_ms"] = statistics.median(t_c)
                    out[f"{kernel}_grid{grid}_vs_plain"] = median_ratio(t_k, t_p)
                    plain_all += t_p
            r = out[f"{kernel}_grid{grid}_regions_ms"]
            out[f"{kernel}_grid{grid}_fibers_over_regions"] = \
                out[f"{kernel}_grid{grid}_fibers_ms"] / r
    out["plain_openmp_ms"] = statistics.median(plain_all) * 1e3
    return out


def bench_scan(hip, mods, dll, repeats: int, fiber_repeats: int) -> dict:
    x = np.random.default_rng(2).integers(0, 4, N).astype(np.int32)
    want = np.cumsum(x, dtype=np.int64).astype(np.int32)
    out: dict = {}
    y = np.empty_like(x)
    one = np.zeros(1, np.float64)
    t_plain: list[float] = []

    def plain() -> None:
        dll.plain_scan(x.ctypes.data, y.ctypes.data, N, 1, one.ctypes.data)
        t_plain.append(float(one[0]))

    plain()
    assert np.array_equal(y, want)
    levels = [N // 256, N // 256 // 256, 1]  # blocks per level: 65536, 256, 1
    for mode, (mod, modes) in mods.items():
        scan, add = mod.get_function("shfl_scan"), mod.get_function("add_block_offsets")
        data = hip.asarray(x)
        sums = [hip.zeros(b, np.int32) for b in levels]
        bufs = [data, sums[0], sums[1]]

        def run(scan=scan, add=add, data=data, sums=sums, bufs=bufs):
            data.set(x)
            for lvl, blocks in enumerate(levels):
                scan(blocks, 256, (bufs[lvl], sums[lvl]))
            add(levels[1], 256, (sums[0], sums[1]))
            add(levels[0], 256, (data, sums[0]))
            hip.synchronize()

        resets = []
        for _ in range(4):
            t0 = CLOCK()
            data.set(x)
            hip.synchronize()
            resets.append(CLOCK() - t0)
        reset = statistics.median(resets[1:])
        run()
        t_k, t_p, t_c = [], [], []
        for _ in range(repeats if mode == "regions" else fiber_repeats):
            if mode == "regions":
                plain()  # alternating with the kernel, as in bench_reduce
                t_p.append(t_plain[-1])
            t0 = CLOCK()
            run()
            t_k.append(CLOCK() - t0 - reset)
            if mode == "regions":
                t_c.append(canary(dll))
        assert np.array_equal(data.get(), want), mode
        out[f"shfl_scan_{mode}_ms"] = statistics.median(t_k) * 1e3
        out[f"shfl_scan_{mode}_mode"] = modes["shfl_scan"]
        if mode == "regions":
            out["shfl_scan_vs_plain"] = median_ratio(t_k, t_p)
            out["canary_ms"] = statistics.median(t_c)
    out["plain_scan_ms"] = statistics.median(t_plain) * 1e3
    out["shfl_scan_fibers_over_regions"] = out["shfl_scan_fibers_ms"] / out["shfl_scan_regions_ms"]
    return out


def bench_transpose(hip, mods, repeats: int, dll: ctypes.CDLL) -> dict:
    w = h = 4096
    a = np.random.default_rng(3).standard_normal((h, w)).astype(np.float32)
    da = hip.asarray(a)
    o = hip.zeros(w * h, np.float32)
    mod, modes = mods["regions"]
    out: dict = {}
    runs = []
    for kernel in ("transpose_tile_cg", "transpose_naive"):
        f = mod.get_function(kernel)

        def run(f=f):
            f((w // 32, h // 32), (32, 8), (o, da, np.int32(w), np.int32(h)))
            hip.synchronize()

        runs.append(run)
        out[f"{kernel}_mode"] = modes[kernel]
        o.set(np.zeros(w * h, np.float32))
        run()
        assert np.array_equal(o.get().reshape(w, h), a.T), kernel
    t_tile, t_naive, t_c = paired(*runs, repeats, dll)
    out["transpose_tile_cg_ms"] = statistics.median(t_tile) * 1e3
    out["transpose_naive_ms"] = statistics.median(t_naive) * 1e3
    out["tile_cg_vs_naive"] = median_ratio(t_tile, t_naive)
    out["canary_ms"] = statistics.median(t_c)
    return out


def bench_declarators(hip, mods, repeats: int, dll: ctypes.CDLL) -> dict:
    x = np.random.default_rng(4).integers(0, 4, N).astype(np.float32)
    dx = hip.asarray(x)
    partial = hip.zeros(N // 256, np.float32)
    mod, modes = mods["regions"]
    out: dict = {}
    runs = []
    for kernel in ("tree_two_lines", "tree_one_line"):
        f = mod.get_function(kernel)

        def run(f=f):
            f(N // 256, 256, (dx, partial))
            hip.synchronize()

        runs.append(run)
        out[f"{kernel}_mode"] = modes[kernel]
        partial.set(np.zeros(N // 256, np.float32))
        run()
        assert float(partial.get().astype(np.float64).sum()) == float(x.sum(dtype=np.float64))
    t_two, t_one, t_c = paired(*runs, repeats, dll)
    out["tree_two_lines_ms"] = statistics.median(t_two) * 1e3
    out["tree_one_line_ms"] = statistics.median(t_one) * 1e3
    out["one_line_vs_two_lines"] = median_ratio(t_one, t_two)
    out["canary_ms"] = statistics.median(t_c)
    return out


def bench_style_variants(hip, repeats: int) -> dict:
    """The 256-thread reduction of tests/kernels/corpus/styles.hip in each of its styles,
    split and as fibers, against the two-declaration form split (a style that costs much
    more than that one is a style the splitter does not take)."""
    src = (HERE.parent / "tests" / "kernels" / "corpus" / "styles.hip").read_text()
    x = np.random.default_rng(5).integers(0, 4, N).astype(np.float32)
    dx = hip.asarray(x)
    partial = hip.zeros(N // 256, np.float32)
    out: dict = {}
    for mode in ("regions", "fibers"):
        os.environ["OPENHIP_CPU_REGIONS"] = "1" if mode == "regions" else "0"
        mod = hip.Module(src, name="styles.hip")
        meta = mod.program.metadata["kernels"]
        for kernel in meta:
            f = mod.get_function(kernel)

            def run(f=f):
                f(N // 256, 256, (dx, partial))
                hip.synchronize()

            t = median_time(run, repeats if mode == "regions" else 1, warmup=1)
            assert float(partial.get().astype(np.float64).sum()) == float(x.sum(dtype=np.float64))
            out[f"{kernel}_{mode}_ms"] = t * 1e3
            out[f"{kernel}_{mode}_mode"] = meta[kernel]["mode"]
    os.environ["OPENHIP_CPU_REGIONS"] = "1"
    base = out["red_two_lines_regions_ms"]
    for key in [k for k in out if k.endswith("_regions_ms")]:
        out[key.replace("_regions_ms", "_vs_two_lines")] = out[key] / base
    return out


COUNT_MODES = r"""
import json, sys
from pathlib import Path
from openhip.compiler.scan import scan
from openhip.platforms.cpu.regions import split_kernels
counts = {"loop": 0, "regions": 0, "fibers": 0}
fibers = []
idioms = {}
for path in sorted(Path(sys.argv[1]).glob("*.hip")):
    src = path.read_text()
    result = scan(src)
    sync = [k.name for k in result.kernels.values() if k.uses_sync]
    _, plans = split_kernels(src, result, path.name, sync)
    for k in result.kernels.values():
        if not k.uses_sync:
            counts["loop"] += 1
        elif plans[k.name].function:
            counts["regions"] += 1
            found = getattr(plans[k.name], "warp_idioms", [])
            if found:
                idioms[f"{path.stem}:{k.name}"] = len(found)
        else:
            counts["fibers"] += 1
            fibers.append(f"{path.stem}:{k.name}: {plans[k.name].reason}")
print(json.dumps({"counts": counts, "fibers": fibers,
                  "warp_idioms": {"kernels": len(idioms), "loops": sum(idioms.values()),
                                  "by_kernel": idioms}}))
"""


def corpus_modes(tree: Path) -> dict:
    """Kernels of tests/kernels/corpus per mode, as the splitter of the openhip in ``tree``
    plans them (a subprocess with that tree first on the path)."""
    corpus = HERE.parent / "tests" / "kernels" / "corpus"
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, "-c", COUNT_MODES, str(corpus)], env=env,
                          capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--fiber-repeats", type=int, default=2)
    ap.add_argument("--before", type=Path, help="an older openhip tree for the corpus count")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--cpu-time", action="store_true",
                    help="one thread each, reductions and scans timed in CPU time")
    ns = ap.parse_args()
    if ns.cpu_time:
        global CLOCK
        CLOCK = time.process_time
        os.environ["OPENHIP_CPU_THREADS"] = "1"
        os.environ["OMP_NUM_THREADS"] = "1"
    import openhip as hip

    results: dict = {"load_before": os.getloadavg(), "cpu_time": ns.cpu_time}
    mods = {mode: load(hip, mode) for mode in ("regions", "fibers")}
    results["modes"] = mods["regions"][1]
    # the shuffle loops split once as a whole (idioms.py), per kernel
    results["warp_idioms"] = {k: v.get("warp_idioms", []) for k, v in
                              mods["regions"][0].program.metadata["kernels"].items()
                              if v.get("warp_idioms")}
    with tempfile.TemporaryDirectory() as tmp:
        dll = build_plain(Path(tmp))
        results["reduce"] = bench_reduce(hip, mods, dll, ns.repeats, ns.fiber_repeats)
        results["scan"] = bench_scan(hip, mods, dll, ns.repeats, ns.fiber_repeats)
        results["transpose"] = bench_transpose(hip, mods, ns.repeats, dll)
        results["declarators"] = bench_declarators(hip, mods, ns.repeats, dll)
    results["style_variants"] = bench_style_variants(hip, ns.repeats)
    results["corpus_after"] = corpus_modes(HERE.parent)
    if ns.before is not None:
        results["corpus_before"] = corpus_modes(ns.before)
    results["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=1))
    if ns.json:
        ns.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
