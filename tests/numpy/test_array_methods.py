"""The numpy-style methods of the array object give what numpy's do."""

from __future__ import annotations

import numpy as np

import openhip.numpy as hnp


def test_methods_match_numpy(device):
    a = np.random.default_rng(0).standard_normal((4, 5))
    x = hnp.asarray(a)
    for name in ("sum", "prod", "mean", "var", "std", "min", "max", "all", "any"):
        assert np.allclose(getattr(x, name)().get(), getattr(a, name)()), name
        assert np.allclose(getattr(x, name)(axis=0).get(), getattr(a, name)(axis=0)), name
    assert x.sum(axis=1, keepdims=True).shape == (4, 1)
    assert np.array_equal(x.argmax(axis=1).get(), a.argmax(axis=1))
    assert int(x.argmin().get()) == a.argmin()
    assert np.allclose(x.cumsum().get(), a.cumsum())
    assert np.allclose(x.cumprod(axis=1).get(), a.cumprod(axis=1))
    assert np.array_equal(x.argsort(axis=0).get(), a.argsort(axis=0, kind="stable"))
    assert np.array_equal(x.transpose().get(), a.transpose())
    assert np.array_equal(x.transpose(1, 0).get(), a.T)
    assert np.array_equal(x.flatten().get(), a.flatten())
    assert np.allclose(x.clip(-0.5, 0.5).get(), a.clip(-0.5, 0.5))
    assert np.allclose(x.dot(x.T).get(), a.dot(a.T))
    assert [v.get().tolist() for v in (x > 1).nonzero()] == [v.tolist() for v in (a > 1).nonzero()]
    y = hnp.asarray(a.copy())
    assert y.sort() is None  # in place, as numpy's
    assert np.array_equal(y.get(), np.sort(a, axis=-1))
    assert hnp.asarray(a[None]).squeeze().shape == (4, 5)
