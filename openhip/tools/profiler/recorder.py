"""The recorder: a bounded ring buffer of profiling records, and the device timestamps of the
work they describe.

A record is a tuple ``(cat, name, t0, t1, tid, lane, args, device, ev0, ev1)``: its category
(``kernel``, ``memcpy``, ``memset``, ``alloc``, ``free``, ``compile``, ``sync``, ``ccl``,
``range``, ``mark``), a name, host times in ns of ``time.perf_counter_ns`` (CLOCK_MONOTONIC on
Linux, shared by every process of the machine), the host thread, the device lane (``None`` for
host-only records, else ``(device id, stream id, handle)``), details, and for device work the
device's ordinal and
two events recorded before and after it on its stream (GPU platforms). The device's start and
end come from those events (``hipEventElapsedTime`` against a base event recorded when the
device was first seen). On the CPU platform no events are recorded: its stream threads stamp
every queued kernel, copy and memset themselves while the profiler runs (``trace_enable``,
platforms/cpu/src/trace.h), and :meth:`Recorder.finish` matches those stamps to the records,
per stream in queue order (from the newest: both buffers keep the latest).

The buffer holds at most ``capacity`` records: past it the oldest go (their events are
recycled), a RuntimeWarning says so once, and the trace notes how many were dropped.
"""

from __future__ import annotations

import collections
import threading
import time
import warnings
from typing import Any

DEFAULT_CAPACITY = 1_000_000

#: stream ids: 0 is a device's default stream; others are numbered as first seen
_DEFAULT = 0


