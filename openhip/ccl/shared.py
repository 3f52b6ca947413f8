"""Arrays the other ranks on this machine can map: zero-copy collectives on the shm transport.

    x = ccl.empty(1 << 20, dtype=np.float32)   # a numpy array in a shared-memory file
    x[:] = grads
    comm.all_reduce(x)                         # no staging copy: the ranks reduce each
                                               # other's arrays in place

This is ncclMemAlloc's role (and CUDA IPC's, which it builds on): memory a peer process can
map. A plain numpy array lives in its process's private memory, so the shared-memory engine
stages it through shared buffers (or reads it with process_vm_readv); when every rank's
buffers of a collective come from here and the message is at least OPENHIP_CCL_ZC_MIN bytes
(1 MiB), the ranks map each other's arrays (``/proc/<pid>/fd/<fd>``, checked at communicator
creation: it needs the same permission as reading the peer's memory) and the collective reads
and writes them directly. Anything else (other transports, a rank with a plain array, a small
message) works as with any numpy array.

Each array holds one file descriptor (its memfd) until it is freed: mind ``ulimit -n`` with
many hundreds of arrays, or allocate a few large ones and slice them. A peer keeps the memory of a freed array mapped until its next collective with the
freeing rank. The arrays start zeroed. Unlike private memory, a shared array stays shared
with a child made by ``fork()``: the child's writes to it are seen by the parent.
"""

from __future__ import annotations

import ctypes
import mmap
import operator
import os
import weakref
from typing import Any

import numpy as np

from openhip.errors import CclError

from .engine import load

_PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_MAP_FAILED = ctypes.c_void_p(-1).value


class _Mapping:
    """Owns one shared array's mapping: numpy views hold it as their base; when the last goes,
    the finalizer unmaps the memory, forgets the array in the engine and closes the file."""

    def __init__(self, address: int, nbytes: int) -> None:
        self.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1",
                                    "data": (address, False), "strides": None}


def _release(address: int, size: int, fd: int, engine: Any) -> None:
    if engine is not None:
        engine.unregister(address)
    _libc.munmap(address, size)
    os.close(fd)


def empty(shape: int | tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """A C-contiguous array of ``shape`` and ``dtype`` in memory the other ranks can map.

    Behaves as any numpy array (views of it keep it alive); collectives on the shm transport
    skip their staging copies when every rank's buffers come from here. The memory is zeroed.
    Raises CclError when shared memory cannot be allocated.
    """
    dt = np.dtype(dtype)
    try:  # integers only, as numpy takes them (2.5 or "3" is a TypeError, not a truncation)
        shape_t = ((operator.index(shape),) if not isinstance(shape, (tuple, list))
                   else tuple(operator.index(d) for d in shape))
    except TypeError as exc:
        raise TypeError(f"shape must be an integer or a tuple of integers, got {shape!r}") \
            from exc
    if any(d < 0 for d in shape_t):
        raise ValueError(f"negative dimensions are not allowed: {shape_t}")
    nbytes = int(np.prod(shape_t, dtype=np.int64)) * dt.itemsize
    size = max(_PAGE, -(-nbytes // _PAGE) * _PAGE)
    try:
        fd = os.memfd_create("openhip-ccl", os.MFD_CLOEXEC)
    except (AttributeError, OSError) as exc:
        raise CclError(f"cannot allocate a shared array: memfd_create failed: {exc}") from exc
    try:
        os.ftruncate(fd, size)
    except OSError as exc:
        os.close(fd)
        raise CclError(f"cannot allocate a shared array of {nbytes} bytes: {exc}") from exc
    address = _libc.mmap(None, size, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0)
    if address is None or address == _MAP_FAILED:
        err = ctypes.get_errno()
        os.close(fd)
        raise CclError(f"cannot map a shared array of {nbytes} bytes: {os.strerror(err)}")
    owner = _Mapping(address, nbytes)
    try:
        engine = load()
        engine.register(address, size, fd)
    except CclError:
        engine = None  # no engine (no compiler): still a correct array, just not mapped by peers
    weakref.finalize(owner, _release, address, size, fd, engine)
    return np.asarray(owner).view(dt).reshape(shape_t)


def zeros(shape: int | tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """Like :func:`empty` (whose memory starts zeroed)."""
    return empty(shape, dtype)


def empty_like(a: Any) -> np.ndarray:
    """A shared array with the shape and dtype of ``a``."""
    a = np.asarray(a)
    return empty(a.shape, a.dtype)


def shared_copy(a: Any) -> np.ndarray:
    """A shared array holding a copy of ``a``."""
    a = np.asarray(a)
    out = empty(a.shape, a.dtype)
    out[...] = a
    return out


def is_shared(a: Any) -> bool:
    """True when all of ``a``'s memory lies in an array from :func:`empty`."""
    if not isinstance(a, np.ndarray):
        return False
    if a.nbytes == 0:
        return False
    spans = [s * (d - 1) for s, d in zip(a.strides, a.shape, strict=True)]
    lo = a.ctypes.data + sum(x for x in spans if x < 0)
    hi = a.ctypes.data + a.itemsize + sum(x for x in spans if x > 0)
    try:
        return bool(load().registered(lo, hi - lo))
    except CclError:
        return False
