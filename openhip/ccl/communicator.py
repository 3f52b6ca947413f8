"""The Communicator: NCCL's API over numpy arrays (and GPU buffers through NCCL/RCCL).

Every call validates its buffers, dtype, op, root and peer before anything is sent
(CclArgumentError, a CclError and a ValueError), then hands the work to the transport: the shm
engine within one machine, MPI across machines. Host buffers are any C-contiguous numpy array
or object with ``__array_interface__`` (written in place); GPU buffers
(``__cuda_array_interface__``) go to the vendor library.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from openhip.errors import CclError

from . import algorithms, grouping, settings
from .faults import KIND, describe
from .transports import base as tk
from .transports.base import Transport
from .types import DTYPES, CclArgumentError, dtype_code, host_array, is_device_buffer, op_code
from .uid import UniqueId, parse
from .work import Work, Worker

__all__ = ["Communicator"]



class Communicator:
    """A group of ``size`` ranks; this process is ``rank`` (``ncclCommInitRank``).

    ``Communicator(world_size, uid, rank)`` joins the communicator named by ``uid``
    (from :func:`openhip.ccl.get_unique_id`, shared by the application). ``transport``
    overrides OPENHIP_CCL_TRANSPORT; ``timeout`` (seconds) overrides OPENHIP_CCL_TIMEOUT.
    """

    def __init__(self, world_size: int, uid: bytes | str, rank: int, *,
                 transport: str | None = None, timeout: float | None = None) -> None:
        if not isinstance(world_size, int) or world_size < 1:
            raise CclArgumentError(f"world_size must be a positive int, got {world_size!r}")
        if not isinstance(rank, int) or not 0 <= rank < world_size:
            raise CclArgumentError(f"rank {rank!r} is not in [0, {world_size})")
        if world_size > 256:
            raise CclArgumentError("openhip.ccl supports up to 256 ranks per communicator")
        parsed = parse(uid)
        timeout = settings.timeout() if timeout is None else float(timeout)
        choice = transport or settings.transport()
        self._setup(_open_transport(choice, parsed, rank, world_size, timeout), parsed, timeout)

    def _setup(self, t: Transport, uid: UniqueId | None, timeout: float) -> None:
        self._t = t
        self._uid = uid
        self.rank: int = t.rank
        self.size: int = t.size
        self._timeout = timeout
        self._check = settings.check()
        self._broken: CclError | None = None
        self._destroyed = False
        self._worker: Worker | None = None
        self._last: Work | None = None
        self._lock = threading.Lock()
        self._splits = 0
        self._nccl: Any = None
        self._fast_key: tuple = (None, -1)
        self._fast: Any = None
        self._fast_cap: Any = None
        self._fast_on()

    @classmethod
    def _from_transport(cls, t: Transport, uid: UniqueId | None, timeout: float) -> Communicator:
        self = cls.__new__(cls)
        self._setup(t, uid, timeout)
        return self

    # ------------------------------------------------------------------ properties
    @property
    def transport(self) -> str:
        """The host transport in use: ``shm`` or ``mpi``."""
        return self._t.name

    @property
    def timeout(self) -> float:
        """Seconds a call waits for a peer before raising CclError."""
        return self._timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._timeout = float(seconds)
        self._t.set_timeout(self._timeout)

    def __repr__(self) -> str:
        return f"<ccl.Communicator rank {self.rank} of {self.size} over {self.transport}>"

    # ------------------------------------------------------------------ collectives
    def all_reduce(self, send: Any, recv: Any = None, op: Any = "sum", stream: Any = None, *,
                   async_op: bool = False) -> Work | None:
        """Reduce ``send`` over all ranks into ``recv`` on every rank (``recv=None``: in place)."""
        if (type(send) is np.ndarray and recv is None and op == "sum" and stream is None
                and not async_op and self._fast is not None and grouping.open_blocks == 0
                and send.flags.c_contiguous and send.flags.writeable):
            # hot path: host buffer, in place, sum, shm engine (about 1 µs of Python)
            key = self._fast_key
            if send.dtype is not key[0] or send.size != key[1]:
                key = self._fast_lookup(send)
            if key is not None:
                res = self._fast(self._fast_cap, key[3], send, send, key[1], key[2], 0, 0,
                                 key[4], 0)
                if res:
                    self._fail_fast(res)
                return None
        what = "all_reduce"
        if self._device(send):
            return self._vendor(what, lambda n: n.all_reduce(send, recv, op, stream), async_op)
        s = host_array(send, f"{what} send", recv is None)
        r = s if recv is None else self._out(recv, s, s.size, f"{what} recv")
        code = dtype_code(s.dtype, what, True)
        opc, scalar = op_code(op, what)
        count = s.size
        kind = algorithms.all_reduce_kind(count * s.itemsize, self.size)
        desc = describe(KIND[what], code, opc, 0, count, kind)

        def run() -> None:
            src = s
            if scalar is not None:  # scale into the output, then reduce it in place: no
                self._premul_into(s, scalar, r)  # temporary, and shared arrays stay zero-copy
                src = r
            self._t.coll(kind, src, r, count, code, opc if opc != 5 else 0, 0, desc, what)

        return self._submit(what, run, async_op, stream)

    def reduce(self, send: Any, recv: Any = None, op: Any = "sum", root: int = 0,
               stream: Any = None, *, async_op: bool = False) -> Work | None:
        """Reduce ``send`` over all ranks into ``recv`` at ``root`` (``recv=None``: in place)."""
        what = "reduce"
        self._root(root, what)
        if self._device(send):
            return self._vendor(what, lambda n: n.reduce(send, recv, op, root, stream), async_op)
        s = host_array(send, f"{what} send", recv is None and self.rank == root)
        r = None
        if self.rank == root:
            r = s if recv is None else self._out(recv, s, s.size, f"{what} recv")
        code = dtype_code(s.dtype, what, True)
        opc, scalar = op_code(op, what)
        desc = describe(KIND[what], code, opc, root, s.size)

        def run() -> None:
            src = self._premul(s, scalar) if scalar is not None else s
            dst = r if r is not None else src
            kind = algorithms.data_kind(tk.REDUCE, s.nbytes)
            self._t.coll(kind, src, dst, s.size, code, opc if opc != 5 else 0, root, desc, what)

        return self._submit(what, run, async_op, stream)

    def broadcast(self, buf: Any, root: int = 0, stream: Any = None, *,
                  async_op: bool = False) -> Work | None:
        """Copy ``buf`` of ``root`` into ``buf`` of every rank."""
        what = "broadcast"
        self._root(root, what)
        if self._device(buf):
            return self._vendor(what, lambda n: n.broadcast(buf, root, stream), async_op)
        b = host_array(buf, f"{what} buf", self.rank != root)
        code = dtype_code(b.dtype, what, False)
        desc = describe(KIND[what], code, 0, root, b.size)
        kind = algorithms.data_kind(tk.BROADCAST, b.nbytes)
        return self._submit(what, lambda: self._t.coll(kind, b, b, b.size, code, 0, root, desc,
                                                       what), async_op, stream)

    def all_gather(self, send: Any, recv: Any, stream: Any = None, *,
                   async_op: bool = False) -> Work | None:
        """Concatenate every rank's ``send`` (in rank order) into ``recv`` on every rank."""
        what = "all_gather"
        if self._device(send):
            return self._vendor(what, lambda n: n.all_gather(send, recv, stream), async_op)
        s = host_array(send, f"{what} send", False)
        r = self._out(recv, s, s.size * self.size, f"{what} recv")
        code = dtype_code(s.dtype, what, False)
        desc = describe(KIND[what], code, 0, 0, s.size)
        kind = algorithms.data_kind(tk.ALL_GATHER, s.nbytes * self.size)
        return self._submit(what, lambda: self._t.coll(kind, s, r, s.size, code, 0, 0, desc,
                                                       what), async_op, stream)

    def gather(self, send: Any, recv: Any = None, root: int = 0, stream: Any = None, *,
               async_op: bool = False) -> Work | None:
        """Concatenate every rank's ``send`` into ``recv`` at ``root`` (``recv`` unused elsewhere)."""
        what = "gather"
        self._root(root, what)
        if self._device(send):
            return self._vendor(what, lambda n: n.gather(send, recv, root, stream), async_op)
        s = host_array(send, f"{what} send", False)
        r = self._out(recv, s, s.size * self.size, f"{what} recv") if self.rank == root else None
        code = dtype_code(s.dtype, what, False)
        desc = describe(KIND[what], code, 0, root, s.size)
        kind = algorithms.data_kind(tk.GATHER, s.nbytes * self.size)
        return self._submit(what, lambda: self._t.coll(kind, s, r, s.size, code, 0, root, desc,
                                                       what), async_op, stream)

    def reduce_scatter(self, send: Any, recv: Any, op: Any = "sum", stream: Any = None, *,
                       async_op: bool = False) -> Work | None:
        """Reduce ``send`` (size × ``recv.size`` elements) and leave block ``rank`` in ``recv``."""
        what = "reduce_scatter"
        if self._device(send):
            return self._vendor(what, lambda n: n.reduce_scatter(send, recv, op, stream), async_op)
        s = host_array(send, f"{what} send", False)
        r = host_array(recv, f"{what} recv", True)
        self._same_dtype(s, r, what)
        count = r.size
        if s.size < count * self.size:
            raise CclArgumentError(f"{what}: send has {s.size} elements, needs {self.size} × "
                                   f"{count} = {count * self.size} (recv.size per rank)")
        code = dtype_code(s.dtype, what, True)
        opc, scalar = op_code(op, what)
        desc = describe(KIND[what], code, opc, 0, count)

        def run() -> None:
            src = self._premul(s[: count * self.size], scalar) if scalar is not None else s
            kind = algorithms.data_kind(tk.REDUCE_SCATTER, count * self.size * s.itemsize)
            self._t.coll(kind, src, r, count, code, opc if opc != 5 else 0, 0, desc, what)

        return self._submit(what, run, async_op, stream)

    def all_to_all(self, send: Any, recv: Any, stream: Any = None, *,
                   async_op: bool = False) -> Work | None:
        """Block j of ``send`` goes to rank j; block i of ``recv`` comes from rank i."""
        what = "all_to_all"
        if self._device(send):
            return self._vendor(what, lambda n: n.all_to_all(send, recv, stream), async_op)
        s = host_array(send, f"{what} send", False)
        if s.size % self.size:
            raise CclArgumentError(f"{what}: send has {s.size} elements, not a multiple of the "
                                   f"{self.size} ranks")
        r = self._out(recv, s, s.size, f"{what} recv")
        count = s.size // self.size
        code = dtype_code(s.dtype, what, False)
        desc = describe(KIND[what], code, 0, 0, count)
        kind = algorithms.data_kind(tk.ALL_TO_ALL, s.nbytes)
        return self._submit(what, lambda: self._t.coll(kind, s, r, count, code, 0, 0, desc,
                                                       what), async_op, stream)

    def scatter(self, send: Any, recv: Any, root: int = 0, stream: Any = None, *,
                async_op: bool = False) -> Work | None:
        """Block j of ``send`` at ``root`` goes to ``recv`` of rank j (``send`` unused elsewhere)."""
        what = "scatter"
        self._root(root, what)
        if self._device(recv):
            return self._vendor(what, lambda n: n.scatter(send, recv, root, stream), async_op)
        r = host_array(recv, f"{what} recv", True)
        s = None
        if self.rank == root:
            s = host_array(send, f"{what} send", False)
            self._same_dtype(s, r, what)
            if s.size < r.size * self.size:
                raise CclArgumentError(f"{what}: send has {s.size} elements, needs {self.size} "
                                       f"× {r.size} = {r.size * self.size}")
        code = dtype_code(r.dtype, what, False)
        desc = describe(KIND[what], code, 0, root, r.size)
        kind = algorithms.data_kind(tk.SCATTER, r.nbytes * self.size)
        return self._submit(what, lambda: self._t.coll(kind, s, r, r.size, code, 0, root, desc,
                                                       what), async_op, stream)

    def barrier(self, *, async_op: bool = False) -> Work | None:
        """Wait until every rank reached the barrier."""
        desc = describe(KIND["barrier"], 0, 0, 0, 0)
        return self._submit("barrier", lambda: self._t.coll(tk.BARRIER, None, None, 0, 0, 0, 0,
                                                            desc, "barrier"), async_op, None)

    # ------------------------------------------------------------------ point to point
    def send(self, buf: Any, peer: int, stream: Any = None, *,
             async_op: bool = False) -> Work | None:
        """Send ``buf`` to ``peer`` (matched by a ``recv`` there; pair them in ``ccl.group()``).

        As in NCCL, the send finishes only when the peer has posted the matching ``recv``; a
        ``recv`` of another size, a collective instead, or a send to this rank waiting for its
        own ``recv`` (two ranks sending first outside a group) raises CclError on both ranks,
        naming the other (shm transport; over MPI the sizes with OPENHIP_CCL_CHECK=1)."""
        return self._p2p(1, buf, peer, stream, async_op)

    def recv(self, buf: Any, peer: int, stream: Any = None, *,
             async_op: bool = False) -> Work | None:
        """Receive into ``buf`` from ``peer``."""
        return self._p2p(0, buf, peer, stream, async_op)

    def _p2p(self, is_send: int, buf: Any, peer: int, stream: Any, async_op: bool) -> Work | None:
        what = "send" if is_send else "recv"
        if not isinstance(peer, (int, np.integer)) or not 0 <= peer < self.size:
            raise CclArgumentError(f"{what}: peer {peer!r} is not a rank in [0, {self.size})")
        peer = int(peer)
        if self._device(buf):
            fn = (lambda n: n.send(buf, peer, stream)) if is_send else \
                (lambda n: n.recv(buf, peer, stream))
            return self._vendor(what, fn, async_op)
        b = host_array(buf, f"{what} buf", not is_send)
        dtype_code(b.dtype, what, False)
        op = (is_send, peer, b)  # the engine moves b.nbytes bytes
        if grouping.active():
            self._usable(what)
            work = Work(what)
            grouping.record(self, "p2p", op, work)
            return work
        if peer == self.rank:
            raise CclArgumentError(f"{what}: a send to oneself needs the matching recv in the "
                                   "same ccl.group()")
        return self._submit(what, lambda: self._t.p2p([op], what), async_op, stream)

    def _run_p2p(self, ops: list, what: str) -> None:
        self._usable(what)
        self._drain()
        try:
            self._t.p2p(ops, what)
        except CclError as exc:
            self._broken = exc
            self._fast = None
            raise

    # ------------------------------------------------------------------ lifecycle
    def split(self, color: int | None, key: int | None = None) -> Communicator | None:
        """Collective: ranks with the same ``color`` form a new communicator, ordered by
        ``key`` then rank (``ncclCommSplit``); ``color=None`` or negative: returns None."""
        self._usable("split")
        if key is None:
            key = self.rank
        c = -1 if color is None or int(color) < 0 else int(color)
        mine = np.array([c, int(key)], np.int64)
        every = np.empty(2 * self.size, np.int64)
        self.all_gather(mine, every)
        tag = f"-s{self._splits}c{c}"
        self._splits += 1
        members = sorted((r for r in range(self.size) if every[2 * r] == c),
                         key=lambda r: (int(every[2 * r + 1]), r))
        t = self._t.split(None if c < 0 else c, int(key), members, tag)
        if t is None:
            return None
        uid = self._uid.derive(tag) if self._uid is not None else None
        return Communicator._from_transport(t, uid, self._timeout)

    def abort(self) -> None:
        """Abort: every call waiting on this communicator (here and on the other ranks) raises
        CclError. Safe to call from another thread or a signal handler."""
        if self._broken is None:
            self._broken = CclError("the communicator was aborted", self.rank)
        self._fast = None
        self._t.abort()
        if self._nccl is not None:
            self._nccl.abort()

    def destroy(self) -> None:
        """Release the communicator (waits for pending async operations first)."""
        if self._destroyed:
            return
        if self._broken is None:
            try:
                self._drain()
            except CclError:
                pass
        self._destroyed = True
        self._fast = None
        self._fast_cap = None
        if self._worker is not None:
            self._worker.stop()
        if self._nccl is not None:
            self._nccl.destroy()
        self._t.close()
        self._broken = self._broken or CclError("the communicator was destroyed", self.rank)

    def __enter__(self) -> Communicator:
        return self

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is not None and self._broken is None:
            self.abort()
        self.destroy()

    # ------------------------------------------------------------------ helpers
    def _fast_on(self) -> None:
        """Enable the all_reduce hot path (shm engine, no error, no pending async work)."""
        engine = getattr(self._t, "_engine", None)
        ok = engine is not None and self._broken is None and self._last is None
        self._fast = engine.coll if ok else None
        self._fast_cap = getattr(self._t, "_cap", None) if ok else None

    def _fast_lookup(self, send: np.ndarray) -> tuple | None:
        code = DTYPES.get(send.dtype)
        if code is None or code >= 10:
            return None
        count = send.size
        kind = algorithms.all_reduce_kind(count * send.itemsize, self.size)
        key = (send.dtype, count, code, kind, describe(0, code, 0, 0, count, kind))
        self._fast_key = key
        return key

    def _fail_fast(self, res: tuple) -> None:
        from .faults import engine_error
        exc = engine_error(res, self.rank, "all_reduce", self._timeout)
        self._broken = exc
        self._fast = None
        raise exc

    def _usable(self, what: str) -> None:
        if self._broken is not None:
            raise CclError(f"{what}: the communicator is unusable: {self._broken.message}",
                           self.rank, self._broken.peer)

    def _root(self, root: Any, what: str) -> None:
        if not isinstance(root, (int, np.integer)) or not 0 <= root < self.size:
            raise CclArgumentError(f"{what}: root {root!r} is not a rank in [0, {self.size})")

    @staticmethod
    def _same_dtype(a: np.ndarray, b: np.ndarray, what: str) -> None:
        if a.dtype != b.dtype:
            raise CclArgumentError(f"{what}: send is {a.dtype} but recv is {b.dtype}")

    def _out(self, recv: Any, s: np.ndarray, need: int, what: str) -> np.ndarray:
        if recv is None:
            raise CclArgumentError(f"{what}: a receive buffer is required")
        r = host_array(recv, what, True)
        self._same_dtype(s, r, what.split()[0])
        if r.size < need:
            raise CclArgumentError(f"{what}: buffer too small: {r.size} elements, needs {need}")
        return r

    @staticmethod
    def _premul_into(s: np.ndarray, scalar: Any, out: np.ndarray) -> None:
        """out = s * scalar, computed as _premul does (int64 or float64, rounded once)."""
        if s.dtype.kind in "iu":
            out[...] = Communicator._premul(s, scalar)
        else:  # the float64 loop, cast once into out: no full-size temporary
            np.multiply(s.reshape(-1), np.float64(scalar), out=out.reshape(-1),
                        casting="unsafe")

    @staticmethod
    def _premul(s: np.ndarray, scalar: Any) -> np.ndarray:
        if s.dtype.kind in "iu":
            return (s.astype(np.int64) * scalar).astype(s.dtype)
        return (s.astype(np.float64) * float(scalar)).astype(s.dtype)

    def _device(self, buf: Any) -> bool:
        return type(buf) is not np.ndarray and is_device_buffer(buf)

    def _vendor(self, what: str, fn: Callable[[Any], None], async_op: bool) -> Work | None:
        """Run a GPU-buffer call through NCCL/RCCL (bootstrapped over the host transport)."""
        self._usable(what)
        if self._nccl is None:
            from .transports.nccl import NcclComm
            self._nccl = NcclComm.bootstrap(self)
        fn(self._nccl)
        if async_op:
            work = Work(what)
            work._finish()
            return work
        return None

    def _drain(self) -> None:
        last = self._last
        if last is not None:
            self._last = None
            try:
                last.wait()
            finally:
                self._fast_on()

    def _submit(self, what: str, fn: Callable[[], None], async_op: bool,
                stream: Any) -> Work | None:
        self._usable(what)
        if stream is not None and hasattr(stream, "synchronize"):
            stream.synchronize()  # host transports: order after the work queued on the stream
        if grouping.active():
            work = Work(what)
            grouping.record(self, "coll", self._guard(fn), work)
            return work
        if async_op:
            work = Work(what)
            with self._lock:
                if self._worker is None:
                    self._worker = Worker(f"ccl-rank{self.rank}")
                self._worker.submit(self._guard(fn), work)
                self._last = work
                self._fast = None
            return work
        self._drain()
        self._guard(fn)()
        return None

    def _guard(self, fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            self._usable("call")
            try:
                fn()
            except CclError as exc:
                if not isinstance(exc, CclArgumentError):
                    self._broken = exc
                    self._fast = None
                raise
        return run


def _open_transport(choice: str, uid: UniqueId, rank: int, size: int, timeout: float) -> Transport:
    """Pick the host transport: shm when every rank is on this machine, else MPI."""
    same_host = uid.host == socket.gethostname()
    if choice == "auto":
        from .bootstrap import mpi_world
        world = mpi_world()
        if world is not None and world.Get_size() == size:
            from .transports.mpi import all_on_one_host
            choice = "shm" if all_on_one_host(world) else "mpi"
        else:
            choice = "shm"
    if choice == "shm":
        if not same_host:
            raise CclError(f"the shm transport needs every rank on one machine: the id comes from "
                           f"{uid.host!r}, this is {socket.gethostname()!r}; start the job with "
                           "mpiexec (or openhip launch --hosts) for the MPI transport", rank)
        from .transports.shm import ShmTransport
        return ShmTransport(uid, rank, size, timeout)
    from .transports.mpi import MpiTransport
    return MpiTransport.world(rank, size, timeout)
