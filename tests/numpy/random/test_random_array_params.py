"""Array-valued distribution parameters (numpy's Generator rules): broadcasting against each
other and against ``size``; each element equals, bit for bit, the element at the same index of
the scalar call with that element's parameters (the same words feed the same index); moments
per parameter; numpy's errors for bad parameters and shapes."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp
from openhip.numpy.random import default_rng

SEED = 20261201


def host(x):
    return np.asarray(x.get())


def _per_element(draw_array, draw_scalar, params, shape):
    """draw_array() with the parameter arrays ``params`` (broadcast to ``shape``) against, at
    every index, draw_scalar(*that index's parameters) from the same seed."""
    got = host(draw_array())
    assert got.shape == shape
    bcast = [np.broadcast_to(np.asarray(p), shape) for p in params]
    combos = {tuple(b[idx] for b in bcast) for idx in np.ndindex(shape)}
    for combo in combos:
        ref = host(draw_scalar(*[c.item() for c in combo]))
        mask = np.ones(shape, bool)
        for b, c in zip(bcast, combo, strict=True):
            mask &= b == c
        np.testing.assert_array_equal(got[mask], ref[mask], err_msg=f"parameters {combo}")
    return got


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_distributions_match_the_scalar_draws(device, dtype):
    shape = (7, 2, 3)  # odd sizes: the planes layout's tail
    loc, scale = np.array([0.0, -1.5, 4.0]), np.array([[1.0], [0.25]])
    _per_element(lambda: default_rng(SEED).normal(loc, scale, shape, dtype),
                 lambda m, s: default_rng(SEED).normal(m, s, shape, dtype), (loc, scale), shape)
    low, high = np.array([[0.0], [-2.0]]), np.array([1.0, 3.0, 10.0])
    _per_element(lambda: default_rng(SEED).uniform(low, high, shape, dtype),
                 lambda a, b: default_rng(SEED).uniform(a, b, shape, dtype), (low, high), shape)
    sc = np.array([0.5, 1.0, 8.0])
    _per_element(lambda: default_rng(SEED).exponential(sc, shape, dtype),
                 lambda s: default_rng(SEED).exponential(s, shape, dtype), (sc,), shape)
    # parameters of the output's own shape (and scalars): the kernels' one-dimensional form
    flat = (1001,)
    a = np.array([0.0, 1.5, -2.0])[np.arange(1001) % 3]
    b = np.array([1.0, 0.25])[np.arange(1001) % 2]
    _per_element(lambda: default_rng(SEED).normal(a, b, dtype=dtype),
                 lambda m, s: default_rng(SEED).normal(m, s, flat, dtype), (a, b), flat)
    _per_element(lambda: default_rng(SEED).uniform(a, 3.0, dtype=dtype),
                 lambda lo, hi: default_rng(SEED).uniform(lo, hi, flat, dtype), (a, 3.0), flat)
    _per_element(lambda: default_rng(SEED).exponential(hnp.asarray(b), dtype=dtype),
                 lambda s: default_rng(SEED).exponential(s, flat, dtype), (b,), flat)


def test_stream_distributions_match_the_scalar_draws(device):
    shape = (5, 4)
    k, th = np.array([0.3, 1.0, 2.5, 40.0]), np.array([[2.0]] * 5)
    _per_element(lambda: default_rng(SEED).gamma(k, th, shape),
                 lambda a, b: default_rng(SEED).gamma(a, b, shape), (k, th), shape)
    a, b = np.array([0.5, 0.9, 2.0, 7.0]), np.array([[0.5], [3.0], [1.0], [0.8], [9.0]])
    _per_element(lambda: default_rng(SEED).beta(a, b, dtype=np.float32),
                 lambda x, y: default_rng(SEED).beta(x, y, shape, np.float32), (a, b), shape)
    lam = np.array([0.0, 2.0, 9.5, 300.0])
    _per_element(lambda: default_rng(SEED).poisson(lam, shape),
                 lambda v: default_rng(SEED).poisson(v, shape), (lam,), shape)
    n, p = np.array([[0], [5], [100], [10**6], [40]]), np.array([0.0, 0.3, 0.8, 1.0])
    _per_element(lambda: default_rng(SEED).binomial(n, p),
                 lambda x, y: default_rng(SEED).binomial(x, y, shape), (n, p), shape)


def test_integers_with_array_bounds(device):
    shape = (6, 3)
    lo, hi = np.array([0, -5, 10**12]), np.array([[7], [10**15]])
    with pytest.raises(ValueError, match="low >= high"):  # 10**12 >= 7
        default_rng(SEED).integers(lo, hi, (2, 3))
    lo = np.array([0, -5, 1])
    got = _per_element(lambda: default_rng(SEED).integers(lo, hi, (6, 2, 3))[:, 1],
                       lambda a, b: default_rng(SEED).integers(a, b, (6, 2, 3))[:, 1],
                       (lo, hi[1]), shape)
    assert got.dtype == np.int64 and got.min() >= -5 and got.max() < 10**15
    x = host(default_rng(3).integers(np.arange(10), 10, size=(5000, 10), dtype=np.uint8))
    assert x.dtype == np.uint8 and np.all(x >= np.arange(10)) and np.all(x < 10)
    assert np.all(x[:, 9] == 9) and set(np.unique(x[:, 0])) == set(range(10))
    y = host(default_rng(3).integers(np.array([[0], [200]]), [[3], [255]], size=(2, 500),
                                     endpoint=True, dtype=np.uint8))
    assert y.shape == (2, 500) and set(np.unique(y[0])) == {0, 1, 2, 3}
    assert y[1].min() >= 200 and y[1].max() == 255
    big = np.array([0, 2**63 + 5], dtype=np.uint64)
    z = host(default_rng(4).integers(big, np.uint64(2**64 - 1), size=(1000, 2),
                                     dtype=np.uint64, endpoint=True))
    assert z.dtype == np.uint64 and np.all(z[:, 1] >= 2**63 + 5)
    full = host(default_rng(5).integers(np.array([-2**63]), 2**63 - 1, size=1000,
                                        endpoint=True))
    assert len(np.unique(full)) == 1000  # all 2**64 values: no repeats in 1000 draws
    b = host(default_rng(6).integers(np.array([0, 1]), 2, size=(100, 2), dtype=np.bool_))
    assert b.dtype == np.bool_ and b[:, 1].all() and not b[:, 0].all() and b[:, 0].any()
    # an openhip array as the one argument: [0, high)
    w = host(default_rng(7).integers(hnp.asarray(np.array([3, 5]))))
    assert w.shape == (2,) and 0 <= w[0] < 3 and 0 <= w[1] < 5


def test_moments_per_parameter(device):
    g = default_rng(99)
    lam = np.array([0.5, 4.0, 30.0, 1000.0])
    x = host(g.poisson(lam, size=(20000, 4)))
    np.testing.assert_allclose(x.mean(axis=0), lam, rtol=0.05)
    np.testing.assert_allclose(x.var(axis=0), lam, rtol=0.1)
    n, p = np.array([10, 50, 2000]), np.array([0.1, 0.5, 0.9])
    y = host(g.binomial(n, p, size=(20000, 3)))
    np.testing.assert_allclose(y.mean(axis=0), n * p, rtol=0.02)
    k = np.array([0.5, 3.0, 12.0])
    gm = host(g.gamma(k, 2.0, size=(20000, 3)))
    np.testing.assert_allclose(gm.mean(axis=0), 2.0 * k, rtol=0.05)
    z = host(g.normal([[-3.0], [5.0]], [0.5, 2.0], size=(20000, 2, 2)))
    np.testing.assert_allclose(z.mean(axis=0), [[-3, -3], [5, 5]], atol=0.05)
    np.testing.assert_allclose(z.std(axis=0), [[0.5, 2], [0.5, 2]], rtol=0.03)


def test_device_strided_and_high_dimensional_parameters(device):
    base = hnp.asarray(np.arange(12.0).reshape(3, 4), device=device)
    loc = base[:, ::2]  # strided device array, (3, 2)
    got = host(default_rng(8).normal(loc, 0.0))
    np.testing.assert_array_equal(got, np.arange(12.0).reshape(3, 4)[:, ::2])
    # nine dimensions that do not collapse (broadcast ones between the parameter's own)
    s1 = (np.arange(32) % 3 + 1.0).reshape(2, 1, 2, 1, 2, 1, 2, 1, 2)
    shape = (2,) * 9
    _per_element(lambda: default_rng(9).exponential(s1, shape),
                 lambda v: default_rng(9).exponential(v, shape), (s1,), shape)
    _per_element(lambda: default_rng(9).poisson(s1, shape),
                 lambda v: default_rng(9).poisson(v, shape), (s1,), shape)


def test_nan_and_zero_parameters_as_numpy(device):
    g = default_rng(10)
    assert np.isnan(host(g.normal(0.0, [1.0, np.nan]))[1])
    gm = host(g.gamma([np.nan, 0.0, 1.0], [1.0, 1.0, 0.0]))
    assert np.isnan(gm[0]) and gm[1] == 0 and gm[2] == 0
    assert np.isnan(host(g.beta([1.0, np.nan], 1.0))[1])
    assert np.isnan(host(g.gamma(float("nan"), size=2))).all()  # scalar path: numpy allows
    assert host(g.uniform([0.0, 1.0], [0.0, 1.0])).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("call,exc,match", [
    (lambda g: g.normal(0, [1, -1]), ValueError, "^scale < 0$"),
    (lambda g: g.normal(0, [1, -0.0]), ValueError, "^scale < 0$"),
    (lambda g: g.normal(0, -0.0), ValueError, "^scale < 0$"),
    (lambda g: g.exponential([1, -1]), ValueError, "^scale < 0$"),
    (lambda g: g.uniform([0, 0], [1, np.inf]), OverflowError, "Range exceeds valid bounds"),
    (lambda g: g.uniform([0, 2], 1), ValueError, "high - low < 0"),
    (lambda g: g.uniform(1, 0), ValueError, "high - low < 0"),
    (lambda g: g.gamma([1, -1]), ValueError, "^shape < 0$"),
    (lambda g: g.gamma([1, 1], [1, -1]), ValueError, "^scale < 0$"),
    (lambda g: g.beta([1, 0], 1), ValueError, "^a <= 0$"),
    (lambda g: g.beta(1, [1, -2]), ValueError, "^b <= 0$"),
    (lambda g: g.poisson([1, -1]), ValueError, "lam < 0 or lam contains NaNs"),
    (lambda g: g.poisson([1, np.nan]), ValueError, "lam value too large"),
    (lambda g: g.poisson([1, 1e19]), ValueError, "lam value too large"),
    (lambda g: g.binomial([1, -1], 0.5), ValueError, "^n < 0$"),
    (lambda g: g.binomial([1, 1], [0.5, 1.5]), ValueError, "p < 0, p > 1 or p contains NaNs"),
    (lambda g: g.binomial([1, 1], [0.5, np.nan]), ValueError, "p contains NaNs"),
    (lambda g: g.binomial([1.5, 1], 0.5), TypeError, "unsupported dtype"),
    (lambda g: g.integers([0, 5], [3, 5]), ValueError, "^low >= high$"),
    (lambda g: g.integers([0, 5], [3, 4], endpoint=True), ValueError, "^low > high$"),
    (lambda g: g.integers([-1, 5], [3, 7], dtype=np.uint8), ValueError,
     "low is out of bounds for uint8"),
    (lambda g: g.integers([0, 5], [3, 700], dtype=np.uint8), ValueError,
     "high is out of bounds for uint8"),
    (lambda g: g.integers([0, 300], 2, dtype=np.uint8), ValueError, "low >= high"),
    (lambda g: g.integers([0.5, 1], 3), TypeError, "unsupported dtype"),
    (lambda g: g.normal([0, 1, 2], [1, 2]), ValueError, "shape mismatch"),
    (lambda g: g.normal(np.zeros(3), 1, size=(2,)), ValueError, "shape mismatch"),
    (lambda g: g.normal(np.zeros((2, 3)), 1, size=(3,)), ValueError,
     r"Output size \(3,\) is not compatible with broadcast dimensions of inputs \(2, 3\)"),
    (lambda g: g.normal(["a"], 1), TypeError, "loc"),
    (lambda g: g.normal([1j], 1), TypeError, "unsupported dtype complex128"),
])
def test_bad_parameters(device, call, exc, match):
    with pytest.raises(exc, match=match):
        call(default_rng(0))


def test_shapes_follow_numpy(device):
    ref = np.random.default_rng(0)
    cases = [
        lambda g: g.normal([0.0, 1.0], 1.0, size=(4, 2)),
        lambda g: g.uniform([[0.0], [1.0]], [2.0, 3.0, 4.0]),
        lambda g: g.poisson(np.ones((2, 1, 3))),
        lambda g: g.integers(np.zeros((3, 1), np.int64), [4, 5]),
        lambda g: g.beta([1.0], [[1.0], [2.0]], size=(5, 2, 1)),
        lambda g: g.exponential(np.ones(0)),
    ]
    for case in cases:
        assert host(case(default_rng(1))).shape == np.shape(case(ref))
