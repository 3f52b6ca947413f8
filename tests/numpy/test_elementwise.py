"""openhip.numpy elementwise functions against numpy: special values (nan, +-inf, +-0),
integer edge cases (wrapping, division by zero, shifts), broadcasting and strided operands,
promotion, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-30, 1e30, np.inf, -np.inf, np.nan,
                    0.75, 2.0, -0.5, 10.0])

UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp",
         "expm1", "floor", "isfinite", "isinf", "isnan", "log", "log1p", "log2", "log10",
         "negative", "positive", "round", "sign", "signbit", "sin", "sinh", "square", "sqrt",
         "tan", "tanh", "trunc", "reciprocal"]
BINARY = ["add", "subtract", "multiply", "divide", "atan2", "copysign", "hypot", "logaddexp",
          "maximum", "minimum", "nextafter", "pow", "floor_divide", "remainder", "equal",
          "not_equal", "less", "less_equal", "greater", "greater_equal"]
NP_NAME = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
           "atan": "arctan", "atanh": "arctanh", "atan2": "arctan2", "pow": "power",
           "round": "rint", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift"}


def ref(name: str):
    return getattr(np, NP_NAME.get(name, name))


def check(got, want, rtol):
    got = got.get() if hasattr(got, "get") else got
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
        if want.dtype.kind == "f":  # signed zeros
            z = want == 0
            np.testing.assert_array_equal(np.signbit(got[z]), np.signbit(want[z]))
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_special_values(device, name, dtype):
    x = SPECIAL.astype(dtype)
    with np.errstate(all="ignore"):
        want = ref(name)(x)
    got = getattr(hnp, name)(hnp.asarray(x, device=device))
    check(got, want, 2e-6 if dtype == "float32" else 1e-13)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_special_values(device, name, dtype):
    a = np.repeat(SPECIAL, SPECIAL.size).astype(dtype)
    b = np.tile(SPECIAL, SPECIAL.size).astype(dtype)
    with np.errstate(all="ignore"):
        want = ref(name)(a, b)
        if name == "floor_divide":  # the standard, not numpy: inf // finite, finite // inf
            special = (np.isinf(a) & np.isfinite(b) & (b != 0)) | (np.isfinite(a) & np.isinf(b))
            want = np.where(special, a / b, want).astype(dtype)
    got = getattr(hnp, name)(hnp.asarray(a, device=device), hnp.asarray(b, device=device))
    check(got, want, 2e-6 if dtype == "float32" else 1e-13)


INTS = ["int8", "int32", "uint64"]  # signed narrow (promoted to int in C++), 32-bit, unsigned wide


@pytest.mark.parametrize("dtype", INTS)
def test_integer_arithmetic_edges(device, dtype):
    info = np.iinfo(dtype)
    vals = np.array(sorted(v for v in {info.min, info.min + 1, -7, -1, 0, 1, 2, 7, 13,
                                       info.max - 1, info.max} if info.min <= v <= info.max),
                    dtype=dtype)
    a = np.repeat(vals, vals.size)
    b = np.tile(vals, vals.size)
    xa, xb = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    with np.errstate(all="ignore"):
        check(xa + xb, a + b, 0)  # wraps
        check(xa - xb, a - b, 0)
        check(xa * xb, a * b, 0)
        check(xa // xb, np.floor_divide(a, b), 0)  # division by zero gives 0
        check(xa % xb, np.remainder(a, b), 0)
        check(xa & xb, a & b, 0)
        check(xa | xb, a | b, 0)
        check(xa ^ xb, a ^ b, 0)
        check(~xa, ~a, 0)
        check(hnp.maximum(xa, xb), np.maximum(a, b), 0)
        check(xa < xb, a < b, 0)
        check(xa == xb, a == b, 0)
    shifts = np.array([0, 1, 3, 7, 8, 15, 31, 63, 64, 100], dtype=dtype)
    sa = np.repeat(vals, shifts.size)
    sb = np.tile(shifts, vals.size)
    # numpy's shifts by >= the width are 0 (or -1 for negative values shifted right)
    want_l = np.where(sb >= 8 * np.dtype(dtype).itemsize, 0, np.left_shift(sa, sb % (
        8 * np.dtype(dtype).itemsize))).astype(dtype)
    neg = sa < 0
    want_r = np.where(sb >= 8 * np.dtype(dtype).itemsize, np.where(neg, -1, 0).astype(dtype),
                      np.right_shift(sa, sb % (8 * np.dtype(dtype).itemsize))).astype(dtype)
    xs, xsh = hnp.asarray(sa, device=device), hnp.asarray(sb, device=device)
    check(xs << xsh, want_l, 0)
    check(xs >> xsh, want_r, 0)


def test_integer_pow_and_abs(device):
    a = np.array([-3, -1, 0, 1, 2, 5, -128], dtype=np.int8)
    b = np.array([3, 4, 0, 7, 6, 2, 1], dtype=np.int8)
    with np.errstate(all="ignore"):
        check(hnp.asarray(a, device=device) ** hnp.asarray(b, device=device), a ** b, 0)
        check(hnp.abs(hnp.asarray(a, device=device)), np.abs(a), 0)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_functions(device, dtype):
    rng = np.random.default_rng(0)
    z = (rng.normal(size=64) + 1j * rng.normal(size=64)).astype(dtype)
    x = hnp.asarray(z, device=device)
    tol = 2e-5 if dtype == "complex64" else 1e-12
    for name in ["exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin",
                 "acos", "atan", "asinh", "acosh", "atanh", "expm1", "log1p", "log2", "log10",
                 "square", "negative", "reciprocal", "conj"]:
        check(getattr(hnp, name)(x), ref(name)(z), tol)
    check(hnp.abs(x), np.abs(z), tol)
    check(hnp.real(x), np.real(z), 0)
    check(hnp.imag(x), np.imag(z), 0)
    check(x * x, z * z, tol)
    check(x / (x + 1), z / (z + 1), tol)
    check(x ** 2, z ** 2, tol)
    check(hnp.sign(x), z / np.abs(z), tol)
    check(x == x, z == z, 0)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_tanh_at_infinity(device, dtype):
    """The standard: tanh(+infinity + yj) = 1 + 0j for every positive finite y (C99's
    copysign(0, sin(2y)) would give -0 where sin(2y) < 0, e.g. y = 2); conjugation and
    oddness give the other signs; tan(z) = -i tanh(iz) follows."""
    ys = np.array([0.5, 2.0, 3.0, 1e30, -0.5, -2.0, 0.0, -0.0])
    for sign in (1.0, -1.0):
        z = np.empty(len(ys), dtype)
        z.real, z.imag = sign * np.inf, ys  # (1j * -0.0 has a +0 imaginary part)
        got = hnp.tanh(hnp.asarray(z, device=device)).get()
        np.testing.assert_array_equal(got.real, np.full(len(ys), sign))
        np.testing.assert_array_equal(got.imag, np.zeros(len(ys)))
        np.testing.assert_array_equal(np.signbit(got.imag), np.signbit(ys))
        iz = np.empty(len(ys), dtype)
        iz.real, iz.imag = -z.imag, z.real
        t = hnp.tan(hnp.asarray(iz, device=device)).get()  # tan(iz) = i tanh(z)
        np.testing.assert_array_equal(np.signbit(t.real), np.signbit(-got.imag))
        np.testing.assert_array_equal(t.imag, got.real)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision(device, dtype):
    import ml_dtypes

    dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(np.float16)
    a = np.linspace(-3, 3, 50).astype(dt)
    b = np.linspace(0.5, 4, 50).astype(dt)
    xa, xb = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    want = (a.astype(np.float32) * b.astype(np.float32) + 1).astype(dt)
    got = (xa * xb + 1).get()
    assert got.dtype == dt
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-2)
    np.testing.assert_allclose(hnp.exp(xa).get().astype(np.float32),
                               np.exp(a.astype(np.float32)), rtol=2e-2)


def test_broadcast_and_strided_operands(device):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    row = np.arange(6, dtype=np.float32)
    col = np.arange(4, dtype=np.float32).reshape(4, 1)
    x = hnp.asarray(a, device=device)
    check(x + hnp.asarray(row, device=device), a + row, 0)
    check(x * hnp.asarray(col, device=device), a * col, 0)
    check(x.T - hnp.asarray(a.T.copy(), device=device), a.T - a.T, 0)
    check(x[::2, ::-3] * 2.0, a[::2, ::-3] * 2, 0)
    check(hnp.exp(x.T), np.exp(a.T), 1e-6)
    y = hnp.asarray(np.ones((3, 1, 6), np.float32), device=device)
    check(x + y, a + np.ones((3, 1, 6), np.float32), 0)
    check(hnp.asarray(np.float32(2.5), device=device) + x, np.float32(2.5) + a, 0)


def test_promotion_between_dtypes(device):
    a = hnp.asarray(np.array([1, 2, 3], np.int8), device=device)
    b = hnp.asarray(np.array([1.5, 2.5, 3.5], np.float32), device=device)
    c = hnp.asarray(np.array([300, 2, 3], np.int16), device=device)
    assert (a + c).dtype == hnp.int16
    assert (a + b).dtype == hnp.float32
    np.testing.assert_array_equal((a + c).get(), [301, 4, 6])
    assert (b + 1).dtype == hnp.float32  # Python scalars are weak
    assert (a + 1).dtype == hnp.int8
    assert (b * 2.0).dtype == hnp.float32
    assert (b + 1j).dtype == hnp.complex64
    u = hnp.asarray(np.array([1, 2], np.uint8), device=device)
    i = hnp.asarray(np.array([-1, 2], np.int8), device=device)
    assert (u + i).dtype == hnp.int16
    np.testing.assert_array_equal((u + i).get(), [0, 4])
    with pytest.raises(OverflowError):
        a + 1000


def test_where_and_clip(device):
    a = np.array([-2.0, -0.5, 0.0, 0.5, np.nan, 3.0], np.float64)
    x = hnp.asarray(a, device=device)
    check(hnp.where(x > 0, x, -x), np.where(a > 0, a, -a), 0)
    check(hnp.where(x > 0, x, 0.0), np.where(a > 0, a, 0.0), 0)
    check(hnp.clip(x, -1.0, 1.0), np.clip(a, -1.0, 1.0), 0)
    check(hnp.clip(x, max=0.25), np.clip(a, None, 0.25), 0)
    i = hnp.asarray(np.arange(-5, 5, dtype=np.int16), device=device)
    check(hnp.clip(i, -2, 3), np.clip(np.arange(-5, 5, dtype=np.int16), -2, 3), 0)
    with pytest.raises(TypeError):
        hnp.where(x, x, x)  # the condition must be boolean


def test_logical_functions(device):
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    xa, xb = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    check(hnp.logical_and(xa, xb), a & b, 0)
    check(hnp.logical_or(xa, xb), a | b, 0)
    check(hnp.logical_xor(xa, xb), a ^ b, 0)
    check(hnp.logical_not(xa), ~a, 0)
    check(xa & xb, a & b, 0)
    check(~xa, ~a, 0)


def test_bad_input(device):
    x = hnp.asarray(np.zeros((2, 3), np.float32), device=device)
    y = hnp.asarray(np.zeros((4,), np.float32), device=device)
    with pytest.raises(ValueError, match=r"\(2, 3\) \(4,\)"):
        x + y
    with pytest.raises(TypeError):
        hnp.bitwise_and(x, x)
    with pytest.raises(TypeError):
        hnp.floor_divide(hnp.asarray(np.ones(2, np.complex64), device=device), 1)
    with pytest.raises(TypeError):
        hnp.exp("x")
    i = hnp.asarray(np.ones(3, np.int32), device=device)
    with pytest.raises(TypeError):
        i += 1.5  # the in-place result must keep the dtype
    np.testing.assert_array_equal(i.get(), [1, 1, 1])


def test_inplace_operators_on_views(device):
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    x = hnp.asarray(a, device=device)
    v = x[:, 1:3]
    v += 10
    a[:, 1:3] += 10
    check(x, a, 0)
    x *= 2
    a *= 2
    check(x, a, 0)
    x[1] -= x[0]
    a[1] -= a[0]
    check(x, a, 0)
