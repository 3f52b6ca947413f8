"""Lazy loading of a vendor math library (cuBLAS, cuFFT, cuSOLVER) through ctypes.

A library is opened the first time a GPU operand needs it, never at import: from NVIDIA's wheels
(``nvidia-cublas``, ``nvidia-cufft``, ``nvidia-cusolver``, found by ``cuda.pathfinder``), else
the system's loader path (where the user's ROCm puts ``librocblas.so``, ``librocsolver.so``,
``librocfft.so``). Every symbol a binding calls is looked up when it is loaded, so a
library of the wrong kind or version fails there, with its name, not in the middle of a call.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from ...errors import HipError

__all__ = ["Library", "VendorMissing", "load_library", "check"]

#: the file names tried when cuda.pathfinder does not find the library (CUDA 13's, then CUDA
#: 12's: the symbols the bindings call have the same ABI in both)
_SONAMES = {"cublas": ("libcublas.so.13", "libcublas.so.12", "libcublas.so"),
            "cufft": ("libcufft.so.12", "libcufft.so.11", "libcufft.so"),
            "cusolver": ("libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"),
            "rocblas": ("librocblas.so.4", "librocblas.so.3", "librocblas.so"),
            "rocsolver": ("librocsolver.so.0", "librocsolver.so"),
            "rocfft": ("librocfft.so.0", "librocfft.so")}
#: libraries of the user's ROCm (not NVIDIA wheels: cuda.pathfinder is not asked)
_ROCM = {"rocblas": "rocBLAS", "rocsolver": "rocSOLVER", "rocfft": "rocFFT"}


class VendorMissing(Exception):
    """A vendor library could not be loaded (the message says which and why)."""


class Library:
    """One loaded vendor library: ``fn(name)`` returns its C function (``int`` status result)."""

    def __init__(self, name: str, path: str, symbols: tuple[str, ...]) -> None:
        self.name = name
        self.path = path
        try:
            self.dll = ctypes.CDLL(path)
        except OSError as exc:
            raise VendorMissing(f"{name}: {path} could not be loaded ({exc})") from None
        missing = [s for s in symbols if not hasattr(self.dll, s)]
        if missing:
            raise VendorMissing(f"{name}: {path} lacks {', '.join(missing)}")
        self._fns: dict[str, Any] = {}
        self.lock = threading.RLock()

    def fn(self, symbol: str) -> Any:
        f = self._fns.get(symbol)
        if f is None:
            f = getattr(self.dll, symbol)
            f.restype = ctypes.c_int
            self._fns[symbol] = f
        return f


def _locate(name: str) -> str:
    if name in _ROCM:
        for soname in _SONAMES[name]:
            try:
                ctypes.CDLL(soname)
                return soname
            except OSError:
                continue
        raise VendorMissing(f"{_ROCM[name]} was not found (lib{name}.so is not on the loader's "
                            "path; it comes with the user's ROCm)")
    try:
        from cuda import pathfinder
    except ImportError:
        pathfinder = None
    if pathfinder is not None:
        try:
            return pathfinder.load_nvidia_dynamic_lib(name).abs_path
        except Exception as exc:  # noqa: BLE001 - pathfinder's several not-found errors
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    else:
        why = "cuda.pathfinder is not installed"
    for soname in _SONAMES.get(name, ()):
        try:
            ctypes.CDLL(soname)
            return soname
        except OSError:
            continue
    raise VendorMissing(f"{name} was not found ({why}; pip install 'openhip[nvidia]' installs "
                        f"NVIDIA's nvidia-{name} wheel)")


def load_library(name: str, symbols: tuple[str, ...], path: str | None = None) -> Library:
    """Open ``name`` (``path`` when given, else the wheel's or the system's library)."""
    return Library(name, path or _locate(name), symbols)


def check(status: int, routine: str, names: dict[int, str]) -> None:
    """Raise HipError naming the library's status when ``status`` is not success (0)."""
    if status:
        name = names.get(status, f"status {status}")
        raise HipError("hipErrorUnknown", f"{routine} returned {name}", routine=routine)
