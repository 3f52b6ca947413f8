"""openhip.numpy unique_all / unique_counts / unique_inverse / unique_values against numpy:
sorted values, first-occurrence indices, inverse of the input's shape, counts; every NaN
distinct; strided and empty input; bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp


def reference(a: np.ndarray):
    return np.unique(a, return_index=True, return_inverse=True, return_counts=True,
                     equal_nan=False)


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_unique_all(device, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, (4, 7)).astype(dtype)
    if dtype == "float32":
        a[0, 1] = a[2, 2] = np.nan
        a[1, 1] = -0.0
    d = hnp.asarray(a, device=device)
    for dv, v in ((d, a), (d.T, a.T)):
        got = hnp.unique_all(dv)
        values, index, inverse, counts = reference(v)
        np.testing.assert_array_equal(got.values.get(), values)
        np.testing.assert_array_equal(got.indices.get(), index)
        assert got.inverse_indices.shape == v.shape
        np.testing.assert_array_equal(got.inverse_indices.get(), inverse.reshape(v.shape))
        np.testing.assert_array_equal(got.counts.get(), counts)
        np.testing.assert_array_equal(hnp.unique_values(dv).get(), values)
        c = hnp.unique_counts(dv)
        np.testing.assert_array_equal(c.counts.get(), counts)
        inv = hnp.unique_inverse(dv)
        np.testing.assert_array_equal(inv.values.get()[inv.inverse_indices.get()], v)


def test_nans_are_distinct(device):
    a = np.array([np.nan, 1.0, np.nan, 1.0])
    got = hnp.unique_counts(hnp.asarray(a, device=device))
    np.testing.assert_array_equal(got.values.get(), [1.0, np.nan, np.nan])
    np.testing.assert_array_equal(got.counts.get(), [2, 1, 1])


def test_large(device):
    a = np.random.default_rng(1).integers(-1000, 1000, 300000).astype(np.int64)
    got = hnp.unique_all(hnp.asarray(a, device=device))
    values, index, inverse, counts = reference(a)
    np.testing.assert_array_equal(got.values.get(), values)
    np.testing.assert_array_equal(got.indices.get(), index)
    np.testing.assert_array_equal(got.inverse_indices.get(), inverse)
    np.testing.assert_array_equal(got.counts.get(), counts)


def test_empty(device):
    got = hnp.unique_all(hnp.asarray(np.zeros((0, 3), np.float32), device=device))
    assert got.values.shape == got.indices.shape == got.counts.shape == (0,)
    assert got.inverse_indices.shape == (0, 3)


def test_bad_input(device):
    with pytest.raises(TypeError):
        hnp.unique_values([1, 2, 2])
    with pytest.raises(TypeError):
        hnp.unique_values(hnp.asarray(np.ones(3, np.complex64), device=device))
