"""The device memory pool: a caching allocator per device, as CuPy's ``MemoryPool`` and
PyTorch's caching allocator.

::

    pool = openhip.get_default_memory_pool()        # the current device's pool
    buf = pool.malloc(1000)                          # or openhip.runtime.pool.allocate(1000)
    del buf                                          # back to the pool, not to the device
    pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()
    pool.free_all_blocks()                           # give the cached blocks back
    pool.set_limit(size=1 << 30)                     # or fraction=0.5; OPENHIP_POOL_LIMIT

**Who allocates through it.** Arrays (``hip.empty/zeros/ones/full/asarray/empty_like`` and
every DeviceArray made without a buffer) take their memory from the pool; ``hip.malloc`` stays a
raw ``hipMalloc`` whose ``free()`` gives the memory straight back.

**Size classes.** A request is rounded up to a multiple of 512 bytes up to 1 MiB (CuPy's bins)
and to a multiple of 64 KiB above; a freed block is cached under its class and handed again only
to a request of the same class (no splitting, no best fit: a repeated shape finds its block, and
a block's slack stays below 64 KiB). Zero-byte requests take no block.

**Stream order.** A block belongs to the stream it was allocated on (``stream``, or the thread's
current stream). Freed, it is reusable at once by that stream (its queue is in order), and by
another stream only once the work queued on its stream when it was freed has completed. A
block freed while its stream is busy is marked so; when another stream first looks at it, an
event is recorded on its stream (unless that stream has gone idle: then it is free for all), and
the block is handed to another stream once that event has completed. The event marks a point
of the queue no earlier than the free (never too early), and the common case, a block reused by
its own stream, records none (a record queues a command: 0.8 us of a small operation's 5). A
block used on several streams must be ordered by the user, as in CuPy (record an event,
``wait_event``). A block whose stream object is gone, or
whose stream has failed, is not cached: it is freed once the device is idle (as ``hip.free``).

**The guarantees of DeviceBuffer hold for pooled blocks.** A pooled buffer is a DeviceBuffer
(:class:`PooledBuffer`): freed, it refuses further use; with exports alive (numpy views, DLPack
tensors) its block returns to the pool only when the last export goes, so a view never sees the
next owner's data. On the CPU platform the red zones sit at the end of the *request*, not of the
class (the pool moves the tail zone when it hands a block out), so the post-launch check sees a
write one byte past the request, and the return checks the zones as ``free`` does: an explicit
``free()`` raises HipError ``hipErrorIllegalAddress``, a return by the garbage collector warns.
One exception: a block handed back to its own stream for a smaller request while work queued
before its return may still use it keeps its zone at the larger, previous end (moving it would
write the block from the host under that work, or make that work's check see the smaller
extent); the zone moves at a later hand-out. The pool never writes a block nor waits for it.
A block's old contents are not cleared (``empty`` is uninitialised, as with numpy and CuPy).

**Limit.** ``set_limit(size=...)`` / ``set_limit(fraction=...)`` caps the bytes the pool holds
(in use + cached), 0 meaning none; ``OPENHIP_POOL_LIMIT`` sets it when the pool is created:
bytes (``1073741824``), a number with a binary suffix (``512M``, ``4G``, ``1.5GiB``; k, m, g, t,
optionally followed by ``b``/``ib``), or a percentage of the device's memory (``50%``); ``0`` or
unset: no limit. A bad value raises ValueError naming the variable.

**Out of memory.** An allocation over the limit, or one the device refuses, first gives every
cached block back and retries once; then it raises HipError ``hipErrorOutOfMemory`` with the
pool's used, total and limit figures. ``hip.reset_device()`` gives the cached blocks back too.
On the CPU platform the device's memory is the host's, whose allocations rarely fail (the
kernel overcommits), so the cache is bounded as well: an allocation that finds no cached block
while the cached blocks hold more than a quarter of the memory (``cache_cap``) gives them back
first.

Thread-safe: a free only appends to a queue (it never takes the pool's lock, so a garbage
collection inside the pool cannot deadlock); allocations take the lock and settle the queue.
After ``fork()`` the child's pools keep their blocks, reusable at once (nothing of the parent's
streams runs in the child).
"""

