"""openhip.numpy's own exp and log (kernels/vmath.h, vectorisable) against numpy: ulp
distance over a wide range (random bit patterns: subnormals, huge values, both signs), the
special values of the Array API (nan, +-inf, +-0, overflow, underflow, negative log
arguments), float32 and float64, contiguous, strided, broadcast and 0-d operands.

float32 is compared with the float64 result rounded to float32 (the correctly rounded value,
bar rare double roundings); numpy's own float32 exp/log are SIMD approximations a few ulp off."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp

INT = {np.float32: np.int32, np.float64: np.int64}
UINT = {np.float32: np.uint32, np.float64: np.uint64}


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in units in the last place (0 where both are nan)."""
    it = INT[a.dtype.type]

    def key(v: np.ndarray) -> np.ndarray:
        i = v.view(it).astype(np.int64)
        return np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)

    d = np.abs(key(a) - key(b))
    d[np.isnan(a) & np.isnan(b)] = 0
    return d


def reference(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            return getattr(np, name)(x.astype(np.float64)).astype(np.float32)
        return getattr(np, name)(x)


def inputs(name: str, dt: type, n: int = 200_000) -> np.ndarray:
    rng = np.random.default_rng(11)
    fi = np.finfo(dt)
    bits = rng.integers(0, np.iinfo(UINT[dt]).max, n, dtype=UINT[dt], endpoint=True).view(dt)
    bits = bits[np.isfinite(bits)]
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, fi.tiny, -fi.tiny,
                        fi.smallest_subnormal, fi.max, -fi.max, fi.eps, 0.5, 2.0], dt)
    if name == "exp":
        lo, hi = (-110.0, 90.0) if dt == np.float32 else (-750.0, 712.0)
        edges = ([88.72, 88.7228, 88.73, -87.33, -103.2, -103.97, -104.0]
                 if dt == np.float32 else
                 [709.78, 709.7827, 709.79, -708.39, -744.44, -745.13, -745.2])
        wide = bits[np.abs(bits) < 1e-3]  # tiny arguments, subnormals included
        return np.concatenate([rng.uniform(lo, hi, n).astype(dt), wide,
                               np.array(edges, dt), special])
    near1 = rng.uniform(0.5, 2.0, n).astype(dt)
    return np.concatenate([np.abs(bits), bits[:1000], near1, special])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["exp", "log"])
def test_within_one_ulp_over_a_wide_range(device, name, dtype):
    x = inputs(name, dtype)
    got = getattr(hnp, name)(hnp.asarray(x, device=device)).get()
    want = reference(name, x)
    d = ulp_distance(got, want)
    worst = int(np.argmax(d))
    assert d.max() <= 1, (x[worst], got[worst], want[worst], int(d.max()))
    assert np.array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(device, dtype):
    fi = np.finfo(dtype)
    big = 120.0 if dtype == np.float32 else 1000.0
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, big, -big, fi.max, -fi.max], dtype)
    e = hnp.exp(hnp.asarray(x, device=device)).get()
    np.testing.assert_array_equal(e, np.array([1, 1, np.inf, 0, np.nan, np.inf, 0, np.inf, 0],
                                              dtype))
    assert not np.signbit(e[6])  # underflow gives +0
    y = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -fi.tiny, 1.0, fi.smallest_subnormal],
                 dtype)
    lg = hnp.log(hnp.asarray(y, device=device)).get()
    want = reference("log", y)
    np.testing.assert_array_equal(lg[:8], np.array([-np.inf, -np.inf, np.inf, np.nan, np.nan,
                                                    np.nan, np.nan, 0.0], dtype))
    assert not np.signbit(lg[7])  # log(1) is +0
    assert ulp_distance(lg[8:], want[8:]).max() <= 1  # a subnormal argument


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_strided_broadcast_and_0d_operands(device, dtype):
    rng = np.random.default_rng(5)
    m = rng.uniform(-20, 20, (64, 96)).astype(dtype)
    x = hnp.asarray(m, device=device)
    for view, host in [(x.T, m.T), (x[::3, 1::2], m[::3, 1::2]), (x[5], m[5])]:
        d = ulp_distance(hnp.exp(view).get(), reference("exp", np.ascontiguousarray(host)))
        assert d.max() <= 1
        pos = np.abs(host) + dtype(0.5)
        d = ulp_distance(hnp.log(hnp.abs(view) + 0.5).get(), reference("log", pos))
        assert d.max() <= 1
    row = rng.uniform(-5, 5, 96).astype(dtype)
    got = hnp.exp(x + hnp.asarray(row, device=device)).get()  # a broadcast row operand
    assert ulp_distance(got, reference("exp", m + row)).max() <= 1
    zero_d = hnp.exp(hnp.asarray(np.array(1.5, dtype), device=device))
    assert zero_d.shape == () and float(zero_d) == float(reference("exp", np.array(1.5, dtype)))


def test_integer_and_half_inputs_promote(device):
    i = np.arange(-5, 30, dtype=np.int32)
    got = hnp.exp(hnp.asarray(i, device=device))
    assert got.dtype == np.float64
    assert ulp_distance(got.get(), np.exp(i.astype(np.float64))).max() <= 1
    h = np.linspace(0.1, 8, 50).astype(np.float16)
    got = hnp.log(hnp.asarray(h, device=device)).get()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.log(h.astype(np.float32)).astype(np.float16))
