"""One ctypes binding of ``nccl.h`` for NCCL (NVIDIA) and RCCL (AMD; same names and enums).

Loaded lazily, the first time a Communicator meets a GPU buffer (``__cuda_array_interface__``).
The vendor communicator is bootstrapped over the host communicator: rank 0's ncclUniqueId is
broadcast through shm or MPI. :func:`available` says whether a library is present and why not.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import site
from typing import Any

import numpy as np

from openhip.errors import CclError

from ..types import DTYPES, op_code

_lib: ctypes.CDLL | None = None
_why_not: str | None = None

_CANDIDATES = ("librccl.so.1", "librccl.so", "libnccl.so.2", "libnccl.so")


class NcclUniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


def _search() -> list[str]:
    paths = list(_CANDIDATES)
    for root in [os.environ.get("ROCM_PATH", "/opt/rocm")]:
        paths += glob.glob(os.path.join(root, "lib", "librccl.so*"))
    for sp in site.getsitepackages() + [site.getusersitepackages()]:
        paths += glob.glob(os.path.join(sp, "nvidia", "nccl", "lib", "libnccl.so*"))
    found = ctypes.util.find_library("nccl")
    if found:
        paths.append(found)
    return paths


def load() -> ctypes.CDLL:
    """The NCCL or RCCL library (CclError with the reason when there is none)."""
    global _lib, _why_not
    if _lib is not None:
        return _lib
    errors = []
    for path in _search():
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            errors.append(f"{path}: {exc}")
            continue
        _declare(lib)
        _lib = lib
        return lib
    _why_not = ("no NCCL or RCCL library found (tried librccl.so.1, libnccl.so.2, the "
                "nvidia-nccl wheels and $ROCM_PATH/lib)")
    raise CclError(_why_not)


def available() -> tuple[bool, str]:
    """(True, library path) or (False, the reason)."""
    try:
        lib = load()
    except CclError as exc:
        return False, exc.message
    return True, getattr(lib, "_name", "nccl")


def _declare(lib: ctypes.CDLL) -> None:
    c_int, c_void_p, c_size_t = ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t
    sigs = {
        "ncclGetUniqueId": [ctypes.POINTER(NcclUniqueId)],
        "ncclCommInitRank": [ctypes.POINTER(c_void_p), c_int, NcclUniqueId, c_int],
        "ncclCommDestroy": [c_void_p],
        "ncclCommAbort": [c_void_p],
        "ncclAllReduce": [c_void_p, c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p],
        "ncclReduce": [c_void_p, c_void_p, c_size_t, c_int, c_int, c_int, c_void_p, c_void_p],
        "ncclBroadcast": [c_void_p, c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p],
        "ncclAllGather": [c_void_p, c_void_p, c_size_t, c_int, c_void_p, c_void_p],
        "ncclReduceScatter": [c_void_p, c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p],
        "ncclSend": [c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p],
        "ncclRecv": [c_void_p, c_size_t, c_int, c_int, c_void_p, c_void_p],
        "ncclGroupStart": [],
        "ncclGroupEnd": [],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = c_int
    lib.ncclGetErrorString.argtypes = [c_int]
    lib.ncclGetErrorString.restype = ctypes.c_char_p


def _check(lib: ctypes.CDLL, status: int, routine: str) -> None:
    if status != 0:
        raise CclError(f"{routine}: {lib.ncclGetErrorString(status).decode()} ({status})")


def _ptr(buf: Any) -> tuple[int, int, int]:
    """(device pointer, element count, ncclDataType) of a GPU buffer."""
    cai = buf.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    if cai.get("strides") not in (None, ()):
        expect = dtype.itemsize
        for dim, stride in zip(reversed(cai["shape"]), reversed(cai["strides"]), strict=True):
            if stride != expect:
                raise CclError("the GPU buffer is not contiguous")
            expect *= dim
    if getattr(buf, "dtype", None) is not None:
        dtype = np.dtype(buf.dtype)  # keeps bfloat16 / fp8 that typestr cannot name
    count = int(np.prod(cai["shape"])) if cai["shape"] else 1
    code = DTYPES.get(dtype)
    if code is None:
        raise CclError(f"dtype {dtype} is not supported")
    return int(cai["data"][0]), count, code


def _stream(stream: Any) -> int | None:
    if stream is None:
        return None
    for attr in ("handle", "ptr", "cuda_stream"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


class NcclComm:
    """A vendor communicator paired with a host Communicator."""

    def __init__(self, lib: ctypes.CDLL, handle: ctypes.c_void_p, rank: int, size: int) -> None:
        self.lib, self.handle, self.rank, self.size = lib, handle, rank, size

    @classmethod
    def bootstrap(cls, host: Any) -> NcclComm:
        lib = load()
        uid = NcclUniqueId()
        if host.rank == 0:
            _check(lib, lib.ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
        raw = np.frombuffer(bytearray(bytes(uid.internal).ljust(128, b"\0")), np.uint8).copy()
        host.broadcast(raw, 0)
        ctypes.memmove(ctypes.addressof(uid), raw.ctypes.data, 128)
        handle = ctypes.c_void_p()
        _check(lib, lib.ncclCommInitRank(ctypes.byref(handle), host.size, uid, host.rank),
               "ncclCommInitRank")
        return cls(lib, handle, host.rank, host.size)

    def _op(self, op: Any) -> int:
        code, scalar = op_code(op, "nccl")
        if scalar is not None:
            raise CclError("premul_sum on GPU buffers is not supported by this binding yet")
        return code

    def all_reduce(self, send: Any, recv: Any, op: Any, stream: Any) -> None:
        s, n, dt = _ptr(send)
        r = s if recv is None else _ptr(recv)[0]
        _check(self.lib, self.lib.ncclAllReduce(s, r, n, dt, self._op(op), self.handle,
                                                _stream(stream)), "ncclAllReduce")

    def reduce(self, send: Any, recv: Any, op: Any, root: int, stream: Any) -> None:
        s, n, dt = _ptr(send)
        r = s if recv is None else _ptr(recv)[0]
        _check(self.lib, self.lib.ncclReduce(s, r, n, dt, self._op(op), root, self.handle,
                                             _stream(stream)), "ncclReduce")

    def broadcast(self, buf: Any, root: int, stream: Any) -> None:
        p, n, dt = _ptr(buf)
        _check(self.lib, self.lib.ncclBroadcast(p, p, n, dt, root, self.handle, _stream(stream)),
               "ncclBroadcast")

    def all_gather(self, send: Any, recv: Any, stream: Any) -> None:
        s, n, dt = _ptr(send)
        _check(self.lib, self.lib.ncclAllGather(s, _ptr(recv)[0], n, dt, self.handle,
                                                _stream(stream)), "ncclAllGather")

    def reduce_scatter(self, send: Any, recv: Any, op: Any, stream: Any) -> None:
        r, n, dt = _ptr(recv)
        _check(self.lib, self.lib.ncclReduceScatter(_ptr(send)[0], r, n, dt, self._op(op),
                                                    self.handle, _stream(stream)),
               "ncclReduceScatter")

    def _grouped(self, pairs: list[tuple[bool, Any, int]], stream: Any) -> None:
        _check(self.lib, self.lib.ncclGroupStart(), "ncclGroupStart")
        try:
            for is_send, buf, peer in pairs:
                p, n, dt = _ptr(buf)
                fn = self.lib.ncclSend if is_send else self.lib.ncclRecv
                _check(self.lib, fn(p, n, dt, peer, self.handle, _stream(stream)),
                       "ncclSend" if is_send else "ncclRecv")
        finally:
            _check(self.lib, self.lib.ncclGroupEnd(), "ncclGroupEnd")

    def all_to_all(self, send: Any, recv: Any, stream: Any) -> None:
        raise CclError("all_to_all on GPU buffers: use send/recv in ccl.group() (NCCL has no "
                       "all-to-all call)")

    def gather(self, send: Any, recv: Any, root: int, stream: Any) -> None:
        raise CclError("gather on GPU buffers is not supported by this binding yet")

    def scatter(self, send: Any, recv: Any, root: int, stream: Any) -> None:
        raise CclError("scatter on GPU buffers is not supported by this binding yet")

    def send(self, buf: Any, peer: int, stream: Any) -> None:
        self._grouped([(True, buf, peer)], stream)

    def recv(self, buf: Any, peer: int, stream: Any) -> None:
        self._grouped([(False, buf, peer)], stream)

    def abort(self) -> None:
        if self.handle:
            self.lib.ncclCommAbort(self.handle)
            self.handle = ctypes.c_void_p()

    def destroy(self) -> None:
        if self.handle:
            self.lib.ncclCommDestroy(self.handle)
            self.handle = ctypes.c_void_p()
