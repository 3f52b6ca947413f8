"""The profiler's hooks: installed by swapping functions and methods when a session starts, put
back when it stops, so nothing of the profiler runs (not even a branch) while it is off.

One indirection point per category:

=========  ==========================================================================
kernels    ``Function.__call__`` / ``Function.launch`` (runtime/module.py; cooperative too),
           and openhip.numpy's direct launches (``_kernels.Kernel.launch_ohargs`` /
           ``launch_packed`` / ``launch_grid``, which go to the platform without a Function
           call on their warm path)
copies     ``memory._copy`` and ``memory._memset`` (every memcpy*/memset*, ``x.get()``...)
memory     ``MemoryPool._allocate`` / ``MemoryPool._give_back`` (runtime/pool.py: arrays);
           raw ``malloc`` (``memory.malloc`` and ``openhip.malloc``) and
           ``DeviceBuffer._release`` (its free; pooled buffers have their own)
compiles   ``cached_compile`` as module.py and compile.py call it (a cache miss is seen by
           the ``build`` it is given)
syncs      ``Stream.synchronize``, ``Device.synchronize``, ``Event.synchronize``
ccl        the collectives and point-to-point calls of ``ccl.Communicator``
=========  ==========================================================================

A ``malloc`` imported by name before the session (``from openhip import malloc``) is not seen.
"""

from __future__ import annotations

import functools
import threading
import time
from typing import Any

from .recorder import Recorder

_perf = time.perf_counter_ns
_ident = threading.get_ident

_CCL_CALLS = ("all_reduce", "reduce", "broadcast", "all_gather", "gather", "reduce_scatter",
              "all_to_all", "scatter", "barrier", "send", "recv")

_COPY_KIND = {"htod": "HtoD", "dtoh": "DtoH", "dtod": "DtoD"}


