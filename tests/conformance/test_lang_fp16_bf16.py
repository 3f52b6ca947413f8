"""__half and __hip_bfloat16 (tests/kernels/fp16_arith.hip, bf16_arith.hip) bit-exact against
numpy float16 and ml_dtypes bfloat16: basic operations must be the correctly rounded IEEE results
(fma checked against exact rational arithmetic), conversions in every rounding mode exact, math
functions within one ulp."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from kernel_files import load_kernel as load

import openhip as hip

ml_dtypes = pytest.importorskip("ml_dtypes")
# numpy warns about the overflows and NaNs the references compute on purpose
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

TYPES = {
    "fp16": dict(dtype=np.float16, prefix="half", file="fp16_arith", pair="half2", maxfin=0x7BFF),
    "bf16": dict(dtype=ml_dtypes.bfloat16, prefix="bf16", file="bf16_arith", pair="bf162",
                 maxfin=0x7F7F),
}


@pytest.fixture(params=["fp16", "bf16"])
def kind(request, device):
    t = TYPES[request.param]
    props = device.properties
    if request.param == "fp16" and not props.supports_fp16:
        pytest.skip("no fp16 on this device")
    if request.param == "bf16" and not props.supports_bf16:
        pytest.skip("no bf16 on this device")
    return dict(t, name=request.param, mod=load(t["file"]))


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint16)


def f32(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32)


def sample(dt, n: int, seed: int) -> np.ndarray:
    """Random bit patterns (every exponent, subnormals, inf, NaN) plus special values."""
    rng = np.random.default_rng(seed)
    b = rng.integers(0, 1 << 16, n).astype(np.uint16)
    v = b.view(dt).copy()
    specials = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, np.inf, -np.inf, np.nan], np.float32)
    v[: specials.size] = specials.astype(dt)
    return v


def assert_same(got: np.ndarray, expect: np.ndarray, what: str) -> None:
    """Equal bit patterns, except that any NaN matches any NaN."""
    g, e = f32(got), f32(expect)
    nan = np.isnan(e)
    assert np.array_equal(np.isnan(g), nan), f"{what}: NaN positions differ"
    bad = np.nonzero(bits(got)[~nan] != bits(expect.astype(got.dtype))[~nan])[0]
    if bad.size:
        i = np.nonzero(~nan)[0][bad[0]]
        raise AssertionError(f"{what}: {bad.size} mismatches, first at {i}: got {g[i]!r} "
                             f"(0x{bits(got)[i]:04x}) expected {e[i]!r}")


def exact_fma(a, b, c, dt) -> np.ndarray:
    """a*b+c correctly rounded to dt: exact rational sum, round to odd in double then float
    (no double-rounding error), then numpy's/ml_dtypes' round-to-nearest-even."""
    out = np.empty(a.size, np.float32)
    for i, (x, y, z) in enumerate(zip(f32(a).tolist(), f32(b).tolist(), f32(c).tolist(), strict=False)):
        if not all(np.isfinite([x, y, z])):
            out[i] = np.float32(np.float64(x) * np.float64(y) + np.float64(z))
            continue
        v = Fraction(x) * Fraction(y) + Fraction(z)
        d = float(v)
        if Fraction(d) != v:  # round to odd: truncate toward zero, set the last bit
            u = np.array([d]).view(np.uint64)
            if abs(Fraction(d)) > abs(v):
                u -= np.uint64(1)
            u |= np.uint64(1)
            d = float(u.view(np.float64)[0])
        f = np.float32(d)
        if np.float64(f) != d and np.isfinite(f):
            fu = np.array([f]).view(np.uint32)
            if abs(np.float64(f)) > abs(d):
                fu -= np.uint32(1)
            fu |= np.uint32(1)
            f = fu.view(np.float32)[0]
        out[i] = f
    return out.astype(dt)


def step(b: np.ndarray, up: np.ndarray) -> np.ndarray:
    """The next representable value up / down, on bit patterns of a 16-bit float."""
    b = b.astype(np.int32)
    neg = (b & 0x8000) != 0
    zero = (b & 0x7FFF) == 0
    r = np.where(neg == up, b - 1, b + 1)
    r = np.where(zero, np.where(up, 0x0001, 0x8001), r)
    return r.astype(np.uint16)


def directed(x: np.ndarray, dt, mode: str) -> np.ndarray:
    """float32 -> dt rounded toward zero / up / down (from the nearest-even result)."""
    rn = x.astype(dt)
    r = f32(rn).astype(np.float64)
    xv = x.astype(np.float64)
    b = bits(rn).copy()
    with np.errstate(invalid="ignore"):
        if mode == "rz":
            fix = np.abs(r) > np.abs(xv)
            b = np.where(fix, step(b, xv < 0), b)
        elif mode == "ru":
            b = np.where(r < xv, step(b, np.ones_like(fix := r < xv)), b)
        else:
            b = np.where(r > xv, step(b, np.zeros_like(fix := r > xv)), b)
    return b.astype(np.uint16).view(dt)


def test_arith(kind):
    dt, n = kind["dtype"], 4096
    a, b, c = sample(dt, n, 1), sample(dt, n, 2), sample(dt, n, 3)
    out = hip.zeros(14 * n, dt)
    kind["mod"].get_function(f"{kind['prefix']}_arith")(
        (n + 255) // 256, 256, (hip.asarray(a), hip.asarray(b), hip.asarray(c), out, n))
    got = out.get().reshape(14, n)
    x, y = f32(a), f32(b)
    with np.errstate(all="ignore"):
        expect = {0: x + y, 1: x - y, 2: x * y, 3: x / y, 5: -x, 6: np.abs(x),
                  7: np.fmin(x, y), 8: np.fmax(x, y), 9: x + y, 10: x * y, 11: x / y, 12: -x,
                  13: x - y}
    for row, e in expect.items():
        if row in (7, 8):  # min/max: compare values (the sign of a zero result may differ)
            g, ee = f32(got[row]), f32(e.astype(dt))
            np.testing.assert_array_equal(g, ee, err_msg=f"row {row}")
        else:
            assert_same(got[row], e.astype(dt), f"row {row}")
    assert_same(got[4], exact_fma(a, b, c, dt), "fma")


def test_compare(kind):
    dt, n = kind["dtype"], 2048
    a, b = sample(dt, n, 4), sample(dt, n, 5)
    b[n // 2:] = a[n // 2:]  # equal pairs too
    out = hip.zeros(20 * n, np.int32)
    kind["mod"].get_function(f"{kind['prefix']}_compare")(
        (n + 255) // 256, 256, (hip.asarray(a), hip.asarray(b), out, n))
    got = out.get().reshape(20, n)
    x, y = f32(a), f32(b)
    with np.errstate(invalid="ignore"):
        ordered = [x == y, (x < y) | (x > y), x < y, x <= y, x > y, x >= y]
        unordered = [~((x < y) | (x > y)), ~(x == y), ~(x >= y), ~(x > y), ~(x <= y), ~(x < y)]
        ops = [x == y, ~(x == y), x < y, x <= y, x > y, x >= y]
    expect = ordered + unordered + [np.isnan(x), np.isinf(x)] + ops
    for row, e in enumerate(expect):
        if row == 15:  # operator!=: true for NaN in CUDA and HIP
            continue
        np.testing.assert_array_equal(got[row], e.astype(np.int32), err_msg=f"row {row}")


def test_convert(kind):
    dt, n = kind["dtype"], 8192
    rng = np.random.default_rng(6)
    f = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32).copy()
    f[: n // 4] = (rng.standard_normal(n // 4) * 1000).astype(np.float32)
    # values next to the format's rounding boundaries
    mids = (bits(sample(dt, n // 4, 7)).astype(np.uint32) << 16)
    if dt == np.float16:
        mids = f32(sample(dt, n // 4, 7)).view(np.uint32) + (1 << 12)
    f[n // 4: n // 2] = (mids + rng.integers(-1, 2, n // 4)).astype(np.uint32).view(np.float32)
    f[n // 2: n // 2 + 4] = [65504.0, 65520.0, 70000.0, 1e-8]
    hin = (rng.standard_normal(n) * 300).astype(dt)
    hin[:6] = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5], np.float32).astype(dt)
    h, back = hip.zeros(6 * n, dt), hip.zeros(n, np.float32)
    ints, bits_out = hip.zeros(4 * n, np.int32), hip.zeros(n, np.uint16)
    kind["mod"].get_function(f"{kind['prefix']}_convert")(
        (n + 255) // 256, 256, (hip.asarray(f), h, back, hip.asarray(hin), ints, bits_out, n))
    got = h.get().reshape(6, n)
    with np.errstate(all="ignore"):
        assert_same(got[0], f.astype(dt), "rn (default)")
        assert_same(got[1], f.astype(dt), "rn")
        for row, mode in [(2, "rz"), (3, "ru"), (4, "rd")]:
            assert_same(got[row], directed(f, dt, mode), mode)
        small = np.abs(f) < 2 ** 30
        ints_in = np.where(small, f, 0).astype(np.int64).astype(np.int32)
        assert_same(got[5][small], ints_in.astype(np.float64).astype(dt)[small], "int2_rn")
    np.testing.assert_array_equal(back.get(), f32(hin))
    x = f32(hin)
    gi = ints.get().reshape(4, n)
    for row, fn in enumerate([np.rint, np.trunc, np.ceil, np.floor]):
        np.testing.assert_array_equal(gi[row], fn(x).astype(np.int32), err_msg=f"to int {row}")
    np.testing.assert_array_equal(bits_out.get(), bits(hin))


def test_pairs(kind):
    dt, n = kind["dtype"], 1024
    a, b, c = sample(dt, 2 * n, 8), sample(dt, 2 * n, 9), sample(dt, 2 * n, 10)
    out, flags = hip.zeros(10 * 2 * n, dt), hip.zeros(3 * n, np.int32)
    kind["mod"].get_function(f"{kind['pair']}_ops")(
        (n + 255) // 256, 256, (hip.asarray(a), hip.asarray(b), hip.asarray(c), out, flags, n))
    got = out.get().reshape(10, 2 * n)
    x, y, z = f32(a), f32(b), f32(c)
    with np.errstate(all="ignore"):
        assert_same(got[0], (x + y).astype(dt), "hadd2")
        assert_same(got[1], (x - y).astype(dt), "hsub2")
        assert_same(got[2], (x * y).astype(dt), "hmul2")
        assert_same(got[3], (x / y).astype(dt), "h2div")
        assert_same(got[4], exact_fma(a, b, c, dt), "hfma2")
        assert_same(got[5], (-x).astype(dt), "hneg2")
        swapped = a.reshape(n, 2)[:, ::-1].reshape(-1)
        assert_same(got[6], swapped, "lowhigh2highlow")
        mixed = np.stack([a.reshape(n, 2)[:, 0], b.reshape(n, 2)[:, 1]], axis=1).reshape(-1)
        assert_same(got[7], mixed, "halves2 / low2 / high2")
        assert_same(got[8], mixed, "floats2 / low2float / high2float")
        separate = (f32((x * y).astype(dt)) + z).astype(dt)
        fused = exact_fma(a, b, c, dt)
        ok = (bits(got[9]) == bits(separate)) | (bits(got[9]) == bits(fused)) | np.isnan(f32(got[9]))
        assert ok.all(), "pair operators"
        fl = flags.get().reshape(3, n)
        xp, yp = x.reshape(n, 2), y.reshape(n, 2)
        np.testing.assert_array_equal(fl[0], (xp == yp).all(axis=1).astype(np.int32))
        np.testing.assert_array_equal(fl[1], (xp < yp).all(axis=1).astype(np.int32))
        np.testing.assert_array_equal(fl[2], (xp >= yp).all(axis=1).astype(np.int32))


def ulp_distance(got: np.ndarray, expect: np.ndarray) -> np.ndarray:
    def ordered(v):
        b = bits(v).astype(np.int32)
        return np.where(b & 0x8000, -(b & 0x7FFF), b)
    return np.abs(ordered(got) - ordered(expect))


def test_math(kind):
    dt, n = kind["dtype"], 2048
    rng = np.random.default_rng(11)
    a = (rng.uniform(-12, 12, n)).astype(dt)
    a[:6] = np.array([0.0, 1.0, 4.0, 0.25, -0.0, 2.0], np.float32).astype(dt)
    out = hip.zeros(14 * n, dt)
    kind["mod"].get_function(f"{kind['prefix']}_math")((n + 255) // 256, 256, (hip.asarray(a), out, n))
    got = out.get().reshape(14, n)
    x = a.astype(np.float64)
    with np.errstate(all="ignore"):
        refs = [np.sqrt(x), 1 / np.sqrt(x), 1 / x, np.exp(x), np.exp2(x), np.log(x), np.log2(x),
                np.log10(x), np.sin(x), np.cos(x), np.ceil(x), np.floor(x), np.rint(x), np.trunc(x)]
    for row, r in enumerate(refs):
        e = r.astype(np.float32).astype(dt)
        ge, ee = f32(got[row]), f32(e)
        nan = np.isnan(ee)
        assert np.array_equal(np.isnan(ge), nan), f"math row {row}: NaN positions"
        d = ulp_distance(got[row][~nan], e[~nan])
        assert d.max(initial=0) <= (0 if row >= 10 else 1), f"math row {row}: {d.max()} ulp"