class Recorder:
    """Collects the records of one profiling session in this process.

    Records hold only ints, strings and tuples of them (devices by ordinal, kernels by
    ``id(Function)`` into :attr:`functions`), so the garbage collector untracks them and a long
    trace does not slow every collection down.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, timing: str = "auto") -> None:
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise ValueError(f"the trace buffer holds at least 1 record, not {capacity!r}")
        if timing not in ("auto", "events"):
            raise ValueError(f"timing must be 'auto' or 'events', not {timing!r}")
        self.capacity = capacity
        self.timing = timing  # "events": events around device work on every platform
        self.ring: collections.deque[tuple] = collections.deque(maxlen=capacity)
        self.dropped = 0
        self._warned = False
        self._lock = threading.RLock()
        self.devices: dict[int, Any] = {}  # ordinal -> Device
        self.functions: dict[int, Any] = {}  # id(Function) -> Function (kept alive)
        self.fn_entries: dict[int, tuple] = {}  # id(Function) -> (ordinal, native, lane)
        self.dev_entries: dict[Any, tuple] = {}  # Device -> (ordinal, native, default lane)
        self._spare: dict[int, list[Any]] = {}  # ordinal -> event handles for reuse
        self._base: dict[int, tuple[Any, int]] = {}  # ordinal -> (base event, host ns)
        self.native: set[int] = set()  # devices whose platform stamps its own timeline
        self.native_dropped = 0
        self._streams: dict[Any, int] = {}  # (device id, native handle) -> stream id
        self._lanes: dict[Any, tuple[int, int, int]] = {}  # (device, handle) -> lane
        self._stream_labels: dict[tuple[int, int], str] = {}
        self.t_start = time.perf_counter_ns()
        self.t_stop: int | None = None
        self.threads: dict[int, str] = {}

    # ---- recording (the hooks call these; keep them short) ---------------------------------
    def add(self, record: tuple) -> None:
        ring = self.ring
        if len(ring) == self.capacity:
            self._drop(ring[0])
        ring.append(record)

    def _drop(self, old: tuple) -> None:
        self.dropped += 1
        if old[8] is not None:
            self._recycle(old[7], old[8], old[9])
        if not self._warned:
            self._warned = True
            warnings.warn(f"openhip profiler: the trace buffer is full ({self.capacity} "
                          "records); the oldest records are dropped from now on (a larger "
                          "buffer: openhip prof --buffer N / profile(..., buffer=N))",
                          RuntimeWarning, stacklevel=4)

    def device_entry(self, dev: Any) -> tuple[int, bool, tuple[int, int, int]]:
        """(ordinal, whether the platform stamps device times itself, default-stream lane) of
        a device seen for the first time in this session (starting its timeline)."""
        entry = self.dev_entries.get(dev)
        if entry is None:
            with self._lock:
                self.base(dev)
                entry = (dev._ordinal, dev._ordinal in self.native, self.lane(dev, None))
                self.dev_entries[dev] = entry
        return entry

    def function_entry(self, fn: Any) -> tuple[int, bool, tuple[int, int, int]]:
        """The device entry of a kernel's device; the kernel is kept for the trace."""
        entry = self.fn_entries.get(id(fn))
        if entry is None:
            entry = self.device_entry(fn.module.device)
            self.functions[id(fn)] = fn
            self.fn_entries[id(fn)] = entry
        return entry

    def event(self, ordinal: int) -> Any:
        """An event handle of device ``ordinal`` (recycled when one is free)."""
        spare = self._spare.get(ordinal)
        if spare:
            try:
                return spare.pop()
            except IndexError:
                pass
        dev = self.devices[ordinal]
        return dev._platform.event_create(dev._index)

    def _recycle(self, ordinal: int, *events: Any) -> None:
        self._spare.setdefault(ordinal, []).extend(e for e in events if e is not None)

    def base(self, dev: Any) -> None:
        """Start the device's timeline (once per device and session): the platform's own
        stamps where it has them (CPU), else a base event that device times are offsets from."""
        if dev._ordinal in self._base:
            return
        with self._lock:
            if dev._ordinal in self._base:
                return
            self.devices[dev._ordinal] = dev
            p, i = dev._platform, dev._index
            enable = getattr(p, "trace_enable", None)
            if enable is not None and self.timing == "auto":
                enable(self.capacity)
                self.native.add(dev._ordinal)
                self._base[dev._ordinal] = (None, 0)
                return
            p.device_synchronize(i)  # the base event runs at once: its host time is exact
            ev = p.event_create(i)
            p.event_record(i, ev, None)
            p.event_synchronize(i, ev)
            self._base[dev._ordinal] = (ev, time.perf_counter_ns())

    def lane(self, dev: Any, handle: Any) -> tuple[int, int, int]:
        """The lane of a stream: (device id, stream id, native handle as an int)."""
        lane = self._lanes.get((dev, handle))
        if lane is None:
            lane = self._lanes[(dev, handle)] = self._new_lane(dev, handle)
        return lane

    def _new_lane(self, dev: Any, handle: Any) -> tuple[int, int, int]:
        key = (dev._ordinal, 0 if handle is None else _handle_int(handle))
        sid = self._streams.get(key)
        if sid is None:
            with self._lock:
                sid = self._streams.get(key)
                if sid is None:
                    sid = _DEFAULT if handle is None else 1 + sum(
                        1 for k in self._streams if k[0] == key[0] and k[1] != 0)
                    self._streams[key] = sid
                    self._stream_labels[(key[0], sid)] = (
                        f"device {key[0]} default stream" if handle is None else
                        f"device {key[0]} stream {sid} ({hex(key[1])})")
        return key[0], sid, key[1]

    def thread_name(self, tid: int) -> None:
        if tid not in self.threads:
            self.threads[tid] = threading.current_thread().name

    # ---- after the session ---------------------------------------------------------------
    def finish(self) -> list[dict[str, Any]]:
        """Wait for the recorded device work, then return every record as a dict with host and
        device times (ns). Safe to call once; the events go back to the devices."""
        self.t_stop = time.perf_counter_ns()
        records = list(self.ring)
        self.ring.clear()
        unusable: set[int] = set()
        for ordinal in {r[7] for r in records if r[8] is not None} | self.native:
            dev = self.devices[ordinal]
            try:
                dev._platform.device_synchronize(dev._index)
            except Exception:  # noqa: BLE001 - a failed device: host times only
                unusable.add(ordinal)
        stamps: dict[int, tuple[int, int]] = {}
        for ordinal in self.native:
            p = self.devices[ordinal]._platform
            try:
                p.trace_enable(0)
                found, lost = p.trace_read()
            except Exception:  # noqa: BLE001
                found, lost = [], 0
            stamps.update(_match_native(ordinal, records, found, self.functions))
            self.native_dropped += lost
        out = []
        for cat, name, t0, t1, tid, lane, args, ordinal, ev0, ev1 in records:
            d = {"cat": cat, "name": name, "t0": t0, "t1": t1, "tid": tid, "lane": lane,
                 "args": args}
            if ev0 is not None:
                d["d0"], d["d1"] = self._device_times(ordinal, ev0, ev1, unusable)
                self._recycle(ordinal, ev0, ev1)
            elif stamps:
                hit = stamps.get(id(args))
                if hit is not None:
                    d["d0"], d["d1"] = hit
            if cat == "kernel":
                d["args"] = args[:4] + (self.functions[args[4]],)
            out.append(d)
        self._release_events()
        return out

    def _device_times(self, ordinal: int, ev0: Any, ev1: Any,
                      unusable: set[int]) -> tuple[int | None, int | None]:
        base = self._base.get(ordinal)
        if base is None or ordinal in unusable:
            return None, None
        dev = self.devices[ordinal]
        p, i = dev._platform, dev._index
        try:
            ms0 = p.event_elapsed_ms(i, base[0], ev0)
            ms1 = p.event_elapsed_ms(i, base[0], ev1)
        except Exception:  # noqa: BLE001 - not completed (a fault): host times only
            return None, None
        return base[1] + int(ms0 * 1e6), base[1] + int(ms1 * 1e6)

    def _release_events(self) -> None:
        for ordinal, events in self._spare.items():
            dev = self.devices[ordinal]
            for e in events:
                try:
                    dev._platform.event_destroy(dev._index, e)
                except Exception:  # noqa: BLE001
                    pass
        self._spare.clear()
        for ordinal, (ev, _) in self._base.items():
            if ev is None:
                continue
            dev = self.devices[ordinal]
            try:
                dev._platform.event_destroy(dev._index, ev)
            except Exception:  # noqa: BLE001
                pass

    def stream_labels(self) -> dict[tuple[int, int], str]:
        return dict(self._stream_labels)


