"""openhip.numpy mean, var, std against numpy: axes, keepdims, correction, views, float16 /
complex / integer inputs, empty reductions (NaN), bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp

AXES = [None, 0, 1, (0, 2), -1]


@pytest.mark.parametrize("name", ["mean", "var", "std"])
def test_float64_axes_views(device, name):
    a = np.random.default_rng(0).standard_normal((8, 11, 6)) * 3 + 1
    d = hnp.asarray(a, device=device)
    t = hnp.permute_dims(d, (2, 0, 1))
    for dv, v in ((d, a), (t, a.transpose(2, 0, 1)), (d[::-2, 3:], a[::-2, 3:])):
        for axis in AXES:
            for keepdims in (False, True):
                got = getattr(hnp, name)(dv, axis=axis, keepdims=keepdims)
                want = getattr(np, name)(v, axis=axis, keepdims=keepdims)
                assert got.shape == want.shape and got.dtype == want.dtype
                np.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("correction", [0, 1, 2.5])
def test_correction(device, correction):
    a = np.random.default_rng(1).standard_normal((20, 9)).astype(np.float32)
    d = hnp.asarray(a, device=device)
    for axis in (None, 0, 1):
        np.testing.assert_allclose(hnp.var(d, axis=axis, correction=correction).get(),
                                   np.var(a, axis=axis, ddof=correction), rtol=1e-5)
        np.testing.assert_allclose(hnp.std(d, axis=axis, correction=correction).get(),
                                   np.std(a, axis=axis, ddof=correction), rtol=1e-5)


def test_dtypes(device):
    rng = np.random.default_rng(2)
    h = (rng.standard_normal((30, 40)) * 4).astype(np.float16)
    got = hnp.mean(hnp.asarray(h, device=device), axis=0)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.get().astype(np.float64), h.astype(np.float64).mean(0),
                               atol=2e-3 * 4)
    c = (rng.standard_normal((7, 5)) + 1j * rng.standard_normal((7, 5))).astype(np.complex64)
    dc = hnp.asarray(c, device=device)
    m = hnp.mean(dc, axis=1)
    assert m.dtype == np.complex64
    np.testing.assert_allclose(m.get(), c.mean(1), rtol=1e-5)
    v = hnp.var(dc, axis=0)
    assert v.dtype == np.float32  # the real dtype
    np.testing.assert_allclose(v.get(), c.var(0), rtol=1e-5)
    i = rng.integers(-50, 50, (6, 9)).astype(np.int32)
    di = hnp.asarray(i, device=device)
    assert hnp.mean(di).dtype == np.float64
    np.testing.assert_allclose(hnp.mean(di, axis=1).get(), i.mean(1), rtol=1e-12)
    np.testing.assert_allclose(hnp.std(di).get(), i.std(), rtol=1e-12)


def test_large_mean_var(device):
    a = (np.random.default_rng(3).standard_normal(1 << 21) * 2 + 1000).astype(np.float32)
    d = hnp.asarray(a, device=device)
    np.testing.assert_allclose(float(hnp.mean(d).get()), a.astype(np.float64).mean(),
                               rtol=1e-6)
    # two passes (mean, then squared deviations): no catastrophic cancellation
    np.testing.assert_allclose(float(hnp.var(d).get()), a.astype(np.float64).var(), rtol=1e-3)


def test_empty_is_nan(device):
    e = hnp.asarray(np.zeros((0, 3)), device=device)
    assert np.isnan(hnp.mean(e).get())
    assert np.all(np.isnan(hnp.var(e, axis=0).get()))
    assert hnp.std(e, axis=1).shape == (0,)


def test_bad_input(device):
    d = hnp.asarray(np.ones((2, 3)), device=device)
    with pytest.raises(np.exceptions.AxisError):
        hnp.mean(d, axis=5)
    with pytest.raises(ValueError, match="duplicate"):
        hnp.var(d, axis=(0, 0))
    with pytest.raises(TypeError):
        hnp.var(d, correction="1")
    with pytest.raises(TypeError):
        hnp.std([1.0, 2.0])
