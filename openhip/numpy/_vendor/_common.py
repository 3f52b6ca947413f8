"""What the bindings share: the stream a call goes to, the device's context, the library
handles per (device, stream), scalars."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ...runtime.stream import resolve_stream
from ._loader import Library, check

#: cudaDataType_t values
CUDA_TYPE = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.complex64): 4,
             np.dtype(np.complex128): 5, np.dtype(np.float16): 2}
CUDA_R_16BF = 14


def cuda_type(dtype: np.dtype) -> int:
    dt = np.dtype(dtype)
    if dt.name == "bfloat16":
        return CUDA_R_16BF
    return CUDA_TYPE[dt]


def stream_of(device: Any) -> tuple[Any, int]:
    """(the thread's current Stream on ``device``, its native handle as an int).

    The device is made current first (the libraries use the calling thread's device: the
    nvidia platform's primary context, the amd platform's hipSetDevice). On the CPU
    platform (the fake libraries of the tests) the library runs on the host at once, so the
    work queued before it is waited for here.
    """
    stream = resolve_stream(None, device)
    platform = device._platform
    activate = getattr(platform, "_ctx", None) or getattr(platform, "_dev", None)
    if device.platform != "cpu" and activate is not None:
        activate(device._index)
    if device.platform == "cpu":
        stream.synchronize()
    return stream, stream.ptr


def scalar(value: complex, dtype: np.dtype) -> Any:
    """A host scalar of ``dtype`` (complex as two reals) for a by-pointer argument."""
    dt = np.dtype(dtype)
    if dt == np.complex64:
        return (ctypes.c_float * 2)(value.real, value.imag)
    if dt == np.complex128:
        return (ctypes.c_double * 2)(value.real, value.imag)
    if dt == np.float64:
        return ctypes.c_double(value.real)
    return ctypes.c_float(value.real)


def ptr(x: Any, offset_items: int = 0) -> ctypes.c_void_p:
    """The device address of an openhip array (plus ``offset_items`` elements)."""
    return ctypes.c_void_p(x.data.ptr + offset_items * x.dtype.itemsize)


INT32_MAX = 2**31 - 1


class StreamHandles:
    """A library's handles, one per (device, stream): created with ``create`` and bound to the
    stream with ``set_stream`` on first use (each ``(symbol, name in errors)``; a failure
    raises HipError naming the library's ``status``)."""

    def __init__(self, lib: Library, create: tuple[str, str], set_stream: tuple[str, str],
                 status: dict[int, str]) -> None:
        self.lib = lib
        self._create, self._set_stream, self._status = create, set_stream, status
        self._handles: dict[tuple[int, int], ctypes.c_void_p] = {}

    def get(self, device: Any, stream_ptr: int) -> ctypes.c_void_p:
        """The handle of (device, stream)."""
        key = (device.id, stream_ptr)
        h = self._handles.get(key)
        if h is None:
            h = ctypes.c_void_p()
            check(self.lib.fn(self._create[0])(ctypes.byref(h)), self._create[1], self._status)
            check(self.lib.fn(self._set_stream[0])(h, ctypes.c_void_p(stream_ptr)),
                  self._set_stream[1], self._status)
            self._handles[key] = h
        return h
