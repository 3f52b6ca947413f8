"""Creation functions against numpy: asarray (and its copy rules), empty/zeros/ones/full and
*_like, arange, linspace, eye, tril/triu, meshgrid, from_dlpack; bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp


def test_asarray_defaults(device):
    assert hnp.asarray([1, 2], device=device).dtype == hnp.int64
    assert hnp.asarray([1.0, 2], device=device).dtype == hnp.float64
    assert hnp.asarray([True], device=device).dtype == hnp.bool
    assert hnp.asarray([1j], device=device).dtype == hnp.complex128
    assert hnp.asarray(np.ones(2, np.float32), device=device).dtype == hnp.float32
    np.testing.assert_array_equal(hnp.asarray([[1, 2], [3, 4]], dtype=hnp.uint8,
                                              device=device).get(), [[1, 2], [3, 4]])
    with pytest.raises(OverflowError):
        hnp.asarray(300, dtype=hnp.int8, device=device)
    with pytest.raises(TypeError):
        hnp.asarray([1], dtype="U1", device=device)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "int64", "float16",
                                   "float32", "float64", "complex64", "complex128"])
def test_full_zeros_ones(device, dtype):
    dt = getattr(hnp, dtype)
    np.testing.assert_array_equal(hnp.zeros((3, 2), dtype=dt, device=device).get(),
                                  np.zeros((3, 2), dt))
    np.testing.assert_array_equal(hnp.ones(5, dtype=dt, device=device).get(), np.ones(5, dt))
    v = True if dtype == "bool" else 3
    np.testing.assert_array_equal(hnp.full((2, 2), v, dtype=dt, device=device).get(),
                                  np.full((2, 2), v, dt))
    x = hnp.empty((4,), dtype=dt, device=device)
    assert x.shape == (4,) and x.dtype == dt
    assert hnp.zeros_like(x).dtype == dt and hnp.ones_like(x).get().tolist() == [1] * 4
    np.testing.assert_array_equal(hnp.full_like(x, 1).get(), np.ones(4, dt))
    assert hnp.empty_like(x, dtype=hnp.int8).dtype == hnp.int8


def test_full_dtype_from_value(device):
    assert hnp.full(2, 1.5, device=device).dtype == hnp.float64
    assert hnp.full(2, 7, device=device).dtype == hnp.int64
    assert hnp.full(2, False, device=device).dtype == hnp.bool
    assert hnp.zeros((0, 3), device=device).shape == (0, 3)
    with pytest.raises(ValueError):
        hnp.zeros((-1,), device=device)
    with pytest.raises(OverflowError):
        hnp.full(2, 1000, dtype=hnp.int8, device=device)


@pytest.mark.parametrize("args,kw", [((10,), {}), ((2, 11, 3), {}), ((5, -5, -2), {}),
                                     ((0.5, 3.0, 0.25), {}), ((1, 2, 0.1), {}),
                                     ((10,), {"dtype": "float32"}), ((3, 9), {"dtype": "uint8"}),
                                     ((0,), {}), ((5, 1), {})])
def test_arange(device, args, kw):
    want = np.arange(*args, **kw)
    got = hnp.arange(*args, device=device, **{k: getattr(hnp, v) for k, v in kw.items()})
    assert got.shape == want.shape
    np.testing.assert_allclose(got.get(), want, rtol=1e-12)


def test_linspace_eye_tri(device):
    for num, endpoint in [(5, True), (5, False), (1, True), (0, True), (50, True)]:
        np.testing.assert_allclose(
            hnp.linspace(-1, 2, num, endpoint=endpoint, device=device).get(),
            np.linspace(-1, 2, num, endpoint=endpoint), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(hnp.linspace(0, 1 + 2j, 4, device=device).get(),
                               np.linspace(0, 1 + 2j, 4))
    assert hnp.linspace(0, 1, 10, device=device).get()[-1] == 1.0
    for n, m, k in [(3, None, 0), (3, 5, 1), (4, 2, -1), (0, 0, 0)]:
        np.testing.assert_array_equal(hnp.eye(n, m, k=k, device=device).get(), np.eye(n, m, k))
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    x = hnp.asarray(a, device=device)
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(hnp.tril(x, k=k).get(), np.tril(a, k))
        np.testing.assert_array_equal(hnp.triu(x, k=k).get(), np.triu(a, k))
    np.testing.assert_array_equal(hnp.triu(x.mT).get(), np.triu(np.swapaxes(a, -1, -2)))
    with pytest.raises(ValueError):
        hnp.tril(hnp.asarray([1, 2], device=device))
    with pytest.raises(TypeError):
        hnp.linspace(0, 1, 5, dtype=hnp.int32, device=device)


def test_meshgrid(device):
    a, b = np.arange(3.0), np.arange(4.0)
    for indexing in ("xy", "ij"):
        got = hnp.meshgrid(hnp.asarray(a, device=device), hnp.asarray(b, device=device),
                           indexing=indexing)
        for g, w in zip(got, np.meshgrid(a, b, indexing=indexing), strict=True):
            np.testing.assert_array_equal(g.get(), w)
    with pytest.raises(ValueError):
        hnp.meshgrid(hnp.asarray(a, device=device), indexing="yx")
