"""Streams and events.

A :class:`Stream` is an in-order queue of work on one device; work on different streams may
overlap. An :class:`Event` marks a point in a stream: other streams can wait for it and two events
time the work between them. ``stream=None`` anywhere means the device's default stream.

Host buffers used by asynchronous copies are kept alive by the stream until the copy is done.
"""

from __future__ import annotations

import threading
from typing import Any

from . import deferred as _deferred
from .device import Device, get_device

__all__ = ["Stream", "Event", "resolve_stream"]


class Stream:
    """An asynchronous, in-order work queue on a device (``hipStreamCreate``).

    ``with stream:`` makes it the current stream of the thread, so launches and copies that
    are given no stream go to it.
    """

    def __init__(self, device: Device | int | None = None) -> None:
        self.device = _as_device(device)
        self._handle: Any = self.device._platform.stream_create(self.device._index)
        self._keep: list[tuple[Any, tuple]] = []  # (event handle, objects kept alive)
        self._keep_lock = threading.Lock()
        self.device._register_stream(self)

    @classmethod
    def _default(cls, device: Device) -> Stream:
        """The device's default stream as a Stream object (never destroyed)."""
        cached = getattr(device, "_default_stream", None)
        if cached is None:
            cached = object.__new__(cls)
            cached.device = device
            cached._handle = None
            cached._keep = []
            cached._keep_lock = threading.Lock()
            device._default_stream = cached
        return cached

    @property
    def handle(self) -> Any:
        """The platform's handle (None for the default stream)."""
        return self._handle

    @property
    def ptr(self) -> int:
        """The native stream handle as an int (0 for the default stream)."""
        h = self._handle
        if h is None:
            return 0
        for attr in ("handle_int", "value"):
            v = getattr(h, attr, None)
            if isinstance(v, int):
                return v
        try:
            return int(h)
        except (TypeError, ValueError):
            return id(h)

    def synchronize(self) -> None:
        """Block until all work queued so far has finished (``hipStreamSynchronize``).

        Ctrl-C interrupts the wait (KeyboardInterrupt): the stream's work is cancelled (a
        running kernel stops at its next block boundary) and the stream is marked failed.
        """
        _deferred.flush()
        self.device._platform.stream_synchronize(self.device._index, self._handle)
        with self._keep_lock:
            self._keep.clear()
        self.device._release_pending(check_idle=True)

    def query(self) -> bool:
        """True when all queued work has finished (``hipStreamQuery``)."""
        done = self.device._platform.stream_query(self.device._index, self._handle)
        if done:
            with self._keep_lock:
                self._keep.clear()
        return done

    @property
    def done(self) -> bool:
        return self.query()

    def wait_event(self, event: Event) -> None:
        """Make work queued later on this stream wait for ``event`` (``hipStreamWaitEvent``)."""
        if not isinstance(event, Event):
            raise TypeError(f"wait_event() takes an Event, not {type(event).__name__}")
        self.device._platform.stream_wait_event(self.device._index, self._handle, event._handle)

    def record(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one when None) on this stream and return it."""
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def _keep_alive(self, *objects: Any) -> None:
        """Hold ``objects`` until the work queued so far is done."""
        platform, index = self.device._platform, self.device._index
        with self._keep_lock:
            self._keep = [(e, o) for e, o in self._keep if not platform.event_query(index, e)]
            marker = platform.event_create(index)
            platform.event_record(index, marker, self._handle)
            self._keep.append((marker, objects))

    def __enter__(self) -> Stream:
        _stream_stack().append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        stack = _stream_stack()
        if stack and stack[-1] is self:
            stack.pop()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is None:
            return
        self._handle = None  # another thread's Device._idle skips it from now on
        try:
            self.device._platform.stream_destroy(self.device._index, handle)
        except Exception:  # noqa: BLE001 - interpreter shutdown, platform gone, parent's stream
            pass

    def __repr__(self) -> str:
        kind = "default" if self._handle is None else hex(self.ptr)
        return f"<openhip.Stream {kind} on device {self.device.id}>"


class Event:
    """A marker in a stream (``hipEventCreate``); times work and orders streams."""

    def __init__(self, device: Device | int | None = None) -> None:
        self.device = _as_device(device)
        self._handle: Any = self.device._platform.event_create(self.device._index)
        self._recorded = False

    def record(self, stream: Stream | None = None) -> Event:
        """Mark the current end of ``stream``'s queue (default: current stream)."""
        s = resolve_stream(stream, self.device)
        _deferred.flush()
        self.device._platform.event_record(self.device._index, self._handle, s._handle)
        self._recorded = True
        return self

    def synchronize(self) -> None:
        """Block until the work before the recorded point is done."""
        self.device._platform.event_synchronize(self.device._index, self._handle)

    def query(self) -> bool:
        """True when the recorded point has been reached."""
        return self.device._platform.event_query(self.device._index, self._handle)

    @property
    def done(self) -> bool:
        return self.query()

    @staticmethod
    def elapsed_time(start: Event, end: Event) -> float:
        """Milliseconds between two recorded, completed events (``hipEventElapsedTime``)."""
        from ..errors import HipError

        if not isinstance(start, Event) or not isinstance(end, Event):
            raise TypeError("elapsed_time() takes two Events")
        if start.device is not end.device:
            raise HipError("hipErrorInvalidHandle", "events belong to different devices",
                           routine="hipEventElapsedTime")
        if not (start._recorded and end._recorded):
            raise HipError("hipErrorInvalidHandle", "both events must be recorded first",
                           routine="hipEventElapsedTime")
        return start.device._platform.event_elapsed_ms(start.device._index, start._handle,
                                                       end._handle)

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is None:
            return
        try:
            self.device._platform.event_destroy(self.device._index, handle)
        except Exception:  # noqa: BLE001
            pass


_local = threading.local()


def _stream_stack() -> list[Stream]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _as_device(device: Device | int | None) -> Device:
    if device is None:
        return get_device()
    if isinstance(device, Device):
        return device
    return Device(device)


def resolve_stream(stream: Stream | None, device: Device) -> Stream:
    """The Stream to use: ``stream``, else the thread's current one, else the default."""
    if stream is None:
        stack = _stream_stack()
        if stack and stack[-1].device is device:
            return stack[-1]
        return Stream._default(device)
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be an openhip.Stream or None, not {type(stream).__name__}")
    if stream.device is not device:
        from ..errors import HipError

        raise HipError("hipErrorInvalidHandle",
                       f"stream belongs to device {stream.device.id}, not device {device.id}",
                       routine="hipStream")
    return stream
