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

#: ncclResult_t value -> name (nccl.h; RCCL uses the same values)
RESULTS: dict[int, str] = {
    0: "ncclSuccess",
    1: "ncclUnhandledCudaError",
    2: "ncclSystemError",
    3: "ncclInternalError",
    4: "ncclInvalidArgument",
    5: "ncclInvalidUsage",
    6: "ncclRemoteError",
    7: "ncclInProgress",
    8: "ncclTimeout",
}

UNIQUE_ID_BYTES = 128  # NCCL_UNIQUE_ID_BYTES


class NcclUniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * UNIQUE_ID_BYTES)]


class NcclError(CclError):
    """A vendor call returned an ncclResult_t other than ncclSuccess (``result``, ``result_name``)."""

    def __init__(self, message: str, result: int = 3, routine: str = "",
                 rank: int | None = None, peer: int | None = None) -> None:
        self.result = result
        self.result_name = RESULTS.get(result, f"ncclResult_t({result})")
        self.routine = routine
        super().__init__(message, rank, peer)

    def __reduce__(self):
        return (type(self), (self.message, self.result, self.routine, self.rank, self.peer))


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
    if _why_not is not None:
        raise CclError(_why_not)
    errors = []
    for path in _search():
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            if os.path.isabs(path):  # bare sonames that are not installed are expected misses
                errors.append(f"{path}: {exc}")
            continue
        try:
            _declare(lib)
        except AttributeError as exc:
            errors.append(f"{path}: not a usable NCCL/RCCL ({exc})")
            continue
        _lib = lib
        return lib
    _why_not = ("no NCCL or RCCL library found (tried librccl.so.1, libnccl.so.2, the "
                "nvidia-nccl-cu12/cu13 wheels and $ROCM_PATH/lib)")
    if errors:
        _why_not += ": " + "; ".join(errors)
    raise CclError(_why_not)


def available() -> tuple[bool, str]:
    """(True, library path) or (False, the reason)."""
    try:
        lib = load()
    except CclError as exc:
        return False, exc.message
    return True, getattr(lib, "_name", "nccl")


def version() -> tuple[int, int, int]:
    """(major, minor, patch) of the loaded library (ncclGetVersion)."""
    lib = load()
    code = ctypes.c_int()
    _check(lib, lib.ncclGetVersion(ctypes.byref(code)), "ncclGetVersion")
    return decode_version(code.value)


def decode_version(code: int) -> tuple[int, int, int]:
    """NCCL_VERSION_CODE -> (major, minor, patch): X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z after."""
    if code >= 10000:
        return code // 10000, code % 10000 // 100, code % 100
    return code // 1000, code % 1000 // 100, code % 100


_c_int, _c_void_p, _c_size_t = ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t
_comm = _c_void_p    # ncclComm_t: an opaque pointer
_stream_t = _c_void_p  # cudaStream_t / hipStream_t

#: name -> (restype, argtypes) as nccl.h declares them; enums (ncclDataType_t, ncclRedOp_t,
#: ncclResult_t) are int-sized, so c_int.
SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "ncclGetVersion": (_c_int, [ctypes.POINTER(_c_int)]),
    "ncclGetUniqueId": (_c_int, [ctypes.POINTER(NcclUniqueId)]),
    "ncclCommInitRank": (_c_int, [ctypes.POINTER(_comm), _c_int, NcclUniqueId, _c_int]),
    "ncclCommDestroy": (_c_int, [_comm]),
    "ncclCommAbort": (_c_int, [_comm]),
    "ncclGetErrorString": (ctypes.c_char_p, [_c_int]),
    "ncclGetLastError": (ctypes.c_char_p, [_comm]),
    "ncclAllReduce": (_c_int, [_c_void_p, _c_void_p, _c_size_t, _c_int, _c_int, _comm,
                               _stream_t]),
    "ncclReduce": (_c_int, [_c_void_p, _c_void_p, _c_size_t, _c_int, _c_int, _c_int, _comm,
                            _stream_t]),
    "ncclBroadcast": (_c_int, [_c_void_p, _c_void_p, _c_size_t, _c_int, _c_int, _comm,
                               _stream_t]),
    "ncclAllGather": (_c_int, [_c_void_p, _c_void_p, _c_size_t, _c_int, _comm, _stream_t]),
    "ncclReduceScatter": (_c_int, [_c_void_p, _c_void_p, _c_size_t, _c_int, _c_int, _comm,
                                   _stream_t]),
    "ncclSend": (_c_int, [_c_void_p, _c_size_t, _c_int, _c_int, _comm, _stream_t]),
    "ncclRecv": (_c_int, [_c_void_p, _c_size_t, _c_int, _c_int, _comm, _stream_t]),
    "ncclGroupStart": (_c_int, []),
    "ncclGroupEnd": (_c_int, []),
}
#: declared when present (ncclGetLastError came with NCCL 2.13)
OPTIONAL = frozenset({"ncclGetLastError"})


def _declare(lib: ctypes.CDLL) -> None:
    for name, (restype, args) in SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            if name in OPTIONAL:
                continue
            raise
        fn.argtypes = args
        fn.restype = restype


def last_error(lib: ctypes.CDLL, comm: Any = None) -> str:
    """ncclGetLastError(comm): the library's own account of its last failure ("" if none)."""
    fn = getattr(lib, "ncclGetLastError", None)
    if fn is None:
        return ""
    text = fn(comm)
    return text.decode(errors="replace") if text else ""


def _check(lib: ctypes.CDLL, status: int, routine: str, comm: Any = None) -> None:
    """NcclError naming the ncclResult_t when ``status`` is not ncclSuccess."""
    if status == 0:
        return
    name = RESULTS.get(status, f"ncclResult_t({status})")
    text = lib.ncclGetErrorString(status)
    msg = f"{routine} failed: {name} ({status})"
    if text:
        msg += f": {text.decode(errors='replace')}"
    detail = last_error(lib, comm)
    if detail:
        msg += f"; last error: {detail}"
    if status == 1:
        msg += " (is there a usable GPU and driver?)"
    raise NcclError(msg, status, routine)


def uid_bytes(uid: NcclUniqueId) -> bytes:
    """All NCCL_UNIQUE_ID_BYTES of ``uid`` (``uid.internal`` stops at the first NUL byte)."""
    return ctypes.string_at(ctypes.addressof(uid), UNIQUE_ID_BYTES)


def uid_from(raw: bytes) -> NcclUniqueId:
    if len(raw) != UNIQUE_ID_BYTES:
        raise CclError(f"an ncclUniqueId has {UNIQUE_ID_BYTES} bytes, got {len(raw)}")
    return NcclUniqueId.from_buffer_copy(raw)


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
        # byte 0: rank 0's ncclGetUniqueId status (so no rank waits on an id that never comes),
        # then the id's NCCL_UNIQUE_ID_BYTES
        raw = np.zeros(1 + UNIQUE_ID_BYTES, np.uint8)
        failure: NcclError | None = None
        if host.rank == 0:
            uid = NcclUniqueId()
            try:
                _check(lib, lib.ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
            except NcclError as exc:
                failure = exc
                raw[0] = min(exc.result, 255) or 3
            else:
                raw[1:] = np.frombuffer(uid_bytes(uid), np.uint8)
        host.broadcast(raw, 0)
        if failure is not None:
            raise failure
        if raw[0]:
            status = int(raw[0])
            raise NcclError(f"ncclGetUniqueId failed on rank 0: "
                            f"{RESULTS.get(status, status)} ({status})", status, "ncclGetUniqueId")
        uid = uid_from(raw[1:].tobytes())
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