from __future__ import annotations

import collections
import os
import re
import threading
import warnings
import weakref
from typing import Any

import numpy as np

from ..errors import HipError
from ..tools.memcheck.flags import enabled as _memcheck_on
from .device import Device, get_device
from .memory import DeviceBuffer, _export_lock
from .stream import Stream, _stream_stack, resolve_stream
from .stream import _local as _stream_local

__all__ = ["MemoryPool", "PooledBuffer", "get_default_memory_pool", "allocate",
           "allocate_class", "size_class", "parse_limit"]

_SMALL = 1 << 20  # up to here classes are multiples of 512 bytes
_SMALL_STEP = 512
_LARGE_STEP = 64 << 10
_SPARE_EVENTS = 64  # event handles kept for reuse per pool


def size_class(nbytes: int) -> int:
    """The class (block size) a request of ``nbytes`` is served from."""
    step = _SMALL_STEP if nbytes <= _SMALL else _LARGE_STEP
    return (nbytes + step - 1) // step * step


_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([kmgt]?)(i?b)?\s*$")
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_limit(text: str, total_memory: int, what: str = "OPENHIP_POOL_LIMIT") -> int:
    """Bytes of a limit written as bytes, with a suffix (``4G``) or as a percentage of
    ``total_memory`` (``50%``); 0 means no limit. ValueError naming ``what`` otherwise."""
    value = text.strip().lower()
    if not value:
        return 0
    hint = ("use bytes (1073741824), a number with a suffix (512M, 4G, 1.5GiB) or a "
            "percentage of the device's memory (50%); 0: no limit")
    if value.endswith("%"):
        try:
            pct = float(value[:-1])
        except ValueError:
            raise ValueError(f"{what}={text!r} is not a size: {hint}") from None
        if not 0 <= pct <= 100:
            raise ValueError(f"{what}={text!r}: a percentage must be between 0 and 100")
        return int(total_memory * pct / 100)
    m = _SIZE_RE.match(value)
    if m is None:
        raise ValueError(f"{what}={text!r} is not a size: {hint}")
    size = float(m.group(1)) * _SCALE[m.group(2)]
    if size != size or size > 1 << 62:
        raise ValueError(f"{what}={text!r} is too large")
    return int(size)


class _Cached:
    """A block in the pool: its address, class, the request it last served, its stream (a
    weak reference; None: reusable by any stream) and the event marking the end of the work
    queued there when it was freed (None: nothing was)."""

    __slots__ = ("ptr", "cls", "size", "sref", "event")

    def __init__(self, ptr: int, cls: int, size: int, sref: Any, event: Any) -> None:
        self.ptr = ptr
        self.cls = cls
        self.size = size
        self.sref = sref
        self.event = event


_new_pooled = object.__new__
#: the event of a cached block freed while its stream was busy, until one is recorded
_BUSY = object()


class PooledBuffer(DeviceBuffer):
    """A DeviceBuffer whose memory is a pool block: releasing it returns the block."""

    __slots__ = ("_pool", "_cls", "_sref", "_zone")

    def __del__(self) -> None:
        # DeviceBuffer.__del__ -> _release, one frame less for a block nothing exported
        try:
            ptr = self._ptr
            if ptr is None:
                return
            if self._exports is not None:
                self._release(False)
                return
            self._ptr = None
            report = self._pool._give_back(ptr, self._cls, self._zone, self._sref)
            if report:
                warnings.warn(f"hipFree: {report}", RuntimeWarning, stacklevel=2)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _release(self, explicit: bool) -> None:
        ptr, self._ptr = self._ptr, None
        if ptr is None:
            return
        ex = self._exports
        if ex is not None:
            with _export_lock:
                if ex.count or ex.arrays:  # the last export returns the block (settle)
                    ex.pending = (_PendingReturn(self._pool, self._cls, self._zone,
                                                 self._sref), ptr)
                    return
        report = self._pool._give_back(ptr, self._cls, self._zone, self._sref)
        if report:
            if explicit:
                raise HipError("hipErrorIllegalAddress", report, routine="hipFree")
            warnings.warn(f"hipFree: {report}", RuntimeWarning, stacklevel=2)


