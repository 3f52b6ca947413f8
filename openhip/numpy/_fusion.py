"""Elementwise fusion: ``a * x + y`` runs as one kernel that reads x and y and writes once.

How it works
------------
An elementwise operation of the fusable set (:data:`OPCODES`) whose operands are contiguous
arrays of one dtype (float32, float64, int32, int64) with the same shape, 0-d arrays or Python
scalars, on one device and the current stream, does not launch: it returns an ndarray in a
*pending* state. Its buffer is allocated; its value is an expression tree (:class:`Pending`)
over *leaf* arrays (held strongly) and scalars. A later fusable operation with a pending
operand embeds that operand's tree instead of reading its buffer; the operand stays pending
(weakly listed) in case the caller holds it.

Every pending array is listed (weakly, in creation order) in :data:`_PENDING`, and
:func:`flush` computes the ones still alive, each with one launch of the interpreter kernel
(kernels/fused.hip), on the stream it was created on; a dead temporary (``a * x`` in
``a * x + y``) is never computed. :func:`flush` runs

- whenever anything takes the device memory of *any* openhip.numpy array (its ``data``
  attribute: every kernel launch of openhip.numpy, a raw or custom kernel given the array,
  ``get``/``repr``/``float()``/``__array__``/DLPack/``__cuda_array_interface__``, indexing and
  ``setitem``, in-place operators, ``out=``), so a pending tree always reads leaves that have
  not changed since it was made, and nobody reads a buffer before it is computed;
- before a device or stream synchronisation and an event record (the runtime's
  :mod:`openhip.runtime.deferred` hooks), so timings and the profiler see the work;
- when a tree would outgrow the kernel's limits (registers, operands, instructions): the
  operands are computed first and become leaves.

Flushing launches; it does not synchronise (operations stay asynchronous).

The kernel interprets a short program (four bytes an instruction) over chunks of elements; its
opcodes apply the same ops.h functions as the unfused kernels, one operation at a time through
memory, so a fused result is bit for bit the unfused one. One build per dtype serves every
expression (no compile per expression).

``OPENHIP_FUSION=0`` turns fusion off for the process; :func:`enabled` switches it in a block.
A pointer taken from an array *before* a pending result was made from it (``p = x.data.ptr``,
then ``t = 2 * x``, then a raw kernel writing through ``p``) is not seen: take pointers when
launching.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..platforms.base import PackedArgs
from ..runtime import deferred
from ..runtime.stream import _stream_stack
from . import _dtypes as D
from ._kernels import Family, ctype

__all__ = ["OPCODES", "Pending", "enabled", "flush", "is_enabled", "pending_count",
           "try_fuse"]

FAMILY = Family("fused", "fused.hip", options=("-std=c++17",))  # the elementwise flags

#: limits of kernels/fused.hip (OHF_*)
NREG, NLEAF, NCONST, NINS = 8, 8, 8, 48
#: operations of one tree (its instructions are these plus the store)
MAXNODES = 40
CHUNK_BYTES = 8192  # OHF_CHUNK_BYTES: elements per CPU thread = 8192 / compute item size
_CPU_BLOCK = 8
_GPU_BLOCK = 256
_MAX_PIECE = 1 << 30  # elements per launch (the kernel's n is an int)

_OUT = 255  # OHF_OUT: the destination of the root
#: fusable operations -> opcode (kernels/fused.hip)
OPCODES = {"negative": 10, "abs": 11, "square": 12, "exp": 13, "log": 14, "sqrt": 15,
           "add": 20, "subtract": 21, "multiply": 22, "divide": 23, "maximum": 24,
           "minimum": 25, "equal": 30, "not_equal": 31, "less": 32, "less_equal": 33,
           "greater": 34, "greater_equal": 35}
_COMPARE = frozenset(("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"))
_FLOAT_ONLY = frozenset(("exp", "log", "sqrt", "divide"))
_DTYPES = frozenset((D.float32, D.float64, D.int32, D.int64))
_SYMBOL = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "equal": "==",
           "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
           "greater_equal": ">="}

_ENABLED = os.environ.get("OPENHIP_FUSION", "1").strip().lower() not in ("0", "off", "false",
                                                                        "no")
#: weak references to the pending arrays, in creation order (the list is never rebound:
#: _array.py tests it on every ``data`` access)
_PENDING: list[weakref.ref] = []
_LOCK = threading.RLock()


class OhFused(ctypes.Structure):
    """Mirror of ``struct OhFused`` in kernels/fused.hip."""

    _fields_ = [
        ("out", ctypes.c_uint64),
        ("leaf", ctypes.c_uint64 * NLEAF),
        ("cval", (ctypes.c_uint64 * 2) * NCONST),
        ("n", ctypes.c_int32),
        ("nins", ctypes.c_int32),
        ("ins", ctypes.c_uint8 * (4 * NINS)),
    ]


class Pending:
    """The value of a pending array: an expression over leaves and constants.

    ``key`` is the tree's structure (nested tuples ``(op name, child, ...)``, leaves ``"L"``
    (contiguous) or ``"B"`` (0-d), constants ``"C"``), ``leaves``/``consts`` the operands in
    the tree's left-to-right order; ``need`` the registers its evaluation takes."""

    __slots__ = ("key", "leaves", "consts", "nodes", "need", "dtype", "odt", "stream",
                 "device")

    def __init__(self, key: Any, leaves: tuple, consts: tuple, nodes: int, need: int,
                 dtype: np.dtype, odt: np.dtype, stream: Any, device: Any) -> None:
        self.key, self.leaves, self.consts, self.nodes, self.need = key, leaves, consts, \
            nodes, need
        self.dtype, self.odt, self.stream, self.device = dtype, odt, stream, device

    def name(self) -> str:
        """The expression, readable (``fused: (x0*c0)+x1``): what the profiler shows."""
        counter = {"L": 0, "C": 0}

        def text(k: Any) -> str:
            if k in ("L", "B"):
                counter["L"] += 1
                return f"x{counter['L'] - 1}"
            if k == "C":
                counter["C"] += 1
                return f"c{counter['C'] - 1}"
            op, *ch = k
            if len(ch) == 2 and op in _SYMBOL:
                a, b = text(ch[0]), text(ch[1])
                return f"({a}{_SYMBOL[op]}{b})"
            return f"{op}({', '.join(text(c) for c in ch)})"

        s = text(self.key)
        return "fused: " + (s[1:-1] if s.startswith("(") and s.endswith(")") else s)


