"""Shuffle chains under guards on the CPU platform's split path (warp.h wc_chain_run): under
guards that are all warp-uniform (regions.py's guard_warp) in a 1-D block, a whole warp's guard
bytes are its first lane's, so the chain reads one byte per warp; a partial last warp, exited
lanes, a 2-D block and a per-lane guard keep the lane-by-lane flags.

Every kernel (warp_guard_chains.hip) runs split and as fibers -- the same bits -- and against a
numpy model of the shuffles (a source lane outside the warp's width reads its own value, a
non-participant source reads 0), on block sizes with and without a partial last warp.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import run_split_and_fibers, split_and_fibers_modules

import openhip as hip

NAME = "warp_guard_chains.hip"
SRC = Path(__file__).with_name(NAME).read_text()
KERNELS = ("gc_odd_warps", "gc_nested", "gc_exit_then_guard", "gc_block_sum", "gc_block_sum_1d",
           "gc_row_guard", "gc_lane_guard", "gc_x_guard")


@pytest.fixture(scope="module")
def mods():
    mods = split_and_fibers_modules(SRC, NAME)
    kernels = mods["regions"].program.metadata["kernels"]
    assert all(kernels[k]["mode"] == "regions" for k in KERNELS), kernels
    assert all(kernels[k].get("warp_idioms") for k in KERNELS), kernels
    return mods


def _chain(v: np.ndarray, part: np.ndarray, kind: str, offsets=(16, 8, 4, 2, 1)) -> np.ndarray:
    """The shuffle loop ``v += shfl(v, o)`` per warp of 32 lanes: ``part`` the lanes taking
    part (the others keep their value and, as sources, read 0)."""
    v = v.copy()
    n = len(v)
    for o in offsets:
        new = v.copy()
        for t in np.nonzero(part)[0]:
            lane, base = t % 32, t - t % 32
            if kind == "down":
                src = t + o if lane + o < 32 else t
            else:
                src = base + (lane ^ o)
            far = v[t] if src == t else (v[src] if src < n and part[src] else 0)
            new[t] = v[t] + far
        v = new
    return v


def _data(n: int, dtype) -> np.ndarray:
    return np.random.default_rng(n).integers(0, 9, n).astype(dtype)


@pytest.mark.parametrize("block", [256, 232, 96])
def test_odd_warps(mods, block):
    grid = 3
    x = _data(grid * block, np.float32)
    got = run_split_and_fibers(mods, "gc_odd_warps", grid, block,
                               lambda: (hip.asarray(x), hip.full(grid * 32, -1.0, np.float32)))
    want = np.full(grid * 32, -1.0, np.float32)
    t = np.arange(block)
    for b in range(grid):
        v = x[b * block:(b + 1) * block]
        part = (t // 32) % 2 == 1
        r = _chain(v, part, "down")
        for w in range(1, (block + 31) // 32, 2):
            want[b * 32 + w] = r[w * 32]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("block", [128, 80])
def test_nested(mods, block):
    grid = 2
    x = _data(grid * block, np.int32)
    got = run_split_and_fibers(mods, "gc_nested", grid, block,
                               lambda: (hip.asarray(x), hip.full(grid * block, -7, np.int32)))
    want = np.full(grid * block, -7, np.int32)
    t = np.arange(block)
    for b in range(grid):
        v = x[b * block:(b + 1) * block] + (t >= 32)
        part = (t >= 32) & (t < 96)
        r = _chain(v, part, "xor")
        want[b * block:(b + 1) * block][part] = r[part]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("live", [50, 128, 20])
def test_exit_then_guard(mods, live):
    grid, block = 3, 128
    x = _data(grid * block, np.float32)
    got = run_split_and_fibers(mods, "gc_exit_then_guard", grid, block,
                               lambda: (hip.asarray(x), hip.full(grid * block, -1.0, np.float32),
                                        np.uint32(live)))
    want = np.full(grid * block, -1.0, np.float32)
    t = np.arange(block)
    for b in range(grid):
        part = (t // 32 == 1) & (t + 7 * b < live)
        r = _chain(x[b * block:(b + 1) * block], part, "down")
        want[b * block:(b + 1) * block][part] = r[part]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("block", [256, 200, 32, (32, 8), (16, 8), (24, 5)])
def test_block_sum(mods, block):
    n = int(np.prod(block))
    grid = 5
    x = _data(grid * n, np.float32)
    got = run_split_and_fibers(mods, "gc_block_sum", grid, block,
                               lambda: (hip.asarray(x), hip.zeros(grid, np.float32)))
    np.testing.assert_array_equal(got, x.reshape(grid, n).sum(axis=1, dtype=np.float32))


@pytest.mark.parametrize("block", [256, 200, 1024, 40])
def test_block_sum_1d(mods, block):
    grid = 4
    x = _data(grid * block, np.float32)
    got = run_split_and_fibers(mods, "gc_block_sum_1d", grid, block,
                               lambda: (hip.asarray(x), hip.zeros(grid, np.float32)))
    np.testing.assert_array_equal(got, x.reshape(grid, block).sum(axis=1, dtype=np.float32))


@pytest.mark.parametrize("block", [(32, 4), (16, 4), (8, 8), (64, 2)])
def test_row_guard(mods, block):
    n = block[0] * block[1]
    grid = 2
    x = _data(grid * n, np.int32)
    got = run_split_and_fibers(mods, "gc_row_guard", grid, block,
                               lambda: (hip.asarray(x), hip.zeros(grid * n, np.int32)))
    y = np.arange(n) // block[0]
    want = np.concatenate([_chain(x[b * n:(b + 1) * n], y == 1, "down") for b in range(grid)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("block", [128, 100, (48, 2), (40, 3), (64, 2)])
def test_x_guard(mods, block):
    bx, by = (block, 1) if isinstance(block, int) else block
    n, grid = bx * by, 2
    x = _data(grid * n, np.int32)
    got = run_split_and_fibers(mods, "gc_x_guard", grid, block,
                               lambda: (hip.asarray(x), hip.zeros(grid * n, np.int32)))
    part = np.arange(n) % bx // 32 == 1
    want = np.concatenate([_chain(x[b * n:(b + 1) * n], part, "down") for b in range(grid)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("block", [64, 52])
def test_lane_guard(mods, block):
    grid = 2
    x = _data(grid * block, np.int32)
    got = run_split_and_fibers(mods, "gc_lane_guard", grid, block,
                               lambda: (hip.asarray(x), hip.zeros(grid * block, np.int32)))
    t = np.arange(block)
    want = np.concatenate([_chain(x[b * block:(b + 1) * block], t % 32 < 20, "down")
                           for b in range(grid)])
    np.testing.assert_array_equal(got, want)


def _code(name: str) -> str:
    from openhip.compiler.scan import scan
    from openhip.platforms.cpu.regions import split_kernels

    edits, _plans = split_kernels(SRC, scan(SRC), NAME, [name])
    return next(t for _a, _b, t in edits if f"__openhip_rg_{name}(" in t)


@pytest.mark.parametrize("kernel,uniform", [("gc_odd_warps", True), ("gc_nested", True),
                                            ("gc_exit_then_guard", True), ("gc_x_guard", True),
                                            ("gc_lane_guard", False)])
def test_generated_flag(kernel, uniform):
    code = _code(kernel)
    assert code.count("::openhip::detail::wc_chain<") == 1, code
    assert f"const bool __oh_wgu = {'true' if uniform else 'false'};" in code, code


def test_block_sum_flags():
    # the unguarded chain, then the one under `warp == 0`: warp-uniform with warp =
    # threadIdx.x / 32, not with a linear id built from threadIdx.y (lane by lane there)
    code = _code("gc_block_sum_1d")
    first, second = (code.index(f"const bool __oh_wgu = {v};") for v in ("false", "true"))
    assert first < second and code.count("__oh_wgu = ") == 2, code
    code = _code("gc_block_sum")
    assert code.count("const bool __oh_wgu = false;") == 2, code
