"""Device memory: allocation, copies between host and device, memset.

:func:`malloc` returns a :class:`DeviceBuffer`, which frees itself when garbage-collected (or on
``free()``); the memory is released only once no queued work can still use it, and no export of
it is alive: a numpy view (``numpy.asarray(x)`` on the CPU platform), a DLPack tensor
(``numpy.from_dlpack(x)``, ``torch.from_dlpack(x)``) or a ``__cuda_array_interface__`` consumer.
``free()`` with exports alive marks the buffer freed at once (using it from openhip raises
HipError) and releases the memory when the last export goes, as DLPack's deleter contract
implies. Host buffers are anything exposing the buffer protocol (numpy arrays, bytearray,
memoryview); they must be C-contiguous and exactly the size copied. Misuse (freed buffer, size
mismatch, out of range, read-only destination) raises before anything is copied.

Red zones (CPU platform): each allocation is bracketed by canary bytes, large ones (4 MiB and
more) by PROT_NONE guard pages (see ``platforms/cpu/src/redzone.h``). After a kernel completes,
the zones of every buffer it received are checked on the stream thread, so a kernel writing past
a buffer is reported by the next synchronize as HipError ``hipErrorIllegalAddress`` naming the
kernel, the buffer and how far it wrote; freeing checks again (an explicit ``free()`` raises
HipError; a free by the garbage collector, or one deferred to later, warns: RuntimeWarning).
GPU platforms have no red zones: there the driver reports what faults, and the API is the same.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from typing import Any

import numpy as np

from ..errors import HipError
from .device import Device, get_device
from .stream import Stream, resolve_stream

__all__ = ["DeviceBuffer", "malloc", "free", "memcpy_htod", "memcpy_dtoh", "memcpy_dtod",
           "memcpy_htod_async", "memcpy_dtoh_async", "memcpy_dtod_async", "memset",
           "memset_async", "device_pointer"]


class DeviceBuffer:
    """A block of device memory (``hipMalloc``). ``ptr`` is its address, ``nbytes`` its size."""

    __slots__ = ("_ptr", "nbytes", "device", "_owner", "_exports", "__weakref__")

    def __init__(self, ptr: int, nbytes: int, device: Device, owner: bool = True) -> None:
        self._ptr = ptr
        self.nbytes = nbytes
        self.device = device
        self._owner = owner
        self._exports: _Exports | None = None

    @property
    def ptr(self) -> int:
        """The device address; HipError once the buffer has been freed."""
        if self._ptr is None:
            raise HipError("hipErrorInvalidDevicePointer", "the buffer was freed",
                           routine="DeviceBuffer.ptr")
        return self._ptr

    @property
    def freed(self) -> bool:
        return self._ptr is None

    @property
    def exports(self) -> int:
        """How many exports of this memory are alive (DLPack tensors, numpy views, arrays
        that handed out ``__array_interface__``/``__cuda_array_interface__`` views)."""
        ex = self._exports
        return 0 if ex is None else ex.count + len(ex.arrays)

    @property
    def release_pending(self) -> bool:
        """True while a ``free()`` waits for the last export to be released."""
        ex = self._exports
        return ex is not None and ex.pending is not None

    def __int__(self) -> int:
        return self.ptr

    def free(self) -> None:
        """Release the memory (``hipFree``). Using the buffer afterwards raises HipError.

        With exports alive (see the module docstring) the memory stays until the last one is
        released. HipError ``hipErrorIllegalAddress`` if the red zones show that something
        wrote outside the buffer (the memory is released all the same)."""
        self._release(explicit=True)

    def _release(self, explicit: bool) -> None:
        ptr, self._ptr = self._ptr, None
        if ptr is None or not self._owner or not ptr:
            return
        dev = self.device
        ex = self._exports
        if ex is not None:
            with _export_lock:
                if ex.count or ex.arrays:
                    ex.pending = (dev, ptr)
                    return
        report = None
        if explicit:  # (a kernel still running cannot be blamed here: it is checked when done)
            check = getattr(dev._platform, "check_bounds", None)
            if check is not None:
                report = check(dev._index, ptr)
        dev._free(ptr)
        if report:
            raise HipError("hipErrorIllegalAddress", report, routine="hipFree")

    def _export(self) -> _ExportToken:
        """Count one export of the memory until the returned token is released or dies."""
        with _export_lock:
            ex = self._exports
            if ex is None:
                ex = self._exports = _Exports()
            ex.count += 1
        return _ExportToken(ex)

    def _export_via(self, array: Any) -> None:
        """Count ``array`` as an export for as long as it lives: it handed out a view whose
        consumer holds the array, not a token (``__array_interface__``)."""
        with _export_lock:
            ex = self._exports
            if ex is None:
                ex = self._exports = _Exports()
            key = id(array)
            if key in ex.arrays:
                return
            gone = weakref.finalize(array, _array_gone, ex, key)
            gone.atexit = False
            ex.arrays[key] = gone

    def __del__(self) -> None:
        try:
            self._release(explicit=False)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __repr__(self) -> str:
        state = "freed" if self._ptr is None else hex(self._ptr)
        return f"<openhip.DeviceBuffer {state} {self.nbytes} bytes on device {self.device.id}>"


# Export bookkeeping; reentrant because a garbage collection inside may release an export.
_export_lock = threading.RLock()


class _Exports:
    """The live exports of one buffer's memory and the free that waits for them."""

    __slots__ = ("count", "arrays", "pending")

    def __init__(self) -> None:
        self.count = 0  # tokens alive (DLPack tensors, numpy views made by __array__)
        self.arrays: dict[int, weakref.finalize] = {}  # arrays that handed out views
        self.pending: tuple[Device, int] | None = None  # (device, address) to release

    def settle(self) -> None:
        """Release the memory if a free is waiting and no export is left."""
        with _export_lock:
            if self.count or self.arrays or self.pending is None:
                return
            dev, ptr = self.pending
            self.pending = None
        dev._free(ptr)


