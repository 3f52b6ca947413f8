"""HIP vector types (tests/kernels/vector_types.hip): layout, make_*, members and operators."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import KERNELS

import openhip as hip


@pytest.fixture(scope="module")
def mod():
    return hip.Module((KERNELS / "vector_types.hip").read_text(), name="vector_types.hip")


def test_layout(device, mod):
    out = hip.zeros(30, np.int32)
    mod.get_function("layout")(1, 1, (out,))
    sizes = [1, 2, 3, 4, 4, 6, 8, 12, 16, 16, 8, 12, 16, 16, 24, 16, 16, 4]
    aligns = [2, 4, 4, 8, 4, 16, 8, 4, 16, 16, 8, 16]
    assert out.get().tolist() == sizes + aligns


def test_operators(device, mod):
    n = 256
    rng = np.random.default_rng(0)
    a = rng.uniform(-10, 10, (n, 4)).astype(np.float32)
    b = rng.uniform(0.5, 10, (n, 4)).astype(np.float32)
    ia = rng.integers(-1000, 1000, (n, 4)).astype(np.int32)
    ib = rng.integers(1, 50, (n, 4)).astype(np.int32)
    ib[0] = ia[0]  # equal vectors
    out, iout = hip.zeros(8 * n * 4, np.float32), hip.zeros(8 * n * 4, np.int32)
    mod.get_function("vec_ops")(1, n, (hip.asarray(a), hip.asarray(b), out, hip.asarray(ia),
                                      hip.asarray(ib), iout, n))
    g = out.get().reshape(8, n, 4)
    np.testing.assert_array_equal(g[0], a + b)
    np.testing.assert_array_equal(g[1], a - b)
    np.testing.assert_array_equal(g[2], a * b)
    np.testing.assert_array_equal(g[3], a / b)
    np.testing.assert_allclose(g[4], a * np.float32(2) + np.float32(1), rtol=1e-6)  # may be an FMA
    np.testing.assert_array_equal(g[5], (a + b) * np.float32(0.5))
    np.testing.assert_array_equal(g[6], -a)
    np.testing.assert_array_equal(g[7], a[:, ::-1])
    gi = iout.get().reshape(8, n, 4)
    np.testing.assert_array_equal(gi[0], ia + ib)
    np.testing.assert_array_equal(gi[1], ia * ib)
    np.testing.assert_array_equal(gi[2], np.trunc(ia / ib).astype(np.int32))
    np.testing.assert_array_equal(gi[3], np.fmod(ia, ib))
    np.testing.assert_array_equal(gi[4], (ia & ib) | (ia ^ ib))
    np.testing.assert_array_equal(gi[5], (ia << 2) >> 1)
    np.testing.assert_array_equal(gi[6], ~ia)
    eq = (ia == ib).all(axis=1).astype(np.int32)
    np.testing.assert_array_equal(gi[7][:, 0], eq)
    np.testing.assert_array_equal(gi[7][:, 1], 1 - eq)


def test_vector_loads_stores(device, mod):
    n = 100
    a = np.arange(2 * n, dtype=np.float32)
    c = np.arange(3 * n, dtype=np.float32)
    e = np.arange(2 * n, dtype=np.float64)
    b, d, f = hip.zeros(2 * n, np.float32), hip.zeros(3 * n, np.float32), hip.zeros(2 * n, np.float64)
    mod.get_function("vec_copy")(1, n, (hip.asarray(a), b, hip.asarray(c), d, hip.asarray(e), f, n))
    np.testing.assert_array_equal(b.get().reshape(n, 2), a.reshape(n, 2)[:, ::-1])
    np.testing.assert_array_equal(d.get().reshape(n, 3), c.reshape(n, 3) + [1, 2, 3])
    np.testing.assert_array_equal(f.get().reshape(n, 2), e.reshape(n, 2) * [2, 3])