_KIND = {"kernel": 0, "memcpy": 1, "memset": 2}


def _queued(r: tuple, ordinal: int) -> bool:
    """Whether record r is work queued on a stream of device ``ordinal`` (what the native
    timeline stamps): kernels, and asynchronous copies and memsets."""
    if r[7] != ordinal or r[8] is not None or r[0] not in _KIND:
        return False
    return r[0] == "kernel" or bool(r[6].get("async"))


def _match_native(ordinal: int, records: list[tuple], found: list[tuple],
                  functions: dict[int, Any]) -> dict[int, tuple[int, int]]:
    """{id(record args): (device start ns, end ns)} from the stamps of the device's streams:
    per stream, the k-th queued record from the end is the k-th stamp from the end (of the same
    kind, and for kernels the same entry; a mismatch skips the stamp)."""
    by_stream: dict[int, list[tuple]] = {}
    for st in found:
        by_stream.setdefault(st[1], []).append(st)
    mine: dict[int, list[tuple]] = {}
    for r in records:
        if _queued(r, ordinal):
            mine.setdefault(r[5][2], []).append(r)
    out: dict[int, tuple[int, int]] = {}
    for handle, recs in mine.items():
        st = by_stream.get(handle, [])
        st.sort()
        j = len(st) - 1
        for r in reversed(recs):
            kind = _KIND[r[0]]
            entry = getattr(functions[r[6][4]]._handle, "entry", None) if kind == 0 else None
            while j >= 0 and (st[j][4] != kind or (entry is not None and st[j][2] != entry)):
                j -= 1
            if j < 0:
                break
            out[id(r[6])] = (int(st[j][5] * 1e6), int(st[j][6] * 1e6))
            j -= 1
    return out


def _handle_int(handle: Any) -> int:
    for attr in ("handle_int", "value"):
        v = getattr(handle, attr, None)
        if isinstance(v, int):
            return v
    try:
        return int(handle)
    except (TypeError, ValueError):
        return id(handle)