class _ExportToken:
    """One export of a buffer's memory: alive until :meth:`release` or garbage collection."""

    __slots__ = ("_ex",)

    def __init__(self, ex: _Exports) -> None:
        self._ex = ex

    def release(self) -> None:
        ex, self._ex = self._ex, None
        if ex is None:
            return
        with _export_lock:
            ex.count -= 1
        ex.settle()

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _array_gone(ex: _Exports, key: int) -> None:
    with _export_lock:
        ex.arrays.pop(key, None)
    ex.settle()


def malloc(nbytes: int, device: Device | int | None = None) -> DeviceBuffer:
    """Allocate ``nbytes`` of device memory on ``device`` (default: the current device)."""
    if not isinstance(nbytes, (int, np.integer)) or isinstance(nbytes, bool):
        raise TypeError(f"nbytes must be an int, not {type(nbytes).__name__}")
    nbytes = int(nbytes)
    if nbytes < 0:
        raise HipError("hipErrorInvalidValue", f"cannot allocate {nbytes} bytes",
                       routine="hipMalloc")
    dev = _device(device)
    dev._release_pending(check_idle=True)
    if nbytes == 0:
        return DeviceBuffer(0, 0, dev, owner=False)
    props = dev.properties
    if props.total_memory and nbytes > props.total_memory:
        raise HipError("hipErrorOutOfMemory",
                       f"{nbytes} bytes requested; the device has {props.total_memory}",
                       routine="hipMalloc")
    try:
        ptr = dev._platform.malloc(dev._index, nbytes)
    except HipError as exc:
        if exc.status != "hipErrorOutOfMemory":
            raise
        dev.synchronize()  # release deferred frees and retry once
        ptr = dev._platform.malloc(dev._index, nbytes)
    return DeviceBuffer(ptr, nbytes, dev)


def free(buffer: DeviceBuffer) -> None:
    """Free a buffer from :func:`malloc` (``hipFree``)."""
    if not isinstance(buffer, DeviceBuffer):
        raise TypeError(f"free() takes a DeviceBuffer, not {type(buffer).__name__}")
    buffer.free()


def _device(device: Device | int | None) -> Device:
    if device is None:
        return get_device()
    return device if isinstance(device, Device) else Device(device)


def device_pointer(obj: Any, routine: str) -> tuple[int, int, Device]:
    """(address, size in bytes, device) of a DeviceBuffer or DeviceArray."""
    from .array import DeviceArray

    if isinstance(obj, DeviceArray):
        return obj.data.ptr, obj.nbytes, obj.device
    if isinstance(obj, DeviceBuffer):
        return obj.ptr, obj.nbytes, obj.device
    raise TypeError(f"{routine}: expected device memory (DeviceBuffer or DeviceArray), "
                    f"not {type(obj).__name__}")


def _host_view(obj: Any, writable: bool, routine: str) -> tuple[int, int, Any]:
    """(address, size, keep-alive object) of a C-contiguous host buffer."""
    if isinstance(obj, np.ndarray):
        arr = obj
    else:
        try:
            arr = np.frombuffer(memoryview(obj), dtype=np.uint8) if not writable else \
                np.asarray(memoryview(obj)).view(np.uint8)
        except TypeError:
            raise TypeError(f"{routine}: host buffer must support the buffer protocol "
                            f"(numpy array, bytearray...), not {type(obj).__name__}") from None
    if not arr.flags.c_contiguous:
        raise ValueError(f"{routine}: host array must be C-contiguous")
    if writable and not arr.flags.writeable:
        raise ValueError(f"{routine}: host destination is read-only")
    addr = arr.ctypes.data if arr.size else ctypes.addressof(ctypes.c_char())
    return addr, arr.nbytes, arr


def _check_sizes(routine: str, nbytes: int | None, *available: int) -> int:
    smallest = min(available)
    if nbytes is None:
        if len(set(available)) != 1:
            raise ValueError(f"{routine}: sizes differ ({' vs '.join(map(str, available))} "
                             "bytes); pass nbytes to copy part of a buffer")
        return smallest
    nbytes = int(nbytes)
    if nbytes < 0 or nbytes > smallest:
        raise ValueError(f"{routine}: nbytes={nbytes} is outside the buffers "
                         f"({' and '.join(map(str, available))} bytes)")
    return nbytes


