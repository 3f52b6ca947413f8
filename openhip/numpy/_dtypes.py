"""Data types of openhip.numpy and the Array API type-promotion rules.

The dtypes are numpy dtype objects (``hnp.float32 == numpy.float32`` holds, as in numpy and
CuPy); ``float16`` and ``bfloat16`` are extensions (bfloat16 from ml_dtypes). Promotion between
arrays follows the standard's table for same-kind pairs (numpy 2 agrees) and numpy for mixed
kinds; a Python scalar takes the array's dtype where the standard says so ("weak" scalars).
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np

__all__ = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "DTYPES", "CTYPES", "to_dtype", "result_type", "promote", "scalar_dtype", "can_cast",
    "isdtype", "finfo", "iinfo", "kind_of",
]

bool = np.dtype(np.bool_)  # noqa: A001 - the standard's name
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)
float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

DTYPES = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16,
          float32, float64, complex64, complex128)

#: the C++ storage type of each dtype in the kernels (kernels/common.h)
CTYPES: dict[np.dtype, str] = {
    bool: "bool", int8: "signed char", int16: "short", int32: "int", int64: "long long",
    uint8: "unsigned char", uint16: "unsigned short", uint32: "unsigned int",
    uint64: "unsigned long long", float16: "__half", bfloat16: "__hip_bfloat16",
    float32: "float", float64: "double", complex64: "ohc<float>", complex128: "ohc<double>",
}

_KIND = {bool: "b", float16: "f", bfloat16: "f", float32: "f", float64: "f",
         complex64: "c", complex128: "c"}
for _d in (int8, int16, int32, int64):
    _KIND[_d] = "i"
for _d in (uint8, uint16, uint32, uint64):
    _KIND[_d] = "u"

_SUPPORTED = frozenset(DTYPES)


def kind_of(dt: np.dtype) -> str:
    """'b', 'i', 'u', 'f' or 'c'."""
    return _KIND[dt]


def to_dtype(dtype: Any) -> np.dtype:
    """The supported dtype named by ``dtype``; TypeError for anything else."""
    if type(dtype) is np.dtype and dtype in _SUPPORTED:
        return dtype
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"data type {dtype!r} not understood") from None
    if dt.byteorder == ">" or dt not in _SUPPORTED:
        raise TypeError(f"openhip.numpy does not support the data type {dt}")
    return dt


_PROMOTE_CACHE: dict[tuple[np.dtype, np.dtype], np.dtype] = {}


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """The promoted dtype of two array dtypes."""
    key = (a, b)
    r = _PROMOTE_CACHE.get(key)
    if r is not None:
        return r
    if a == b:
        r = a
    elif bfloat16 in key:
        other = b if a == bfloat16 else a
        k = _KIND[other]
        if k == "b" or (k in "iu" and other.itemsize == 1):
            r = bfloat16
        elif other == float16:
            r = float32
        elif k == "c":
            r = other
        else:
            r = np.promote_types(np.float32, other)
    else:
        r = np.promote_types(a, b)
    _PROMOTE_CACHE[key] = r
    return r


def scalar_dtype(value: Any, dt: np.dtype) -> np.dtype:
    """The dtype of ``array(dt) <op> value`` for a Python scalar ``value``."""
    k = _KIND[dt]
    if isinstance(value, (builtins.bool, np.bool_)):
        return dt
    if isinstance(value, int):
        return int64 if k == "b" else dt
    if isinstance(value, float):
        return dt if k in "fc" else float64
    if isinstance(value, complex):
        if k == "c":
            return dt
        if dt in (float16, bfloat16, float32):
            return complex64
        return complex128
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def result_type(*items: Any) -> np.dtype:
    """Promote dtypes, arrays and Python scalars (scalars are weak, as the standard says)."""
    from ._array import ndarray

    dts: list[np.dtype] = []
    scalars: list[Any] = []
    for x in items:
        if isinstance(x, ndarray):
            dts.append(x.dtype)
        elif isinstance(x, (builtins.bool, int, float, complex)) and not isinstance(x, np.generic):
            scalars.append(x)
        else:
            dts.append(to_dtype(x))
    if not dts:
        if not scalars:
            raise ValueError("at least one array or dtype is required")
        raise TypeError("result_type needs at least one array or dtype besides scalars")
    r = dts[0]
    for d in dts[1:]:
        r = promote(r, d)
    for s in scalars:
        r = scalar_dtype(s, r)
    return r


def can_cast(from_: Any, to: Any) -> builtins.bool:
    """Whether the standard's promotion allows ``from_`` -> ``to`` (a safe cast)."""
    from ._array import ndarray

    src = from_.dtype if isinstance(from_, ndarray) else to_dtype(from_)
    dst = to_dtype(to)
    if src == dst:
        return True
    if bfloat16 in (src, dst):
        return promote(src, dst) == dst
    return builtins.bool(np.can_cast(src, dst, casting="safe"))


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """The standard's ``isdtype``: ``kind`` is a dtype, a kind name or a tuple of them."""
    dt = to_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dt, k) for k in kind)
    if isinstance(kind, str):
        k = _KIND[dt]
        table = {
            "bool": k == "b", "signed integer": k == "i", "unsigned integer": k == "u",
            "integral": k in "iu", "real floating": k == "f", "complex floating": k == "c",
            "numeric": k in "iufc",
        }
        if kind not in table:
            raise ValueError(f"unknown dtype kind {kind!r}")
        return table[kind]
    return dt == to_dtype(kind)


class finfo_object:
    """Machine limits of a floating-point dtype (the standard's ``finfo``)."""

    def __init__(self, dt: np.dtype) -> None:
        info = ml_dtypes.finfo(dt) if dt == bfloat16 else np.finfo(dt)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.dtype = dt if _KIND[dt] == "f" else to_dtype(info.dtype)

    def __repr__(self) -> str:
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"smallest_normal={self.smallest_normal}, dtype={self.dtype})")


class iinfo_object:
    """Machine limits of an integer dtype (the standard's ``iinfo``)."""

    def __init__(self, dt: np.dtype) -> None:
        info = np.iinfo(dt)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = dt

    def __repr__(self) -> str:
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


def _dtype_of(type: Any) -> np.dtype:  # noqa: A002 - the standard's name
    from ._array import ndarray

    return type.dtype if isinstance(type, ndarray) else to_dtype(type)


def finfo(type: Any) -> finfo_object:  # noqa: A002
    """Limits of a floating-point (or complex: of its real part) dtype or array."""
    dt = _dtype_of(type)
    if _KIND[dt] not in "fc":
        raise ValueError(f"finfo needs a floating-point dtype, not {dt}")
    return finfo_object(dt)


def iinfo(type: Any) -> iinfo_object:  # noqa: A002
    """Limits of an integer dtype or array."""
    dt = _dtype_of(type)
    if _KIND[dt] not in "iu":
        raise ValueError(f"iinfo needs an integer dtype, not {dt}")
    return iinfo_object(dt)
