"""openhip.numpy reductions against numpy on the paths the CPU kernels take by shape and
dtype: the vector-register rows of max/min/prod (lengths around their 4-vector blocks, NaN
and infinities anywhere, which send a row to the exact rerun), the cols layout's four-row
updates and its part-major partials (split reductions along a leading axis), odd shapes
(0, 1, primes, past the block and part sizes), strided and transposed inputs, every real
dtype, signed zeros."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import openhip.numpy as hnp

RNG = np.random.default_rng(11)

# rows of a vector path hold 4 vectors of 64 bytes: 64 floats, 32 doubles, 256 int8
LENGTHS = [1, 2, 3, 31, 63, 64, 65, 127, 255, 256, 257, 1021, 16387]


def _data(n: int, dtype: str) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return RNG.standard_normal(n).astype(dt)
    if dt == np.bool_:
        return RNG.random(n) < 0.5
    info = np.iinfo(dt)
    return RNG.integers(info.min, info.max, size=n, endpoint=True, dtype=dt)


def _same(got, want, rtol: float = 2e-5, atol: float = 1e-5) -> None:
    got_h = got.get()
    want = np.asarray(want)
    assert got_h.shape == want.shape and got_h.dtype == want.dtype, (got_h, want)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got_h, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got_h, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint8", "int16", "int32",
                                   "uint32", "int64", "uint64"])
def test_max_min_vector_rows(device, dtype):
    for n in LENGTHS:
        x = _data(n, dtype)
        d = hnp.asarray(x, device=device)
        for name in ("max", "min"):
            _same(getattr(hnp, name)(d), getattr(np, name)(x))
        m = _data(n * 3, dtype).reshape(3, n)
        dm = hnp.asarray(m, device=device)
        for name in ("max", "min"):
            _same(getattr(hnp, name)(dm, axis=1), getattr(np, name)(m, axis=1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_inf_anywhere(device, dtype):
    """A NaN wins wherever it is (first vector, a later vector, the tail); an infinity without
    NaN takes the exact rerun and still gives the right answer."""
    n = 1000
    for pos in (0, 5, 63, 64, 500, 767, 768, 999):
        for special in (np.nan, np.inf, -np.inf):
            x = _data(n, dtype)
            x[pos] = special
            d = hnp.asarray(x, device=device)
            for name in ("max", "min"):
                got = float(getattr(hnp, name)(d))
                want = float(getattr(np, name)(x))
                assert (np.isnan(got) and np.isnan(want)) or got == want, (name, pos, special)
    x = np.full(300, -np.inf, dtype)
    assert float(hnp.max(hnp.asarray(x, device=device))) == -np.inf
    x = np.full(300, np.nan, dtype)
    assert np.isnan(float(hnp.min(hnp.asarray(x, device=device))))
    # along an axis: only the rows with a NaN give NaN
    m = _data(4 * 700, dtype).reshape(4, 700)
    m[1, 650] = np.nan
    m[2, 3] = np.inf
    dm = hnp.asarray(m, device=device)
    for name in ("max", "min"):
        _same(getattr(hnp, name)(dm, axis=1), getattr(np, name)(m, axis=1))
        _same(getattr(hnp, name)(dm, axis=0), getattr(np, name)(m, axis=0))


def test_signed_zeros_like_numpy(device):
    """Of equal values the later one, as numpy's maximum.reduce and minimum.reduce do on
    these inputs (the standard leaves it open)."""
    for a in ([-0.0, 0.0], [0.0, -0.0], [-0.0] * 20 + [0.0] * 20, [0.0] * 20 + [-0.0] * 20,
              [-0.0] * 300 + [0.0] * 300, [0.0] * 300 + [-0.0] * 300):
        x = np.array(a, np.float32)
        d = hnp.asarray(x, device=device)
        for name in ("max", "min"):
            got, want = getattr(hnp, name)(d).get(), getattr(np, name)(x)
            assert np.signbit(got) == np.signbit(want), (name, a[0], len(a))
    m = np.array([[0.0, -0.0], [-0.0, 0.0]], np.float32)
    for name in ("max", "min"):
        got = getattr(hnp, name)(hnp.asarray(m, device=device), axis=0).get()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(getattr(np, name)(m, axis=0)))


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "float64"])
def test_prod_vector_rows(device, dtype):
    for n in (1, 63, 64, 130, 1025):
        if np.dtype(dtype).kind == "f":
            x = (1 + RNG.standard_normal(n) * 1e-3).astype(dtype)
        else:
            x = RNG.integers(1, 4, size=n).astype(dtype)  # wraps modulo 2^bits, as numpy
        d = hnp.asarray(x, device=device)
        _same(hnp.prod(d), np.prod(x))


@pytest.mark.parametrize("shape", [(2048, 1024), (2051, 1000), (4099, 13), (3, 1029, 700),
                                   (1, 4096), (4096, 1), (0, 7), (7, 0)])
@pytest.mark.parametrize("name", ["sum", "max", "min", "mean"])
def test_cols_layout_and_split(device, shape, name):
    """Axis 0 of C-contiguous arrays (the cols layout): row counts that are and are not
    multiples of the four-row step, split into parts whose partials are combined by a
    second cols launch."""
    x = RNG.standard_normal(shape).astype(np.float32)
    d = hnp.asarray(x, device=device)
    if 0 in shape and name in ("max", "min") and shape[0] == 0:
        with pytest.raises(ValueError):
            getattr(hnp, name)(d, axis=0)
        return
    if name == "mean" and shape[0] == 0:
        return  # numpy warns and returns NaN; covered in test_reductions
    # sums against the float64 sum (float32 sums of ~4k terms differ from numpy's own in the
    # last digits: both round)
    tol = {"rtol": 1e-4, "atol": 1e-3} if name in ("sum", "mean") else {}

    def ref(axis):
        return getattr(np, name)(x.astype(np.float64), axis=axis).astype(np.float32)

    _same(getattr(hnp, name)(d, axis=0), ref(0), **tol)
    if len(shape) == 3:
        _same(getattr(hnp, name)(d, axis=1), ref(1), **tol)
        _same(getattr(hnp, name)(d, axis=(0, 1)), ref((0, 1)), **tol)


def test_cols_split_with_nan(device):
    x = RNG.standard_normal((2048, 1024)).astype(np.float32)
    x[1500, 7] = np.nan
    x[3, 9] = np.nan
    x[2047, 1023] = np.inf
    d = hnp.asarray(x, device=device)
    for name in ("max", "min", "sum"):
        want = getattr(np, name)(x.astype(np.float64), axis=0).astype(np.float32)
        _same(getattr(hnp, name)(d, axis=0), want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "int64", "uint64",
                                   "float16", "float32", "float64"])
def test_dtypes_strided_and_transposed(device, dtype):
    x = _data(61 * 67, dtype).reshape(61, 67)
    d = hnp.asarray(x, device=device)
    pairs = [(d, x), (hnp.permute_dims(d, (1, 0)), x.T), (d[::3, ::-2], x[::3, ::-2]),
             (d[5:6, :], x[5:6, :])]
    for dv, xv in pairs:
        for axis in (None, 0, 1):
            for name in ("max", "min"):
                _same(getattr(hnp, name)(dv, axis=axis), getattr(np, name)(xv, axis=axis))
            if dtype == "float16":  # accumulated in float32 (numpy: in float16)
                want = np.sum(xv.astype(np.float64), axis=axis).astype(np.float16)
                _same(hnp.sum(dv, axis=axis), want, rtol=5e-3, atol=3e-2)
            elif dtype != "bool":
                want = np.sum(xv, axis=axis, dtype=hnp.sum(dv, axis=axis).dtype)
                _same(hnp.sum(dv, axis=axis), want)


def test_bfloat16_and_half_max(device):
    for dt in (np.float16, ml_dtypes.bfloat16):
        x = RNG.standard_normal(1000).astype(dt)
        x[777] = np.nan
        d = hnp.asarray(x, device=device)
        assert np.isnan(float(hnp.max(d)))
        x[777] = 0
        d = hnp.asarray(x, device=device)
        assert float(hnp.max(d)) == float(np.max(x.astype(np.float32)))
        assert float(hnp.min(d)) == float(np.min(x.astype(np.float32)))