class _PendingReturn:
    """What ``_Exports.settle`` calls (``._free(ptr)``) when the last export of a pooled
    buffer goes: the block returns to its pool."""

    __slots__ = ("pool", "cls", "size", "sref")

    def __init__(self, pool: MemoryPool, cls: int, size: int, sref: Any) -> None:
        self.pool, self.cls, self.size, self.sref = pool, cls, size, sref

    def _free(self, ptr: int) -> None:
        report = self.pool._give_back(ptr, self.cls, self.size, self.sref)
        if report:
            warnings.warn(f"hipFree: {report}", RuntimeWarning, stacklevel=2)


class MemoryPool:
    """The caching allocator of one device (see the module docstring)."""

    def __init__(self, device: Device | int | None = None) -> None:
        dev = _as_device(device)
        self.device = dev
        self._platform = dev._platform
        self._index = dev._index
        self._resize = getattr(self._platform, "redzone_resize", None)
        self._check = getattr(self._platform, "check_bounds", None)
        # memcheck mode (CPU platform): cached blocks are poisoned as freed memory
        self._mark = getattr(self._platform, "memcheck_pool", None) if _memcheck_on() else None
        self._lock = threading.Lock()
        self._free: dict[int, list[_Cached]] = {}
        self._returns: collections.deque[Any] = collections.deque()  # frees not yet settled
        self._spare: list[Any] = []  # event handles for reuse
        self._total = 0  # bytes of the blocks the pool holds, in use and cached
        self._cached = 0  # bytes of the cached blocks
        self._n_cached = 0
        self.hits = 0  # allocations served from the cache
        self.misses = 0  # allocations that went to the device
        self._limit = parse_limit(os.environ.get("OPENHIP_POOL_LIMIT", ""),
                                  dev.properties.total_memory)
        #: cached bytes past which a miss gives the cache back first (0: none; CPU platform)
        self.cache_cap = dev.properties.total_memory // 4 if dev.platform == "cpu" else 0
        _pools.add(self)

    # ---- figures --------------------------------------------------------------------------
    def used_bytes(self) -> int:
        """Bytes of the blocks in use (their class sizes)."""
        with self._lock:
            self._settle_locked()
            return self._total - self._cached

    def total_bytes(self) -> int:
        """Bytes the pool holds from the device: in use plus cached."""
        with self._lock:
            self._settle_locked()
            return self._total

    def free_bytes(self) -> int:
        """Bytes of the cached (free) blocks."""
        with self._lock:
            self._settle_locked()
            return self._cached

    def n_free_blocks(self) -> int:
        """How many blocks are cached."""
        with self._lock:
            self._settle_locked()
            return self._n_cached

    # ---- limit ----------------------------------------------------------------------------
    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        """Cap the bytes the pool holds: ``size`` bytes or ``fraction`` (0..1) of the device's
        memory; ``set_limit()`` or ``size=0``: no limit. Blocks already held stay."""
        if size is not None and fraction is not None:
            raise ValueError("set_limit takes size or fraction, not both")
        if fraction is not None:
            if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or \
                    not 0 <= fraction <= 1:
                raise ValueError(f"fraction must be a number between 0 and 1, not {fraction!r}")
            limit = int(self.device.properties.total_memory * fraction)
        elif size is not None:
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
                raise ValueError(f"size must be an int >= 0 (bytes; 0: no limit), "
                                 f"not {size!r}")
            limit = int(size)
        else:
            limit = 0
        with self._lock:
            self._limit = limit

    def get_limit(self) -> int:
        """The limit in bytes (0: none)."""
        return self._limit

    # ---- allocation -----------------------------------------------------------------------
    def malloc(self, nbytes: int, stream: Stream | None = None) -> DeviceBuffer:
        """A buffer of ``nbytes`` from the pool, for use on ``stream`` (default: the thread's
        current stream). Releasing it (``free()``, garbage collection) returns the block."""
        if not isinstance(nbytes, (int, np.integer)) or isinstance(nbytes, bool):
            raise TypeError(f"nbytes must be an int, not {type(nbytes).__name__}")
        nbytes = int(nbytes)
        dev = self.device
        if nbytes < 0:
            raise HipError("hipErrorInvalidValue", f"cannot allocate {nbytes} bytes",
                           routine="hipMalloc")
        if stream is None and not _stream_stack():
            s = dev.__dict__.get("_default_stream") or Stream._default(dev)
        else:
            s = resolve_stream(stream, dev)
        if nbytes == 0:
            return DeviceBuffer(0, 0, dev, owner=False)
        return self._allocate(nbytes, s)

    def _allocate(self, nbytes: int, s: Stream) -> PooledBuffer:
        cls = (nbytes + 511) & -512 if nbytes <= _SMALL else size_class(nbytes)
        block = None
        with self._lock:
            returns = self._returns
            if returns:
                if len(returns) == 1 and type(returns[0]) is _Cached:  # (one free: inline)
                    item = returns.popleft()
                    lst = self._free.get(item.cls)
                    if lst is None:
                        lst = self._free[item.cls] = []
                    lst.append(item)
                    self._cached += item.cls
                    self._n_cached += 1
                else:
                    self._settle_locked()
            blocks = self._free.get(cls)
            if blocks:  # the warm path: the newest block of the class, this stream's
                b = blocks[-1]
                r = b.sref
                if r is None or r() is s:
                    block = blocks.pop()
                    self._cached -= cls
                    self._n_cached -= 1
                    self.hits += 1
                    ev = b.event
                    if ev is not None and b.size == nbytes:  # (recycled here, under the lock)
                        if ev is not _BUSY:
                            self._spare_event(ev)
                        b.event = None
            if block is None:
                block = self._take_locked(cls, s)
            trim = block is None and self.cache_cap and self._cached > self.cache_cap
            if block is None and not trim:
                reserved = self._reserve_locked(cls)
        if trim:  # (outside the lock: frees may run the platform's checks)
            self.free_all_blocks()
            with self._lock:
                reserved = self._reserve_locked(cls)
        zone = nbytes  # where the block's CPU red zone starts once handed out
        if block is not None:
            ptr = block.ptr
            if block.size != nbytes and self._resize is not None:
                # Moving the red zone down writes canary bytes from the host now, and makes
                # the post-launch check see the smaller extent: work queued before the
                # block's return (same stream) may still use the old extent (a reduction's
                # partials). Then the zone stays where it is (the guard is looser until a
                # later hand-out), and the host never writes under queued work nor waits.
                if nbytes > block.size or self._idle(block):
                    self._resize(self._index, ptr, nbytes)
                else:
                    zone = block.size
            if self._mark is not None:
                self._mark(self._index, ptr, zone, False)
            if block.event is not None and block.event is not _BUSY:
                with self._lock:
                    self._spare_event(block.event)
        else:
            ptr = self._fresh(nbytes, cls, reserved)
            if self._resize is not None and cls != nbytes:
                self._resize(self._index, ptr, nbytes)
        buf = _new_pooled(PooledBuffer)  # (DeviceBuffer.__init__'s fields, one frame less)
        buf._ptr = ptr
        buf.nbytes = nbytes
        buf.device = self.device
        buf._owner = True
        buf._exports = None
        buf._pool = self
        buf._cls = cls
        buf._zone = zone
        sref = s.__dict__.get("_pool_wref")
        if sref is None:
            sref = s._pool_wref = weakref.ref(s)
        buf._sref = sref
        return buf

    def _take_locked(self, cls: int, s: Stream) -> _Cached | None:
        blocks = self._free.get(cls)
        if not blocks:
            self.misses += 1
            return None
        chosen = None
        for k in range(len(blocks) - 1, -1, -1):  # the same stream first, newest first
            b = blocks[k]
            if b.sref is None or b.sref() is s:
                chosen = k
                break
        if chosen is None:  # another stream's block, once its work is done
            for k in range(len(blocks) - 1, -1, -1):
                if self._ready(blocks[k]):
                    chosen = k
                    break
        if chosen is None:
            self.misses += 1
            return None
        b = blocks.pop(chosen)
        self._cached -= cls
        self._n_cached -= 1
        self.hits += 1
        return b  # the caller recycles b.event once it no longer needs it

    def _ready(self, b: _Cached) -> bool:
        """Whether the work queued on ``b``'s stream when it was freed has completed, for a
        hand-out to another stream. A block freed on a busy stream (event ``_BUSY``) gets its
        event now, unless the stream has gone idle meanwhile."""
        ev = b.event
        if ev is not _BUSY:
            return self._completed(ev)
        stream = b.sref() if b.sref is not None else None
        if stream is None:
            return False  # (freed with the cache, once the device is idle)
        platform, index, handle = self._platform, self._index, stream._handle
        try:
            if not platform.stream_busy(index, handle):
                b.event = None
                return True
            try:
                event = self._spare.pop()
            except IndexError:
                event = platform.event_create(index)
            platform.event_record(index, event, handle)
        except HipError:
            return False
        b.event = event
        return False

    def _idle(self, b: _Cached) -> bool:
        """Whether nothing queued before ``b``'s return can still use it (its event, or for a
        ``_BUSY`` block its stream, is done)."""
        ev = b.event
        if ev is not _BUSY:
            return self._completed(ev)
        stream = b.sref() if b.sref is not None else None
        if stream is None:
            return False
        try:
            return not self._platform.stream_busy(self._index, stream._handle)
        except HipError:
            return False

    def _completed(self, event: Any) -> bool:
        if event is None:
            return True
        try:
            return bool(self._platform.event_query(self._index, event))
        except HipError:
            return False  # a failed stream: not handed out (free_all_blocks frees it)

    def _reserve_locked(self, cls: int) -> bool:
        if self._limit and self._total + cls > self._limit:
            return False
        self._total += cls
        return True

    def _fresh(self, nbytes: int, cls: int, reserved: bool) -> int:
        """A new block from the device; frees the cache and retries once when over the limit
        or out of memory."""
        dev = self.device
        props = dev.properties
        if props.total_memory and cls > props.total_memory:
            if reserved:
                with self._lock:
                    self._total -= cls
            raise HipError("hipErrorOutOfMemory",
                           f"{nbytes} bytes requested; the device has {props.total_memory}",
                           routine="hipMalloc")
        if not reserved:
            self.free_all_blocks()
            with self._lock:
                reserved = self._reserve_locked(cls)
            if not reserved:
                raise self._oom(nbytes, cls, "it would exceed the pool's limit")
        dev._release_pending(check_idle=True)
        try:
            try:
                return self._platform.malloc(self._index, cls)
            except HipError as exc:
                if exc.status != "hipErrorOutOfMemory":
                    raise
            self.free_all_blocks()
            dev.synchronize()  # deferred frees go now
            try:
                return self._platform.malloc(self._index, cls)
            except HipError as exc:
                if exc.status != "hipErrorOutOfMemory":
                    raise
                raise self._oom(nbytes, cls, f"the device refused it ({exc})") from None
        except BaseException:
            with self._lock:
                self._total -= cls
            raise

    def _oom(self, nbytes: int, cls: int, why: str) -> HipError:
        with self._lock:
            used, total, limit = self._total - self._cached, self._total, self._limit
        return HipError("hipErrorOutOfMemory",
                        f"the memory pool of device {self.device.id} cannot allocate {nbytes} "
                        f"bytes (a {cls}-byte block): {why}; the pool uses {used} bytes, holds "
                        f"{total}, limit {limit or 'none'} (set_limit / OPENHIP_POOL_LIMIT); "
                        f"its cached blocks were freed first", routine="hipMalloc")

    # ---- frees ------------------------------------------------------------------------------
    def _give_back(self, ptr: int, cls: int, size: int, sref: Any) -> str | None:
        """Return a block (called from a free, maybe inside a garbage collection: no lock).
        Returns what the red-zone check found, if anything."""
        stream = sref() if sref is not None else None
        platform, index = self._platform, self._index
        report = None
        if stream is None:
            self._drop(ptr, cls)  # the stream is gone: freed when the device is idle
            return None
        handle = stream._handle
        try:
            event = None
            if platform.stream_busy(index, handle):
                event = _BUSY  # its event is recorded when another stream looks (_ready)
            elif self._check is not None:  # a kernel still running is checked when done
                report = self._check(index, ptr)
                if self._mark is not None:  # (not under queued work: that may still use it)
                    self._mark(index, ptr, 0, True)
        except HipError:
            self._drop(ptr, cls)  # a failed or foreign (parent's) stream
            return None
        self._returns.append(_Cached(ptr, cls, size, sref, event))
        return report

    def _drop(self, ptr: int, cls: int) -> None:
        self.device._free(ptr)
        self._returns.append(cls)  # the accounting follows at the next settle

    def _spare_event(self, event: Any) -> None:
        if len(self._spare) < _SPARE_EVENTS:
            self._spare.append(event)
        else:
            try:
                self._platform.event_destroy(self._index, event)
            except HipError:
                pass

    def _settle_locked(self) -> None:
        returns = self._returns
        while returns:
            item = returns.popleft()
            if isinstance(item, int):
                self._total -= item
                continue
            self._free.setdefault(item.cls, []).append(item)
            self._cached += item.cls
            self._n_cached += 1

    def free_all_blocks(self) -> None:
        """Give every cached block back to the device. Blocks whose stream's work is still
        running are freed once the device is idle."""
        with self._lock:
            self._settle_locked()
            blocks = [b for lst in self._free.values() for b in lst]
            self._free.clear()
            self._total -= self._cached
            self._cached = 0
            self._n_cached = 0
        for b in blocks:
            if self._idle(b):
                self._platform.free(self._index, b.ptr)
            else:
                self.device._free(b.ptr)
            if b.event is not None and b.event is not _BUSY:
                self._spare_event(b.event)

    def _after_fork_child(self) -> None:
        self._lock = threading.Lock()
        self._spare = []  # the parent's event handles
        self._settle_locked()
        for lst in self._free.values():
            for b in lst:
                b.sref = None
                b.event = None

    def __repr__(self) -> str:
        return (f"<openhip.MemoryPool device {self.device.id}: {self.used_bytes()} bytes used, "
                f"{self.total_bytes()} held, {self.n_free_blocks()} free blocks>")