class Hooks:
    """The swapped functions of one session; :meth:`remove` restores the originals."""

    def __init__(self, rec: Recorder) -> None:
        self.rec = rec
        self._saved: list[tuple[Any, str, Any]] = []
        self._local = threading.local()  # the drain inside a blocking copy (start, end ns)

    def _swap(self, owner: Any, name: str, make: Any) -> None:
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        self._saved.append((owner, name, original))
        wrapper = make(original)
        functools.update_wrapper(wrapper, original)
        setattr(owner, name, wrapper)

    def install(self) -> None:
        from ...runtime import compile as rt_compile
        from ...runtime import device, memory, module, pool, stream

        self._swap(module.Function, "__call__", self._kernel)
        module.Function.launch = module.Function.__call__
        self._saved.append((module.Function, "launch", self._saved[0][2]))
        from ...numpy import _kernels as np_kernels

        kernel = np_kernels.Kernel
        self._swap(kernel, "launch_ohargs", self._array_kernel(_grid_of_count))
        self._swap(kernel, "launch_struct", self._array_kernel(_grid_of_count))
        self._swap(kernel, "launch_packed", self._array_kernel(_grid_of_packed))
        self._swap(kernel, "launch_grid", self._array_kernel(_grid_given))
        self._swap(memory, "_copy", self._copy)
        self._swap(memory, "_memset", self._memset)
        self._swap(memory, "_drain", self._drain)
        self._swap(pool.MemoryPool, "_allocate", self._alloc)
        self._swap(pool.MemoryPool, "_give_back", self._free)
        import openhip

        self._swap(memory, "malloc", self._raw_malloc)
        if getattr(openhip, "malloc", None) is self._saved[-1][2]:
            openhip.malloc = memory.malloc
            self._saved.append((openhip, "malloc", self._saved[-1][2]))
        self._swap(memory.DeviceBuffer, "_release", self._raw_free)
        self._swap(module, "cached_compile", self._compile)
        self._swap(rt_compile, "cached_compile", self._compile)
        self._swap(stream.Stream, "synchronize", self._sync("hipStreamSynchronize"))
        self._swap(stream.Event, "synchronize", self._sync("hipEventSynchronize"))
        self._swap(device.Device, "synchronize", self._sync("hipDeviceSynchronize"))
        try:
            from ...ccl.communicator import Communicator
        except Exception:  # noqa: BLE001 - ccl not importable here: nothing to record
            return
        for name in _CCL_CALLS:
            if name in Communicator.__dict__:
                self._swap(Communicator, name, self._ccl(name))

    def remove(self) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()

    # ---- wrappers -----------------------------------------------------------------------------
    # The hot ones (kernels, copies, pool) append to the ring themselves, with their state in
    # closure variables: a record costs two clock reads, a few dict lookups and a tuple.
    def _kernel(self, original: Any) -> Any:
        from ...runtime import stream as stream_module

        rec = self.rec
        ring, cap, threads, entries = rec.ring, rec.capacity, rec.threads, rec.fn_entries
        stack = stream_module._stream_stack  # (made once per thread: no AttributeError path)
        local = stream_module._local
        resolve = stream_module.resolve_stream

        def launch(fn: Any, grid: Any, block: Any, args: Any = (), *, shared_mem: int = 0,
                   stream: Any = None, cooperative: bool = False) -> None:
            entry = entries.get(id(fn))
            if entry is None:
                entry = rec.function_entry(fn)
            if entry[1]:  # the platform stamps the device times itself (CPU)
                t0 = _perf()
                original(fn, grid, block, args, shared_mem=shared_mem, stream=stream,
                         cooperative=cooperative)
                t1 = _perf()
                # (the launch just made this thread's stream stack: it looked at it)
                if stream is None and not local.stack:
                    lane = entry[2]
                else:
                    dev = fn.module.device
                    lane = rec.lane(dev, resolve(stream, dev)._handle)
                tid = _ident()
                if tid not in threads:
                    rec.thread_name(tid)
                if len(ring) == cap:
                    rec._drop(ring[0])
                ring.append(("kernel", fn.name, t0, t1, tid, lane,
                             (grid, block, shared_mem, cooperative, id(fn)), entry[0], None,
                             None))
                return
            dev = fn.module.device  # events around the launch, on its stream (GPUs)
            handle = None if stream is None and not stack() else resolve(stream, dev)._handle
            platform, index, ordinal = fn._platform, fn._index, entry[0]
            ev0 = rec.event(ordinal)
            platform.event_record(index, ev0, handle)
            t0 = _perf()
            try:
                original(fn, grid, block, args, shared_mem=shared_mem, stream=stream,
                         cooperative=cooperative)
            except BaseException:
                rec._recycle(ordinal, ev0)
                raise
            t1 = _perf()
            ev1 = rec.event(ordinal)
            platform.event_record(index, ev1, handle)
            tid = _ident()
            if tid not in threads:
                rec.thread_name(tid)
            rec.add(("kernel", fn.name, t0, t1, tid, rec.lane(dev, handle),
                     (grid, block, shared_mem, cooperative, id(fn)), ordinal, ev0, ev1))

        return launch

    def _array_kernel(self, grid_of: Any) -> Any:
        """A wrapper maker for openhip.numpy's direct launches (``Kernel.launch_*``): the same
        record as a ``Function`` call, for the kernel's Function, with the grid the method
        launches (``grid_of(kernel, *args) -> (grid, block, stream)``)."""

        def make(original: Any) -> Any:
            def run(fn: Any, grid: Any, block: Any, args: Any = (), *, shared_mem: int = 0,
                    stream: Any = None, cooperative: bool = False) -> None:
                original(*args[0], **args[1])

            record = self._kernel(run)

            def launch(kernel: Any, *args: Any, **kw: Any) -> None:
                grid, block, stream = grid_of(kernel, *args, **kw)
                record(kernel.fn, grid, block, ((kernel, *args), kw), stream=stream)

            return launch

        return make

    def _device_op(self, cat: str, name: str, dev: Any, stream: Any, asynchronous: bool,
                   call: Any, args: tuple) -> None:
        """Run ``call`` (a copy or memset) and record it on its stream's lane: the platform's
        stamps (CPU) or events (GPUs) give the device times of asynchronous ones; blocking ones
        run on the calling thread after draining the device, which is recorded apart."""
        rec = self.rec
        entry = rec.dev_entries.get(dev)
        if entry is None:
            entry = rec.device_entry(dev)
        tid = _ident()
        if tid not in rec.threads:
            rec.thread_name(tid)
        details = {"kind": args[0], "bytes": args[1], "async": asynchronous}
        if not asynchronous:
            local = self._local
            local.drain = None
            t0 = _perf()
            call(*args[2])
            t1 = _perf()
            drained = local.drain
            if drained is not None:  # the wait for earlier work is not the copy's time
                rec.add(("sync", "device drain before a blocking copy", drained[0],
                         drained[1], tid, None, {}, None, None, None))
                t0 = drained[1]
            rec.add((cat, name, t0, t1, tid, entry[2], details, None, None, None))
            return
        from ...runtime.stream import resolve_stream

        handle = resolve_stream(stream, dev)._handle
        lane = rec.lane(dev, handle)
        if entry[1]:
            t0 = _perf()
            call(*args[2])
            t1 = _perf()
            rec.add((cat, name, t0, t1, tid, lane, details, entry[0], None, None))
            return
        platform, index, ordinal = dev._platform, dev._index, entry[0]
        ev0 = rec.event(ordinal)
        platform.event_record(index, ev0, handle)
        t0 = _perf()
        try:
            call(*args[2])
        except BaseException:
            rec._recycle(ordinal, ev0)
            raise
        t1 = _perf()
        ev1 = rec.event(ordinal)
        platform.event_record(index, ev1, handle)
        rec.add((cat, name, t0, t1, tid, lane, details, ordinal, ev0, ev1))

    def _drain(self, original: Any) -> Any:
        local = self._local

        def drain(dev: Any) -> None:
            t0 = _perf()
            original(dev)
            local.drain = (t0, _perf())

        return drain

    def _copy(self, original: Any) -> Any:
        names = {k: f"memcpy {v}" for k, v in _COPY_KIND.items()}

        def copy(kind: str, dst: Any, src: Any, nbytes: Any, stream: Any,
                 asynchronous: bool) -> None:
            obj = src if kind == "dtoh" else dst
            try:
                dev = obj.device
                size = nbytes if nbytes is not None else obj.nbytes
                dev._ordinal  # noqa: B018 - a Device
            except AttributeError:  # not device memory: the original raises the error
                original(kind, dst, src, nbytes, stream, asynchronous)
                return
            if not size or kind not in names:
                original(kind, dst, src, nbytes, stream, asynchronous)
                return
            self._device_op("memcpy", names[kind], dev, stream, asynchronous, original,
                            (_COPY_KIND[kind], int(size),
                             (kind, dst, src, nbytes, stream, asynchronous)))

        return copy

    def _memset(self, original: Any) -> Any:
        def memset(dst: Any, value: int, nbytes: Any, stream: Any, asynchronous: bool) -> None:
            try:
                dev = dst.device
                size = nbytes if nbytes is not None else dst.nbytes
                dev._ordinal  # noqa: B018 - a Device
            except AttributeError:
                original(dst, value, nbytes, stream, asynchronous)
                return
            if not size:
                original(dst, value, nbytes, stream, asynchronous)
                return
            self._device_op("memset", "memset", dev, stream, asynchronous, original,
                            ("memset", int(size), (dst, value, nbytes, stream, asynchronous)))

        return memset

    def _alloc(self, original: Any) -> Any:
        rec = self.rec
        ring, cap, threads = rec.ring, rec.capacity, rec.threads

        def allocate(pool: Any, nbytes: int, s: Any) -> Any:
            hits = pool.hits
            t0 = _perf()
            buf = original(pool, nbytes, s)
            t1 = _perf()
            tid = _ident()
            if tid not in threads:
                rec.thread_name(tid)
            if len(ring) == cap:
                rec._drop(ring[0])
            if pool.hits != hits:
                ring.append(("alloc", "alloc (pool hit)", t0, t1, tid, None,
                             ("hit", nbytes, buf._cls, pool.device._ordinal, buf._ptr),
                             None, None, None))
            else:
                ring.append(("alloc", "alloc (pool miss)", t0, t1, tid, None,
                             ("miss", nbytes, buf._cls, pool.device._ordinal, buf._ptr),
                             None, None, None))
            return buf

        return allocate

    def _free(self, original: Any) -> Any:
        rec = self.rec
        ring, cap, threads = rec.ring, rec.capacity, rec.threads

        def give_back(pool: Any, ptr: int, cls: int, size: int, sref: Any) -> Any:
            t0 = _perf()
            report = original(pool, ptr, cls, size, sref)
            t1 = _perf()
            tid = _ident()
            if tid not in threads:
                rec.thread_name(tid)
            if len(ring) == cap:
                rec._drop(ring[0])
            ring.append(("free", "free (to pool)", t0, t1, tid, None,
                         (None, size, cls, pool.device._ordinal, ptr), None, None, None))
            return report

        return give_back

    def _raw_malloc(self, original: Any) -> Any:
        rec = self.rec

        def malloc(nbytes: Any, device: Any = None) -> Any:
            t0 = _perf()
            buf = original(nbytes, device)
            t1 = _perf()
            tid = _ident()
            if tid not in rec.threads:
                rec.thread_name(tid)
            rec.add(("alloc", "hipMalloc", t0, t1, tid, None,
                     ("raw", buf.nbytes, buf.nbytes, buf.device._ordinal, buf._ptr or 0),
                     None, None, None))
            return buf

        return malloc

    def _raw_free(self, original: Any) -> Any:
        rec = self.rec

        def release(buf: Any, explicit: bool) -> None:
            ptr = buf._ptr
            if ptr is None or not buf._owner or not ptr:
                original(buf, explicit)
                return
            t0 = _perf()
            try:
                original(buf, explicit)
            finally:
                t1 = _perf()
                tid = _ident()
                if tid not in rec.threads:
                    rec.thread_name(tid)
                rec.add(("free", "hipFree", t0, t1, tid, None,
                         (None, buf.nbytes, buf.nbytes, buf.device._ordinal, ptr),
                         None, None, None))

        return release

    def _compile(self, original: Any) -> Any:
        rec = self.rec

        def cached_compile(toolchain: Any, source: str, *, platform: str, arch: str,
                           options: Any = (), name_expressions: Any = (),
                           filename: str = "kernel.hip", build: Any = None) -> Any:
            missed: list[bool] = []

            def counted_build() -> Any:
                missed.append(True)
                if build is not None:
                    return build()
                return toolchain.compile(source, arch=arch, options=tuple(options),
                                         name_expressions=tuple(name_expressions),
                                         filename=filename)

            t0 = _perf()
            program = original(toolchain, source, platform=platform, arch=arch,
                               options=options, name_expressions=name_expressions,
                               filename=filename, build=counted_build)
            t1 = _perf()
            tid = _ident()
            if tid not in rec.threads:
                rec.thread_name(tid)
            kernels = sorted(getattr(program, "kernels", {}) or {})
            rec.add(("compile", f"compile {filename}", t0, t1, tid, None,
                     {"cache": "miss" if missed else "hit", "platform": platform, "arch": arch,
                      "kernels": kernels[:16], "options": list(options)},
                     None, None, None))
            return program

        return cached_compile

    def _sync(self, label: str) -> Any:
        rec = self.rec

        def make(original: Any) -> Any:
            def synchronize(obj: Any) -> None:
                t0 = _perf()
                try:
                    original(obj)
                finally:
                    t1 = _perf()
                    tid = _ident()
                    if tid not in rec.threads:
                        rec.thread_name(tid)
                    rec.add(("sync", label, t0, t1, tid, None, {}, None, None, None))

            return synchronize

        return make

    def _ccl(self, what: str) -> Any:
        rec = self.rec

        def make(original: Any) -> Any:
            def collective(comm: Any, *args: Any, **kwargs: Any) -> Any:
                first = args[0] if args else kwargs.get("send", kwargs.get("buf"))
                nbytes = getattr(first, "nbytes", None)
                t0 = _perf()
                try:
                    return original(comm, *args, **kwargs)
                finally:
                    t1 = _perf()
                    tid = _ident()
                    if tid not in rec.threads:
                        rec.thread_name(tid)
                    rec.add(("ccl", what, t0, t1, tid, None,
                             {"rank": comm.rank, "size": comm.size,
                              "bytes": int(nbytes) if nbytes is not None else None,
                              "transport": _transport(comm),
                              "algorithm": _algorithm(what, nbytes, comm),
                              "async": bool(kwargs.get("async_op"))},
                             None, None, None))

            return collective

        return make


