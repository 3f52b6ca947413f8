"""Integer/bit intrinsics, type punning, rounding conversions and clocks
(tests/kernels/intrinsics_bits.hip), exactly against Python integer arithmetic."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from kernel_files import KERNELS

import openhip as hip

M32, M64 = (1 << 32) - 1, (1 << 64) - 1


@pytest.fixture(scope="module")
def mod():
    return hip.Module((KERNELS / "intrinsics_bits.hip").read_text(), name="intrinsics_bits.hip")


def s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def sx24(v):
    v &= 0xFFFFFF
    return v - (1 << 24) if v >> 23 else v


def brev(v, bits):
    return int(format(v, f"0{bits}b")[::-1], 2)


def byte_perm(x, y, s):
    v = (y << 32) | x
    return sum(((v >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i) for i in range(4))


def ref32(x, y, s):
    sx_, sy = s32(x), s32(y)
    big = (y << 32) | x
    return [
        bin(x).count("1"),
        (x & -x).bit_length(),
        32 - x.bit_length(),
        brev(x, 32),
        byte_perm(x, y, s),
        sx24(x) * sx24(y),
        (x & 0xFFFFFF) * (y & 0xFFFFFF),
        (sx_ * sy) >> 32,
        (x * y) >> 32,
        abs(sx_ - sy) + s,
        abs(x - y) + s,
        ((big << (s & 31)) >> 32),
        ((big << min(s, 32)) >> 32),
        big >> (s & 31),
        big >> min(s, 32),
        (sx_ + sy) >> 1,
        (sx_ + sy + 1) >> 1,
        (x + y) >> 1,
        (x + y + 1) >> 1,
    ]


def test_bits32(device, mod):
    rng = np.random.default_rng(0)
    n = 1024
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    c = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    c[: n // 2] %= 40  # shift counts around 32
    a[:6] = [0, 1, 0xFFFFFFFF, 0x80000000, 0x00800000, 0x7FFFFFFF]
    b[:6] = [0, 0xFFFFFFFF, 0xFFFFFFFF, 0x80000000, 0x00FFFFFF, 1]
    nref = len(ref32(1, 1, 1))
    out = hip.zeros(nref * n, np.uint32)
    mod.get_function("bits32")(4, 256, (hip.asarray(a), hip.asarray(b), hip.asarray(c), out, n))
    got = out.get().reshape(nref, n)
    for i in range(n):
        expect = [v & M32 for v in ref32(int(a[i]), int(b[i]), int(c[i]))]
        assert [int(v) for v in got[:, i]] == expect, f"inputs {a[i]:#x} {b[i]:#x} {c[i]}"


def test_bits64(device, mod):
    rng = np.random.default_rng(1)
    n = 512
    a = rng.integers(0, 1 << 64, n, dtype=np.uint64)
    b = rng.integers(0, 1 << 64, n, dtype=np.uint64)
    a[:4] = [0, 1, M64, 1 << 63]
    out = hip.zeros(6 * n, np.uint64)
    mod.get_function("bits64")(2, 256, (hip.asarray(a), hip.asarray(b), out, n))
    got = out.get().reshape(6, n)
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        expect = [bin(x).count("1"), (x & -x).bit_length(), 64 - x.bit_length(), brev(x, 64),
                  (s64(x) * s64(y)) >> 64, (x * y) >> 64]
        assert [int(v) for v in got[:, i]] == [v & M64 for v in expect], f"{x:#x} {y:#x}"


def to_f32(v: Fraction, mode: str) -> float:
    """Exact rational -> float32 in a rounding mode."""
    d = float(v)  # correctly rounded double
    if Fraction(d) != v:  # round to odd so that the float rounding below is exact
        u = np.array([d]).view(np.uint64)
        if abs(Fraction(d)) > abs(v):
            u -= np.uint64(1)
        d = float((u | np.uint64(1)).view(np.float64)[0])
    c = np.float32(d)
    if mode == "rn" or Fraction(float(c)) == v:
        return float(c)
    below = Fraction(float(c)) < v
    if mode == "ru" and below:
        c = np.nextafter(c, np.float32(np.inf))
    elif mode == "rd" and not below:
        c = np.nextafter(c, np.float32(-np.inf))
    elif mode == "rz" and abs(Fraction(float(c))) > abs(v):
        c = np.nextafter(c, np.float32(0))
    return float(c)


def test_conversions(device, mod):
    rng = np.random.default_rng(2)
    n = 1024
    f = (rng.uniform(-1e9, 1e9, n)).astype(np.float32)
    f[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0]
    f[8:200] = rng.uniform(-4, 4, 192).astype(np.float32)
    d = rng.uniform(-2e9, 2e9, n)
    d[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 16777217.0, -16777219.0]
    d[8:200] = rng.uniform(-3, 3, 192)
    iv, uv = hip.zeros(9 * n, np.int32), hip.zeros(3 * n, np.uint32)
    lv, ulv = hip.zeros(3 * n, np.int64), hip.zeros(n, np.uint64)
    fo, do = hip.zeros(12 * n, np.float32), hip.zeros(4 * n, np.float64)
    mod.get_function("conversions")(4, 256, (hip.asarray(f), hip.asarray(d), iv, uv, lv, ulv, fo, do, n))
    ig, ug, lg, ulg = (x.get() for x in (iv, uv, lv, ulv))
    ig, ug, lg = ig.reshape(9, n), ug.reshape(3, n), lg.reshape(3, n)
    fg, dg = fo.get().reshape(12, n), do.get().reshape(4, n)
    ff = f.astype(np.float64)
    for row, fn in enumerate([np.rint, np.trunc, np.ceil, np.floor]):
        np.testing.assert_array_equal(ig[row], np.clip(fn(ff), -2 ** 31, 2 ** 31 - 1).astype(np.int32))
        np.testing.assert_array_equal(ig[4 + row], np.clip(fn(d), -2 ** 31, 2 ** 31 - 1).astype(np.int32))
    np.testing.assert_array_equal(ig[8], f.view(np.int32))
    np.testing.assert_array_equal(ug[0], np.rint(np.abs(ff)).astype(np.uint32))
    np.testing.assert_array_equal(ug[1], np.trunc(np.abs(ff)).astype(np.uint32))
    np.testing.assert_array_equal(ug[2], f.view(np.uint32))
    np.testing.assert_array_equal(lg[0], np.rint(ff).astype(np.int64))
    np.testing.assert_array_equal(lg[1], np.trunc(d).astype(np.int64))
    np.testing.assert_array_equal(lg[2], d.view(np.int64))
    np.testing.assert_array_equal(ulg, np.floor(np.abs(d)).astype(np.uint64))
    np.testing.assert_array_equal(fg[0].view(np.uint32), f.view(np.uint32))
    np.testing.assert_array_equal(fg[1].view(np.uint32), f.view(np.uint32) ^ np.uint32(0x80000000))
    for row, mode in enumerate(["rn", "rz", "ru", "rd"]):
        expect_i = [to_f32(Fraction(int(v)), mode) for v in np.trunc(d)]
        np.testing.assert_array_equal(fg[2 + row], np.array(expect_i, np.float32), err_msg=f"int2float_{mode}")
        expect_d = [to_f32(Fraction(float(v)), mode) for v in d]
        np.testing.assert_array_equal(fg[6 + row], np.array(expect_d, np.float32), err_msg=f"double2float_{mode}")
    np.testing.assert_array_equal(fg[10], np.clip(f, 0, 1))
    ll = np.trunc(d * 1e6).astype(np.int64)
    np.testing.assert_array_equal(fg[11], np.array([to_f32(Fraction(int(v)), "rn") for v in ll], np.float32))
    np.testing.assert_array_equal(dg[0], d)
    np.testing.assert_array_equal(dg[1], d)
    np.testing.assert_array_equal(dg[2], np.trunc(d))
    np.testing.assert_array_equal(dg[3], np.array([float(int(v)) for v in ll]))


def test_clock_and_ldg(device, mod):
    n = 64
    src = np.arange(n, dtype=np.int32)
    t, out = hip.zeros(n, np.int64), hip.zeros(n, np.int32)
    mod.get_function("clocks")(1, n, (hip.asarray(src), t, out))
    np.testing.assert_array_equal(out.get(), 2 * src)
    assert (t.get() >= 0).all()
