"""What the user's ROCm offers of the libraries openhip does not call yet (rocFFT), for the
amd platform's warning.

rocBLAS and rocSOLVER are wired (``_rocblas``, ``_rocsolver``); the amd platform's FFT
functions are still staged through host memory. This module only says whether a library is
installed, so the warning can tell the user what is absent and what serves.
"""

from __future__ import annotations

import ctypes.util
import functools

_NAMES = {"rocblas": "rocBLAS", "rocfft": "rocFFT", "rocsolver": "rocSOLVER"}


@functools.cache
def find(lib: str) -> str | None:
    """The loader's name for ``lib<lib>.so`` when the system has it, else None."""
    return ctypes.util.find_library(lib)


def status(lib: str) -> str:
    """One line: whether ``lib`` is installed, and that openhip does not call it yet."""
    label = _NAMES.get(lib, lib)
    found = find(lib)
    if found:
        return f"{label} ({found}) is installed but not wired into openhip yet"
    return f"{label} was not found (lib{lib}.so is not on the loader's path)"
