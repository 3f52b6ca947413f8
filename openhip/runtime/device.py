"""Devices: enumeration over the active platforms, the current device, device synchronisation.

Device ordinals run over every active platform in the order amd, nvidia, cpu (see
:func:`openhip.platforms.active_platforms`). The current device is per thread: ``set_device``
changes it, ``with Device(i):`` changes it for a block and restores it after.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from .. import platforms as _platforms
from ..errors import HipError
from ..platforms.base import DeviceProperties, Platform
from . import deferred as _deferred

__all__ = ["Device", "devices", "get_device", "set_device", "synchronize", "device_count",
           "reset_device", "reset_devices"]

_lock = threading.RLock()
_devices: list[Device] | None = None
_local = threading.local()


class Device:
    """A device of one platform. ``Device(i)`` is the i-th device of :func:`devices`.

    Use it as a context manager to make it current for a block::

        with openhip.Device(1):
            x = openhip.zeros(10)     # allocated on device 1
    """

    _platform: Platform
    _index: int
    _ordinal: int

    def __new__(cls, ordinal: int = 0) -> Device:
        table = _device_table()
        if not isinstance(ordinal, int) or isinstance(ordinal, bool):
            raise TypeError(f"device ordinal must be an int, not {type(ordinal).__name__}")
        if not 0 <= ordinal < len(table):
            raise HipError("hipErrorInvalidDevice",
                           f"device {ordinal} does not exist ({len(table)} device(s))",
                           routine="hipSetDevice")
        return table[ordinal]

    @classmethod
    def _make(cls, platform: Platform, index: int, ordinal: int) -> Device:
        self = object.__new__(cls)
        self._platform = platform
        self._index = index
        self._ordinal = ordinal
        self._lock = threading.RLock()
        self._streams: weakref.WeakSet[Any] = weakref.WeakSet()
        self._pending_free: list[int] = []
        self._props: DeviceProperties | None = None
        return self

    # ---- identity --------------------------------------------------------------------------
    @property
    def id(self) -> int:
        """The ordinal of this device in :func:`devices`."""
        return self._ordinal

    @property
    def platform(self) -> str:
        """``"cpu"``, ``"nvidia"`` or ``"amd"``."""
        return self._platform.name

    @property
    def properties(self) -> DeviceProperties:
        """Name, arch, warp size, launch limits, memory and data-type support."""
        if self._props is None:
            self._props = self._platform.device_properties()[self._index]
        return self._props

    @property
    def name(self) -> str:
        return self.properties.name

    def __repr__(self) -> str:
        return f"<openhip.Device {self._ordinal}: {self.platform} {self.properties.name!r}>"

    def __int__(self) -> int:
        return self._ordinal

    def __reduce__(self):
        return (Device, (self._ordinal,))

    # ---- current device --------------------------------------------------------------------
    def __enter__(self) -> Device:
        stack = _stack()
        stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        stack = _stack()
        if stack and stack[-1] is self:
            stack.pop()

    def use(self) -> None:
        """Make this device the thread's current device (``hipSetDevice``)."""
        _local.current = self

    # ---- work --------------------------------------------------------------------------------
    def synchronize(self) -> None:
        """Wait for all work on every stream of this device (``hipDeviceSynchronize``)."""
        _deferred.flush()
        self._platform.device_synchronize(self._index)
        self._release_pending()

    def reset(self) -> None:
        """Clear the failed state a fault in a kernel left on this device (until then every
        launch, copy and synchronisation raises the fault's HipError, as a GPU context does),
        and the cancelled state of its streams (``hipDeviceReset``'s role). Memory contents are
        not restored: what the faulting kernel wrote stays."""
        fn = getattr(self._platform, "device_reset", None)
        if fn is None:
            raise HipError("hipErrorNotSupported",
                           f"the {self.platform} platform has no device reset",
                           routine="hipDeviceReset")
        fn(self._index)
        from .pool import release_device_pool

        release_device_pool(self)  # the memory pool's cached blocks go back

    def _register_stream(self, stream: Any) -> None:
        with self._lock:
            self._streams.add(stream)

    def _idle(self) -> bool:
        p, i = self._platform, self._index
        # stream_busy, not stream_query: a query takes a stream's pending error, and this check
        # runs on whatever thread frees memory (a kernel's fault must reach its own sync)
        if p.stream_busy(i, None):
            return False
        with self._lock:  # a WeakSet must not change while it is copied
            streams = list(self._streams)
        for s in streams:
            handle = s._handle
            if handle is None:
                continue
            try:
                if p.stream_busy(i, handle):
                    return False
            except HipError as exc:
                if exc.status == "hipErrorInvalidHandle":
                    # destroyed meanwhile by another thread (its work had finished), or the
                    # parent's stream in a forked child: nothing of it runs here
                    continue
                return False  # a failed stream: free at the next synchronisation
        return True

    def _free(self, ptr: int) -> None:
        """Free device memory once no queued work can still use it."""
        with self._lock:
            self._pending_free.append(ptr)
        self._release_pending(check_idle=True)

    def _release_pending(self, check_idle: bool = False) -> None:
        # No lock is held while asking the platform whether the device is idle: that can run
        # the garbage collector, whose DeviceBuffer.__del__ comes back here through _free.
        if not self._pending_free:
            return
        if check_idle and not self._idle():
            return
        with self._lock:
            pending, self._pending_free = self._pending_free, []
        for ptr in pending:
            self._platform.free(self._index, ptr)


def _stack() -> list[Device]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _device_table() -> list[Device]:
    global _devices
    if _devices is None:
        with _lock:
            if _devices is None:
                table: list[Device] = []
                for platform in _platforms.active_platforms():
                    for index in range(len(platform.device_properties())):
                        table.append(Device._make(platform, index, len(table)))
                _devices = table
    return _devices


def devices() -> list[Device]:
    """Every device of every active platform (``OPENHIP_PLATFORM`` picks them)."""
    return list(_device_table())


def device_count() -> int:
    """How many devices :func:`devices` lists."""
    return len(_device_table())


def get_device() -> Device:
    """The calling thread's current device (device 0 until changed)."""
    stack = _stack()
    if stack:
        return stack[-1]
    current = getattr(_local, "current", None)
    if current is None:
        current = _local.current = _device_table()[0]
    return current


def set_device(device: int | Device) -> Device:
    """Make ``device`` current for the calling thread and return it."""
    dev = device if isinstance(device, Device) else Device(device)
    dev.use()
    return dev


def synchronize() -> None:
    """Wait for all work on the current device (``hipDeviceSynchronize``)."""
    get_device().synchronize()


def reset_device() -> None:
    """Clear the current device's failed state after a fault in a kernel (see
    :meth:`Device.reset`)."""
    get_device().reset()


def reset_devices() -> None:
    """Forget the device table and the platforms (tests use it after changing the environment).
    Existing arrays and modules must not be used afterwards."""
    global _devices
    with _lock:
        _devices = None
        _local.__dict__.clear()
        _platforms.reset()