def _copy(kind: str, dst: Any, src: Any, nbytes: int | None, stream: Stream | None,
          asynchronous: bool) -> None:
    routine = {"htod": "hipMemcpyHtoD", "dtoh": "hipMemcpyDtoH", "dtod": "hipMemcpyDtoD"}[kind]
    if asynchronous:
        routine += "Async"
    keep: tuple = ()
    if kind == "htod":
        dptr, dsize, dev = device_pointer(dst, routine)
        hptr, hsize, keep_obj = _host_view(src, False, routine)
        n = _check_sizes(routine, nbytes, dsize, hsize)
        keep = (keep_obj, dst)
    elif kind == "dtoh":
        sptr, ssize, dev = device_pointer(src, routine)
        hptr, hsize, keep_obj = _host_view(dst, True, routine)
        n = _check_sizes(routine, nbytes, ssize, hsize)
        keep = (keep_obj, src)
    else:
        dptr, dsize, dev = device_pointer(dst, routine)
        sptr, ssize, sdev = device_pointer(src, routine)
        if sdev is not dev:
            raise HipError("hipErrorInvalidValue", "peer copies between devices are not "
                           "supported; copy through the host", routine=routine)
        n = _check_sizes(routine, nbytes, dsize, ssize)
        keep = (dst, src)
    if n == 0:
        return
    s = resolve_stream(stream, dev)
    platform, index = dev._platform, dev._index
    handle = s._handle if asynchronous else None
    if asynchronous:
        s._keep_alive(*keep)
    if kind == "htod":
        if not asynchronous:
            _drain(dev)
        platform.copy_htod(index, dptr, hptr, n, handle if asynchronous else None)
    elif kind == "dtoh":
        if not asynchronous:
            _drain(dev)
        platform.copy_dtoh(index, hptr, sptr, n, handle if asynchronous else None)
    else:
        if not asynchronous:
            _drain(dev)
        platform.copy_dtod(index, dptr, sptr, n, handle if asynchronous else None)


def _drain(dev: Device) -> None:
    """Blocking copies and memsets come after all work queued on the device, as with HIP's
    legacy default stream."""
    dev._platform.device_synchronize(dev._index)


def memcpy_htod(dst: Any, src: Any, nbytes: int | None = None) -> None:
    """Copy host ``src`` into device ``dst``; returns when done."""
    _copy("htod", dst, src, nbytes, None, False)


def memcpy_dtoh(dst: Any, src: Any, nbytes: int | None = None) -> None:
    """Copy device ``src`` into host ``dst``; returns when done."""
    _copy("dtoh", dst, src, nbytes, None, False)


def memcpy_dtod(dst: Any, src: Any, nbytes: int | None = None) -> None:
    """Copy device ``src`` into device ``dst`` (same device); returns when done."""
    _copy("dtod", dst, src, nbytes, None, False)


def memcpy_htod_async(dst: Any, src: Any, stream: Stream | None = None,
                      nbytes: int | None = None) -> None:
    """Queue a host-to-device copy on ``stream``; ``src`` is kept alive until it is done."""
    _copy("htod", dst, src, nbytes, stream, True)


def memcpy_dtoh_async(dst: Any, src: Any, stream: Stream | None = None,
                      nbytes: int | None = None) -> None:
    """Queue a device-to-host copy on ``stream``; read ``dst`` after synchronising."""
    _copy("dtoh", dst, src, nbytes, stream, True)


def memcpy_dtod_async(dst: Any, src: Any, stream: Stream | None = None,
                      nbytes: int | None = None) -> None:
    """Queue a device-to-device copy on ``stream``."""
    _copy("dtod", dst, src, nbytes, stream, True)


def _memset(dst: Any, value: int, nbytes: int | None, stream: Stream | None,
            asynchronous: bool) -> None:
    routine = "hipMemsetAsync" if asynchronous else "hipMemset"
    ptr, size, dev = device_pointer(dst, routine)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{routine}: value must be an int byte value")
    if not 0 <= int(value) <= 255:
        raise ValueError(f"{routine}: value {value} is not a byte (0..255)")
    n = _check_sizes(routine, nbytes, size)
    if n == 0:
        return
    s = resolve_stream(stream, dev)
    if asynchronous:
        s._keep_alive(dst)
        dev._platform.memset(dev._index, ptr, int(value), n, s._handle)
    else:
        _drain(dev)
        dev._platform.memset(dev._index, ptr, int(value), n, None)


def memset(dst: Any, value: int, nbytes: int | None = None) -> None:
    """Set ``nbytes`` (default: all) bytes of ``dst`` to the byte ``value``."""
    _memset(dst, value, nbytes, None, False)


def memset_async(dst: Any, value: int, nbytes: int | None = None,
                 stream: Stream | None = None) -> None:
    """Queue a memset on ``stream``."""
    _memset(dst, value, nbytes, stream, True)
