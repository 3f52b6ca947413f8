"""Regions of the CPU platform's split path whose last statement runs for one thread of the block
(`if (threadIdx.x == E) S`) or of each warp (`if (lane == E) S`, a tile's thread_rank()): in a
1-D block that statement runs after the region's loop, for its thread only; and the flat loop
of a 1-D block counts the flat global id `blockIdx.x * blockDim.x + threadIdx.x` where no id of
the block wraps (regions.py `_flush`).

Every kernel (region_tails.hip) runs split and as fibers -- the same bits -- and against numpy
where the answer is simple: 1-D blocks (full and partial last warps), 2-D blocks (the generic
loop), conditions that hold for no thread, a run-time thread, tails that must stay in the loop
(a value of their own region, a region inside a loop).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import run_block_scan, run_split_and_fibers, split_and_fibers_modules

import openhip as hip

_TEXT = Path(__file__).with_name("region_tails.hip").read_text()
_SCAN, _REST = _TEXT.split("// tails whose condition", 1)
TYPES = {"i32": ("int", np.int32), "f32": ("float", np.float32), "u32": ("unsigned", np.uint32)}
SRC = "\n".join([_SCAN.split("extern")[0]] +
                [re.sub(r"\bscan_tails\b", f"scan_tails_{k}",
                        re.sub(r"\bT\b", c, "extern" + _SCAN.split("extern", 1)[1]))
                 for k, (c, _) in TYPES.items()] + ["// tails whose condition" + _REST])


@pytest.fixture(scope="module")
def mods():
    return split_and_fibers_modules(SRC, "region_tails.hip")


def _code(name: str) -> str:
    from openhip.compiler.scan import scan
    from openhip.platforms.cpu.regions import split_kernels

    edits, plans = split_kernels(SRC, scan(SRC), "region_tails.hip", [name])
    return next(t for _a, _b, t in edits if f"__openhip_rg_{name}(" in t)


@pytest.mark.parametrize("block", [32, 80, 256, 1024])
@pytest.mark.parametrize("kind", list(TYPES))
def test_scan_tails(mods, kind, block):
    np_type = TYPES[kind][1]
    blocks = 5
    x = np.random.default_rng(block).integers(0, 4, blocks * block).astype(np_type)
    data, sums = run_block_scan(mods, f"scan_tails_{kind}", x, blocks, block)
    want = np.cumsum(x.reshape(blocks, block).astype(np.int64), axis=1)
    assert np.array_equal(data.reshape(blocks, block), want.astype(np_type))
    assert np.array_equal(sums, want[:, -1].astype(np_type))


def test_scan_tails_two_dimensional(mods):
    # a 2-D block runs the generic loop (the tail stays in it): same bits as fibers
    x = np.random.default_rng(3).integers(0, 4, 4 * 128).astype(np.int32)
    run_split_and_fibers(mods, "scan_tails_i32", 4, (32, 4),
                         lambda: (hip.asarray(x), hip.full(4, 77, np.int32)), 1)
    run_split_and_fibers(mods, "scan_tails_i32", 4, (32, 4),
                         lambda: (hip.asarray(x), hip.full(4, 77, np.int32)), 0)


def test_generated_form():
    code = _code("scan_tails_i32")
    # the flat loop counts the global id where it cannot wrap, the generic loop otherwise
    assert "blockIdx.x * blockDim.x <= 0xffffffffu - __oh_n" in code
    assert "OPENHIP_CPU_FOR_EACH_THREAD(__oh_lt)" in code
    # the lane tail and the block tail each run after their loop
    assert "__oh_w += 32u" in code and "(unsigned)(31) % 32u" in code
    assert "(unsigned)(blockDim.x - 1)" in code
    # the warp-uniform guard's flags: no branch, an int counter (the loop GCC splits at the
    # condition vectorises on both sides), no zeroing pass where every thread evaluates it
    assert "= (unsigned char)(2 - (bool)(warp == 0));" in code
    guard = code[code.index("(unsigned char)(2 - (bool)(warp == 0))") - 600:]
    assert "for (int __oh_lt = 0; __oh_lt < (int)__oh_n; ++__oh_lt)" in guard
    assert "__oh_lt] = 0;" not in code
    kept = _code("kept_tails")
    assert "__oh_w += 32u" not in kept and "(unsigned)(0)" not in kept.split("rounds")[0]
    assert "(unsigned)(local" not in kept


@pytest.mark.parametrize("block", [64, 80, 256])
@pytest.mark.parametrize("pick, lane_pick", [(0, 0), (37, 5), (79, 31), (500, -3), (-1, 40)])
def test_odd_tails(mods, block, pick, lane_pick):
    blocks = 3
    x = np.random.default_rng(pick % 97).integers(-8, 8, blocks * block).astype(np.float32)
    got = run_split_and_fibers(mods, "odd_tails", blocks, block,
                               lambda: (hip.asarray(x), hip.full(blocks * 16, -1e9, np.float32),
                                        np.int32(pick), np.int32(lane_pick)), 1)
    got = got.reshape(blocks, 16)
    untouched = got == np.float32(-1e9)
    # conditions no thread meets leave their slots alone; the others are written
    assert untouched[:, 1].all() and untouched[:, 2].all()
    assert (untouched[:, 0] == (not 0 <= pick < block)).all()
    assert not untouched[:, 3].any()
    for w in range(8):
        written = 0 <= lane_pick < 32 and w * 32 + lane_pick < block
        assert (untouched[:, 4 + w] == (not written)).all(), (w, got[:, 4 + w])


@pytest.mark.parametrize("block, rounds", [(32, 3), (96, 4), (256, 1), (1024, 2)])
def test_kept_tails(mods, block, rounds):
    blocks = 3
    x = np.random.default_rng(block + rounds).integers(-50, 50, blocks * block).astype(np.int32)
    run_split_and_fibers(mods, "kept_tails", blocks, block,
                         lambda: (hip.asarray(x), hip.zeros(blocks * 4, np.int32),
                                  np.int32(rounds)), 1)


@pytest.mark.parametrize("block, grid", [(256, 16), (96, 7), (1024, 2)])
def test_cg_tails(mods, block, grid):
    n = 20000
    x = np.random.default_rng(block).integers(0, 4, n).astype(np.float32)
    got = run_split_and_fibers(mods, "cg_tails", grid, block,
                               lambda: (hip.asarray(x), hip.zeros(grid, np.float32),
                                        np.uint32(n)), 1)
    idx = np.arange(n)
    want = [x[(idx % (grid * block)) // block == b].astype(np.float64).sum()
            for b in range(grid)]
    assert np.array_equal(got, np.array(want, np.float32))


def test_lane_tail_region_vectorises(mods):
    # GCC's report: with `if (lane == 31) sums[warp] = value;` after its loop, the region that
    # reads the chain's results (reported at the chain's line) is a vector loop; it was scalar
    # with the conditional store in it
    if "clang" in mods["regions"].program.metadata["compiler"]:
        pytest.skip("-fopt-info is GCC's")
    from cpu_helpers import vectorised_lines

    lines, _ = vectorised_lines(SRC, "region_tails.hip")
    text = SRC.splitlines()
    line = next(i for i, s in enumerate(text, 1) if "for (int d = 1; d < 32; d <<= 1) {" in s)
    assert line in lines, (line, sorted(lines))


def test_stride_prefetch_form():
    # the interchanged grid-stride loop hands stride_full the pointer its body subscripts by the
    # index (engine.h prefetches the next block's part of it); a pointer it does not is not
    code = _code("cg_tails")
    assert re.search(r"stride_full<unsigned>\(__oh_gs\d+, \(n\), in \+ __oh_gs\d+\)", code), code
    assert "partial + __oh_gs" not in code


@pytest.mark.parametrize("n", [1 << 20, (1 << 20) - 3])
def test_stride_prefetch_past_the_end(mods, n):
    # 4 MiB: the allocation sits between guard pages; the last blocks' prefetches point past its
    # end (a prefetch does not fault) and the sums are exact
    grid, block = 64, 256
    x = np.random.default_rng(n).integers(0, 4, n).astype(np.float32)
    got = run_split_and_fibers(mods, "cg_tails", grid, block,
                               lambda: (hip.asarray(x), hip.zeros(grid, np.float32),
                                        np.uint32(n)), 1)
    pad = np.zeros(-n % (grid * block), np.float32)
    per = np.concatenate([x, pad]).reshape(-1, grid, block).astype(np.float64).sum(axis=(0, 2))
    assert np.array_equal(got, per.astype(np.float32))
