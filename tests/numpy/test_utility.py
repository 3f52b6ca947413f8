"""openhip.numpy all / any / diff against numpy: axes, keepdims, NaN (true), empty
reductions, views; diff's n, axis, prepend/append, bool input; bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp


def test_all_any(device):
    a = np.array([[1, 0, 3], [4, 5, np.nan]])
    d = hnp.asarray(a, device=device)
    for dv, v in ((d, a), (d.T, a.T)):
        for axis in (None, 0, 1, (0, 1), ()):
            for keepdims in (False, True):
                for name in ("all", "any"):
                    got = getattr(hnp, name)(dv, axis=axis, keepdims=keepdims)
                    want = getattr(np, name)(v, axis=axis, keepdims=keepdims)
                    assert got.dtype == np.bool_ and got.shape == want.shape
                    np.testing.assert_array_equal(got.get(), want)
    b = np.random.default_rng(0).random((3, 400000)) < 0.999999
    db = hnp.asarray(b, device=device)
    np.testing.assert_array_equal(hnp.all(db, axis=1).get(), b.all(1))
    e = hnp.asarray(np.zeros((0, 2), np.int32), device=device)
    assert bool(hnp.all(e).get()) is True and bool(hnp.any(e).get()) is False


def test_diff(device):
    r = np.arange(20.0) ** 2
    y = hnp.asarray(r, device=device)
    for n in (0, 1, 2, 3, 25):
        np.testing.assert_array_equal(hnp.diff(y, n=n).get(), np.diff(r, n=n))
    m = np.arange(12).reshape(3, 4) ** 2
    dm = hnp.asarray(m, device=device)
    np.testing.assert_array_equal(hnp.diff(dm, axis=0).get(), np.diff(m, axis=0))
    np.testing.assert_array_equal(hnp.diff(dm.T, axis=1, n=2).get(), np.diff(m.T, axis=1, n=2))
    got = hnp.diff(dm, axis=0, prepend=0, append=hnp.asarray(m[:1], device=device))
    np.testing.assert_array_equal(got.get(), np.diff(m, axis=0, prepend=0, append=m[:1]))
    b = np.array([True, False, False, True])
    got = hnp.diff(hnp.asarray(b, device=device))
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got.get(), np.diff(b))


def test_bad_input(device):
    d = hnp.asarray(np.ones((2, 3)), device=device)
    with pytest.raises(np.exceptions.AxisError):
        hnp.all(d, axis=3)
    with pytest.raises(ValueError):
        hnp.diff(d, n=-1)
    with pytest.raises(TypeError):
        hnp.diff(d, n=1.5)
    with pytest.raises(ValueError):
        hnp.diff(hnp.asarray(np.float64(2.0), device=device))
    with pytest.raises(np.exceptions.AxisError):
        hnp.diff(d, axis=-3)
