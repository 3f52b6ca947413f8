"""8-bit floats (tests/kernels/fp8_convert.hip) bit-exact against ml_dtypes: OCP float8_e4m3fn /
float8_e5m2 and the FNUZ variants, with and without saturation."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import KERNELS

import openhip as hip

ml_dtypes = pytest.importorskip("ml_dtypes")
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@pytest.fixture(scope="module")
def mod():
    return hip.Module((KERNELS / "fp8_convert.hip").read_text(), name="fp8_convert.hip")


def inputs() -> np.ndarray:
    rng = np.random.default_rng(0)
    r = rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64).astype(np.uint32).view(np.float32)
    w = rng.standard_normal(1 << 16).astype(np.float32) * np.float32(2.0) ** rng.integers(-20, 18, 1 << 16)
    # every fp8 value and the midpoints between neighbours (ties to even)
    vals = [np.arange(256, dtype=np.uint8).view(t).astype(np.float32)
            for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)]
    v = np.sort(np.concatenate(vals)[np.isfinite(np.concatenate(vals))])
    mids = ((v[1:].astype(np.float64) + v[:-1]) / 2).astype(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 448, 464, 465, 480, -464.5, 57344,
                        61440, 61441, 1e9, 240, 248, 1e-10], np.float32)
    return np.concatenate([r, w, v, mids, special]).astype(np.float32)


def expect(x: np.ndarray, dt, sat: bool) -> np.ndarray:
    info = ml_dtypes.finfo(dt)
    y = x
    if sat:
        y = np.where(np.isnan(x), x, np.clip(x, -float(info.max), float(info.max))).astype(np.float32)
    return y.astype(dt)


def assert_fp8(got_bits: np.ndarray, want: np.ndarray, what: str) -> None:
    dt = want.dtype
    g = got_bits.view(dt).astype(np.float32)
    w = want.astype(np.float32)
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan), f"{what}: NaN positions"
    bad = got_bits[~nan] != want.view(np.uint8)[~nan]
    if bad.any():
        i = np.nonzero(~nan)[0][np.nonzero(bad)[0][0]]
        raise AssertionError(f"{what}: {bad.sum()} mismatches, first: got {g[i]} want {w[i]}")


def test_float_to_fp8(device, mod):
    if not device.properties.supports_fp8:
        pytest.skip("no fp8 on this device")
    x = inputs()
    n = x.size
    out = hip.zeros(6 * n, np.uint8)
    mod.get_function("fp8_from_float")((n + 255) // 256, 256, (hip.asarray(x), out, n))
    g = out.get().reshape(6, n)
    e4, e5 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2
    assert_fp8(g[0], expect(x, e4, True), "e4m3 satfinite")
    assert_fp8(g[1], expect(x, e4, False), "e4m3 nosat")
    assert_fp8(g[2], expect(x, e5, True), "e5m2 satfinite")
    assert_fp8(g[3], expect(x, e5, False), "e5m2 nosat")
    assert_fp8(g[4], expect(x, e4, True), "__hip_fp8_e4m3(float)")
    assert_fp8(g[5], expect(x, e5, True), "__hip_fp8_e5m2(float)")


def test_float_to_fp8_fnuz(device, mod):
    if not device.properties.supports_fp8:
        pytest.skip("no fp8 on this device")
    x = inputs()
    n = x.size
    out = hip.zeros(4 * n, np.uint8)
    mod.get_function("fp8_from_float_fnuz")((n + 255) // 256, 256, (hip.asarray(x), out, n))
    g = out.get().reshape(4, n)
    e4, e5 = ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2fnuz
    assert_fp8(g[0], expect(x, e4, True), "e4m3fnuz satfinite")
    assert_fp8(g[1], expect(x, e4, False), "e4m3fnuz nosat")
    assert_fp8(g[2], expect(x, e5, True), "e5m2fnuz satfinite")
    assert_fp8(g[3], expect(x, e5, False), "e5m2fnuz nosat")


def test_fp8_to_float_and_half(device, mod):
    if not device.properties.supports_fp8:
        pytest.skip("no fp8 on this device")
    out, hout = hip.zeros(512, np.float32), hip.zeros(512, np.float16)
    mod.get_function("fp8_to_float")(1, 256, (out, hout))
    all8 = np.arange(256, dtype=np.uint8)
    want = np.concatenate([all8.view(ml_dtypes.float8_e4m3fn).astype(np.float32),
                           all8.view(ml_dtypes.float8_e5m2).astype(np.float32)])
    g = out.get()
    assert np.array_equal(np.isnan(g), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.array_equal(g[ok].view(np.uint32), want[ok].view(np.uint32))
    h = hout.get().astype(np.float32)
    assert np.array_equal(np.isnan(h), np.isnan(want))
    assert np.array_equal(h[ok], want[ok])