def _transport(comm: Any) -> str | None:
    try:
        return str(comm.transport)
    except Exception:  # noqa: BLE001 - a destroyed communicator
        return None


def _algorithm(what: str, nbytes: Any, comm: Any) -> str | None:
    """The algorithm the shm engine picks for an all_reduce of this size (others: None)."""
    if what != "all_reduce" or nbytes is None:
        return None
    try:
        from ...ccl import algorithms

        kind = algorithms.all_reduce_kind(int(nbytes), comm.size)
    except Exception:  # noqa: BLE001
        return None
    for name in ("ALL_REDUCE_DIRECT", "ALL_REDUCE_RSAG", "ALL_REDUCE_CMA"):
        if getattr(algorithms, name, None) == kind:
            return name[len("ALL_REDUCE_"):].lower()
    return str(kind)


def _grid_of_count(kernel: Any, n: int, args: Any, stream: Any = None, block: int | None = None
                   ) -> tuple[tuple[int, int, int], tuple[int, int, int], Any]:
    """The grid ``Kernel.launch_ohargs``/``launch_packed`` launch for ``n`` threads."""
    from ...numpy._kernels import BLOCK, grid_for

    block = BLOCK if block is None else block
    return grid_for(n, kernel.device, block), (block, 1, 1), stream


def _grid_of_packed(kernel: Any, n: int, packed: Any, block: int | None = None
                    ) -> tuple[tuple[int, int, int], tuple[int, int, int], Any]:
    """The grid ``Kernel.launch_packed`` launches for ``n`` threads (on the current stream)."""
    return _grid_of_count(kernel, n, packed, None, block)


def _grid_given(kernel: Any, grid: Any, packed: Any, block: int | None = None
                ) -> tuple[tuple[int, int, int], tuple[int, int, int], Any]:
    """The grid ``Kernel.launch_grid`` is given."""
    if block is None:
        from ...numpy._kernels import BLOCK as block
    return tuple(grid), (block, 1, 1), None
