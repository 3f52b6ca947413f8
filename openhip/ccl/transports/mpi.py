"""The MPI transport (mpi4py; the MPICH and Open MPI wheels on PyPI work): ranks on several machines.

Every call is a non-blocking MPI operation polled to completion, so OPENHIP_CCL_TIMEOUT and
``comm.abort()`` from another thread still apply. Types MPI has no reduction for (float16,
bfloat16) reduce through a numpy-backed user operation; avg is a sum then a division;
premul_sum is scaled before the call. With OPENHIP_CCL_CHECK=1 each call first compares its
descriptor with every rank's, and each group of sends and receives first exchanges, with every
peer it involves, the sizes of its sends and receives (a receive of another size then raises on
both ranks instead of MPI truncating or short-filling it). A dead rank is handled by MPI's
launcher (mpiexec ends the job).
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import numpy as np

from openhip.errors import CclError

from .. import settings
from ..faults import KIND, describe, explain
from ..types import CODE_TO_DTYPE
from .base import (
    ALL_GATHER,
    ALL_REDUCE_CMA,
    ALL_REDUCE_DIRECT,
    ALL_REDUCE_RSAG,
    ALL_TO_ALL,
    BARRIER,
    BROADCAST,
    GATHER,
    REDUCE,
    REDUCE_SCATTER,
    SCATTER,
    Transport,
)

_lock = threading.Lock()
_types: dict[int, Any] = {}
_user_ops: dict[tuple[int, int], Any] = {}


def _mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise CclError("the MPI transport needs mpi4py and an MPI library: "
                       "pip install 'openhip[mpi]' (mpi4py and the mpich wheel)") from exc
    return MPI


def all_on_one_host(world: Any) -> bool:
    """Collective over ``world``: True when every rank runs on this machine."""
    names = world.allgather(socket.gethostname())
    return len(set(names)) == 1


def _mpi_type(code: int) -> Any:
    MPI = _mpi()
    t = _types.get(code)
    if t is None:
        native = {0: MPI.INT8_T, 1: MPI.UINT8_T, 2: MPI.INT32_T, 3: MPI.UINT32_T,
                  4: MPI.INT64_T, 5: MPI.UINT64_T, 7: MPI.FLOAT, 8: MPI.DOUBLE}
        t = native.get(code)
        if t is None:  # float16, bfloat16, fp8: opaque bytes of the element size
            t = MPI.BYTE.Create_contiguous(CODE_TO_DTYPE[code].itemsize)
            t.Commit()
        _types[code] = t
    return t


def _mpi_op(code: int, op: int) -> Any:
    MPI = _mpi()
    if code in (6, 9):  # no MPI reduction for float16 / bfloat16: a numpy user op
        key = (code, op)
        user = _user_ops.get(key)
        if user is None:
            dtype = CODE_TO_DTYPE[code]
            ufunc = {0: np.add, 1: np.multiply, 2: np.maximum, 3: np.minimum, 4: np.add}[op]

            def fn(inbuf: Any, inoutbuf: Any, datatype: Any) -> None:
                a = np.frombuffer(inbuf, dtype)
                b = np.frombuffer(inoutbuf, dtype)
                b[...] = ufunc(a.astype(np.float32), b.astype(np.float32)).astype(dtype)

            user = MPI.Op.Create(fn, commute=True)
            _user_ops[key] = user
        return user
    return {0: MPI.SUM, 1: MPI.PROD, 2: MPI.MAX, 3: MPI.MIN, 4: MPI.SUM}[op]


class MpiTransport(Transport):
    """Collectives over an mpi4py communicator."""

    name = "mpi"

    def __init__(self, comm: Any, timeout: float) -> None:
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.timeout = timeout
        self._aborted = False
        self._check = settings.check()

    @classmethod
    def world(cls, rank: int, size: int, timeout: float) -> MpiTransport:
        """The transport over MPI_COMM_WORLD (its rank and size must be the ones asked for)."""
        MPI = _mpi()
        world = MPI.COMM_WORLD
        if world.Get_size() != size or world.Get_rank() != rank:
            raise CclError(f"the MPI transport needs the communicator to match MPI_COMM_WORLD "
                           f"(asked rank {rank} of {size}, MPI has rank {world.Get_rank()} of "
                           f"{world.Get_size()}); start the job with mpiexec -n {size}", rank)
        return cls(world.Dup(), timeout)

    # ------------------------------------------------------------------ plumbing
    def _wait(self, req: Any, what: str) -> None:
        start = time.monotonic()
        spins = 0
        while not req.Test():
            spins += 1
            if self._aborted:
                raise CclError(f"{what}: the communicator was aborted (comm.abort())", self.rank)
            if spins > 200:
                if time.monotonic() - start > self.timeout:
                    raise CclError(f"{what}: no answer from the other ranks within "
                                   f"{self.timeout:g} s (OPENHIP_CCL_TIMEOUT)", self.rank)
                time.sleep(0.0001 if spins > 2000 else 0)

    def _waitall(self, reqs: list, what: str) -> None:
        for r in reqs:
            self._wait(r, what)

    def _check_desc(self, desc: int, what: str) -> None:
        every = np.empty(self.size, np.uint64)
        mine = np.array([desc], np.uint64)
        self._wait(self.comm.Iallgather(mine, every), what)
        for peer, theirs in enumerate(every.tolist()):
            if theirs != desc:
                raise CclError(f"{what}: mismatched collective calls: this rank called "
                               f"{explain(desc)} but rank {peer} called {explain(theirs)}",
                               self.rank, peer)

    # ------------------------------------------------------------------ Transport
    def coll(self, kind, send, recv, count, dtype, op, root, desc, what):
        if self._aborted:
            raise CclError(f"{what}: the communicator was aborted", self.rank)
        if self._check:
            self._check_desc(desc, what)
        MPI = _mpi()
        c = self.comm
        kind &= 0xFF  # MPI picks its own algorithms
        t = _mpi_type(dtype) if kind != BARRIER else None
        if kind in (ALL_REDUCE_DIRECT, ALL_REDUCE_RSAG, ALL_REDUCE_CMA):
            sb = MPI.IN_PLACE if send is recv else [send, count, t]
            self._wait(c.Iallreduce(sb, [recv, count, t], _mpi_op(dtype, op)), what)
            self._avg(recv[:count] if recv.size != count else recv, op)
        elif kind == REDUCE:
            if self.rank == root:
                sb = MPI.IN_PLACE if send is recv else [send, count, t]
                self._wait(c.Ireduce(sb, [recv, count, t], _mpi_op(dtype, op), root), what)
                self._avg(recv.reshape(-1)[:count], op)
            else:
                self._wait(c.Ireduce([send, count, t], None, _mpi_op(dtype, op), root), what)
        elif kind == BROADCAST:
            self._wait(c.Ibcast([recv, count, t], root), what)
        elif kind == ALL_GATHER:
            sb = MPI.IN_PLACE if np.shares_memory(send, recv) else [send, count, t]
            self._wait(c.Iallgather(sb, [recv, count, t]), what)
        elif kind == GATHER:
            rb = [recv, count, t] if self.rank == root else None
            self._wait(c.Igather([send, count, t], rb, root), what)
        elif kind == REDUCE_SCATTER:
            out = np.empty_like(recv) if np.shares_memory(send, recv) else recv
            self._wait(c.Ireduce_scatter_block([send, count, t], [out, count, t],
                                               _mpi_op(dtype, op)), what)
            self._avg(out.reshape(-1)[:count], op)
            if out is not recv:
                recv[...] = out
        elif kind == ALL_TO_ALL:
            sb = MPI.IN_PLACE if send is recv else [send, count, t]
            self._wait(c.Ialltoall(sb, [recv, count, t]), what)
        elif kind == SCATTER:
            sb = [send, count, t] if self.rank == root else None
            self._wait(c.Iscatter(sb, [recv, count, t], root), what)
        elif kind == BARRIER:
            self._wait(c.Ibarrier(), what)
        else:
            raise CclError(f"{what}: unknown collective kind {kind}", self.rank)

    def _avg(self, arr: np.ndarray, op: int) -> None:
        if op != 4:
            return
        flat = arr.reshape(-1)
        if flat.dtype.kind in "iu":
            q = np.abs(flat.astype(np.int64)) // self.size if flat.dtype.kind == "i" else \
                flat // self.size
            flat[...] = (np.sign(flat) * q if flat.dtype.kind == "i" else q).astype(flat.dtype)
        else:
            flat[...] = (flat.astype(np.float64) / self.size).astype(flat.dtype)

    def _check_p2p(self, ops: list, what: str) -> None:
        """Exchange the (kind, bytes) of every send and receive with each peer and compare: the
        k-th send to a peer must meet the peer's k-th receive from this rank, of the same size."""
        MPI = _mpi()
        mine: dict[int, list[int]] = {}
        for is_send, peer, arr in ops:
            if peer != self.rank:
                kind = KIND["send"] if is_send else KIND["recv"]
                mine.setdefault(peer, []).append(describe(kind, 0, 0, peer, arr.nbytes))
        reqs = [self.comm.Isend(np.array(d, np.uint64), p, tag=8) for p, d in mine.items()]
        theirs: dict[int, np.ndarray] = {}
        for peer in mine:
            status = MPI.Status()
            start = time.monotonic()
            while not self.comm.Iprobe(source=peer, tag=8, status=status):
                if self._aborted:
                    raise CclError(f"{what}: the communicator was aborted (comm.abort())",
                                   self.rank)
                if time.monotonic() - start > self.timeout:
                    raise CclError(f"{what}: rank {peer} did not answer within "
                                   f"{self.timeout:g} s (OPENHIP_CCL_TIMEOUT)", self.rank, peer)
                time.sleep(0.0001)
            buf = np.empty(status.Get_count(MPI.UINT64_T), np.uint64)
            self._wait(self.comm.Irecv(buf, peer, tag=8), what)
            theirs[peer] = buf
        self._waitall(reqs, what)
        for peer, descs in mine.items():
            for kind, other in ((KIND["send"], KIND["recv"]), (KIND["recv"], KIND["send"])):
                a = [d for d in descs if d >> 60 == kind]
                b = [int(d) for d in theirs[peer].tolist() if d >> 60 == other]
                for k in range(max(len(a), len(b))):
                    if k >= len(a) or k >= len(b) or (a[k] ^ b[k]) & 0xFFFFFFFFFF:
                        me = explain(a[k]) if k < len(a) else "nothing"
                        them = explain(b[k]) if k < len(b) else "nothing"
                        raise CclError(f"{what}: message size mismatch with rank {peer}: this "
                                       f"rank called {me} but rank {peer} called {them}",
                                       self.rank, peer)

    def p2p(self, ops, what):
        if self._aborted:
            raise CclError(f"{what}: the communicator was aborted", self.rank)
        if self._check:
            self._check_p2p(ops, what)
        MPI = _mpi()
        reqs = []
        for is_send, peer, arr in ops:
            buf = arr.reshape(-1).view(np.uint8)
            if is_send:
                reqs.append(self.comm.Isend([buf, buf.size, MPI.BYTE], peer, tag=7))
            else:
                reqs.append(self.comm.Irecv([buf, buf.size, MPI.BYTE], peer, tag=7))
        self._waitall(reqs, what)

    def split(self, color, key, members, tag):
        MPI = _mpi()
        sub = self.comm.Split(MPI.UNDEFINED if color is None else color, key)
        if sub == MPI.COMM_NULL:
            return None
        return MpiTransport(sub, self.timeout)

    def abort(self) -> None:
        self._aborted = True

    def close(self) -> None:
        if self.comm is not None:
            try:
                self.comm.Free()
            except Exception:  # noqa: BLE001 - MPI may be finalized already
                pass
            self.comm = None

    def set_timeout(self, seconds: float) -> None:
        self.timeout = seconds