def is_enabled() -> bool:
    """Whether elementwise operations fuse (``OPENHIP_FUSION=0`` turns it off)."""
    return _ENABLED


@contextlib.contextmanager
def enabled(flag: bool) -> Iterator[None]:
    """Fusion on (True) or off (False) inside the block (for the whole process; what is pending
    is computed first)."""
    global _ENABLED
    flush()
    old, _ENABLED = _ENABLED, bool(flag)
    try:
        yield
    finally:
        flush()
        _ENABLED = old


def pending_count() -> int:
    """How many arrays are listed as pending (alive or not): for tests and diagnostics."""
    return len(_PENDING)


def try_fuse(op: Any, operands: tuple[Any, ...], ndarray: type) -> Any:
    """A pending result of ``op`` over ``operands``, or None when the operation is outside the
    fusable set (the caller then runs it unfused, with its checks and error messages)."""
    if not _ENABLED:
        return None
    name = op.name
    dt = shape = dev = None
    for v in operands:
        if type(v) is ndarray:
            if dt is None:
                dt, dev = v.dtype, v._data.mem.device
                if dt not in _DTYPES:
                    return None
            elif v.dtype != dt or v._data.mem.device is not dev:
                return None
            s = v.shape
            if s:
                if not v._contig:
                    return None
                if shape is None:
                    shape = s
                elif s != shape:
                    return None
        elif type(v) not in (float, int, bool):
            return None
    if dt is None:
        return None
    kind = dt.kind
    if kind == "i":
        if name in _FLOAT_ONLY or any(type(v) is float for v in operands):
            return None
    if shape is None:
        shape = ()
    n = 1
    for d in shape:
        n *= d
    if n == 0:
        return None
    st = _stream_stack()
    stream = st[-1] if st and st[-1].device is dev else None
    odt = D.bool if name in _COMPARE else dt
    consts: list[bytes] = []
    for v in operands:
        if type(v) is not ndarray:
            consts.append(_scalar_bytes(v, dt, name))
    with _LOCK:
        parts = _parts(name, operands, ndarray, shape, dt, stream, consts)
        if parts is None:  # an operand that cannot be embedded, or a tree over the limits
            flush()
            parts = _parts(name, operands, ndarray, shape, dt, stream, consts)
        key, leaves, cs, nodes, need = parts
        out = ndarray._new(_alloc(n * odt.itemsize, dev), shape, odt, 0, None)
        out._pend = Pending(key, leaves, cs, nodes, need, dt, odt, stream, dev)
        _PENDING.append(weakref.ref(out))
    return out


