"""Every distribution of hnp.random's Generator: statistical checks with fixed seeds (moments,
Kolmogorov-Smirnov or chi-square against scipy.stats), determinism, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

from openhip.numpy.random import XORWOW, Generator, default_rng  # noqa: E402

N = 40000
P_MIN = 1e-3  # a correct sampler fails one of these checks with probability ~0.1% per check


def host(x):
    return np.asarray(x.get())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_and_uniform(device, dtype):
    g = default_rng(11)
    u = host(g.random(N, dtype=dtype))
    assert u.dtype == dtype and u.shape == (N,)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert stats.kstest(u, "uniform").pvalue > P_MIN
    v = host(g.uniform(-3.0, 5.0, size=(200, 100), dtype=dtype))
    assert v.shape == (200, 100) and v.min() >= -3.0 and v.max() <= 5.0
    assert stats.kstest(v.ravel(), "uniform", args=(-3.0, 8.0)).pvalue > P_MIN
    if dtype == np.float32:  # 24 random bits: every value a multiple of 2**-24
        assert np.all(u * 2**24 == np.floor(u * 2**24))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_exponential(device, dtype):
    g = default_rng(12)
    z = host(g.standard_normal(N, dtype=dtype))
    assert z.dtype == dtype
    assert stats.kstest(z, "norm").pvalue > P_MIN
    y = host(g.normal(10.0, 3.0, size=N, dtype=dtype))
    assert stats.kstest(y, "norm", args=(10.0, 3.0)).pvalue > P_MIN
    e = host(g.exponential(2.5, size=N, dtype=dtype))
    assert e.min() >= 0 and stats.kstest(e, "expon", args=(0, 2.5)).pvalue > P_MIN


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [0.3, 1.0, 2.5, 40.0])
def test_gamma(device, dtype, shape):
    x = host(default_rng(13).gamma(shape, 2.0, size=N, dtype=dtype))
    assert x.dtype == dtype and x.min() >= 0
    assert stats.kstest(x, "gamma", args=(shape, 0, 2.0)).pvalue > P_MIN


@pytest.mark.parametrize("a,b", [(0.4, 0.7), (1.0, 1.0), (2.0, 5.0), (30.0, 0.5)])
def test_beta(device, a, b):
    x = host(default_rng(14).beta(a, b, size=N))
    assert x.min() >= 0 and x.max() <= 1
    assert stats.kstest(x, "beta", args=(a, b)).pvalue > P_MIN


def _chi_square_discrete(samples, pmf_support, pmf):
    """Chi-square of the observed counts against a pmf, bins with expected count < 5 merged
    into the tails."""
    counts = np.array([(samples == k).sum() for k in pmf_support], dtype=float)
    expected = pmf * len(samples)
    keep = expected >= 5
    obs = np.append(counts[keep], len(samples) - counts[keep].sum())
    exp = np.append(expected[keep], len(samples) - expected[keep].sum())
    if exp[-1] < 5:
        obs[-2] += obs[-1]
        exp[-2] += exp[-1]
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp).pvalue


@pytest.mark.parametrize("lam", [0.5, 4.0, 9.99, 10.0, 75.0])
def test_poisson(device, lam):
    x = host(default_rng(15).poisson(lam, size=N))
    assert x.dtype == np.int64 and x.min() >= 0
    support = np.arange(0, int(lam + 12 * np.sqrt(lam) + 15))
    assert _chi_square_discrete(x, support, stats.poisson.pmf(support, lam)) > P_MIN


@pytest.mark.parametrize("n,p", [(10, 0.3), (100, 0.2), (1000, 0.05), (1000, 0.4),
                                 (500, 0.9), (7, 1.0), (0, 0.5)])
def test_binomial(device, n, p):
    x = host(default_rng(16).binomial(n, p, size=N))
    assert x.dtype == np.int64 and x.min() >= 0 and x.max() <= n
    if p in (0.0, 1.0) or n == 0:
        assert np.all(x == n * p)
        return
    support = np.arange(0, n + 1)
    assert _chi_square_discrete(x, support, stats.binom.pmf(support, n, p)) > P_MIN


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64,
                                   np.uint64])
def test_integers_unbiased(device, dtype):
    g = default_rng(17)
    x = host(g.integers(3, 13, size=N, dtype=dtype))
    assert x.dtype == dtype and x.min() >= 3 and x.max() <= 12
    counts = np.bincount(x.astype(np.int64) - 3, minlength=10)
    assert stats.chisquare(counts).pvalue > P_MIN
    # a range that is not a power of two and near 2**32: rejection must keep it uniform
    y = host(g.integers(0, 3 * 2**30, size=N, dtype=np.int64))
    assert y.max() < 3 * 2**30
    assert stats.chisquare(np.bincount(y // 2**30, minlength=3)).pvalue > P_MIN


def test_integers_ranges(device):
    g = default_rng(18)
    info = np.iinfo(np.int64)
    full = host(g.integers(info.min, info.max, size=4000, endpoint=True))
    assert full.min() < -(2**60) and full.max() > 2**60
    u = host(g.integers(0, 2**64 - 1, size=4000, dtype=np.uint64, endpoint=True))
    assert u.max() > 2**63
    big = host(g.integers(-(2**40), 2**40, size=4000))
    assert big.min() >= -(2**40) and big.max() < 2**40 and big.min() < -(2**39)
    b = host(g.integers(0, 2, size=1000, dtype=bool))
    assert b.dtype == np.bool_ and 400 < b.sum() < 600
    assert host(g.integers(5, size=10)).max() < 5  # integers(high)
    assert set(host(g.integers(-1, 1, size=200, endpoint=True)).tolist()) == {-1, 0, 1}


def test_same_seed_same_bits_and_state_moves_on(device):
    for method, args in (("random", ()), ("normal", (1.0, 2.0)), ("integers", (0, 100)),
                         ("gamma", (0.7,)), ("poisson", (30.0,)), ("binomial", (50, 0.3))):
        a, b = default_rng(5), default_rng(5)
        x = host(getattr(a, method)(*args, size=1001))
        y = host(getattr(b, method)(*args, size=1001))
        assert np.array_equal(x, y), method
        z = host(getattr(a, method)(*args, size=1001))
        assert not np.array_equal(x, z), method  # the counter moved past the first call


def test_zero_d_and_empty(device):
    g = default_rng(1)
    r = g.random()
    assert r.shape == () and 0.0 <= float(host(r)) < 1.0
    assert g.normal(size=(0, 3)).shape == (0, 3)
    assert g.integers(0, 10, size=0).shape == (0,)


def test_xorwow_generator(device):
    g = Generator(XORWOW(2024, streams=8))
    u = host(g.random(N))
    assert stats.kstest(u, "uniform").pvalue > P_MIN
    h = Generator(XORWOW(2024, streams=8))
    assert np.array_equal(u, host(h.random(N)))


def test_spawn_independent_streams(device):
    kids = default_rng(123).spawn(4)
    outs = [host(k.random(1000)) for k in kids]
    assert len({o.tobytes() for o in outs}) == 4
    assert np.array_equal(outs[2], host(default_rng(123).spawn(4)[2].random(1000)))


@pytest.mark.parametrize("call,exc,match", [
    (lambda g: g.normal(0, -1, size=3), ValueError, "scale < 0"),
    (lambda g: g.exponential(-2.0), ValueError, "scale < 0"),
    (lambda g: g.gamma(-1.0), ValueError, "shape < 0"),
    (lambda g: g.beta(0, 1), ValueError, "a <= 0"),
    (lambda g: g.beta(1, -1), ValueError, "b <= 0"),
    (lambda g: g.poisson(-1), ValueError, "lam < 0"),
    (lambda g: g.binomial(-1, 0.5), ValueError, "n < 0"),
    (lambda g: g.binomial(10, 1.5), ValueError, "p < 0, p > 1"),
    (lambda g: g.binomial(10, float("nan")), ValueError, "p < 0, p > 1"),
    (lambda g: g.integers(5, 5), ValueError, "low >= high"),
    (lambda g: g.integers(0, 300, dtype=np.uint8), ValueError, "high is out of bounds"),
    (lambda g: g.integers(-1, 3, dtype=np.uint32), ValueError, "low is out of bounds"),
    (lambda g: g.integers(0, 3, dtype=np.float32), TypeError, "unsupported dtype"),
    (lambda g: g.integers(0.5, 3), TypeError, "integers"),
    (lambda g: g.random(dtype=np.int32), TypeError, "unsupported dtype"),
    (lambda g: g.random(size=-1), ValueError, "negative dimensions"),
    (lambda g: g.random(size="x"), TypeError, "size"),
    (lambda g: g.uniform(0, float("inf")), OverflowError, "range exceeds valid bounds"),
    (lambda g: g.normal(object()), TypeError, "real number"),
])
def test_bad_input(device, call, exc, match):
    with pytest.raises(exc, match=match):
        call(default_rng(0))


def test_generator_needs_an_openhip_bit_generator():
    with pytest.raises(TypeError, match="bit generator"):
        Generator(np.random.Philox(1))


def test_permutation_shuffle_choice(device):
    import openhip.numpy as hnp

    g = default_rng(21)
    p = host(g.permutation(1000))
    assert p.dtype == np.int64 and np.array_equal(np.sort(p), np.arange(1000))
    assert not np.array_equal(p, np.arange(1000))
    assert np.array_equal(host(default_rng(21).permutation(1000)), p)  # same seed, same order
    x = np.arange(60).reshape(20, 3)
    px = host(g.permutation(hnp.asarray(x)))
    assert sorted(map(tuple, px)) == sorted(map(tuple, x))  # rows permuted whole
    py = host(g.permutation(hnp.asarray(x), axis=1))
    assert np.array_equal(np.sort(py, axis=1), x)
    arr = hnp.asarray(np.arange(50.0))
    g.shuffle(arr)
    assert np.array_equal(np.sort(host(arr)), np.arange(50.0))
    c = host(g.choice(5, size=20000))
    assert stats.chisquare(np.bincount(c, minlength=5)).pvalue > P_MIN
    probs = np.array([0.1, 0.2, 0.0, 0.7])
    cp = host(g.choice(4, size=20000, p=probs))
    counts = np.bincount(cp, minlength=4)
    assert counts[2] == 0
    assert stats.chisquare(counts[[0, 1, 3]], 20000 * probs[[0, 1, 3]]).pvalue > P_MIN
    nr = host(g.choice(100, size=30, replace=False))
    assert len(set(nr.tolist())) == 30 and nr.max() < 100
    wr = host(g.choice(10, size=3, replace=False, p=np.full(10, 0.1)))
    assert len(set(wr.tolist())) == 3
    pop = hnp.asarray(np.array([10.0, 20.0, 30.0]))
    assert set(host(g.choice(pop, size=50)).tolist()) <= {10.0, 20.0, 30.0}
    with pytest.raises(ValueError, match="larger sample"):
        g.choice(3, size=5, replace=False)
    with pytest.raises(ValueError, match="sum to 1"):
        g.choice(3, p=[0.5, 0.1, 0.1])
    with pytest.raises(ValueError, match="same size"):
        g.choice(3, p=[0.5, 0.5])
    with pytest.raises(ValueError, match="non-zero entries"):
        g.choice(3, size=2, replace=False, p=[1.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="openhip.numpy array"):
        g.shuffle(np.arange(3))
