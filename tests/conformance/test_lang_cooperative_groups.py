"""Cooperative groups (tests/kernels/cg/*.hip) against numpy models of CUDA 12's documented
semantics: tile shuffles (every N <= 32, 4/8/12/16-byte types), votes, matches, ranks, tiles of
tiles, the dynamic tiled_partition, in every CPU mode (ALSO_AS_FIBERS)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from kernel_files import load_kernel as load

import openhip as hip

ALSO_AS_FIBERS = True
_MODULES: dict = {}


def _module(name: str):
    """tests/kernels/<name>.hip compiled once per CPU mode (the fibers variant of a test sets
    OPENHIP_CPU_REGIONS=0 before it asks)."""
    key = (name, os.environ.get("OPENHIP_CPU_REGIONS", ""), hip.get_device().id)
    if key not in _MODULES:
        _MODULES[key] = load(name)
    return _MODULES[key]
TILES = [1, 2, 4, 8, 16, 32]
S16 = np.dtype([("a", np.int32), ("b", np.float32), ("c", np.float64)])
S12 = np.dtype([("a", np.int32), ("b", np.int32), ("c", np.int32)])


def source_index(op: int, n: int, tile: int, arg: int) -> np.ndarray:
    """The thread each thread of a tile operation reads (CUDA's thread_block_tile semantics)."""
    tid = np.arange(n)
    rank = tid % tile
    base = tid - rank
    if op == 0:
        return base + (rank * 3 + arg) % tile
    if op == 1:
        return np.where(rank - arg < 0, tid, tid - arg)
    if op == 2:
        return np.where(rank + arg >= tile, tid, tid + arg)
    return base + (rank ^ arg)


@pytest.fixture
def tiles_mod(device):
    return _module("cg/cg_tiles")


def _values(dtype, n, rng):
    if dtype in (S16, S12):
        v = np.zeros(n, dtype)
        for name in dtype.names:
            v[name] = rng.integers(-1000, 1000, n)
        if dtype == S16:
            v["b"] += 0.25
            v["c"] = rng.standard_normal(n)
        return v
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-(2 ** 30), 2 ** 30, n).astype(dtype)
    return rng.standard_normal(n).astype(dtype)


@pytest.mark.parametrize("tname,dtype", [("int", np.int32), ("float", np.float32),
                                         ("double", np.float64), ("S16", S16), ("S12", S12)])
