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

Each array holds two file descriptors until it is freed (its memfd, and the duplicate Python's
mmap keeps): mind ``ulimit -n`` with hundreds of arrays, or allocate a few large ones and
slice them. A peer keeps the memory of a freed array mapped until its next collective with the
freeing rank. The arrays start zeroed.
"""

from __future__ import annotations

import mmap
import os
import weakref
from typing import Any

import numpy as np

from openhip.errors import CclError

from .engine import load

_PAGE = mmap.PAGESIZE


def _release(address: int, fd: int, engine: Any) -> None:
    if engine is not None:
        engine.unregister(address)
    os.close(fd)


def empty(shape: int | tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """A C-contiguous array of ``shape`` and ``dtype`` in memory the other ranks can map.

    Behaves as any numpy array (views of it keep it alive); collectives on the shm transport
    skip their staging copies when every rank's buffers come from here. The memory is zeroed.
    Raises CclError when shared memory cannot be allocated.
    """
    dt = np.dtype(dtype)
    shape_t = ((int(shape),) if isinstance(shape, (int, np.integer))
               else tuple(int(d) for d in shape))
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
        buffer = mmap.mmap(fd, size)
    except OSError as exc:
        os.close(fd)
        raise CclError(f"cannot allocate a shared array of {nbytes} bytes: {exc}") from exc
    array = np.frombuffer(buffer, dtype=np.uint8, count=nbytes).view(dt).reshape(shape_t)
    address = array.ctypes.data
    try:
        engine = load()
        engine.register(address, size, fd)
    except CclError:
        engine = None  # no engine (no compiler): still a correct array, just not mapped by peers
    weakref.finalize(buffer, _release, address, fd, engine)
    return array


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
