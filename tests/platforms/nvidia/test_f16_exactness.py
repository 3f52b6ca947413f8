"""The GPU platforms' 16-bit float arithmetic (openhip_fpconv.h + openhip_f16_impl.inc, shared by
the nvidia and amd include dirs), compiled for the host with g++ and checked bit for bit against
numpy (binary16) and ml_dtypes (bfloat16): conversions, + - * /, fma, float -> int. The same
source is what NVRTC/hiprtc compile, so this checks the device code's logic without a GPU."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import openhip

ml_dtypes = pytest.importorskip("ml_dtypes")
SHARED_INCLUDE = Path(openhip.__file__).parent / "platforms" / "gpu_include"
INCLUDE = Path(openhip.__file__).parent / "platforms" / "nvidia" / "include"
HARNESS = Path(__file__).with_name("f16_host_harness.cpp")
FORMATS = {"half": np.float16, "bf16": ml_dtypes.bfloat16}


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("needs a host C++ compiler")
    exe = tmp_path_factory.mktemp("f16") / "harness"
    subprocess.run([cxx, "-std=c++17", "-O1", "-idirafter", str(INCLUDE), "-idirafter", str(SHARED_INCLUDE), str(HARNESS), "-o",
                    str(exe)], check=True, capture_output=True, text=True)

    def run(mode: str, fmt: str, data: bytes = b"") -> bytes:
        return subprocess.run([str(exe), mode, fmt], input=data, capture_output=True,
                              check=True).stdout

    return run


def _all(dt):
    bits = np.arange(65536, dtype=np.uint16)
    values = bits.view(dt).astype(np.float32)
    return bits, values, np.isnan(values)


@pytest.mark.parametrize("fmt", FORMATS)
def test_to_float_is_exact(harness, fmt):
    _, ref, nan = _all(FORMATS[fmt])
    got = np.frombuffer(harness("tofloat", fmt), np.float32)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.uint32), ref[~nan].view(np.uint32))


@pytest.mark.parametrize("fmt", FORMATS)
def test_from_float_rounds_to_nearest_even(harness, fmt):
    dt = FORMATS[fmt]
    _, ref, nan = _all(dt)
    rng = np.random.default_rng(1)
    with np.errstate(over="ignore"):
        xs = np.concatenate([ref[~nan], ref[~nan] * np.float32(1.0001),
                             (ref[~nan][:-1] + ref[~nan][1:]) / 2,  # ties
                             rng.standard_normal(50000).astype(np.float32) * 1e3,
                             np.frombuffer(rng.bytes(200000), np.float32)])
    xs = xs[~np.isnan(xs)]
    got = np.frombuffer(harness("fromfloat", fmt, xs.tobytes()), np.uint16)
    with np.errstate(over="ignore"):
        assert np.array_equal(got, xs.astype(dt).view(np.uint16))


@pytest.mark.parametrize("fmt", FORMATS)
def test_from_double_and_int64(harness, fmt):
    dt = FORMATS[fmt]
    rng = np.random.default_rng(2)
    ds = rng.standard_normal(50000).astype(np.float32).astype(np.float64) * 100  # float-exact
    got = np.frombuffer(harness("fromdouble", fmt, ds.tobytes()), np.uint16)
    assert np.array_equal(got, ds.astype(dt).view(np.uint16))
    # just below a tie of the target format: one correct rounding, not two
    tie = np.float64(1.0) + 2.0 ** -(11 if fmt == "half" else 8)
    below = np.frombuffer(harness("fromdouble", fmt, np.array([tie - 2.0 ** -40]).tobytes()),
                          np.uint16)
    assert below[0] == np.array([1.0], dt).view(np.uint16)[0]
    ints = rng.integers(-70000, 70000, 20000, dtype=np.int64)
    got = np.frombuffer(harness("fromll", fmt, ints.tobytes()), np.uint16)
    with np.errstate(over="ignore"):
        assert np.array_equal(got, ints.astype(np.float64).astype(dt).view(np.uint16))


@pytest.mark.parametrize("fmt", FORMATS)
def test_basic_operations_are_correctly_rounded(harness, fmt):
    dt = FORMATS[fmt]
    bits, _, nan = _all(dt)
    rng = np.random.default_rng(3)
    a, b = rng.choice(bits[~nan], 100000), rng.choice(bits[~nan], 100000)
    out = np.frombuffer(harness("binop", fmt, np.stack([a, b], 1).tobytes()),
                        np.uint16).reshape(-1, 4)
    fa, fb = a.view(dt).astype(np.float32), b.view(dt).astype(np.float32)
    with np.errstate(all="ignore"):
        for k, exact in enumerate((fa + fb, fa - fb, fa * fb, fa / fb)):
            ref = exact.astype(dt)
            ref_nan = np.isnan(ref.astype(np.float32))
            got_nan = np.isnan(out[:, k].view(dt).astype(np.float32))
            assert np.array_equal(got_nan, ref_nan)
            assert np.array_equal(out[~ref_nan, k], ref.view(np.uint16)[~ref_nan])


@pytest.mark.parametrize("fmt", FORMATS)
def test_fma_is_correctly_rounded(harness, fmt):
    dt = FORMATS[fmt]
    bits, _, nan = _all(dt)
    rng = np.random.default_rng(4)
    a, b, c = (rng.choice(bits[~nan], 100000) for _ in range(3))
    got = np.frombuffer(harness("fma", fmt, np.stack([a, b, c], 1).tobytes()), np.uint16)
    fa, fb, fc = (x.view(dt).astype(np.float64) for x in (a, b, c))
    with np.errstate(all="ignore"):
        p = fa * fb  # exact
        s = p + fc
        # keep sums exact in double and in float, so the reference (float -> 16 bits, one
        # rounding; ml_dtypes goes through float) is the correctly rounded result
        exact = ((s - p) == fc) & np.isfinite(s) & (s.astype(np.float32).astype(np.float64) == s)
        ref = s.astype(np.float32).astype(dt).view(np.uint16)
    assert exact.sum() > 20000
    assert np.array_equal(got[exact], ref[exact])


@pytest.mark.parametrize("fmt", FORMATS)
def test_to_int_saturates_and_maps_nan_to_zero(harness, fmt):
    _, ref, nan = _all(FORMATS[fmt])
    got = np.frombuffer(harness("toint", fmt), np.int32).reshape(-1, 2)
    with np.errstate(invalid="ignore"):
        wide = ref.astype(np.float64)
    for col, fn in ((0, np.rint), (1, np.trunc)):
        with np.errstate(invalid="ignore"):
            expect = np.clip(fn(wide), -2.0 ** 31, 2.0 ** 31 - 1)
        expect[nan] = 0
        assert np.array_equal(got[:, col], expect.astype(np.int64))


FP8 = [("float8_e4m3fn", 448.0), ("float8_e5m2", 57344.0), ("float8_e4m3fnuz", 240.0),
       ("float8_e5m2fnuz", 57344.0)]


def test_fp8_to_float_is_exact(harness):
    got = np.frombuffer(harness("fp8to", "fp8"), np.float32).reshape(4, 256)
    bits = np.arange(256, dtype=np.uint8)
    for k, (name, _) in enumerate(FP8):
        ref = bits.view(getattr(ml_dtypes, name)).astype(np.float32)
        nan = np.isnan(ref)
        assert np.array_equal(np.isnan(got[k]), nan), name
        assert np.array_equal(got[k][~nan], ref[~nan]), name


def test_float_to_fp8_rounding_and_saturation(harness):
    rng = np.random.default_rng(5)
    xs = np.concatenate([
        rng.standard_normal(20000).astype(np.float32) * 50,
        rng.standard_normal(20000).astype(np.float32) * 1e-3,
        np.array([0.0, -0.0, np.inf, -np.inf, 448, 449, 464, 480, 57344, 61440, 1e6, -1e6,
                  240, 247, 248, 1e-9, -1e-9], np.float32)])
    got = np.frombuffer(harness("fp8from", "fp8", xs.tobytes()), np.uint8).reshape(-1, 4, 2)
    for k, (name, top) in enumerate(FP8):
        dt = getattr(ml_dtypes, name)
        with np.errstate(over="ignore", invalid="ignore"):
            nosat = xs.astype(dt)
            sat = np.clip(xs, -top, top).astype(dt)
        for col, ref in ((0, nosat), (1, sat)):
            ref_f = ref.astype(np.float32)
            got_f = got[:, k, col].view(dt).astype(np.float32)
            nan = np.isnan(ref_f)
            assert np.array_equal(np.isnan(got_f), nan), (name, col)
            assert np.array_equal(got_f[~nan], ref_f[~nan]), (name, col)
            # the sign of zero too (FNUZ formats have none)
            assert np.array_equal(np.signbit(got_f[~nan]), np.signbit(ref_f[~nan])), (name, col)

