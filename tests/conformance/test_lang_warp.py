"""Warp functions (tests/kernels/warp_*.hip) against a numpy model of CUDA's documented
semantics, for the device's warp size, every lane and every sub-warp width."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import load_kernel as load

import openhip as hip


def model(op: str, n: int, warp: int, width: int, arg: int) -> np.ndarray:
    """Index of the lane each thread reads (CUDA programming guide semantics)."""
    tid = np.arange(n)
    lane = tid % warp
    base = tid - lane
    seg = (lane // width) * width  # start of the thread's segment within the warp
    if op == "shfl":
        return base + seg + (arg % width)
    if op == "up":
        return np.where(lane % width - arg < 0, tid, tid - arg)
    if op == "down":
        return np.where(lane % width + arg >= width, tid, tid + arg)
    if op == "xor":
        src = lane ^ arg
        return np.where(src >= seg + width, tid, base + src)
    raise ValueError(op)


def widths(warp: int) -> list[int]:
    return [1 << k for k in range(warp.bit_length()) if (1 << k) <= warp]


@pytest.fixture(scope="module")
def shfl_mod():
    return load("warp_shfl")


@pytest.mark.parametrize("tname,dtype", [("int", np.int32), ("unsigned int", np.uint32),
                                         ("float", np.float32), ("double", np.float64),
                                         ("long long", np.int64)])
def test_shfl_types_full_width(device, shfl_mod, tname, dtype):
    warp = device.properties.warp_size
    k = shfl_mod.get_function(f"shfl_all<{tname}>")
    n = 4 * warp
    rng = np.random.default_rng(1)
    if np.issubdtype(dtype, np.integer):
        host = rng.integers(-(2 ** 30), 2 ** 30, n).astype(dtype)
        if dtype == np.int64:
            host = host * (1 << 31) + 7  # use the high word too
    else:
        host = rng.standard_normal(n).astype(dtype)
    x = hip.asarray(host)
    for src, delta, mask in [(0, 1, 1), (5, 3, 7), (warp - 1, warp // 2, warp - 1), (-1, 0, 0),
                             (warp + 2, warp, warp)]:
        out = hip.zeros(4 * n, dtype)
        k((2,), (2 * warp,), (x, out, src, delta, mask, warp))
        got = out.get().reshape(4, n)
        for row, (op, arg) in enumerate([("shfl", src), ("up", delta), ("down", delta),
                                         ("xor", mask)]):
            np.testing.assert_array_equal(got[row], host[model(op, n, warp, warp, arg)],
                                          err_msg=f"{op} arg={arg}")


def test_shfl_every_width(device):
    warp = device.properties.warp_size
    mod = load("warp_shfl_width")
    k = mod.get_function("shfl_widths")
    n = 2 * warp
    host = np.arange(n, dtype=np.float64) * 1.5 + 0.25
    x = hip.asarray(host)
    nw = len(widths(warp))
    for src, delta, mask in [(0, 1, 1), (1, 2, 3), (3, 1, 2), (-2, 5, 5), (7, 16, 16),
                             (33, 31, 31)]:
        out = hip.zeros(4 * nw * n, np.float64)
        k(1, n, (x, out, src, delta, mask))
        got = out.get().reshape(nw, 4, n)
        for kk, w in enumerate(widths(warp)):
            for row, (op, arg) in enumerate([("shfl", src), ("up", delta), ("down", delta),
                                             ("xor", mask)]):
                np.testing.assert_array_equal(got[kk, row], host[model(op, n, warp, w, arg)],
                                              err_msg=f"{op} arg={arg} width={w}")


def test_shfl_half(device):
    warp = device.properties.warp_size
    mod = load("warp_shfl_width")
    k = mod.get_function("shfl_half")
    n = 2 * warp
    host = (np.arange(n) - 20).astype(np.float16)
    for delta, w in [(1, warp), (3, 8), (warp // 2, warp), (2, 4)]:
        out = hip.zeros(2 * n, np.float16)
        k(1, n, (hip.asarray(host), out, delta, w))
        got = out.get().reshape(2, n)
        np.testing.assert_array_equal(got[0], host[model("down", n, warp, w, delta)])
        np.testing.assert_array_equal(got[1], host[model("xor", n, warp, w, delta)])


def test_warp_reductions_every_lane(device, shfl_mod):
    warp = device.properties.warp_size
    k = shfl_mod.get_function("warp_sums")
    n = 8 * warp
    host = np.arange(n, dtype=np.int32) * 3 - 100
    down, xor = hip.zeros(n, np.int32), hip.zeros(n, np.int32)
    k(2, 4 * warp, (hip.asarray(host), down, xor))
    sums = host.reshape(-1, warp).sum(axis=1)
    np.testing.assert_array_equal(down.get()[::warp], sums)  # lane 0 of each warp
    np.testing.assert_array_equal(xor.get(), np.repeat(sums, warp))  # every lane


@pytest.mark.parametrize("tname,dtype", [("int", np.int32), ("float", np.float32),
                                         ("double", np.float64)])
def test_shfl_sync(device, tname, dtype):
    warp = device.properties.warp_size
    mod = load("warp_shfl_sync")
    k = mod.get_function(f"shfl_sync_all<{tname}>")
    n = 2 * warp
    host = (np.arange(n) * 5 - 17).astype(dtype)
    x = hip.asarray(host)
    for w in widths(warp):
        for src, delta, mask in [(1, 1, 1), (w - 1, w // 2, w // 2 if w > 1 else 0), (-1, 3, 5)]:
            out = hip.zeros(4 * n, dtype)
            k(1, n, (x, out, src, delta, mask, w))
            got = out.get().reshape(4, n)
            for row, (op, arg) in enumerate([("shfl", src), ("up", delta), ("down", delta),
                                             ("xor", mask)]):
                np.testing.assert_array_equal(got[row], host[model(op, n, warp, w, arg)],
                                              err_msg=f"{op} arg={arg} width={w}")
    k2 = mod.get_function("shfl_sync_lower_half")
    out = hip.zeros(n, np.int32)
    k2(1, n, (hip.asarray(np.arange(n, dtype=np.int32)), out))
    lane = np.arange(n) % warp
    half = warp // 2
    expect = np.where(lane < half, np.where(lane + 1 < half, np.arange(n) + 1, np.arange(n)), -1)
    np.testing.assert_array_equal(out.get(), expect)


def _expected_votes(pred: np.ndarray, n: int, nthreads: int, warp: int):
    alive = np.arange(nthreads) < n
    ballots = np.zeros(nthreads, np.uint64)
    active = np.zeros(nthreads, np.uint64)
    for w0 in range(0, nthreads, warp):
        b = a = 0
        for lane in range(warp):
            t = w0 + lane
            if t < nthreads and alive[t]:
                a |= 1 << lane
                if pred[t]:
                    b |= 1 << lane
        ballots[w0:w0 + warp] = b
        active[w0:w0 + warp] = a
    return ballots[:n], active[:n]


@pytest.mark.parametrize("n", [100, 64, 37, 1])
def test_votes(device, n):
    warp = device.properties.warp_size
    mod = load("warp_vote_ballot")
    nthreads = 128
    rng = np.random.default_rng(n)
    pred = (rng.random(nthreads) < 0.5).astype(np.int32)
    pred[:warp] = 1  # one warp all true (when it is complete)
    ballot, any_, all_ = hip.zeros(n, np.uint64), hip.zeros(n, np.int32), hip.zeros(n, np.int32)
    active = hip.zeros(n, np.uint64)
    mod.get_function("votes")(1, nthreads, (hip.asarray(pred), ballot, any_, all_, active, n))
    eb, ea = _expected_votes(pred, n, nthreads, warp)
    np.testing.assert_array_equal(ballot.get(), eb)
    np.testing.assert_array_equal(active.get(), ea)
    np.testing.assert_array_equal(any_.get(), (eb != 0).astype(np.int32))
    np.testing.assert_array_equal(all_.get(), (eb == ea).astype(np.int32))

    even = hip.zeros(n, np.uint64)
    ballot2, any2, all2 = hip.zeros(n, np.uint64), hip.zeros(n, np.int32), hip.zeros(n, np.int32)
    mod.get_function("votes_sync")(1, nthreads, (hip.asarray(pred), ballot2, any2, all2, even, n))
    np.testing.assert_array_equal(ballot2.get(), eb)
    np.testing.assert_array_equal(any2.get(), (eb != 0).astype(np.int32))
    np.testing.assert_array_equal(all2.get(), (eb == ea).astype(np.int32))
    lane = np.arange(n) % warp
    expect_even = np.where(lane % 2 == 0, eb & np.uint64(0x5555555555555555), 0)
    np.testing.assert_array_equal(even.get(), expect_even.astype(np.uint64))


def test_reduce_and_match(device):
    warp = device.properties.warp_size
    mod = load("warp_reduce_match")
    n = 2 * warp
    rng = np.random.default_rng(3)
    host = rng.integers(0, 2 ** 31, n).astype(np.uint32)
    host[:warp] = host[:warp] % 1000000 + 5000000  # first warp: same value / 10^6
    out = hip.zeros(6 * n, np.uint32)
    many, mall, mpred = hip.zeros(n, np.uint64), hip.zeros(n, np.uint64), hip.zeros(n, np.int32)
    mod.get_function("reduce_match")(1, n, (hip.asarray(host), out, many, mall, mpred))
    got = out.get().reshape(6, n)
    w = host.reshape(-1, warp)
    expect = [w.sum(axis=1, dtype=np.uint64).astype(np.uint32), w.min(axis=1), w.max(axis=1),
              np.bitwise_and.reduce(w, axis=1), np.bitwise_or.reduce(w, axis=1),
              np.bitwise_xor.reduce(w, axis=1)]
    for row in range(6):
        np.testing.assert_array_equal(got[row], np.repeat(expect[row], warp), err_msg=str(row))
    lanes = np.arange(warp, dtype=np.uint64)
    for t in range(n):
        ww = w[t // warp]
        same = (ww % 4) == (host[t] % 4)
        assert int(many.get()[t]) == int(np.bitwise_or.reduce(np.where(same, 1 << lanes, 0)))
    full = (1 << warp) - 1
    assert np.all(mall.get()[:warp] == full) and np.all(mpred.get()[:warp] == 1)
    assert np.all(mall.get()[warp:] == 0) and np.all(mpred.get()[warp:] == 0)
