"""Loops the split path generates for two styles of real kernels (regions.py, rewrite.py):

* a per-thread grid- or block-stride loop (``for (i = blockIdx.x * blockDim.x + threadIdx.x;
  i < n; i += blockDim.x * gridDim.x)``) runs interchanged with the thread loop: a loop over the
  block's starts, each a thread loop counting the index (contiguous vector loads), when a run-time
  check finds the indices do not wrap; the loop as written otherwise, and where the bound, the
  body or the step do not allow it;
* a region under guards the same for each warp's lanes (``if (warp == 0)``) runs as a loop over
  the warps the guards hold with a countable lane loop inside (1-D blocks without exits).

Every kernel runs split and as fibers (the same bits) and against numpy; the kernels are in
warp_loops.hip.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import cpu_device as _cpu
from cpu_helpers import run_split_and_fibers, split_and_fibers_modules

import openhip as hip

SRC = (Path(__file__).with_name("warp_loops.hip")).read_text()


@pytest.fixture(scope="module")
def mods():
    return split_and_fibers_modules(SRC, "warp_loops.hip")


def run(mods, kernel, grid, block, make_args, out_index):
    """The kernel's output split and as fibers (asserted bit-identical)."""
    return run_split_and_fibers(mods, kernel, grid, block, make_args, out_index)


def test_modes_and_interchanged_loops(mods):
    meta = mods["regions"].program.metadata["kernels"]
    assert all(m["mode"] == "regions" for m in meta.values()), meta
    assert all(m["mode"] == "fibers" for m in mods["fibers"].program.metadata["kernels"].values())
    # the stride loops that are interchanged, and those that must not be
    assert meta["gs_sum"].get("stride_loops") == 1
    assert meta["bs_alias"].get("stride_loops") == 1
    assert meta["rows2d"].get("stride_loops") == 1
    assert meta["neg_start"].get("stride_loops") == 1  # the run-time check refuses it
    assert "stride_loops" not in meta["not_interchanged"], meta["not_interchanged"]
    assert "stride_loops" not in meta["guards"]


@pytest.mark.parametrize("grid,block,n", [(64, 256, 1 << 16), (7, 256, 100003), (3, 200, 5000),
                                          (5, 96, 17), (2, 64, 0), (1, 256, 1 << 14)])
def test_grid_stride_sum(mods, grid, block, n):
    # integers in floats: every order of the additions gives the same sum
    x = np.random.default_rng(n).integers(0, 8, max(n, 1)).astype(np.float32)
    got = run(mods, "gs_sum", grid, block,
              lambda: (hip.asarray(x), hip.zeros(grid, np.float32), np.uint32(n)), 1)
    idx = np.arange(n)
    want = np.zeros(grid)
    for b in range(grid):
        mine = (idx % (grid * block)) // block == b
        want[b] = x[:n][mine].astype(np.float64).sum()
    assert np.array_equal(got, want.astype(np.float32))


@pytest.mark.parametrize("block,n", [(256, 4096), (128, 1000), (64, 63), (32, 5)])
def test_block_stride_alias_size_t(mods, block, n):
    x = np.random.default_rng(block).integers(-50, 50, n).astype(np.int32)
    got = run(mods, "bs_alias", 3, block,
              lambda: (hip.asarray(x), hip.zeros(3, np.int64), np.uint64(n)), 1)
    want = int((x.astype(np.int64) * (np.arange(n) % 7)).sum())
    assert got.tolist() == [want] * 3


