"""Shared-tile transposes split at their barrier (regions.py): a per-thread local assigned again
after the barrier is a plain local of each region (no per-thread array), ``int x = U +
threadIdx.x`` runs in a signed copy of the region's loop where engine.h's ``isum_of`` check
holds, and an unused ``cg::thread_block`` leaves threadIdx a local.

Every kernel (transpose_tiles.hip) runs split and as fibers -- the same bits -- and against
numpy, at sizes that are and are not multiples of the tile; the generated forms and the near
misses (a local read before it is assigned again, a negative or too large U, a group handed to
a device function) are checked too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import cpu_device, run_split_and_fibers, split_and_fibers_modules

import openhip as hip

SRC = Path(__file__).with_name("transpose_tiles.hip").read_text()
NAME = "transpose_tiles.hip"
_LOCAL_THREAD = "::openhip::detail::index3 threadIdx = {0u, 0u, 0u};"


@pytest.fixture(scope="module")
def mods():
    mods = split_and_fibers_modules(SRC, NAME)
    kernels = mods["regions"].program.metadata["kernels"]
    split = {k for k, v in kernels.items() if v["mode"] == "regions"}
    assert split == {"tt_cg", "tt_sync_guard", "tt_cta_sync", "tt_shift", "tt_big", "tt_near",
                     "tt_group_passed"}, kernels
    return mods


def _code(name: str) -> str:
    from openhip.compiler.scan import scan
    from openhip.platforms.cpu.regions import split_kernels

    edits, _plans = split_kernels(SRC, scan(SRC), NAME, [name])
    return next(t for _a, _b, t in edits if f"__openhip_rg_{name}(" in t)


def _transpose(mods, kernel, dtype, width, height, tile, rows):
    a = np.random.default_rng(width * 1000 + height).standard_normal((height, width))
    a = a.astype(dtype)
    grid = (-(-width // tile), -(-height // tile))
    got = run_split_and_fibers(
        mods, kernel, grid, (tile, rows),
        lambda: [hip.zeros(width * height, dtype), hip.asarray(a), np.int32(width),
                 np.int32(height)], out_index=0)
    np.testing.assert_array_equal(got.reshape(width, height), a.T)


@pytest.mark.parametrize("shape", [(32, 32), (96, 64), (64, 160)])
def test_cg_tile_transpose(mods, shape):
    _transpose(mods, "tt_cg", np.float32, *shape, 32, 8)


@pytest.mark.parametrize("shape", [(16, 16), (37, 53), (70, 1), (1, 45)])
def test_guarded_tile_transpose(mods, shape):
    _transpose(mods, "tt_sync_guard", np.float32, *shape, 16, 4)


@pytest.mark.parametrize("shape", [(8, 8), (13, 29), (40, 3)])
def test_member_sync_transpose(mods, shape):
    _transpose(mods, "tt_cta_sync", np.float64, *shape, 8, 8)


def test_negative_base_shift(mods):
    n = 200
    x = np.arange(n, dtype=np.int32) * 7 - 300
    got = run_split_and_fibers(mods, "tt_shift", -(-n // 32), 32,
                               lambda: [hip.zeros(n, np.int32), hip.asarray(x), np.int32(n)],
                               out_index=0)
    want = np.empty(n, np.int32)
    for i in range(n):
        b, t = divmod(i, 32)
        src = b * 32 + (31 - t) - 40
        want[i] = x[src] if 0 <= src < n else -1
    np.testing.assert_array_equal(got, want)


def test_base_near_int_max(mods):
    got = run_split_and_fibers(mods, "tt_big", 2, 64, lambda: [hip.zeros(128, np.int32)],
                               out_index=0)
    lanes = 63 - (np.arange(128) % 64)
    want = ((2147483600 + lanes) % 2**32).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(got, want)
    assert (got < 0).any() and (got > 0).any()


def test_isum_of_check(mods):
    out = hip.zeros(11, np.int32)
    with cpu_device():
        mods["regions"].get_function("tt_isum_of")(1, 1, (out,))
        hip.synchronize()
    np.testing.assert_array_equal(out.get(), [1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1])


def test_near_misses_keep_their_arrays(mods):
    blocks = 3
    x = np.random.default_rng(5).integers(-20, 20, blocks * 64).astype(np.int32)
    got = run_split_and_fibers(mods, "tt_near", blocks, 64,
                               lambda: [hip.zeros(blocks * 64, np.int32), hip.asarray(x)],
                               out_index=0)
    t = np.arange(blocks * 64) % 64
    base = np.arange(blocks * 64) - t
    v = x + x[base + 63 - t]
    w = np.where(t & 1, 5, 3 * x)
    z = x - 1 + x[base + (t ^ 1)]
    np.testing.assert_array_equal(got, v * 10000 + w * 100 + z)
    code = _code("tt_near")
    for i, name in enumerate("vwz"):
        assert f"__oh_T{i} {name} = __oh_v{i}[__oh_lt];" in code, code
        assert f"\nint {name};\n" not in code


def test_group_passed_on(mods):
    got = run_split_and_fibers(mods, "tt_group_passed", 2, 64,
                               lambda: [hip.zeros(128, np.int32)], out_index=0)
    t = np.arange(128) % 64
    np.testing.assert_array_equal(got, (63 - t) + 1000 * (np.arange(128) // 64))
    assert _LOCAL_THREAD not in _code("tt_group_passed")


def test_cg_transpose_generated_form():
    code = _code("tt_cg")
    assert "region_scratch" not in code  # x and y: a local of each region
    assert "\nint x;\nint y;\n" in code
    assert _LOCAL_THREAD in code  # cta is read by nothing but the barrier
    assert code.count("OPENHIP_CPU_FOR_EACH_THREAD_SIGNED(__oh_lt)") == 2
    assert "int x = (int)(blockIdx.x * TILE) + (int)threadIdx.x;" in code
    assert "x = (int)(blockIdx.y * TILE) + (int)threadIdx.x;" in code
    assert "y = (int)(blockIdx.x * TILE) + (int)threadIdx.y;" in code
    assert ("if (::openhip::detail::isum_of<decltype((blockIdx.x * TILE) + 0)>::ok("
            "blockIdx.x * TILE, blockDim.x) && ::openhip::detail::isum_of<decltype(("
            "blockIdx.y * TILE) + 0)>::ok(blockIdx.y * TILE, blockDim.y)) {") in code
    # the loops as written stay, for the blocks the checks refuse
    assert "int x = blockIdx.x * TILE + threadIdx.x;" in code


def test_other_sums_generated_form():
    code = _code("tt_cta_sync")
    assert "int y = (int)(blockIdx.y * blockDim.y) + (int)threadIdx.y;" in code
    assert "int tx = (int)(blockIdx.y * blockDim.y) + (int)threadIdx.x;" in code
    shift = _code("tt_shift")
    assert "isum_of<decltype(((int)blockIdx.x * 32 - 40) + 0)>" in shift
    # a sum that is not the whole initialiser, or not of a signed int local: as written
    near = _code("tt_near")
    assert "isum_of" not in near
