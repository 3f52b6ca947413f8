"""openhip.numpy: an Array API (2024.12) array library whose kernels run on every platform.

``import openhip.numpy as hnp``; ``hnp.asarray([1, 2, 3]) * 2``. Arrays (:class:`ndarray`)
are openhip DeviceArrays with strides; every operation is a HIP C++ kernel of
``openhip/numpy/kernels`` compiled through the compile cache (see ``_kernels.py``), enqueued
on the current stream. ``linalg``, ``fft`` and ``random`` come later.
"""

from __future__ import annotations

import importlib
import importlib.util

from . import _creation, _dtypes, _elementwise, _indexing, _manipulation
from ._array import _install_operators, ndarray
from ._creation import *  # noqa: F403
from ._dtypes import (
    bfloat16,
    bool,
    can_cast,
    complex64,
    complex128,
    finfo,
    float16,
    float32,
    float64,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    result_type,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._elementwise import *  # noqa: F403
from ._fusion import fuse
from ._indexing import take, take_along_axis
from ._info import __array_namespace_info__
from ._manipulation import *  # noqa: F403

__array_api_version__ = "2024.12"

e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None

_install_operators()

__all__ = (["__array_api_version__", "__array_namespace_info__", "ndarray", "e", "pi", "inf",
            "nan", "newaxis", "take", "take_along_axis", "bool", "int8", "int16", "int32",
            "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32",
            "float64", "complex64", "complex128", "can_cast", "finfo", "iinfo", "isdtype",
            "result_type", "get_default_memory_pool", "fuse"]
           + _creation.__all__ + _elementwise.__all__ + _manipulation.__all__)

# Part 2 of the namespace (reductions, searching, sorting, sets, utility, custom kernels)
# lives in its own modules; each exports its __all__ here once it exists.
for _name in ("_reduction", "_statistics", "_cumulative", "_searching", "_sorting", "_set",
              "_utility", "custom", "_linear", "_methods"):
    if importlib.util.find_spec(f"{__name__}.{_name}") is not None:
        _mod = importlib.import_module(f"{__name__}.{_name}")
        for _sym in getattr(_mod, "__all__", ()):
            globals()[_sym] = getattr(_mod, _sym)
            __all__.append(_sym)


def get_default_memory_pool():
    """The runtime's default memory pool (openhip.runtime.pool), when there is one."""
    from ..runtime.pool import get_default_memory_pool as _get

    return _get()


def __getattr__(name: str):
    if name in ("linalg", "fft", "random"):
        if importlib.util.find_spec(f"{__name__}.{name}") is not None:
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"openhip.numpy.{name} is not implemented yet")
    raise AttributeError(f"module 'openhip.numpy' has no attribute {name!r}")


del _dtypes, _indexing
