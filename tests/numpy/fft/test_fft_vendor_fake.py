"""The cuFFT and rocFFT bindings (openhip/numpy/_vendor/_cufft.py, _rocfft.py,
fft/_vendor_path.py) against numpy, without a GPU (and on an nvidia device with NVIDIA's wheel,
an amd device with the user's rocFFT: the ``nvidia`` / ``amd`` routes): the CPU platform routed
through them with the fake library of tests/numpy/linalg/fake_cuda_libs.cpp (cufftPlanMany /
Exec*, and rocfft_plan_create / rocfft_execute with plan descriptions, execution infos and work
buffers, as the libraries define them: a plain DFT on host memory; its real inverse overwrites
its input as theirs may). Checks every transform, n
(cut/padded), axis/axes/s, the three norms, both precisions, odd and prime lengths, strided
operands, the plan cache and the stream.
"""

from __future__ import annotations

import ctypes
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import openhip
import openhip.numpy as hnp
from openhip.numpy import _vendor
from openhip.numpy._vendor import _cufft, _testing

RNG = np.random.default_rng(21)
SRC = Path(__file__).parents[1] / "linalg" / "fake_cuda_libs.cpp"


#: route -> (the platform it runs on, the vendor library it routes)
ROUTES = {"fake-cpu": ("cpu", "cufft"), "fake-rocfft-cpu": ("cpu", "rocfft"),
          "nvidia": ("nvidia", "cufft"), "amd": ("amd", "rocfft")}


@pytest.fixture(scope="module", params=list(ROUTES))
def route(request, tmp_path_factory):
    """The fake library on the CPU platform (as cuFFT, or as rocFFT), or the real cuFFT /
    rocFFT on an nvidia / amd device."""
    platform, name = ROUTES[request.param]
    devs = {}
    for d in openhip.devices():
        devs.setdefault(d.platform, d)
    if platform != "cpu":
        if platform not in devs:
            pytest.skip(f"no {platform} device")
        if _vendor.get(name, platform) is None:
            pytest.skip(_vendor.why_missing(name, platform))
        r = _testing.Route(devs[platform])
        r.names = (name,)
        with devs[platform]:
            yield r
        return
    if "cpu" not in devs or shutil.which("g++") is None:
        pytest.skip("the fake library needs the CPU platform and g++")
    path = _testing.build_fake(SRC, tmp_path_factory.mktemp("fake_cufft"))
    with _testing.fake_libraries(path, (name,)), devs["cpu"]:
        r = _testing.Route(devs["cpu"], ctypes.CDLL(str(path)))
        r.names = (name,)
        yield r


