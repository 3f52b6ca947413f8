"""OpenBLAS (BLAS + LAPACKE) for the CPU platform, called on device memory directly.

The CPU platform's device memory is host memory, so the library numpy itself links (the
``scipy-openblas`` build bundled in numpy's wheels, ILP64, symbols ``scipy_cblas_sgemm64_``...)
works on it in place, threaded over the machine's cores. A system OpenBLAS
(``libopenblas.so``, LP64, plain symbols) serves where numpy was built against one.

What is loaded is checked first: the file must sit inside numpy's installation or a system
library directory, belong to root or the current user, and not be writable by others (the same
rule the compile cache applies to what it loads).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import os
import stat
import threading
from pathlib import Path
from typing import Any

import numpy as np

ROW_MAJOR = 101
NO_TRANS, TRANS, CONJ_TRANS = 111, 112, 113

_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
_REAL = {np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double,
         np.dtype(np.complex64): ctypes.c_float, np.dtype(np.complex128): ctypes.c_double}


class OpenBlas:
    """One loaded OpenBLAS: ``call(name, dtype)`` returns the typed function (``"gemm"`` ->
    ``cblas_?gemm``, ``"getrf"`` -> ``LAPACKE_?getrf``...)."""

    def __init__(self, path: str, prefix: str, suffix: str, int_type: Any) -> None:
        self.path = path
        self.lib = ctypes.CDLL(path)
        self.prefix, self.suffix = prefix, suffix
        self.int = int_type
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()

    def symbol(self, name: str) -> Any:
        fn = self._cache.get(name)
        if fn is None:
            fn = getattr(self.lib, f"{self.prefix}{name}{self.suffix}")
            self._cache[name] = fn
        return fn

    def blas(self, routine: str, dtype: np.dtype) -> Any:
        return self.symbol(f"cblas_{_PREFIX[np.dtype(dtype)]}{routine}")

    def lapacke(self, routine: str, dtype: np.dtype) -> Any:
        fn = self.symbol(f"LAPACKE_{_PREFIX[np.dtype(dtype)]}{routine}")
        fn.restype = self.int
        return fn


def _trusted(path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    if st.st_uid not in (0, os.getuid()):
        return False
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    parent = os.stat(os.path.dirname(path))
    return parent.st_uid in (0, os.getuid()) and not parent.st_mode & stat.S_IWOTH


@functools.lru_cache(maxsize=1)
def load() -> OpenBlas | None:
    """The OpenBLAS to use, or None when there is none (the project's own kernels serve)."""
    numpy_libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(glob.glob(str(numpy_libs / "libscipy_openblas64_*.so"))):
        if _trusted(path):
            return OpenBlas(path, "scipy_", "64_", ctypes.c_int64)
    for path in sorted(glob.glob(str(numpy_libs / "libscipy_openblas-*.so"))):
        if _trusted(path):
            return OpenBlas(path, "scipy_", "", ctypes.c_int32)
    name = ctypes.util.find_library("openblas")
    if name:
        try:
            lib = OpenBlas(name, "", "", ctypes.c_int32)
            lib.symbol("LAPACKE_dgetrf")
            lib.symbol("cblas_dgemm")
            return lib
        except (OSError, AttributeError):
            return None
    return None


def scalar(value: complex, dtype: np.dtype) -> Any:
    """A BLAS scalar argument (by value for real types, by pointer for complex)."""
    dt = np.dtype(dtype)
    real = _REAL[dt]
    if dt.kind == "c":
        arr = (real * 2)(value.real, value.imag)
        return ctypes.cast(arr, ctypes.c_void_p), arr
    return real(value.real), None


def real_type(dtype: np.dtype) -> Any:
    return _REAL[np.dtype(dtype)]
