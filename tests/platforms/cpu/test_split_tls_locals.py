"""Split kernels keep the engine's thread-local state in locals (regions.py TLS_LOCALS): the block
coordinates as local copies, threadIdx as a local where nothing but the kernel's text can read
it, each static ``__shared__`` array through a reference bound once per block.  A module is a
-fPIC shared object, so every use of a ``thread_local`` was a ``__tls_get_addr`` call (41 call
sites in the bench's scan, about ten run per block); now a few per block.

Every kernel (tls_locals.hip) runs split and as fibers -- the same bits -- and against numpy;
the generated form and the scan's disassembly are checked; the near misses (a device function
that reads threadIdx itself, a lambda in the body) keep the globals and still give the right
answers.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import run_split_and_fibers, split_and_fibers_modules

import openhip as hip

SRC = Path(__file__).with_name("tls_locals.hip").read_text()
NAME = "tls_locals.hip"


@pytest.fixture(scope="module")
def mods():
    mods = split_and_fibers_modules(SRC, NAME)
    kernels = mods["regions"].program.metadata["kernels"]
    assert all(v["mode"] == "regions" for v in kernels.values()), kernels
    return mods


def _code(name: str) -> str:
    from openhip.compiler.scan import scan
    from openhip.platforms.cpu.regions import split_kernels

    edits, _plans = split_kernels(SRC, scan(SRC), NAME, [name])
    return next(t for _a, _b, t in edits if f"__openhip_rg_{name}(" in t)


_BLOCK_COPY = "::openhip::detail::index3 blockIdx = ::blockIdx, blockDim = ::blockDim"
_THREAD_LOCAL = "::openhip::detail::index3 threadIdx = {0u, 0u, 0u};"


def _scan_want(x: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    rows = x.reshape(-1, block).astype(np.int64)
    scanned = np.cumsum(rows, axis=1).astype(np.int32)
    return scanned.reshape(-1), scanned[:, -1].copy()


@pytest.mark.parametrize("block", [32, 80, 256, 1024])
def test_scan_matches_fibers_and_numpy(mods, block):
    blocks = 7
    x = np.random.default_rng(block).integers(-50, 50, blocks * block).astype(np.int32)
    data = run_split_and_fibers(
        mods, "tl_scan", blocks, block,
        lambda: [hip.asarray(x), hip.zeros(blocks, np.int32)], out_index=0)
    sums = run_split_and_fibers(
        mods, "tl_scan", blocks, block,
        lambda: [hip.asarray(x), hip.zeros(blocks, np.int32)], out_index=1)
    want, want_sums = _scan_want(x, block)
    np.testing.assert_array_equal(data, want)
    np.testing.assert_array_equal(sums, want_sums)


def test_scan_generated_form():
    code = _code("tl_scan")
    assert _BLOCK_COPY in code
    assert _THREAD_LOCAL in code
    assert re.search(r"__shared__ int __oh_sh_sums\[32\]; auto\* __oh_shp_sums = "
                     r"&__oh_sh_sums; __asm__\(\"\" : \"\+r\"\(__oh_shp_sums\)\); "
                     r"auto& sums = \*__oh_shp_sums;", code), code


@pytest.mark.parametrize("grid", [(1, 1), (3, 2)])
def test_tile_2d_matches_fibers_and_numpy(mods, grid):
    gx, gy = grid
    side = width = 16 * max(gx, gy)
    x = np.random.default_rng(gx).standard_normal((side, side)).astype(np.float32)
    out = run_split_and_fibers(
        mods, "tl_tile", (gx, gy), (16, 16),
        lambda: [hip.asarray(x), hip.zeros(side * side, np.float32), hip.zeros(3, np.int32),
                 np.int32(width)])
    sizes = run_split_and_fibers(
        mods, "tl_tile", (gx, gy), (16, 16),
        lambda: [hip.asarray(x), hip.zeros(side * side, np.float32), hip.zeros(3, np.int32),
                 np.int32(width)], out_index=2)
    want = np.zeros((side, side), np.float32)
    for by in range(gy):
        for bx in range(gx):
            src = x[by * 16:by * 16 + 16, bx * 16:bx * 16 + 16]
            edge = src[:, 15]
            # out[(bx*16 + j), (by*16 + i)] = src[i, j] + edge[i] + (bx + by)
            want[bx * 16:bx * 16 + 16, by * 16:by * 16 + 16] = (
                (src + edge[:, None]).T + np.float32(bx + by))
    np.testing.assert_array_equal(out.reshape(side, side), want)
    np.testing.assert_array_equal(sizes, [16 * 17 * 4, 16, gx * gy])


def test_tile_generated_form():
    code = _code("tl_tile")
    assert _BLOCK_COPY in code and _THREAD_LOCAL in code
    # both arrays of the declaration renamed, the scalar not
    assert "__shared__ float __oh_sh_tile[16][17];" in code
    assert "__shared__ float __oh_sh_edge[16];" in code
    assert "auto& tile = *__oh_shp_tile;" in code and "auto& edge = *__oh_shp_edge;" in code
    assert "__shared__ int count;" in code and "__oh_sh_count" not in code


@pytest.mark.parametrize("block", [64, 256])
def test_device_function_reading_thread_index(mods, block):
    """tl_global_id() reads the global threadIdx: the split kernel must go on setting it."""
    blocks = 5
    x = np.random.default_rng(3).integers(0, 1000, blocks * block).astype(np.int32)
    out = run_split_and_fibers(
        mods, "tl_devfn", blocks, block,
        lambda: [hip.asarray(x), hip.zeros(blocks * block, np.int32)])
    rows = x.reshape(blocks, block)
    want = rows[:, ::-1] + np.arange(block, dtype=np.int32)
    np.testing.assert_array_equal(out, want.reshape(-1))
    code = _code("tl_devfn")
    assert _BLOCK_COPY in code
    assert _THREAD_LOCAL not in code


def test_lambda_keeps_globals(mods):
    blocks, block = 3, 128
    x = np.random.default_rng(4).integers(0, 1000, blocks * block).astype(np.int32)
    out = run_split_and_fibers(
        mods, "tl_lambda", blocks, block,
        lambda: [hip.asarray(x), hip.zeros(blocks * block, np.int32)])
    rows = 2 * x.reshape(blocks, block) + np.arange(blocks, dtype=np.int32)[:, None]
    np.testing.assert_array_equal(out, rows[:, ::-1].reshape(-1))
    code = _code("tl_lambda")
    assert _BLOCK_COPY not in code and _THREAD_LOCAL not in code and "__oh_sh_" not in code


def _tls_calls(binary: bytes, tmp_path: Path, kernel: str) -> int:
    """``__tls_get_addr`` call sites in the function that runs ``kernel``'s blocks."""
    so = tmp_path / "module.so"
    so.write_bytes(binary)
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(so)], check=True,
                          capture_output=True, text=True).stdout
    name = f"region_blocksIXadL_Z{len('__openhip_rg_' + kernel)}__openhip_rg_{kernel}"
    bodies = re.split(r"\n(?=[0-9a-f]+ <)", text)
    fns = [b for b in bodies if b.split("\n", 1)[0].find(name) >= 0]
    assert len(fns) == 1, [b.split("\n", 1)[0] for b in fns]
    return fns[0].count("__tls_get_addr")


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
def test_scan_tls_calls_bounded(mods, tmp_path):
    """The scan's block function: a TLS address at entry, one for the block's state, one for
    its array (was 41 call sites, about ten run per block)."""
    binary = mods["regions"].program.binary
    assert binary[:4] == b"\x7fELF"
    assert _tls_calls(binary, tmp_path, "tl_scan") <= 4