@pytest.mark.parametrize("block", [32, 96, 256])
def test_tile_shuffles(device, tiles_mod, tname, dtype, block):
    k = tiles_mod.get_function(f"tile_shfl<{tname}>")
    grid = 2
    n = grid * block
    rng = np.random.default_rng(block)
    host = _values(np.dtype(dtype), n, rng)
    words = host.view(np.uint8)
    d_in = hip.asarray(words)
    d_out = hip.zeros(words.size, np.uint8)
    for tile in TILES:
        args = [(0, 0), (0, 5), (1, 1), (2, 1), (3, 1)]
        args += [(1, tile // 2), (2, tile // 2), (3, tile - 1), (1, tile), (2, tile)]
        for op, arg in args:
            if op == 3 and arg >= tile:
                continue
            k(grid, block, (d_in, d_out, tile, op, arg))
            got = d_out.get().view(host.dtype)
            want = host[source_index(op, n, tile, arg)]
            np.testing.assert_array_equal(got, want, err_msg=f"N={tile} op={op} arg={arg}")


def _vote_model(v: np.ndarray, tile: int, block: int) -> np.ndarray:
    n = v.size
    out = np.zeros((n, 10), np.uint32)
    for t0 in range(0, n, tile):
        seg = v[t0:t0 + tile]
        pred = seg & 1
        key = seg >> 1
        ballot = int(sum(int(p) << r for r, p in enumerate(pred)))
        same = bool((key == key[0]).all())
        for r in range(tile):
            i = t0 + r
            match = sum(1 << q for q in range(tile) if key[q] == key[r])
            full = (1 << tile) - 1
            out[i] = [r, tile, (i % block) // tile, block // tile, int(pred.any()),
                      int(pred.all()), ballot, match, full if same else 0, int(same)]
    return out


@pytest.mark.parametrize("block", [32, 64, 160])
def test_tile_votes_and_matches(device, tiles_mod, block):
    k = tiles_mod.get_function("tile_vote")
    grid = 2
    n = grid * block
    rng = np.random.default_rng(7)
    for tile in TILES:
        for pattern in ("random", "uniform", "ones"):
            if pattern == "random":
                v = rng.integers(0, 8, n).astype(np.int32)
            elif pattern == "uniform":
                v = np.full(n, 6, np.int32)
            else:
                v = np.full(n, 7, np.int32)
            out = hip.zeros(10 * n, np.uint32)
            k(grid, block, (hip.asarray(v), out, tile))
            got = out.get().reshape(n, 10)
            np.testing.assert_array_equal(got, _vote_model(v, tile, block),
                                          err_msg=f"N={tile} {pattern}")


def test_tile_of_tile(device, tiles_mod):
    k = tiles_mod.get_function("tile_of_tile")
    block = 64
    out = hip.zeros(4 * block, np.uint32)
    k(1, block, (out,))
    got = out.get().reshape(block, 4)
    i = np.arange(block)
    np.testing.assert_array_equal(got[:, 0], i % 4)
    np.testing.assert_array_equal(got[:, 1], (i % 32) // 4)
    np.testing.assert_array_equal(got[:, 2], np.full(block, 8))
    np.testing.assert_array_equal(got[:, 3], i - i % 4 + 3)


@pytest.mark.parametrize("tile", [1, 2, 8, 32, 64, 128, 256])
def test_dynamic_tiled_partition(device, tiles_mod, tile):
    k = tiles_mod.get_function("dynamic_tile")
    block = 256
    out = hip.zeros(3 * block, np.uint32)
    k(1, block, (out, tile))
    got = out.get().reshape(block, 3)
    i = np.arange(block)
    np.testing.assert_array_equal(got[:, 0], i % tile)
    np.testing.assert_array_equal(got[:, 1], np.full(block, tile))
    np.testing.assert_array_equal(got[:, 2], np.full(block, tile))


def test_dynamic_tile_not_power_of_two(device, tiles_mod):
    k = tiles_mod.get_function("dynamic_tile")
    out = hip.zeros(3 * 64, np.uint32)
    with pytest.raises(hip.HipError, match="power of two"):
        k(1, 64, (out, 24))
        hip.synchronize()
    hip.synchronize()  # the device is usable afterwards


# ---- cg::reduce / inclusive_scan / exclusive_scan -------------------------------------------------
OPS = {0: (np.add, 0), 1: (np.minimum, None), 2: (np.maximum, None), 3: (np.bitwise_and, None),
       4: (np.bitwise_or, None), 5: (np.bitwise_xor, None)}


@pytest.fixture
def coll_mod(device):
    return _module("cg/cg_collectives")


def _collective_model(v: np.ndarray, tile: int, op: int):
    fn = OPS[op][0]
    segs = v.reshape(-1, tile)
    red = np.repeat(fn.reduce(segs, axis=1), tile)
    inc = fn.accumulate(segs, axis=1).reshape(-1)
    exc = np.zeros_like(segs)
    exc[:, 1:] = fn.accumulate(segs, axis=1)[:, :-1]
    return red, inc, exc.reshape(-1)


@pytest.mark.parametrize("tname,dtype,ops", [
    ("int", np.int32, range(6)), ("unsigned int", np.uint32, range(6)),
    ("float", np.float32, range(3)), ("double", np.float64, range(3))])
@pytest.mark.parametrize("block", [32, 128])
def test_reduce_and_scans(device, coll_mod, tname, dtype, ops, block):
    k = coll_mod.get_function(f"tile_reduce_scan<{tname}>")
    grid = 2
    n = grid * block
    rng = np.random.default_rng(3)
    if np.issubdtype(dtype, np.integer):
        host = rng.integers(0, 1 << 20, n).astype(dtype)
    else:  # small integers: every order of additions gives the same float
        host = rng.integers(-64, 64, n).astype(dtype)
    d_in = hip.asarray(host)
    out = hip.zeros(3 * n, dtype)
    for tile in TILES:
        for op in ops:
            k(grid, block, (d_in, out, tile, op))
            got = out.get().reshape(n, 3)
            red, inc, exc = _collective_model(host, tile, op)
            np.testing.assert_array_equal(got[:, 0], red, err_msg=f"reduce N={tile} op={op}")
            np.testing.assert_array_equal(got[:, 1], inc, err_msg=f"inclusive N={tile} op={op}")
            first = np.arange(n) % tile == 0
            if op == 0:
                np.testing.assert_array_equal(got[:, 2], exc, err_msg=f"exclusive N={tile}")
            else:  # rank 0's exclusive value is unspecified for operators without identity
                np.testing.assert_array_equal(got[~first, 2], exc[~first],
                                              err_msg=f"exclusive N={tile} op={op}")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_coalesced_threads(device, coll_mod, seed):
    k = coll_mod.get_function("coalesced")
    block, grid = 64, 2
    n = block * grid
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 4, n).astype(np.int32)
    key[:32] = 1  # one warp entirely active, one entirely inactive
    key[32:64] = 0
    val = rng.integers(-50, 50, n).astype(np.int32)
    out = hip.zeros(13 * n, np.int32)
    k(grid, block, (hip.asarray(key), hip.asarray(val), out))
    got = out.get().reshape(n, 13)
    for w in range(n // 32):
        lanes = np.arange(32 * w, 32 * w + 32)
        members = lanes[key[lanes] & 1 == 1]
        for i in lanes[key[lanes] & 1 == 0]:
            assert (got[i] == -1).all()
        m = members.size
        vals = val[members]
        ballot = int(sum(1 << r for r, x in enumerate(vals) if x > 0))
        ballot = ballot - (1 << 32) if ballot >= 1 << 31 else ballot  # as int32
        for r, i in enumerate(members):
            want = [m, r, vals[0], vals[r - 1] if r > 0 else vals[r],
                    vals[r + 1] if r + 1 < m else vals[r], ballot, int((vals > 0).any()),
                    int((vals > 0).all()), vals.sum(), vals[:r + 1].sum(), vals[:r].sum(), 0, 1]
            np.testing.assert_array_equal(got[i], want, err_msg=f"thread {i}")


@pytest.mark.parametrize("seed", [0, 1])
def test_labeled_and_binary_partition(device, coll_mod, seed):
    k = coll_mod.get_function("partitions")
    block, grid = 96, 2
    n = block * grid
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 5, n).astype(np.int32)
    val = rng.integers(-50, 50, n).astype(np.int32)
    out = hip.zeros(7 * n, np.int32)
    k(grid, block, (hip.asarray(key), hip.asarray(val), out))
    got = out.get().reshape(n, 7)
    for i in range(n):
        lanes = np.arange(i - i % 32, i - i % 32 + 32)
        same = lanes[key[lanes] == key[i]]
        side = lanes[(key[lanes] & 1) == (key[i] & 1)]
        assert got[i, 0] == same.size and got[i, 1] == np.searchsorted(same, i)
        assert got[i, 2] == val[same].sum()
        assert got[i, 3] == side.size and got[i, 4] == np.searchsorted(side, i)
        assert got[i, 5] == val[side].sum()


# ---- thread_block, wide tiles, memcpy_async ---------------------------------------------------------
@pytest.fixture
def block_mod(device):
    return _module("cg/cg_block")


@pytest.mark.parametrize("grid,block", [((2, 1, 1), (64, 1, 1)), ((2, 2, 1), (8, 4, 2)),
                                        ((1, 1, 2), (5, 3, 7)), ((3, 1, 1), (1024, 1, 1))])
def test_thread_block(device, block_mod, grid, block):
    k = block_mod.get_function("block_info")
    nb, nt = int(np.prod(grid)), int(np.prod(block))
    out = hip.zeros(14 * nb * nt, np.uint32)
    k(grid, block, (out,))
    got = out.get().reshape(nb, nt, 14)
    r = np.arange(nt)
    tx, ty, tz = r % block[0], (r // block[0]) % block[1], r // (block[0] * block[1])
    for b in range(nb):
        bx, by, bz = b % grid[0], (b // grid[0]) % grid[1], b // (grid[0] * grid[1])
        g = got[b]
        np.testing.assert_array_equal(g[:, 0], r)
        assert (g[:, 1] == nt).all() and (g[:, 2] == nt).all()
        assert (g[:, 3] == bx).all() and (g[:, 4] == by).all() and (g[:, 5] == bz).all()
        np.testing.assert_array_equal(g[:, 6:9], np.stack([tx, ty, tz], axis=1))
        assert (g[:, 9:12] == block).all()
        np.testing.assert_array_equal(g[:, 12], ((r + 1) % nt) * 7)
        np.testing.assert_array_equal(g[:, 13], ((r + 5) % nt) * 3)


@pytest.mark.parametrize("tile,block", [(64, 128), (128, 256), (256, 1024), (512, 512),
                                        (64, 96)])
def test_tiles_wider_than_a_warp(device, block_mod, tile, block):
    k = block_mod.get_function("big_tiles")
    out = hip.zeros(6 * block, np.uint32)
    k(1, block, (out, tile))
    got = out.get().reshape(block, 6)
    r = np.arange(block)
    rank, base = r % tile, r - r % tile
    np.testing.assert_array_equal(got[:, 0], rank)
    np.testing.assert_array_equal(got[:, 1], r // tile)
    assert (got[:, 2] == -(-block // tile)).all()
    if block % tile:
        return  # a partial last tile: its neighbours beyond the block are undefined
    v = r.copy()
    for round_ in range(3):
        v = v[base + (rank + 1) % tile] + 1000
        np.testing.assert_array_equal(got[:, 3 + round_], v)


def test_tile_barrier_with_an_exited_thread_is_reported(device, block_mod):
    k = block_mod.get_function("big_tile_exit")
    out = hip.zeros(128, np.uint32)
    with pytest.raises(hip.HipError, match=r"thread_block_tile<64>::sync|deadlock"):
        k(1, 128, (out,))
        hip.synchronize()
    hip.synchronize()


@pytest.mark.parametrize("n,block", [(1000, 256), (512, 512), (77, 64)])
def test_memcpy_async_block(device, block_mod, n, block):
    k = block_mod.get_function("staged_copy")
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    out = hip.zeros(n, np.float32)
    grid = -(-n // block)
    k(grid, block, (hip.asarray(x), out, n))
    want = np.empty(n, np.float32)
    for b in range(grid):
        seg = x[b * block:(b + 1) * block]
        want[b * block:b * block + seg.size] = 2 * np.roll(seg, -1)
    np.testing.assert_array_equal(out.get(), want)


def test_memcpy_async_tile(device, block_mod):
    k = block_mod.get_function("staged_copy_tile")
    block, grid = 128, 3
    x = np.arange(block * grid, dtype=np.int32) * 5
    out = hip.zeros(block * grid, np.int32)
    k(grid, block, (hip.asarray(x), out))
    np.testing.assert_array_equal(out.get(), x[np.arange(block * grid) ^ 1])


# ---- the CUDA samples' reductions and a block scan ----------------------------------------------------
@pytest.fixture
def samples_mod(device):
    return _module("cg/cg_samples")


@pytest.mark.parametrize("name,threads,per_thread", [
    ("reduce0<float>", 256, 1), ("reduce1<float>", 256, 1), ("reduce2<float>", 256, 1),
    ("reduce3<float>", 256, 2), ("reduce4<float, 256>", 256, 2), ("reduce5<float, 256>", 256, 2),
    ("reduce6<float, 256, true>", 256, 8), ("reduce6<float, 256, false>", 256, 8),
    ("reduce6<int, 128, false>", 128, 8), ("reduce_cg<float>", 256, 4)])
@pytest.mark.parametrize("n", [1 << 16, 100_003])
def test_sample_reductions(device, samples_mod, name, threads, per_thread, n):
    if "true" in name and n & (n - 1):
        pytest.skip("nIsPow2 kernel for a power-of-two n")
    k = samples_mod.get_function(name)
    dtype = np.int32 if "<int" in name else np.float32
    x = np.random.default_rng(n).integers(-8, 8, n).astype(dtype)
    grid = -(-n // (threads * per_thread))
    partial = hip.zeros(grid, dtype)
    smem = 0 if name.startswith("reduce_cg") else threads * x.itemsize
    k(grid, threads, (hip.asarray(x), partial, n), shared_mem=smem)
    assert partial.get().sum() == x.sum()


@pytest.mark.parametrize("block", [64, 256, 1024])
def test_block_scan(device, samples_mod, block):
    k = samples_mod.get_function("block_scan")
    grid = 3
    x = np.random.default_rng(block).integers(-100, 100, grid * block).astype(np.int32)
    data = hip.asarray(x)
    sums = hip.zeros(grid, np.int32)
    k(grid, block, (data, sums), shared_mem=4 * 32)
    want = np.cumsum(x.reshape(grid, block), axis=1)
    np.testing.assert_array_equal(data.get().reshape(grid, block), want)
    np.testing.assert_array_equal(sums.get(), want[:, -1])


# ---- grid_group::sync with cooperative launches ----------------------------------------------------
GRID_SCRIPT = r"""
import sys
sys.path.insert(0, {here!r})
import numpy as np
import openhip as hip
from kernel_files import load_kernel
m = load_kernel("cg/cg_grid")
dev = hip.get_device()
limit = dev.properties.extra["cooperative_max_blocks"] if dev.platform == "cpu" else 2
print("LIMIT", limit)
{body}
print("DONE")
"""


def _run_grid(body: str, threads: int = 4) -> str:
    import os
    import subprocess
    import textwrap
    from pathlib import Path

    env = dict(os.environ, OPENHIP_CPU_THREADS=str(threads))
    script = GRID_SCRIPT.format(here=str(Path(__file__).parent), body=textwrap.dedent(body))
    proc = subprocess.run([os.sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=240, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "DONE" in proc.stdout, proc.stdout + proc.stderr
    return proc.stdout


def test_grid_sync_sum(device):
    if device.platform != "cpu":
        pytest.skip("cooperative launches are implemented on the CPU platform")
    out = _run_grid(r"""
        k = m.get_function("grid_sum")
        for grid, block, n in [(limit, 256, 100_000), (limit, 64, 1000), (1, 128, 5000),
                               ((2, 2, 1), (16, 2, 2), 3000)]:
            nb = int(np.prod(grid)) if not isinstance(grid, int) else grid
            nt = nb * (int(np.prod(block)) if not isinstance(block, int) else block)
            x = np.random.default_rng(n).integers(-8, 8, n).astype(np.float32)
            partial = hip.zeros(nb, np.float32)
            total = hip.zeros(1, np.float32)
            seen = hip.zeros(nt, np.float32)
            info = hip.zeros(4 * nt, np.uint64)
            k(grid, block, (hip.asarray(x), partial, total, seen, info, n), cooperative=True)
            assert total.get()[0] == x.sum(), (total.get(), x.sum())
            assert (seen.get() == x.sum()).all()
            inf = info.get().reshape(nt, 4)
            assert (inf[:, 0] == np.arange(nt)).all() and (inf[:, 1] == nt).all()
            assert (inf[:, 2] == np.arange(nt) // (nt // nb)).all() and (inf[:, 3] == 1).all()
        """)
    assert "LIMIT 4" in out


def test_grid_sync_rounds(device):
    if device.platform != "cpu":
        pytest.skip("cooperative launches are implemented on the CPU platform")
    _run_grid(r"""
        k = m.get_function("grid_rounds")
        for nb in (2, 3, limit):
            for block in (32, 256):
                counter = hip.zeros(1, np.uint32)
                out = hip.zeros(6 * nb, np.uint32)
                k(nb, block, (counter, out, 6), cooperative=True)
                got = out.get().reshape(6, nb)
                want = (np.arange(6)[:, None] + 1) * nb
                assert (got == want).all(), got
        """, threads=4)


def test_cooperative_launch_too_large_and_errors(device):
    if device.platform != "cpu":
        pytest.skip("cooperative launches are implemented on the CPU platform")
    _run_grid(r"""
        import pytest
        k = m.get_function("grid_rounds")
        counter = hip.zeros(1, np.uint32)
        out = hip.zeros(64, np.uint32)
        with pytest.raises(hip.HipError) as e:
            k(limit + 1, 32, (counter, out, 1), cooperative=True)
        assert e.value.status == "hipErrorCooperativeLaunchTooLarge", e.value
        hip.synchronize()
        assert counter.get()[0] == 0  # nothing ran
        # grid.sync() in a launch that is not cooperative: an error, not a hang
        with pytest.raises(hip.HipError, match="not cooperative"):
            k(2, 32, (counter, out, 1))
            hip.synchronize()
        hip.synchronize()
        # a block that leaves before the grid barrier: reported
        kx = m.get_function("grid_exit")
        for nb in (2, limit):
            with pytest.raises(hip.HipError, match=r"deadlock at this_grid\(\).sync\(\)"):
                kx(nb, 64, (out,), cooperative=True)
                hip.synchronize()
            hip.synchronize()
        # the device still works: a correct cooperative launch after the failures
        counter = hip.zeros(1, np.uint32)
        k(limit, 32, (counter, out, 2), cooperative=True)
        assert (out.get()[:2 * limit] == np.repeat([limit, 2 * limit], limit)).all()
        """, threads=4)
