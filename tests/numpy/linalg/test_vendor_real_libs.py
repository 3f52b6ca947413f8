"""NVIDIA's real cuBLAS / cuFFT / cuSOLVER wheels (``openhip[nvidia]``), on a machine without a
GPU: they load lazily (importing openhip.numpy maps none of them; the first ``_vendor.get``
does), every symbol the bindings call resolves, and the nvidia platform is still not selected
when there is no GPU (nothing changes for CPU users). Skips where the wheels are absent."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

import pytest

from openhip.numpy._vendor import _cublas, _cufft, _cusolver, _loader

BINDINGS = {"cublas": _cublas, "cufft": _cufft, "cusolver": _cusolver}


def _path(name):
    try:
        return _loader._locate(name)
    except _loader.VendorMissing as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("name", sorted(BINDINGS))
def test_every_symbol_resolves(name):
    path = _path(name)
    lib = ctypes.CDLL(path)
    missing = [s for s in BINDINGS[name].SYMBOLS if not hasattr(lib, s)]
    assert not missing, f"{path} lacks {missing}"
    assert len(BINDINGS[name].SYMBOLS) >= 3


_PROBE = r"""
import json, os
def mapped():
    with open("/proc/self/maps") as f:
        text = f.read()
    return sorted({n for n in ("libcublas", "libcufft", "libcusolver") if n in text})
import openhip.numpy as hnp
imported = mapped()
x = hnp.arange(4.0)
y = (x @ x, hnp.fft.fft(x), hnp.linalg.inv(hnp.eye(2) * 2.0))
used = mapped()
import openhip
platform = openhip.get_device().platform
from openhip.numpy import _vendor
loaded = {n: _vendor.get(n, "nvidia") is not None for n in ("cublas", "cufft", "cusolver")}
print(json.dumps({"imported": imported, "used": used, "after": mapped(),
                  "platform": platform, "loaded": loaded}))
"""


def test_loaded_lazily_and_cpu_still_selected():
    for name in BINDINGS:
        _path(name)
    env = {k: v for k, v in os.environ.items() if k != "OPENHIP_PLATFORM"}
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["imported"] == []
    if result["platform"] == "cpu":  # CPU arrays never touch the libraries
        assert result["used"] == []
    assert result["loaded"] == {"cublas": True, "cufft": True, "cusolver": True}
    assert result["after"] == ["libcublas", "libcufft", "libcusolver"]
    if not os.path.exists("/dev/nvidia0"):
        assert result["platform"] == "cpu"


def test_missing_library_is_a_clear_message(monkeypatch):
    real = _path("cublas")
    monkeypatch.setattr(_loader, "_SONAMES", {"cublas": ("libnot-there.so.99",)})
    import cuda.pathfinder as pf

    def nope(name):
        raise RuntimeError(f"no {name} here")

    monkeypatch.setattr(pf, "load_nvidia_dynamic_lib", nope)
    with pytest.raises(_loader.VendorMissing, match=r"cublas was not found \(no cublas here"):
        _loader._locate("cublas")
    with pytest.raises(_loader.VendorMissing, match="lacks cublasNoSuchThing"):
        _loader.load_library("cublas", ("cublasNoSuchThing",), real)