def _parts(name: str, operands: tuple[Any, ...], ndarray: type, shape: tuple[int, ...], dt: np.dtype,
           stream: Any, consts: list[bytes]) -> tuple | None:
    keys: list[Any] = []
    leaves: tuple = ()
    cs: tuple = ()
    nodes = 1
    needs: list[int] = []
    ci = 0
    for v in operands:
        if type(v) is ndarray:
            p = v._pend
            if p is not None:
                if p.stream is not stream or p.odt != dt or v.shape != shape:
                    return None
                keys.append(p.key)
                leaves += p.leaves
                cs += p.consts
                nodes += p.nodes
                needs.append((p.need, True))
            else:
                keys.append("L" if v.shape else "B")
                leaves += (v,)
                needs.append((0, False))
        else:
            keys.append("C")
            cs += (consts[ci],)
            ci += 1
            needs.append((0, False))
    need = _combine(needs)
    if nodes > MAXNODES or need > NREG or len(leaves) > NLEAF or len(cs) > NCONST:
        return None
    return ((name, *keys), leaves, cs, nodes, need)


def flush() -> None:
    """Compute every pending array still alive, in creation order (launches, no wait)."""
    if not _PENDING:
        return
    with _LOCK:
        done = 0
        try:
            while done < len(_PENDING):
                x = _PENDING[done]()
                done += 1
                if x is not None and x._pend is not None:
                    _compute(x)
        finally:
            del _PENDING[:done]


deferred.register(flush)


# ---- programs and launches ----------------------------------------------------------------
_PROGRAMS: dict[tuple[Any, bool], bytes] = {}


def _counts(k: Any) -> tuple[int, int]:
    if k in ("L", "B"):
        return 1, 0
    if k == "C":
        return 0, 1
    nl = nc = 0
    for c in k[1:]:
        a, b = _counts(c)
        nl += a
        nc += b
    return nl, nc


def _need(k: Any) -> int:
    """Registers the evaluation of ``k`` holds at its peak (leaves and constants: none, they
    are read in place)."""
    if type(k) is str:
        return 0
    return _combine([(_need(c), type(c) is not str) for c in k[1:]])


def _combine(children: list[tuple[int, bool]]) -> int:
    """The need of an operation over children ``(need, holds a register)``: the child that
    needs more first (Sethi-Ullman), then the destination while the operands are held."""
    if len(children) == 1:
        n, r = children[0]
        return max(n, r + 1)
    (n1, r1), (n2, r2) = sorted(children, key=lambda c: -c[0])
    return max(n1, r1 + n2, r1 + r2 + 1)


