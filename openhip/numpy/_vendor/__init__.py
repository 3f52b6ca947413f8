"""The vendor math libraries behind openhip.numpy on the GPU platforms (one module each).

``get("cublas" | "cufft" | "cusolver", platform)`` returns the loaded binding for a platform, or
None when the platform has none (the caller's own kernels or the host-staged CPU library serve,
and :func:`why_missing` says why in its one warning). On nvidia: NVIDIA's cuBLAS, cuFFT and
cuSOLVER from their wheels, loaded on first use (importing openhip.numpy loads nothing). On
amd: rocBLAS, rocSOLVER and rocFFT from the user's ROCm where they are installed
(``get("cusolver", "amd")`` is rocSOLVER and ``get("cufft", "amd")`` rocFFT: the platform's
library of that role, as hipSOLVER / hipFFT marshal to either).
On the CPU platform: none, except inside the test-only :func:`_testing.fake_libraries`, which
routes the CPU platform through the bindings with a fake library of the same C ABI so that
their marshalling is tested without a GPU.
"""

from __future__ import annotations

import threading
from typing import Any

from . import _loader

__all__ = ["get", "why_missing"]

#: name -> path of a fake library (set only by _testing.fake_libraries)
_fake: dict[str, str] | None = None
_bindings: dict[tuple[str, str | None], Any] = {}
_failed: dict[str, str] = {}
_lock = threading.Lock()

_LIBRARY_OF = {"cublas": "cuBLAS", "cufft": "cuFFT", "cusolver": "cuSOLVER",
               "rocblas": "rocBLAS", "rocsolver": "rocSOLVER", "rocfft": "rocFFT"}
_PLATFORM_OF = {"cublas": "nvidia", "cufft": "nvidia", "cusolver": "nvidia", "rocblas": "amd",
                "rocsolver": "amd", "rocfft": "amd"}
#: the ROCm library serving a CUDA library's role on amd
_AMD_ROLE = {"cusolver": "rocsolver", "cufft": "rocfft"}


def _role(name: str, platform: str) -> str:
    """The library that serves ``name``'s role on ``platform``: rocSOLVER for "cusolver" on
    amd (rocFFT for "cufft"), and on the CPU platform when the fake libraries route it (and
    not the CUDA one)."""
    alias = _AMD_ROLE.get(name)
    if alias is None:
        return name
    if platform == "amd":
        return alias
    fake = _fake
    if platform == "cpu" and fake is not None and name not in fake and alias in fake:
        return alias
    return name


def _binding_class(name: str) -> Any:
    if name == "cublas":
        from ._cublas import Cublas

        return Cublas
    if name == "cufft":
        from ._cufft import Cufft

        return Cufft
    if name == "cusolver":
        from ._cusolver import Cusolver

        return Cusolver
    if name == "rocblas":
        from ._rocblas import Rocblas

        return Rocblas
    if name == "rocsolver":
        from ._rocsolver import Rocsolver

        return Rocsolver
    if name == "rocfft":
        from ._rocfft import Rocfft

        return Rocfft
    raise ValueError(f"unknown vendor library {name!r}")


def get(name: str, platform: str) -> Any:
    """The binding of ``name`` serving ``platform``'s devices, or None (see
    :func:`why_missing`)."""
    name = _role(name, platform)
    fake = _fake
    if platform == "cpu":
        if fake is None or name not in fake:
            return None
        path: str | None = fake[name]
    elif platform == _PLATFORM_OF.get(name):
        path = None
    else:
        return None
    key = (name, path)
    binding = _bindings.get(key)
    if binding is not None:
        return binding
    if path is None and name in _failed:
        return None
    with _lock:
        binding = _bindings.get(key)
        if binding is None:
            cls = _binding_class(name)
            try:
                lib = _loader.load_library(name, cls.SYMBOLS, path)
            except _loader.VendorMissing as exc:
                if path is not None:
                    raise
                _failed[name] = str(exc)
                return None
            binding = _bindings[key] = cls(lib)
    return binding


def why_missing(name: str, platform: str) -> str:
    """Why ``get(name, ...)`` gave None on ``platform`` (one line, for a warning)."""
    name = _role(name, platform)
    if platform == _PLATFORM_OF.get(name):
        return _failed.get(name, f"{_LIBRARY_OF[name]} is not available")
    return (f"{_LIBRARY_OF.get(name, name)} serves only the "
            f"{_PLATFORM_OF.get(name, 'nvidia')} platform")