@pytest.mark.parametrize("w", [1000, 32, 7, 1])
def test_rows_2d(mods, w):
    h = 16
    a = np.random.default_rng(w).integers(0, 9, (h, w)).astype(np.float32)
    got = run(mods, "rows2d", (1, h // 8), (32, 8),
              lambda: (hip.asarray(a), hip.zeros(h, np.float32), np.int32(w)), 1)
    want = (a.astype(np.float64) * (np.arange(w) & 3)).sum(axis=1)
    assert np.array_equal(got, want.astype(np.float32))


@pytest.mark.parametrize("base,n", [(-100, 300), (5, 300), (0, 0), (-3, -1)])
def test_negative_start_runs_as_written(mods, base, n):
    block = 64
    got = run(mods, "neg_start", 1, block,
              lambda: (hip.zeros(2 * block, np.int32), np.int32(base), np.int32(n)), 0)
    for t in range(block):
        its = list(range(base + t, n, block)) if base + t < n else []
        assert got[2 * t] == len(its), t
        assert got[2 * t + 1] == (its[-1] if its else -1000), t


def test_not_interchanged_still_right(mods):
    n, block, grid = 700, 256, 2
    x = np.random.default_rng(9).integers(0, 4, n).astype(np.float32)
    lens = np.array([300, 513], np.int32)
    got = run(mods, "not_interchanged", grid, block,
              lambda: (hip.asarray(x), hip.asarray(lens), hip.zeros(grid * block, np.float32),
                       np.int32(n)), 2)
    rows = np.zeros((grid, block), np.float64)
    for b in range(grid):
        for t in range(block):
            a = sum(float(x[i]) for i in range(t, lens[b], block))
            bb = sum(float(x[i % n]) for i in range(t, t * 3 + 5, 2))
            c = 0.0
            for i in range(t, n, block):
                if x[i] > 2.5:
                    break
                c += float(x[i])
            rows[b, t] = np.float32(np.float32(a) + np.float32(10) * np.float32(bb)) + \
                np.float32(100) * np.float32(c)
    acc = got.reshape(grid, block) - rows[:, ::-1].astype(np.float32)
    # the atomic sum is the same for every thread of a block (compared with fibers above)
    assert np.allclose(acc, (x * np.float32(0.1)).astype(np.float64).sum(), rtol=1e-5)


def _guards_reference(x: np.ndarray, block: int) -> np.ndarray:
    out = np.zeros_like(x)
    for b in range(len(x) // block):
        # HIP's index arithmetic; a source lane past the block's end reads 0
        v = x[b * block:(b + 1) * block].astype(np.int64).copy()
        n = block
        v1 = v.copy()
        for t in range(n):
            if t // 32 < 4:
                src = t + 1 if t % 32 + 1 < 32 else t
                v1[t] = v[t] + (v[src] if src < n else 0)
        v2 = v1.copy()
        for t in range(n):
            if t // 32 < 4:
                lane = t % 32
                if (t // 32) & 1:
                    src = t - lane + (lane ^ 3)
                    v2[t] = v1[src] if src < n else 0
                else:
                    v2[t] = (v1[t - 2] if lane >= 2 else v1[t]) * 3
        for t in range(n):
            lane = t % 32
            r = -1
            if lane % 2 == 0:
                src = t + 2 if lane + 2 < 32 else t
                r = v2[src] if src < n else 0
            out[b * block + t] = v2[t] * 1000 + r
    return out


@pytest.mark.parametrize("block", [256, 200, 96, 40])
def test_guarded_warps(mods, block):
    grid = 3
    x = np.random.default_rng(block).integers(-1000, 1000, grid * block).astype(np.int32)
    got = run(mods, "guards", grid, block,
              lambda: (hip.asarray(x), hip.zeros(grid * block, np.int32)), 1)
    assert np.array_equal(got, _guards_reference(x, block).astype(np.int32))


def test_guarded_warps_2d_block(mods):
    # a 2-D block: the guard's warps are not runs of threadIdx.x / 32 (the generic loop)
    x = np.random.default_rng(3).integers(-1000, 1000, 256).astype(np.int32)
    got = run(mods, "guards", 1, (32, 8), lambda: (hip.asarray(x), hip.zeros(256, np.int32)), 1)
    assert got.shape == (256,)


@pytest.mark.parametrize("limit", [128, 50, 33, 0])
def test_guard_with_exits(mods, limit):
    x = np.arange(128, dtype=np.int32) * 7
    got = run(mods, "guard_exits", 1, 128,
              lambda: (hip.asarray(x), hip.full(128, -5, np.int32), np.uint32(limit)), 1)
    want = np.full(128, -5, np.int64)
    for t in range(min(limit, 128)):
        v = int(x[t])
        if t // 32 == 1:
            src = t + 4
            v += int(x[src]) if t % 32 + 4 < 32 and src < limit else (0 if t % 32 + 4 < 32
                                                                      else int(x[t]))
        want[t] = v
    assert got.tolist() == want.tolist()


def _gcc_only(mods) -> None:
    if "clang" in mods["regions"].program.metadata["compiler"]:
        pytest.skip("-fopt-info is GCC's")


def test_lane_loops_vectorise(mods, monkeypatch):
    # GCC's report: the interchanged stride loop and the guarded stage's lane loops vectorise
    _gcc_only(mods)
    monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1")
    with _cpu():
        mod = hip.Module(SRC, name="warp_loops.hip", options=["-fopt-info-vec-optimized"])
        lines = {int(m) for m in re.findall(
            r"warp_loops\.hip:(\d+):\d+: optimized: loop vectorized", mod.program.log)}
        text = SRC.splitlines()
        loop = next(i for i, s in enumerate(text, 1) if "i += blockDim.x * gridDim.x" in s)
        guard = next(i for i, s in enumerate(text, 1) if "if (warp == 0) {" in s)
        assert lines & {loop, loop + 1}, (loop, sorted(lines))  # the header or the body
        # the second stage's lane loops (the warp_sum call under the guard: its deposit and
        # read loops are reported at the call's line)
        call = next(i for i, s in enumerate(text, 1) if i > guard and "warp_sum(sum)" in s)
        assert call in lines, (call, sorted(lines))


@pytest.mark.parametrize("kernel", ["signed_tree", "helper_sum"])
def test_tree_styles(mods, kernel):
    x = np.random.default_rng(11).integers(0, 16, 256 * 9).astype(np.float32)
    got = run(mods, kernel, 9, 256, lambda: (hip.asarray(x), hip.zeros(9, np.float32)), 1)
    assert np.array_equal(got, x.reshape(9, 256).astype(np.float64).sum(axis=1))


def test_tree_styles_generated_form():
    # what the split source does for them: an int x counter where the thread index is an int
    # local only; the helper's result declared where it returns (not a per-thread array)
    from openhip.compiler.scan import scan
    from openhip.platforms.cpu.regions import split_kernels

    result = scan(SRC)
    edits, plans = split_kernels(SRC, result, "warp_loops.hip",
                                 ["signed_tree", "helper_sum", "bs_alias"])
    code = {name: next(t for _a, _b, t in edits if f"__openhip_rg_{name}(" in t)
            for name in plans}
    assert "OPENHIP_CPU_FOR_EACH_THREAD_SIGNED(" in code["signed_tree"]
    assert "OPENHIP_CPU_FOR_EACH_THREAD_SIGNED(" not in code["bs_alias"]  # unsigned tid
    assert re.search(r"float __oh_ret\d+ = \(", code["helper_sum"])
    assert "using __oh_T0" not in code["helper_sum"]  # nothing kept per thread


def test_signed_tree_splits(mods, monkeypatch):
    # GCC splits the thread loop at `if (t < k)` (its report), as for an unsigned index
    _gcc_only(mods)
    monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1")
    with _cpu():
        mod = hip.Module(SRC, name="warp_loops.hip", options=["-fopt-info-loop-optimized"])
        line = next(i for i, s in enumerate(SRC.splitlines(), 1)
                    if "if (t < k) s[t] += s[t + k];" in s)
        assert re.search(rf"warp_loops\.hip:{line}:\d+: optimized: loop split",
                         mod.program.log), mod.program.log[-3000:]


@pytest.mark.parametrize("limit", [256, 100, 1])
def test_stride_after_exits(mods, limit):
    n = 3000
    x = np.random.default_rng(limit).integers(0, 8, n).astype(np.float32)
    assert mods["regions"].program.metadata["kernels"]["gs_exits"].get("stride_loops") == 1
    got = run(mods, "gs_exits", 1, 256,
              lambda: (hip.asarray(x), hip.full(256, -1, np.float32), np.int32(n),
                       np.uint32(limit)), 1)
    per = np.array([x[t::256].astype(np.float64).sum() * 3 for t in range(256)])
    want = np.where(np.arange(256) < limit, per + per[0], -1)
    assert np.array_equal(got, want.astype(np.float32))
