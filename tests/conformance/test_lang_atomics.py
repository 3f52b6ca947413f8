"""Atomics (tests/kernels/atomics_*.hip, atomic_inc_dec_cas.hip) under real contention, checked
exactly against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import load_kernel as load

import openhip as hip

GRID, BLOCK = 64, 256
N = GRID * BLOCK


def test_integer_atomics(device):
    mod = load("atomics_int")
    tid = np.arange(N, dtype=np.int64)
    ctr = np.array([5, 100, -1, 0, 0, 10 ** 6, -(10 ** 6), -1], dtype=np.int32)
    uctr = np.array([0, 0, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0, 0], dtype=np.uint32)
    ull = np.array([0, 0xFFFFFFFFFFFFFFFF, 0, 0xFFFFFFFFFFFFFFFF, 0, 0], dtype=np.uint64)
    ll = np.array([0, 0], dtype=np.int64)
    d_ctr, d_u, d_ull, d_ll = (hip.asarray(a) for a in (ctr, uctr, ull, ll))
    old = hip.zeros(N, np.int32)
    mod.get_function("atomics_int")(GRID, BLOCK, (d_ctr, d_u, d_ull, d_ll, old))
    c, u, l8, s8 = d_ctr.get(), d_u.get(), d_ull.get(), d_ll.get()
    assert c[0] == 5 + int((tid % 7).sum())
    assert c[1] == 100 - 3 * N
    assert np.uint32(c[2]) == np.uint32(1 << 31)  # bits 0..30 cleared
    assert np.uint32(c[3]) == np.uint32((1 << 29) - 1)
    assert c[4] == int(np.bitwise_xor.reduce(tid))
    assert c[5] == 1000 - (N - 1)
    assert c[6] == (N - 1) - 1000
    # exchange: the old values plus the final value are a permutation of {-1} U tids
    olds = np.sort(np.append(old.get(), c[7]))
    np.testing.assert_array_equal(olds, np.sort(np.append(tid, -1)).astype(np.int32))
    assert u[0] == (2 * N) % 2 ** 32
    assert u[1] == (-N) % 2 ** 32
    assert u[2] == 5
    assert u[3] == 3 * (N - 1)
    assert u[4] == 0
    assert u[5] == 0xFFFFFFFF
    assert u[6] == int(np.bitwise_xor.reduce((tid * 2654435761) % 2 ** 32))
    assert l8[0] == 0x100000001 * N
    assert l8[1] == 0xFFFFFFFF00000000
    assert l8[2] == (N - 1) << 40
    assert l8[3] == 0 and l8[4] == 0xFFFFFFFFFFFFFFFF
    assert l8[5] == int(np.bitwise_xor.reduce(tid << 20))
    assert s8[0] == -(N - 1) * 1000000007 and s8[1] == (N - 1) * 1000000007


def test_histogram(device):
    mod = load("atomics_int")
    rng = np.random.default_rng(0)
    data = rng.integers(0, 256, 1 << 20).astype(np.uint8)
    data[: 1 << 16] = 7  # a hot bin
    bins = hip.zeros(256, np.uint32)
    mod.get_function("histogram")(32, 256, (hip.asarray(data), bins, data.size))
    np.testing.assert_array_equal(bins.get(), np.bincount(data, minlength=256).astype(np.uint32))


def test_float_atomics(device):
    mod = load("atomics_float")
    rng = np.random.default_rng(1)
    xf = (rng.integers(-1000, 1000, N) * 0.25).astype(np.float32)  # exact sums in float
    xd = (rng.integers(-10 ** 6, 10 ** 6, N) * 0.125).astype(np.float64)
    f = hip.asarray(np.array([0, 0, np.inf, -np.inf, 0], np.float32))
    d = hip.asarray(np.array([0, 0, np.inf, -np.inf, 0], np.float64))
    mod.get_function("atomics_float")(GRID, BLOCK, (hip.asarray(xf), hip.asarray(xd), f, d, N))
    fh, dh = f.get(), d.get()
    assert fh[0] == xf.astype(np.float64).sum()
    assert dh[0] == xd.sum()
    assert fh[1] == -0.5 * N and dh[1] == -0.25 * N
    assert fh[2] == xf.min() and fh[3] == xf.max()
    assert dh[2] == xd.min() and dh[3] == xd.max()
    assert fh[4] == 7.0 and dh[4] == -3.0


def test_atomic_add_returns_old(device):
    mod = load("atomics_float")
    acc = hip.zeros(1, np.float32)
    olds = hip.zeros(N, np.float32)
    mod.get_function("atomic_add_ret")(GRID, BLOCK, (acc, olds))
    assert acc.get()[0] == N
    np.testing.assert_array_equal(np.sort(olds.get()), np.arange(N, dtype=np.float32))


def _inc(old, limit):
    return 0 if old >= limit else old + 1


def _dec(old, limit):
    return limit if (old == 0 or old > limit) else old - 1


def test_inc_dec_wrap(device):
    mod = load("atomic_inc_dec_cas")
    limit = 17
    c = hip.asarray(np.array([0, 0], np.uint32))
    olds = hip.zeros(N, np.uint32)
    mod.get_function("inc_dec")(GRID, BLOCK, (c, olds, limit))
    ch = c.get()
    assert ch[0] == N % (limit + 1)
    v = 0
    for _ in range(N):
        v = _dec(v, limit)
    assert ch[1] == v
    np.testing.assert_array_equal(np.bincount(olds.get(), minlength=limit + 1),
                                  np.bincount(np.arange(N) % (limit + 1), minlength=limit + 1))


@pytest.mark.parametrize("limit", [0, 1, 5, 0xFFFFFFFF])
def test_inc_dec_single_values(device, limit):
    mod = load("atomic_inc_dec_cas")
    start = np.array([0, 1, 4, 5, 6, 100, 0xFFFFFFFE, 0xFFFFFFFF], np.uint32)
    n = start.size
    c = hip.zeros(2 * n, np.uint32)
    out = hip.zeros(2 * n, np.uint32)
    mod.get_function("inc_dec_single")(1, n, (c, hip.asarray(start), out, limit))
    ch, oh = c.get(), out.get()
    np.testing.assert_array_equal(oh[0::2], start)
    np.testing.assert_array_equal(oh[1::2], start)
    np.testing.assert_array_equal(ch[0::2], [_inc(int(s), limit) for s in start])
    np.testing.assert_array_equal(ch[1::2], [_dec(int(s), limit) for s in start])


def test_cas(device):
    mod = load("atomic_inc_dec_cas")
    ci, cu, cl = hip.zeros(1, np.int32), hip.zeros(1, np.uint32), hip.zeros(1, np.uint64)
    mod.get_function("cas_counter")(16, 128, (ci, cu, cl))
    assert ci.get()[0] == 16 * 128 and cu.get()[0] == 3 * 16 * 128
    assert cl.get()[0] == (16 * 128) << 32
    lock, value = hip.zeros(1, np.int32), hip.zeros(1, np.int32)
    mod.get_function("cas_lock")(200, 32, (lock, value))
    assert value.get()[0] == 200 and lock.get()[0] == 0