def _program(key: Any) -> bytes:
    """The instructions of a tree (cached per structure)."""
    prog = _PROGRAMS.get(key)
    if prog is not None:
        return prog
    ins: list[tuple[int, int, int, int]] = []
    free = list(range(NREG - 1, -1, -1))

    def emit(k: Any, leaf0: int, const0: int, root: bool) -> int:
        if k == "L":
            return 8 + leaf0
        if k == "B":
            return 24 + leaf0
        if k == "C":
            return 16 + const0
        op, *ch = k
        bases = []
        nl, nc = leaf0, const0
        for c in ch:
            bases.append((nl, nc))
            a, b = _counts(c)
            nl += a
            nc += b
        order = [0] if len(ch) == 1 else (
            [1, 0] if _need(ch[1]) > _need(ch[0]) else [0, 1])
        got = {i: emit(ch[i], *bases[i], False) for i in order}
        regs = [got[i] for i in range(len(ch))]
        d = _OUT if root else free.pop()
        for r in regs:
            if r < 8:
                free.append(r)
        ins.append((OPCODES[op], d, regs[0], regs[-1]))
        return d

    emit(key, 0, 0, True)
    if len(ins) > NINS:
        raise AssertionError(f"fused program of {len(ins)} instructions (limit {NINS})")
    prog = bytes(b for i in ins for b in i)
    _PROGRAMS[key] = prog
    return prog


def _kernel(dt: np.dtype, odt: np.dtype, device: Any) -> Any:
    c = ctype(dt)
    exprs = (f"fused<{c}, {c}>", f"fused<{c}, bool>")
    return FAMILY.kernel(f"fused.{dt.name}", exprs, f"fused<{c}, {ctype(odt)}>", device)


def _compute(x: Any) -> None:
    p = x._pend
    prog = _program(p.key)
    k = _kernel(p.dtype, p.odt, p.device)
    s = OhFused()
    n = x.size
    s.out = x._data.ptr
    leaf_step = []
    for i, leaf in enumerate(p.leaves):
        s.leaf[i] = leaf._data.ptr
        leaf_step.append(p.dtype.itemsize if leaf.shape else 0)
    for i, raw in enumerate(p.consts):
        s.cval[i][0] = int.from_bytes(raw[:8], "little")
        s.cval[i][1] = int.from_bytes(raw[8:16], "little")
    s.nins = len(prog) // 4
    ctypes.memmove(s.ins, prog, len(prog))
    cpu = p.device.platform == "cpu"
    chunk = CHUNK_BYTES // p.dtype.itemsize if cpu else 1  # (compute type = storage type)
    block = _CPU_BLOCK if cpu else _GPU_BLOCK
    handle = None if p.stream is None else p.stream._handle
    piece = min(_MAX_PIECE, k._maxgx * block * chunk)
    start = 0
    while start < n:
        m = min(piece, n - start)
        if start:
            s.out = x._data.ptr + start * p.odt.itemsize
            for i, step in enumerate(leaf_step):
                s.leaf[i] = p.leaves[i]._data.ptr + start * step
        s.n = m
        threads = (m + chunk - 1) // chunk
        grid = ((threads + block - 1) // block, 1, 1)
        size = ctypes.sizeof(s)
        packed = PackedArgs((ctypes.c_char * size).from_buffer(s), (0,), (size,))
        k._platform.launch(k._index, k._handle, grid, (block, 1, 1), 0, handle, packed)
        start += m
    x._pend = None


_alloc: Any = None  # _array._alloc and _elementwise._scalar_bytes: bound by bind()
_scalar_bytes: Any = None


def bind(alloc: Any, scalar_bytes: Any) -> None:
    """Called once by _elementwise (whose imports would be circular from here)."""
    global _alloc, _scalar_bytes
    _alloc, _scalar_bytes = alloc, scalar_bytes
