"""openhip.numpy argmax, argmin, nonzero, count_nonzero, searchsorted against numpy: views,
axes, keepdims, NaN and ties, the split path, empty input, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp


def test_argmax_argmin(device):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, (7, 50, 9)).astype(np.float32)  # many ties: first index wins
    a[0, 0, 0] = np.nan
    a[5, 7, 3] = np.nan
    d = hnp.asarray(a, device=device)
    for dv, v in ((d, a), (hnp.permute_dims(d, (2, 1, 0)), a.transpose(2, 1, 0)),
                  (d[::-1, 1::3], a[::-1, 1::3])):
        for axis in (None, 0, 1, 2, -1):
            for keepdims in (False, True):
                for name in ("argmax", "argmin"):
                    got = getattr(hnp, name)(dv, axis=axis, keepdims=keepdims)
                    want = getattr(np, name)(v, axis=axis, keepdims=keepdims)
                    assert got.dtype == np.int64 and got.shape == want.shape
                    np.testing.assert_array_equal(got.get(), want)


def test_argmax_split_and_ints(device):
    rng = np.random.default_rng(1)
    big = rng.standard_normal(3_000_001)
    d = hnp.asarray(big, device=device)
    assert int(hnp.argmax(d).get()) == big.argmax()
    assert int(hnp.argmin(d).get()) == big.argmin()
    i = rng.integers(-9, 9, (4, 200001)).astype(np.int16)
    np.testing.assert_array_equal(hnp.argmax(hnp.asarray(i, device=device), axis=1).get(),
                                  i.argmax(1))


def test_nonzero_and_count(device):
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, (6, 40, 5)).astype(np.float64)
    a[1, 1, 1] = np.nan  # NaN is nonzero
    d = hnp.asarray(a, device=device)
    for dv, v in ((d, a), (hnp.permute_dims(d, (2, 0, 1)), a.transpose(2, 0, 1))):
        got, want = hnp.nonzero(dv), np.nonzero(v)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == np.int64
            np.testing.assert_array_equal(g.get(), w)
        for axis in (None, 0, (1, 2)):
            for keepdims in (False, True):
                np.testing.assert_array_equal(
                    hnp.count_nonzero(dv, axis=axis, keepdims=keepdims).get(),
                    np.count_nonzero(v, axis=axis, keepdims=keepdims))
    b = rng.random(100000) < 0.3
    got = hnp.nonzero(hnp.asarray(b, device=device))[0]
    np.testing.assert_array_equal(got.get(), np.nonzero(b)[0])
    (none,) = hnp.nonzero(hnp.asarray(np.zeros(10, np.int8), device=device))
    assert none.shape == (0,)
    (empty,) = hnp.nonzero(hnp.asarray(np.zeros(0, np.int8), device=device))
    assert empty.shape == (0,)


def test_searchsorted(device):
    rng = np.random.default_rng(3)
    x1 = np.sort(rng.integers(0, 20, 100).astype(np.float64))
    x1[-3:] = np.nan
    x2 = np.array([[-1, 0, 5.5, 19, 20, np.nan], [3, 3, 3, 4, 100, 7]])
    d1, d2 = hnp.asarray(x1, device=device), hnp.asarray(x2, device=device)
    for side in ("left", "right"):
        np.testing.assert_array_equal(hnp.searchsorted(d1, d2, side=side).get(),
                                      np.searchsorted(x1, x2, side=side))
    perm = rng.permutation(100)
    x1p = x1[perm]
    sorter = np.argsort(x1p, kind="stable")
    got = hnp.searchsorted(hnp.asarray(x1p, device=device), d2,
                           sorter=hnp.asarray(sorter, device=device))
    np.testing.assert_array_equal(got.get(), np.searchsorted(x1p, x2, sorter=sorter))
    # a strided x2
    np.testing.assert_array_equal(hnp.searchsorted(d1, d2.T).get(), np.searchsorted(x1, x2.T))


def test_bad_input(device):
    d = hnp.asarray(np.ones((2, 3)), device=device)
    with pytest.raises(ValueError, match="empty"):
        hnp.argmax(hnp.asarray(np.zeros((0, 3)), device=device), axis=0)
    with pytest.raises(np.exceptions.AxisError):
        hnp.argmin(d, axis=2)
    with pytest.raises(TypeError):
        hnp.argmax(d, axis=(0, 1))
    with pytest.raises(ValueError):
        hnp.nonzero(hnp.asarray(np.float64(1.0), device=device))
    with pytest.raises(ValueError, match="side"):
        hnp.searchsorted(d[0], d, side="middle")
    with pytest.raises(ValueError, match="1-D"):
        hnp.searchsorted(d, d)
    # a sorter that is not a permutation: -1, nothing read out of bounds
    bad = hnp.asarray(np.array([0, 1, 99]), device=device)
    got = hnp.searchsorted(d[0], hnp.asarray(np.array([2.0]), device=device), sorter=bad)
    assert int(got.get()[0]) == -1  # the search reached sorter[2] = 99
