"""Cooperative-groups collectives whose group is made in the call on the CPU platform's split
path (rewrite.py ``_group_argument``): ``cg::reduce(cg::tiled_partition<32>(
cg::this_thread_block()), v, op)``, ``cg::sync(cg::this_thread_block())``, a tile of a block
variable; split (recognised as warp idioms) and as fibers, bit for bit, and against numpy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import run_split_and_fibers, split_and_fibers_modules

import openhip as hip

SRC = Path(__file__).with_name("cg_inline_groups.hip").read_text()


@pytest.fixture(scope="module")
def mods():
    return split_and_fibers_modules(SRC, "cg_inline_groups.hip")


def test_split_and_recognised(mods):
    meta = mods["regions"].program.metadata["kernels"]
    for k in ("inline_reduce", "inline_scan_max"):
        assert meta[k]["mode"] == "regions", meta[k]
    assert len(meta["inline_reduce"]["warp_idioms"]) == 1
    assert len(meta["inline_scan_max"]["warp_idioms"]) == 2
    assert meta["two_in_one"]["mode"] == "regions"
    assert len(meta["two_in_one"]["warp_idioms"]) == 4  # two in one statement, two nested


@pytest.mark.parametrize("block", [32, 128, 1024])
def test_inline_reduce(mods, block):
    grid = 6
    x = np.random.default_rng(block).integers(-4, 5, grid * block).astype(np.float32)
    got = run_split_and_fibers(mods, "inline_reduce", grid, block,
                               lambda: (hip.asarray(x), hip.zeros(grid, np.float32)), 1)
    assert np.array_equal(got, x.reshape(grid, block).astype(np.float64).sum(axis=1)
                          .astype(np.float32))


@pytest.mark.parametrize("block", [16, 64, 256])
def test_inline_scan_and_max(mods, block):
    grid = 4
    x = np.random.default_rng(block + 1).integers(-100, 100, grid * block).astype(np.int32)
    out = {}

    def args():
        out["scan"] = hip.zeros(grid * block, np.int32)
        out["max"] = hip.zeros(grid * block, np.int32)
        return hip.asarray(x), out["scan"], out["max"]

    run_split_and_fibers(mods, "inline_scan_max", grid, block, args, 1)
    run_split_and_fibers(mods, "inline_scan_max", grid, block, args, 2)
    tiles = x.reshape(-1, 16)
    assert np.array_equal(out["scan"].get(), np.cumsum(tiles, axis=1).reshape(-1))
    assert np.array_equal(out["max"].get(), np.repeat(tiles.max(axis=1), 16))


def test_tile_of_a_tile_in_place(mods):
    # not rewritten (a group made in a group made in the call): the kernel keeps its header path
    assert not mods["regions"].program.metadata["kernels"]["inline_wide"].get("warp_idioms")
    x = np.random.default_rng(5).integers(-9, 9, 2 * 64).astype(np.int32)
    got = run_split_and_fibers(mods, "inline_wide", 2, 64,
                               lambda: (hip.asarray(x), hip.zeros(2 * 64, np.int32)), 1)
    assert np.array_equal(got, np.repeat(x.reshape(-1, 8).sum(axis=1), 8))


@pytest.mark.parametrize("block", [32, 96, 256])
def test_two_collectives_in_one_statement(mods, block):
    grid = 3
    x = np.random.default_rng(block + 7).integers(-6, 7, grid * block).astype(np.float32)
    out = {}

    def args():
        out["r"] = hip.zeros(grid * block, np.float32)
        out["n"] = hip.zeros(grid * block, np.int32)
        return hip.asarray(x), out["r"], out["n"]

    run_split_and_fibers(mods, "two_in_one", grid, block, args, 1)
    run_split_and_fibers(mods, "two_in_one", grid, block, args, 2)
    w = x.reshape(-1, 32).astype(np.float64)
    want = np.repeat(w.sum(axis=1) + (w * 2).max(axis=1), 32).astype(np.float32)
    assert np.array_equal(out["r"].get(), want)
    assert np.array_equal(out["n"].get(), np.repeat(w.sum(axis=1), 32).astype(np.int32))