_pools: weakref.WeakSet[MemoryPool] = weakref.WeakSet()
_create_lock = threading.Lock()


def _as_device(device: Device | int | None) -> Device:
    if device is None:
        return get_device()
    return device if isinstance(device, Device) else Device(device)


def get_default_memory_pool(device: Device | int | None = None) -> MemoryPool:
    """The pool of ``device`` (default: the current device), created at first use."""
    dev = _as_device(device)
    pool = dev.__dict__.get("_pool")
    if pool is None:
        with _create_lock:
            pool = dev.__dict__.get("_pool")
            if pool is None:
                pool = dev._pool = MemoryPool(dev)
    return pool


def allocate_class(cls: int, device: Device) -> DeviceBuffer:
    """:func:`allocate` of ``cls`` bytes, a whole size class (``size_class(cls) == cls``,
    ``cls > 0``), on ``device`` for the thread's current stream: openhip.numpy's arrays.
    Any other positive size is served as :func:`allocate` would; ``cls <= 0`` raises
    hipErrorInvalidValue (a zero-byte array takes no block: use :func:`allocate`)."""
    if cls <= 0:
        raise HipError("hipErrorInvalidValue", f"cannot allocate a size class of {cls} bytes",
                       routine="hipMalloc")
    pool = device.__dict__.get("_pool") or get_default_memory_pool(device)
    if getattr(_stream_local, "stack", None):
        s = resolve_stream(None, device)
    else:
        s = device.__dict__.get("_default_stream") or Stream._default(device)
    return pool._allocate(cls, s)


def allocate(nbytes: int, device: Device | int | None = None,
             stream: Stream | None = None) -> DeviceBuffer:
    """``nbytes`` from the pool of ``device`` (default: current) for use on ``stream``
    (default: the thread's current stream): a DeviceBuffer whose release returns the block."""
    return get_default_memory_pool(device).malloc(nbytes, stream)


def release_device_pool(device: Device) -> None:
    """Give the cached blocks of ``device``'s pool back (``hip.reset_device``)."""
    pool = device.__dict__.get("_pool")
    if pool is not None:
        pool.free_all_blocks()


def _after_fork_child() -> None:
    for pool in list(_pools):
        pool._after_fork_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_child)
