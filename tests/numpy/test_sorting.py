"""openhip.numpy sort / argsort against numpy's stable sort: special floats (NaN last, +-0,
+-inf), descending stable order, every axis of views, integer/bool/half dtypes, a large
array, and bad input."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import openhip.numpy as hnp


def special(n: int = 10007) -> np.ndarray:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    x[::7] = np.round(x[::7])  # ties
    x[::17] = np.nan
    x[5::31] = 0.0
    x[7::31] = -0.0
    x[3::101] = np.inf
    x[4::101] = -np.inf
    return x


def test_special_values(device):
    x = special()
    d = hnp.asarray(x, device=device)
    np.testing.assert_array_equal(hnp.sort(d).get(), np.sort(x))  # NaN == NaN here
    np.testing.assert_array_equal(hnp.argsort(d).get(), np.argsort(x, kind="stable"))


def test_descending_is_stable(device):
    x = special()
    d = hnp.asarray(x, device=device)
    nan = np.isnan(x)
    # descending, ties in their original order, NaNs last (as array-api-strict)
    want = np.lexsort((np.arange(x.size), -np.where(nan, -np.inf, x), nan))
    np.testing.assert_array_equal(hnp.argsort(d, descending=True).get(), want)
    got = hnp.sort(d, descending=True).get()
    np.testing.assert_array_equal(got, x[want])


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "bool", "float64", "float16",
                                   "bfloat16"])
def test_dtypes_and_axes(device, dtype):
    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    y = (np.random.default_rng(1).standard_normal((13, 57)) * 50).astype(dt)
    d = hnp.asarray(y, device=device)
    for dv, v in ((d, y), (d.T, y.T), (d[::-2, 5:], y[::-2, 5:])):
        for axis in (0, 1, -1):
            got = hnp.sort(dv, axis=axis)
            assert got.dtype == v.dtype and got.shape == v.shape
            np.testing.assert_array_equal(got.get(), np.sort(v, axis=axis, kind="stable"))
            np.testing.assert_array_equal(hnp.argsort(dv, axis=axis).get(),
                                          np.argsort(v, axis=axis, kind="stable"))


def test_large(device):
    x = np.random.default_rng(2).standard_normal(1 << 20).astype(np.float32)
    d = hnp.asarray(x, device=device)
    np.testing.assert_array_equal(hnp.sort(d).get(), np.sort(x))
    np.testing.assert_array_equal(hnp.argsort(d).get(), np.argsort(x, kind="stable"))
    m = np.random.default_rng(3).integers(0, 100, (3000, 40)).astype(np.int32)
    np.testing.assert_array_equal(hnp.argsort(hnp.asarray(m, device=device), axis=0).get(),
                                  np.argsort(m, axis=0, kind="stable"))


def test_empty_and_small(device):
    e = hnp.asarray(np.zeros((0, 5), np.float32), device=device)
    assert hnp.sort(e, axis=0).shape == (0, 5)
    assert hnp.argsort(e).shape == (0, 5)
    one = hnp.asarray(np.array([3.0]), device=device)
    np.testing.assert_array_equal(hnp.argsort(one).get(), [0])


def test_bad_input(device):
    d = hnp.asarray(np.ones((2, 3), np.float32), device=device)
    with pytest.raises(np.exceptions.AxisError):
        hnp.sort(d, axis=2)
    with pytest.raises(TypeError):
        hnp.sort(d, axis=None)
    with pytest.raises(TypeError):
        hnp.argsort(hnp.asarray(np.ones(3, np.complex64), device=device))
    with pytest.raises(TypeError):
        hnp.sort(d, descending="yes")
    with pytest.raises(np.exceptions.AxisError):
        hnp.sort(hnp.asarray(np.float32(1), device=device))