def _c(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _r(shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def _close(got, want, single):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    tol = 2e-5 if single else 1e-11
    np.testing.assert_allclose(got, want, atol=tol * scale, rtol=tol)


CASES = [
    ("fft", "c", (3, 10), {}), ("fft", "c", (10,), {"n": 7}), ("fft", "c", (4, 6), {"n": 9}),
    ("fft", "c", (5, 4, 3), {"axis": 1}), ("fft", "c", (6, 5), {"axis": 0, "norm": "ortho"}),
    ("fft", "r", (2, 13), {"norm": "forward"}), ("ifft", "c", (3, 12), {}),
    ("ifft", "c", (7,), {"n": 11, "norm": "ortho"}), ("ifft", "c", (4, 5), {"norm": "forward"}),
    ("rfft", "r", (4, 9), {}), ("rfft", "r", (6, 5, 2), {"axis": 1, "n": 8}),
    ("rfft", "r", (16,), {"norm": "ortho"}), ("irfft", "c", (3, 6), {}),
    ("irfft", "c", (3, 6), {"n": 11}), ("irfft", "c", (5, 4), {"axis": 0, "n": 6}),
    ("irfft", "c", (7,), {"norm": "forward"}), ("fftn", "c", (3, 4, 5), {}),
    ("fftn", "c", (3, 4, 5), {"axes": (0, 2), "s": (4, 3)}),
    ("ifftn", "c", (4, 6), {"norm": "ortho"}), ("rfftn", "r", (4, 5, 6), {}),
    ("rfftn", "r", (4, 5, 6), {"axes": (1, 0), "s": (6, 3)}), ("irfftn", "c", (4, 5, 4), {}),
    ("irfftn", "c", (4, 5), {"axes": (0, 1), "s": (3, 7), "norm": "forward"}),
    ("hfft", "c", (3, 5), {}), ("hfft", "c", (6,), {"n": 9, "norm": "ortho"}),
    ("ihfft", "r", (4, 7), {}), ("ihfft", "r", (8,), {"n": 5, "norm": "forward"}),
]


@pytest.mark.parametrize("name,kind,shape,kw", CASES,
                         ids=[f"{c[0]}-{c[2]}-{'-'.join(f'{k}{v}' for k, v in c[3].items())}"
                              for c in CASES])
@pytest.mark.parametrize("single", [False, True], ids=["double", "single"])
def test_transforms_against_numpy(route, name, kind, shape, kw, single):
    if kind == "c":
        x = _c(shape, np.complex64 if single else np.complex128)
    else:
        x = _r(shape, np.float32 if single else np.float64)
    before = route.calls(3)
    got = getattr(hnp.fft, name)(hnp.asarray(x), **kw).get()
    want = getattr(np.fft, name)(x, **kw)
    _close(got, want, single)
    assert route.called_since(before, 3), "the vendor FFT binding was not called"


@pytest.mark.parametrize("n", [1, 2, 17, 97, 128, 210])
def test_lengths(route, n):
    x = _c((2, n))
    _close(hnp.fft.fft(hnp.asarray(x)).get(), np.fft.fft(x), False)
    r = _r((3, n))
    _close(hnp.fft.rfft(hnp.asarray(r)).get(), np.fft.rfft(r), False)
    h = np.fft.rfft(r)
    _close(hnp.fft.irfft(hnp.asarray(h), n=n).get(), np.fft.irfft(h, n=n), False)


def test_strided_and_integer_operands(route):
    x = _c((6, 8, 10))
    xd = hnp.asarray(x)
    _close(hnp.fft.fft(xd[:, ::2, 1:9], axis=2).get(), np.fft.fft(x[:, ::2, 1:9], axis=2),
           False)
    _close(hnp.fft.ifft(xd.mT[::-1], axis=1).get(), np.fft.ifft(x.mT[::-1], axis=1), False)
    i = RNG.integers(-5, 5, (4, 6)).astype(np.int32)
    _close(hnp.fft.fft(hnp.asarray(i)).get(), np.fft.fft(i), False)
    _close(hnp.fft.rfft(hnp.asarray(i), axis=0).get(), np.fft.rfft(i, axis=0), False)


def test_c2r_leaves_the_input_alone(route):
    h = _c((3, 5))
    hd = hnp.asarray(h)
    got = hnp.fft.irfft(hd).get()
    _close(got, np.fft.irfft(h), False)
    np.testing.assert_array_equal(hd.get(), h)  # the fake scribbles on what C2R was given
    hnp.fft.irfftn(hd)
    np.testing.assert_array_equal(hd.get(), h)


def test_plans_are_cached_and_streams_followed(route):
    x = hnp.asarray(_c((4, 33)))
    hnp.fft.fft(x)
    hnp.fft.ifft(x)
    lib = hnp.fft._vendor_path.library(x)
    plans, cached = route.calls(2), len(lib._plans)
    hnp.fft.fft(x)
    hnp.fft.ifft(x)  # the same plans (rocFFT's direction is in its plan, cuFFT's is not)
    assert route.calls(2) == plans and len(lib._plans) == cached
    assert route.last_stream() in (0, None)
    s = openhip.Stream()
    with s:
        y = hnp.fft.fft(x)
    assert route.last_stream() in (s.ptr, None) and s.ptr != 0
    # a cuFFT plan is bound to its stream; rocFFT's stream goes in the execution info
    per_stream = 1 if "cufft" in route.names else 0
    assert len(lib._plans) == min(cached + per_stream, _cufft.PLAN_CACHE)
    s.synchronize()
    _close(y.get(), np.fft.fft(x.get()), False)


def test_plan_cache_is_bounded(route):
    lib = hnp.fft._vendor_path.library(hnp.asarray([1.0]))
    for n in range(2, 2 + _cufft.PLAN_CACHE + 5):
        hnp.fft.fft(hnp.asarray(_c((n,))))
    assert len(lib._plans) <= _cufft.PLAN_CACHE


def test_bad_input(route):
    with pytest.raises(ValueError, match="Invalid norm"):
        hnp.fft.fft(hnp.asarray(_c((4,))), norm="sideways")
    with pytest.raises(ValueError, match="invalid number of data points"):
        hnp.fft.fft(hnp.asarray(_c((4,))), n=0)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        hnp.fft.fft(hnp.zeros((3, 0), dtype=hnp.complex64))
    with pytest.raises(TypeError, match="real-valued"):
        hnp.fft.rfft(hnp.asarray(_c((4,))))
    with pytest.raises(np.exceptions.AxisError):
        hnp.fft.fft(hnp.asarray(_c((4,))), axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no staging warning on the vendor path
        hnp.fft.fft(hnp.asarray(_c((4,))))


def test_rocfft_work_buffer_and_status(route):
    if "rocfft" not in route.names or route.fake is None:
        pytest.skip("the fake rocFFT's route only")
    from openhip.numpy._vendor import _rocfft

    x = _c((3, 40))
    xd = hnp.asarray(x)
    lib = hnp.fft._vendor_path.library(xd)
    assert isinstance(lib, _rocfft.Rocfft)
    _close(hnp.fft.fft(xd).get(), np.fft.fft(x), False)
    small = _c((2, 5))
    _close(hnp.fft.ifft(hnp.asarray(small)).get(), np.fft.ifft(small), False)
    (buf,) = [w for k, w in lib._work.items() if k[0] == xd.device.id and k[1] == 0]
    assert buf.size >= 64 + 16 * 40  # the fake's work size for n = 40: the larger kept
    dev = xd.device
    out = hnp.empty((1, 4), dtype=hnp.complex128)
    with pytest.raises(openhip.HipError, match="rocfft_plan_create returned "
                                               "rocfft_status_invalid_dimensions"):
        lib.execute(dev, "c2c", True, 0, 1, out, out)
    src = hnp.asarray(_c((1, 4)))
    with pytest.raises(openhip.HipError, match="rocfft_execute returned "
                                               "rocfft_status_invalid_arg_value"):
        lib.execute(dev, "c2c", True, 4, 1, src, src)  # not in place: two buffers
    assert _rocfft.transform_type("c2c", _cufft.INVERSE) == _rocfft.COMPLEX_INVERSE
    assert _rocfft.transform_type("c2r", _cufft.FORWARD) == _rocfft.REAL_INVERSE


def test_amd_fft_is_rocfft_and_a_missing_one_is_named(monkeypatch):
    from openhip.numpy._vendor import _loader

    monkeypatch.setattr(_vendor, "_bindings", {})
    monkeypatch.setattr(_vendor, "_failed", {})
    monkeypatch.setattr(_loader, "_SONAMES", {**_loader._SONAMES,
                                              "rocfft": ("librocfft-not-there.so.9",)})
    assert _vendor.get("cufft", "amd") is None
    assert "rocfft" in _vendor._failed
    assert _vendor.why_missing("cufft", "amd").startswith("rocFFT was not found")
