"""openhip.numpy sort / argsort against numpy's stable sort on the radix sort's own paths:
sizes around its chunk boundaries (32 Ki elements a chunk, 64 chunks at most), passes skipped
on the device (keys whose digits are all alike: small integers in 64-bit keys, a constant
array, a skipped last pass), the one-pass sort of 1-byte keys, batched rows (row-digit passes,
more than 256 rows), stability with duplicates in both directions, NaN placement and signed
zeros, and sort + unique (both outputs of one sort)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import openhip.numpy as hnp

RNG = np.random.default_rng(5)


def _desc_order(v: np.ndarray) -> np.ndarray:
    """numpy's stable descending argsort of 1-D ``v``: ties in their original order, NaNs
    last (as array-api-strict)."""
    if v.dtype.kind == "f":
        nan = np.isnan(v)
        rank = np.unique(np.where(nan, 0, v), return_inverse=True)[1]
    else:
        nan = np.zeros(v.shape, bool)
        rank = np.unique(v, return_inverse=True)[1]
    return np.lexsort((np.arange(v.size), -rank.astype(np.int64), nan))


def _both(x: np.ndarray, device, descending: bool = False, axis: int = -1) -> None:
    d = hnp.asarray(x, device=device)
    got_s = hnp.sort(d, axis=axis, descending=descending).get()
    got_i = hnp.argsort(d, axis=axis, descending=descending).get()
    if descending:
        want_i = np.apply_along_axis(_desc_order, axis, x)
    else:
        want_i = np.argsort(x, axis=axis, kind="stable")
    want_s = np.take_along_axis(x, want_i, axis=axis)
    np.testing.assert_array_equal(got_i, want_i)
    if x.dtype.kind == "f":
        np.testing.assert_array_equal(got_s, want_s)  # NaN == NaN here, -0.0 == 0.0
    else:
        assert (got_s == want_s).all()


@pytest.mark.parametrize("n", [32767, 32768, 32769, 65536 + 1, 64 * 32768 + 5])
def test_chunk_boundaries(device, n):
    x = RNG.standard_normal(n).astype(np.float32)
    x[::97] = x[::89][: len(x[::97])]  # duplicates
    _both(x, device)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "float64", "int8", "uint8", "int16",
                                   "uint32", "bool", "float16"])
def test_key_widths(device, dtype):
    dt = np.dtype(dtype)
    n = 70001
    if dt.kind == "f":
        x = RNG.standard_normal(n).astype(dt)
    elif dt == np.bool_:
        x = RNG.random(n) < 0.3
    else:
        info = np.iinfo(dt)
        x = RNG.integers(info.min, info.max, size=n, endpoint=True, dtype=dt)
    _both(x, device)
    _both(x, device, descending=True)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32", "float64"])
def test_skipped_passes(device, dtype):
    """Small values in wide keys: the high digits are alike for every element, so those
    passes (the last included) are skipped; a constant array skips all but the first."""
    n = 50000
    x = RNG.integers(0, 200, size=n).astype(dtype)  # one digit varies
    _both(x, device)
    _both(x, device, descending=True)
    x = RNG.integers(0, 70000, size=n).astype(dtype)  # digits 0-2 vary, the rest alike
    _both(x, device)
    c = np.full(n, 7, dtype)
    _both(c, device)
    neg = -RNG.integers(0, 200, size=n).astype(dtype) if dtype[0] != "u" else x
    _both(neg, device)


def test_duplicates_are_stable(device):
    x = RNG.integers(0, 5, size=100003).astype(np.float32)
    _both(x, device)
    _both(x, device, descending=True)
    i = RNG.integers(-3, 3, size=100003).astype(np.int64)
    _both(i, device)


def test_nan_inf_and_signed_zeros(device):
    x = RNG.standard_normal(40000).astype(np.float32)
    x[RNG.integers(0, 40000, 300)] = np.nan
    x[RNG.integers(0, 40000, 300)] = -np.nan
    x[RNG.integers(0, 40000, 200)] = np.inf
    x[RNG.integers(0, 40000, 200)] = -np.inf
    x[RNG.integers(0, 40000, 200)] = 0.0
    x[RNG.integers(0, 40000, 200)] = -0.0
    _both(x, device)
    d = hnp.asarray(x, device=device)
    for desc in (False, True):
        s = hnp.sort(d, descending=desc).get()
        k = int(np.isnan(x).sum())
        assert np.isnan(s[-k:]).all() and not np.isnan(s[:-k]).any()  # NaNs last, both ways
    # sort keeps -0.0 before +0.0 (their keys differ); argsort treats them as equal (stable)
    z = np.array([0.0, -0.0, 0.0, -0.0] * 1000, np.float64)
    s = hnp.sort(hnp.asarray(z, device=device)).get()
    assert np.signbit(s[:2000]).all() and not np.signbit(s[2000:]).any()
    np.testing.assert_array_equal(hnp.argsort(hnp.asarray(z, device=device)).get(),
                                  np.arange(4000))


@pytest.mark.parametrize("shape,axis", [((300, 257), 1), ((300, 257), 0), ((1, 40000), 1),
                                        ((40000, 1), 0), ((3, 5, 4099), 1), ((70000, 3), 0)])
def test_batched_rows(device, shape, axis):
    x = RNG.integers(0, 50, size=shape).astype(np.float32)
    _both(x, device, axis=axis)
    _both(x, device, axis=axis, descending=True)


def test_bfloat16_and_unique(device):
    x = RNG.standard_normal(30000).astype(ml_dtypes.bfloat16)
    d = hnp.asarray(x, device=device)
    np.testing.assert_array_equal(hnp.argsort(d).get(),
                                  np.argsort(x.astype(np.float32), kind="stable"))
    v = RNG.integers(0, 1000, size=100000).astype(np.int64)
    r = hnp.unique_counts(hnp.asarray(v, device=device))
    want_v, want_c = np.unique(v, return_counts=True)
    np.testing.assert_array_equal(r.values.get(), want_v)
    np.testing.assert_array_equal(r.counts.get(), want_c)
