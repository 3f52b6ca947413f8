"""Regions of the CPU platform's split path that read a warp index (`threadIdx.x / 32`, `>> 5`,
`/ warpSize`, a never-changed alias, a 32-tile's `meta_group_rank()`): in a 1-D block the
region's loop runs per warp (an outer loop over the warps, the lanes inside) with the warp
index as the lane loop's base / 32, and the flat global id as the loop's counter (regions.py
`_flush`): `sums[warp - 1]` is one value for the lane loop, which GCC vectorises.

Every kernel (warp_base_loops.hip) runs split and as fibers -- the same bits -- and against
numpy: int, float and unsigned; blocks of 32, 80 (a partial last warp), 256 and 1024 threads;
2-D blocks (the generic loop); near misses that are not one value per warp (x / 16, y / 32, an
8-bit alias of x, the alias changed after the barrier).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import run_block_scan, run_split_and_fibers, split_and_fibers_modules

import openhip as hip

_TEXT = Path(__file__).with_name("warp_base_loops.hip").read_text()
_HEAD, _REST = _TEXT.split("// each thread's value plus", 1)
_TYPED, _NEAR = _REST.split("// near misses", 1)
TYPES = {"i32": ("int", np.int32), "f32": ("float", np.float32), "u32": ("unsigned", np.uint32)}
OFFSET_KERNELS = ["wb_div", "wb_shift", "wb_warpsize", "wb_tid_alias", "wb_inline"]


def _typed(kind: str, c_type: str) -> str:
    text = re.sub(r"\bT\b", c_type, "// each thread's value plus" + _TYPED)
    return re.sub(r"\b(wb_\w+)\(", lambda m: f"{m.group(1)}_{kind}(", text)


SRC = _HEAD + "".join(_typed(k, c) for k, (c, _) in TYPES.items()) + "// near misses" + _NEAR


@pytest.fixture(scope="module")
def mods():
    mods = split_and_fibers_modules(SRC, "warp_base_loops.hip")
    kernels = mods["regions"].program.metadata["kernels"]
    assert all(v["mode"] == "regions" for k, v in kernels.items()), kernels
    return mods


def _code(name: str) -> str:
    from openhip.compiler.scan import scan
    from openhip.platforms.cpu.regions import split_kernels

    edits, _plans = split_kernels(SRC, scan(SRC), "warp_base_loops.hip", [name])
    return next(t for _a, _b, t in edits if f"__openhip_rg_{name}(" in t)


def _offsets_want(x: np.ndarray, block: int) -> np.ndarray:
    """in + (total of the block's warps before the thread's own) + its warp index."""
    blocks = x.size // block
    xb = x.reshape(blocks, block).astype(np.int64)
    warp = np.arange(block) // 32
    totals = np.stack([np.bincount(warp, weights=row, minlength=warp.max() + 1) for row in xb])
    before = np.cumsum(totals, axis=1) - totals
    return (xb + before[:, warp] + warp).reshape(-1)


@pytest.mark.parametrize("block", [32, 80, 256, 1024])
@pytest.mark.parametrize("kind", list(TYPES))
@pytest.mark.parametrize("kernel", OFFSET_KERNELS)
def test_warp_offsets(mods, kernel, kind, block):
    np_type = TYPES[kind][1]
    x = np.random.default_rng(block).integers(0, 5, 3 * block).astype(np_type)
    got = run_split_and_fibers(mods, f"{kernel}_{kind}", 3, block,
                               lambda: (hip.asarray(x), hip.zeros(x.size, np_type)))
    assert np.array_equal(got.astype(np.int64), _offsets_want(x, block))


@pytest.mark.parametrize("kernel", OFFSET_KERNELS)
def test_warp_offsets_2d(mods, kernel):
    # a 2-D block: the generic loop (x / 32 is not a warp there); the same bits as fibers
    x = np.random.default_rng(7).integers(0, 5, 2 * 64 * 4).astype(np.int32)
    got = run_split_and_fibers(mods, f"{kernel}_i32", 2, (64, 4),
                               lambda: (hip.asarray(x), hip.zeros(x.size, np.int32)))
    assert got.shape == x.shape


@pytest.mark.parametrize("block", [32, 80, 256, 1024])
@pytest.mark.parametrize("kind", list(TYPES))
def test_scan_reversed_flat_id(mods, kind, block):
    np_type = TYPES[kind][1]
    blocks = 4
    x = np.random.default_rng(block + 1).integers(0, 4, blocks * block).astype(np_type)
    _data, sums = run_block_scan(mods, f"wb_scan_{kind}", x, blocks, block)
    want = np.cumsum(x.reshape(blocks, block).astype(np.int64), axis=1)
    assert np.array_equal(sums.astype(np.int64), want[:, -1])


@pytest.mark.parametrize("block", [32, 80, 256, 1024, (64, 2), (32, 32)])
def test_near_misses(mods, block):
    bx, by = (block, 1) if isinstance(block, int) else block
    n = 2 * bx * by
    x = np.random.default_rng(bx * by).integers(0, 4, n).astype(np.float32)
    got = run_split_and_fibers(mods, "wb_near", 2, block,
                               lambda: (hip.asarray(x), hip.zeros(4 * n, np.float32)))
    if by == 1:
        # numpy: x / 16 and the 8-bit alias's / 32 read their own entries; the changed warp
        # index adds the lane's low bit
        t = np.tile(np.arange(bx), 2)
        lane = t % 32
        xb = x.reshape(2, -1)
        scan = np.concatenate([_partial_warps(row) for row in xb])
        want = np.stack([scan + (t // 16) % 64, ((t % 256) // 32) % 64,
                         (t // 32 + (lane & 1)) % 64, (t % 256) // 32], axis=1).reshape(-1)
        assert np.array_equal(got, want.astype(np.float32))


def _partial_warps(row: np.ndarray) -> np.ndarray:
    """Each warp's inclusive scan of a block's values (the last warp may be partial)."""
    return np.concatenate([np.cumsum(row[i:i + 32]) for i in range(0, row.size, 32)])


@pytest.mark.parametrize("block", [32, 256, 1024])
def test_tile_meta_group_rank(mods, block):
    x = np.random.default_rng(block).integers(0, 4, 3 * block).astype(np.float32)
    got = run_split_and_fibers(mods, "wb_tile", 3, block,
                               lambda: (hip.asarray(x), hip.zeros(x.size, np.float32)))
    totals = x.reshape(-1, 32).sum(axis=1)
    assert np.array_equal(got, x + np.repeat(totals, 32))


def test_generated_form():
    # the per-warp loop and the warp index as its base, in both counters' loops
    code = _code("wb_div_i32")
    assert "for (unsigned __oh_wb = 0; __oh_wb < __oh_n; __oh_wb += 32u) {" in code
    assert "const int warp = ((decltype(threadIdx.x / 32))((unsigned)__oh_wb / 32u));" in code
    # the flat id is the loop's counter
    assert "const unsigned id = ((decltype(blockIdx.x * blockDim.x + threadIdx.x))(__oh_g));" \
        in code
    # the generic loop (2-D blocks) keeps the user's expressions
    assert "const int warp = threadIdx.x / 32;" in code
    assert "((unsigned)__oh_wb / 32u)" in _code("wb_shift_u32")
    assert "((decltype(threadIdx.x / warpSize))" in _code("wb_warpsize_f32")
    assert "((decltype(tid / 32))" in _code("wb_tid_alias_i32")
    assert "((decltype(threadIdx.x / 32))" in _code("wb_inline_i32")
    assert "(__oh_g))" in _code("wb_scan_i32")
    assert "__oh_wb" in _code("wb_tile")


def test_near_misses_form():
    # nothing here is one value per warp: no per-warp loop, no substitution
    code = _code("wb_near")
    assert "__oh_wb" not in code
    assert "threadIdx.x / 16" in code and "narrow / 32" in code


def test_region_only_declaring_the_alias_is_flat():
    # the first region declares warp but does not read it: its loop stays one flat loop
    code = _code("wb_scan_i32")
    first = code[:code.index("wc_chain")]
    assert "__oh_wb" not in first


def test_last_region_vectorises(mods):
    # GCC's report: the last region (sums[warp - 1] + the store) is a vector loop
    if "clang" in mods["regions"].program.metadata["compiler"]:
        pytest.skip("-fopt-info is GCC's")
    from cpu_helpers import vectorised_lines

    lines, _ = vectorised_lines(SRC, "warp_base_loops.hip")
    text = SRC.splitlines()
    start = next(i for i, s in enumerate(text, 1) if "void wb_scan_i32(" in s)
    line = next(i for i, s in enumerate(text, 1)
                if i > start and "if (warp > 0) value += sums[warp - 1];" in s)
    assert line in lines, (line, sorted(lines))
