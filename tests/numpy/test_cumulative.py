"""openhip.numpy cumulative_sum / cumulative_prod against numpy: every axis of contiguous and
transposed arrays, include_initial, dtype rules, long rows (the three-launch path), empty
arrays, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp


@pytest.mark.parametrize("include_initial", [False, True])
def test_axes_and_views(device, include_initial):
    a = np.random.default_rng(0).standard_normal((9, 40, 33)).astype(np.float32)
    d = hnp.asarray(a, device=device)
    pairs = [(d, a), (hnp.permute_dims(d, (2, 1, 0)), a.transpose(2, 1, 0)),
             (d[:, ::-3, 1:], a[:, ::-3, 1:])]
    for dv, v in pairs:
        for axis in (0, 1, 2, -1):
            got = hnp.cumulative_sum(dv, axis=axis, include_initial=include_initial)
            want = np.cumulative_sum(v, axis=axis, include_initial=include_initial)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-4)


def test_prod_and_dtypes(device):
    x = np.array([1, 2, 3, 4.0], np.float64)
    got = hnp.cumulative_prod(hnp.asarray(x, device=device), include_initial=True)
    np.testing.assert_array_equal(got.get(), [1, 1, 2, 6, 24])
    b = np.array([True, True, False, True])
    got = hnp.cumulative_sum(hnp.asarray(b, device=device))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.get(), [1, 2, 2, 3])
    u = np.array([[250, 10], [7, 1]], np.uint8)
    got = hnp.cumulative_sum(hnp.asarray(u, device=device), axis=0)
    assert got.dtype == np.uint64
    np.testing.assert_array_equal(got.get(), np.cumulative_sum(u, axis=0, dtype=np.uint64))
    got = hnp.cumulative_sum(hnp.asarray(u, device=device), axis=1, dtype=hnp.uint8)
    np.testing.assert_array_equal(got.get(), np.cumulative_sum(u, axis=1, dtype=np.uint8))


def test_long_rows(device):
    rng = np.random.default_rng(1)
    b = rng.standard_normal(1_000_003)
    got = hnp.cumulative_sum(hnp.asarray(b, device=device)).get()
    np.testing.assert_allclose(got, np.cumsum(b), rtol=1e-9, atol=1e-9)
    i = rng.integers(-5, 5, (3, 300001)).astype(np.int64)
    got = hnp.cumulative_sum(hnp.asarray(i, device=device), axis=1, include_initial=True)
    np.testing.assert_array_equal(got.get(), np.cumulative_sum(i, axis=1, include_initial=True))


def test_empty(device):
    e = hnp.asarray(np.zeros((0, 3), np.float64), device=device)
    assert hnp.cumulative_sum(e, axis=0).shape == (0, 3)
    got = hnp.cumulative_sum(e, axis=0, include_initial=True)
    np.testing.assert_array_equal(got.get(), np.zeros((1, 3)))


def test_bad_input(device):
    d = hnp.asarray(np.ones((2, 3)), device=device)
    with pytest.raises(ValueError, match="axis"):
        hnp.cumulative_sum(d)
    with pytest.raises(np.exceptions.AxisError):
        hnp.cumulative_sum(d, axis=2)
    with pytest.raises(TypeError):
        hnp.cumulative_prod(d, axis=(0,))
    with pytest.raises(TypeError):
        hnp.cumulative_sum(d, axis=0, include_initial=1)
    with pytest.raises(ValueError):
        hnp.cumulative_sum(hnp.asarray(np.float64(1.0), device=device))
