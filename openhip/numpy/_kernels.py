"""Kernel families: how openhip.numpy builds, caches and launches its HIP C++ kernels.

Internal guide (for whoever adds kernels to openhip.numpy)
----------------------------------------------------------
*Sources.* Kernels live in ``openhip/numpy/kernels/*.hip`` as templates over element types
and operations. ``#include "common.h"`` (or any other header of that directory) is inlined
textually by :func:`source`, so the same text compiles on the CPU platform, under NVRTC and
under hiprtc with no include path. ``common.h`` gives the element types, ``cvt<To>(x)``,
``ld<T>``/``st<T>`` (load/store through the compute type: ``__half`` and ``__hip_bfloat16``
compute in float), the ``ohc<R>`` complex struct (``oh_c64``/``oh_c128``), ``OhArgs`` and
``oh_index()``.

*dtypes -> C++.* :data:`openhip.numpy._dtypes.CTYPES` maps each dtype to its storage type:
bool, signed char, short, int, long long, the unsigned ones, __half, __hip_bfloat16, float,
double, ohc<float>, ohc<double> (the complex64/complex128 structs; hiprtc 5.2 refuses
typedef names in name expressions). Use :func:`ctype` in name expressions.

*Families.* A :class:`Family` is one ``.hip`` file plus compile options. One *build* of a family
is one :class:`openhip.Module` holding every name expression of a *variant* (for the
elementwise family: one group of operations x one dtype x one layout), so a user who calls
``add`` on float32 pays one compile that also serves ``subtract``/``multiply``...::

    FAM = Family("reduce", "reduce.hip")
    exprs = tuple(f"sum_k<{ctype(dt)}>" for dt in ...)        # everything of this variant
    k = FAM.kernel("sum.float32", exprs, "sum_k<float>", device)  # built once, memoised
    k(grid, block, (x, out, n))                                  # an openhip.Function launch

Builds are memoised in memory per ``(family, variant, device)`` and on disk by the compile
cache (keyed by the full source). A build that takes longer than a second prints one line on
stderr: ``openhip.numpy: compiling <family> <variant> for <platform/arch> ...``.

*Launching.* :class:`Kernel` wraps the Function. ``k(grid, block, args)`` is the ordinary
argument-checked launch (any signature). Kernels that take one ``OhArgs`` by value use the
fast path ``k.launch_ohargs(n, args_struct, stream)``: :func:`grid_for` sizes a 1-D grid
(spilling into ``gridDim.y`` past the device's x limit, which ``oh_index()`` undoes), and the
struct's bytes go to the platform's launch without per-argument conversion. Launches go on
the current stream (``with hip.Stream():``) or the device's default stream; nothing
synchronises. Elementwise kernels must not use ``__syncthreads`` (the CPU platform then runs
a block as one vectorised loop); block-level loops with barriers are fine for reductions.

*Strides* in OhArgs are in **bytes**, operand 0 is the output; :func:`collapse` merges
dimensions that are contiguous for every operand, so most launches have ndim 1 or 2; those
use the 2-D layout (``oh_offsets2`` in common.h, a grid from :func:`grid2d`, ``k.launch_grid``)
which needs no division per element.

*Vectorising on the CPU platform.* The CPU runs a block's threads as a loop; GCC vectorises it
only when the kernel's bounds check compares the loop counter itself. Write contiguous
("flat") kernels with ``const int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= (int)a.n)
return;``, typed ``__restrict__`` pointers and no 64-bit type named in the kernel's body (it is
then compiled in one loop form, a faster build), and launch them with
``k.launch_flat(n, args, itemsizes)``, which splits past :data:`FLAT_CHUNK` elements so the int
cannot overflow. ``oh_index()`` (64-bit, with the grid's y spill) keeps the loop scalar. Loads
of C++ ``bool`` do not vectorise: read bool storage as ``unsigned char``. Check a kernel with
the ``-fopt-info-vec-optimized`` option (the log lists ``loop vectorized`` per loop form).
*Chunked* flat kernels (the elementwise layout-0 ones on the CPU platform) compute
:attr:`Kernel.chunk` elements per thread in a function of their own (not inlined into the
engine's loop forms: one copy of its loops per build) and may stream a large output with
non-temporal stores; ``launch_flat``/``launch_packed`` then launch ``ceil(n / chunk)`` threads.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..compiler import cache as _cache
from ..platforms.base import PackedArgs
from ..runtime.device import Device
from ..runtime.module import Function, Module
from ..runtime.stream import _stream_stack, resolve_stream
from . import _prefetch
from ._dtypes import CTYPES

__all__ = ["KERNEL_DIR", "MAXDIM", "NOPS", "OhArgs", "Family", "Kernel", "source", "ctype",
           "grid_for", "grid2d", "collapse", "pack_struct", "BLOCK", "FLAT_CHUNK"]

KERNEL_DIR = Path(__file__).parent / "kernels"
MAXDIM = 8
NOPS = 4
BLOCK = 256
#: the most elements one launch of a flat kernel (an int index) covers: see Kernel.launch_flat
FLAT_CHUNK = 1 << 30

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')


class OhArgs(ctypes.Structure):
    """Mirror of ``struct OhArgs`` in kernels/common.h."""

    _fields_ = [
        ("ptr", ctypes.c_uint64 * NOPS),
        ("n", ctypes.c_int64),
        ("ndim", ctypes.c_int32),
        ("smask", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAXDIM),
        ("strides", (ctypes.c_int64 * MAXDIM) * NOPS),
        ("scal", (ctypes.c_uint64 * 2) * NOPS),
        ("extra", ctypes.c_int64 * 4),
    ]


OHARGS_SIZE = ctypes.sizeof(OhArgs)


@cache
def source(filename: str) -> str:
    """The text of ``kernels/<filename>`` with its local ``#include "..."`` inlined (once
    each), ``#pragma once`` dropped; ``#line`` directives keep compiler messages pointing at
    the right file and line."""
    seen: set[str] = set()

    def expand(name: str) -> list[str]:
        seen.add(name)
        out = [f'#line 1 "{name}"']
        lines = (KERNEL_DIR / name).read_text(encoding="utf-8").splitlines()
        for no, line in enumerate(lines, 1):
            m = _INCLUDE.match(line)
            if m and (KERNEL_DIR / m.group(1)).is_file():
                if m.group(1) not in seen:
                    out.extend(expand(m.group(1)))
                    out.append(f'#line {no + 1} "{name}"')
                else:
                    out.append("")
            elif line.strip() == "#pragma once":
                out.append("")
            else:
                out.append(line)
        return out

    return "\n".join(expand(filename)) + "\n"


def ctype(dt: Any) -> str:
    """The C++ storage type of a dtype in the kernels."""
    return CTYPES[np.dtype(dt)]


def grid_for(n: int, device: Device, block: int = BLOCK) -> tuple[int, int, int]:
    """A grid of ``ceil(n / block)`` blocks (x first, then y), at least one block."""
    blocks = max((n + block - 1) // block, 1)
    gx = device.properties.max_grid_dim[0]
    if blocks <= gx:
        return (blocks, 1, 1)
    return (gx, (blocks + gx - 1) // gx, 1)


class Kernel:
    """A built kernel: ``k(grid, block, args)`` or, for ``OhArgs`` kernels,
    ``k.launch_ohargs(n, args)``."""

    __slots__ = ("fn", "device", "_platform", "_index", "_handle", "_lock", "_maxgx", "chunk",
                 "block")

    def __init__(self, fn: Function, device: Device) -> None:
        self.fn = fn
        self.device = device
        self._platform = fn._platform
        self._index = fn._index
        self._handle = fn._handle
        self._lock = threading.Lock()
        self._maxgx = device.properties.max_grid_dim[0]
        #: elements per thread of a flat kernel (launch_flat, launch_packed): 1, or the chunk a
        #: CPU thread of a chunked kernel computes (the elementwise layout-0 kernels), which
        #: then launch ceil(n / chunk) threads in blocks of ``block``
        self.chunk = 1
        self.block = BLOCK

    def __call__(self, grid: Any, block: Any, args: Sequence[Any] = (), *, shared_mem: int = 0,
                 stream: Any = None) -> None:
        self.fn(grid, block, args, shared_mem=shared_mem, stream=stream)

    def launch_ohargs(self, n: int, args: OhArgs, stream: Any = None,
                      block: int = BLOCK) -> None:
        """Launch over ``n`` threads with ``args`` (an :class:`OhArgs`) by value."""
        blocks = (n + block - 1) // block or 1
        if blocks <= self._maxgx:
            grid = (blocks, 1, 1)
        else:
            grid = (self._maxgx, (blocks + self._maxgx - 1) // self._maxgx, 1)
        if stream is None and not _stream_stack():
            handle = None
        else:
            handle = resolve_stream(stream, self.device)._handle
        size = OHARGS_SIZE if type(args) is OhArgs else ctypes.sizeof(args)
        packed = PackedArgs((ctypes.c_char * size).from_buffer(args), (0,), (size,))
        self._platform.launch(self._index, self._handle, grid, (block, 1, 1), 0, handle, packed)

    launch_struct = launch_ohargs  # any ctypes.Structure passed by value

    def launch_flat(self, n: int, args: OhArgs, itemsizes: Sequence[int]) -> None:
        """Launch a *flat* kernel over ``n`` elements: one whose index is the int
        ``blockIdx.x * blockDim.x + threadIdx.x`` (on the CPU platform the thread loop then
        vectorises, and a kernel naming no 64-bit type compiles in one loop form). Past
        :data:`FLAT_CHUNK` elements it runs in pieces: operand j's pointer advanced by
        ``itemsizes[j]`` bytes per element (0: left alone), ``n`` the piece's length and
        ``extra[3]`` its first element's index (for kernels that compute from the index)."""
        c = self.chunk
        if n <= FLAT_CHUNK:
            self.launch_ohargs((n + c - 1) // c, args, block=self.block)
            return
        for start in range(0, n, FLAT_CHUNK):
            piece = OhArgs.from_buffer_copy(args)
            piece.n = min(FLAT_CHUNK, n - start)
            piece.extra[3] = args.extra[3] + start
            for j, size in enumerate(itemsizes):
                if size:
                    piece.ptr[j] = args.ptr[j] + start * size
            self.launch_ohargs((piece.n + c - 1) // c, piece, block=self.block)

    def launch_packed(self, n: int, packed: PackedArgs, block: int = BLOCK) -> None:
        """Like :meth:`launch_ohargs` with the struct already wrapped (:func:`pack_struct`):
        the warm path of a memoised launch plan (a chunked kernel: ``n`` elements, in
        ``ceil(n / chunk)`` threads)."""
        grid, block = self.packed_grid(n, block)
        handle = None if not _stream_stack() else resolve_stream(None, self.device)._handle
        self._platform.launch(self._index, self._handle, grid, (block, 1, 1), 0, handle, packed)

    def packed_grid(self, n: int, block: int = BLOCK) -> tuple[tuple[int, int, int], int]:
        """The grid and block :meth:`launch_packed` launches for ``n`` elements."""
        if self.chunk != 1:
            n = (n + self.chunk - 1) // self.chunk
            block = self.block
        blocks = (n + block - 1) // block or 1
        if blocks <= self._maxgx:
            return (blocks, 1, 1), block
        return (self._maxgx, (blocks + self._maxgx - 1) // self._maxgx, 1), block

    def launcher(self, grid: tuple[int, int, int], packed: PackedArgs, block: int = BLOCK
                 ) -> Callable[[Any], None] | None:
        """The platform's prepared launch of ``packed`` over ``grid``: ``go(stream_handle)``
        (``None``: the default stream), whose arguments are converted once; ``packed``'s
        buffer is read at each call (the CPU platform's ``launcher``). None where the
        platform has none (GPUs) or a launch must take the full path (memcheck's argument
        checks). Callers use it only while :func:`hooked` is False (the profiler records
        :meth:`launch_packed`/:meth:`launch_grid`, not this)."""
        return self._platform.launcher(self._index, self._handle, grid, (block, 1, 1), 0, packed)


    def launch_grid(self, grid: tuple[int, int, int], packed: PackedArgs,
                    block: int = BLOCK) -> None:
        """Launch ``packed`` over an explicit grid (the 2-D layout's, :func:`grid2d`)."""
        handle = None if not _stream_stack() else resolve_stream(None, self.device)._handle
        self._platform.launch(self._index, self._handle, grid, (block, 1, 1), 0, handle, packed)


_ORIGINAL_LAUNCHES = (Kernel.launch_packed, Kernel.launch_grid)


def hooked() -> bool:
    """Whether a tool (the profiler) has wrapped :meth:`Kernel.launch_packed` or
    :meth:`Kernel.launch_grid`: then every launch must go through them."""
    return (Kernel.launch_packed, Kernel.launch_grid) != _ORIGINAL_LAUNCHES


def grid2d(rows: int, cols: int, block: int = BLOCK) -> tuple[int, int, int]:
    """The grid of the 2-D layout: columns over x, rows over y (then z past 65535)."""
    gy = min(rows, 65535) or 1
    return (max((cols + block - 1) // block, 1), gy, (rows + gy - 1) // gy or 1)


def pack_struct(args: ctypes.Structure) -> PackedArgs:
    """``args`` (kept alive by the result) as the single by-value argument of a launch."""
    size = ctypes.sizeof(args)
    return PackedArgs((ctypes.c_char * size).from_buffer(args), (0,), (size,), (args,))


class Family:
    """A ``.hip`` file whose kernels are built in groups (variants), one Module each."""

    def __init__(self, name: str, filename: str, options: Sequence[str] = ("-std=c++17",)
                 ) -> None:
        self.name = name
        self.filename = filename
        self.options = tuple(options)
        self._modules: dict[tuple[str, int], Module] = {}
        self._kernels: dict[tuple[str, str, int], Kernel] = {}
        self._lock = threading.Lock()
        self._jobs: dict[tuple[str, int], _prefetch.Job] = {}  # background builds
        self._jobs_lock = threading.Lock()
        #: ``hints(variant, device)``: called when a build of ``variant`` misses the compile
        #: cache; it may :meth:`prefetch` the groups a program usually needs next
        self.hints: Callable[[str, Device], None] | None = None

    def module(self, variant: str, exprs: Sequence[str], device: Device) -> Module:
        """The Module of ``variant`` (every name expression in ``exprs``) on ``device``."""
        key = (variant, device.id)
        mod = self._modules.get(key)
        if mod is not None:
            return mod
        with self._lock:
            mod = self._modules.get(key)
            if mod is None:
                with self._jobs_lock:
                    job = self._jobs.get(key)
                try:
                    if job is not None and not job.take():  # started in the background
                        mod = self._waited(job, variant, device, len(exprs))
                    if mod is None:
                        mod = self._build(variant, tuple(exprs), device)
                finally:
                    if job is not None:
                        with self._jobs_lock:
                            self._jobs.pop(key, None)
                self._modules[key] = mod
        return mod

    def prefetch(self, variant: str, exprs: Sequence[str], device: Device) -> None:
        """Build ``variant`` on a background thread when it is not built yet and would miss
        the compile cache (:mod:`._prefetch`); :meth:`module` then takes it from there."""
        key = (variant, device.id)
        if key in self._modules or not _prefetch.enabled():
            return
        exprs = tuple(exprs)
        with self._jobs_lock:
            if key in self._jobs:
                return
            job = _prefetch.Job(lambda: self._background(variant, exprs, device))
            self._jobs[key] = job
        _prefetch.submit(job)

    def _background(self, variant: str, exprs: tuple[str, ...], device: Device
                    ) -> Module | None:
        src = source(self.filename)
        if self._cached(src, exprs, device):
            return None  # the foreground loads it when (if) the program gets there
        self._hint(variant, device)
        return Module(src, options=self.options, name_expressions=exprs, name=self.filename,
                      device=device)

    def _waited(self, job: _prefetch.Job, variant: str, device: Device, count: int
                ) -> Module | None:
        with _announced(self.name, variant, device, count):
            return job.wait()

    def _cached(self, src: str, exprs: tuple[str, ...], device: Device) -> bool:
        platform = device._platform
        return _cache.is_cached(platform, src, platform=platform.name,
                               arch=platform.default_arch(device._index), options=self.options,
                               name_expressions=exprs, filename=self.filename)

    def _hint(self, variant: str, device: Device) -> None:
        if self.hints is not None and _prefetch.enabled():
            try:
                self.hints(variant, device)
            except Exception:  # a hint is only a guess: never the program's error
                pass

    def _build(self, variant: str, exprs: tuple[str, ...], device: Device) -> Module:
        src = source(self.filename)
        t0 = time.perf_counter()
        try:
            with _announced(self.name, variant, device, len(exprs)), _prefetch.foreground():
                # (first: the hints' builds wait for a free core)
                if self.hints is not None and _prefetch.enabled() and not self._cached(
                        src, exprs, device):
                    self._hint(variant, device)
                return Module(src, options=self.options, name_expressions=exprs,
                              name=self.filename, device=device)
        finally:
            self.last_build_s = time.perf_counter() - t0

    def kernel(self, variant: str, exprs: Sequence[str], expr: str, device: Device) -> Kernel:
        """The kernel ``expr`` of ``variant`` (built with all of ``exprs``) on ``device``."""
        key = (variant, expr, device.id)
        k = self._kernels.get(key)
        if k is None:
            mod = self.module(variant, exprs, device)
            k = Kernel(mod.get_function(expr), device)
            self._kernels[key] = k
        return k


@contextlib.contextmanager
def _announced(family: str, variant: str, device: Device, count: int) -> Iterator[None]:
    """Around a wait for a build: one line on stderr once it has lasted a second."""
    timer = threading.Timer(1.0, _announce, (family, variant, device, count))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _announce(family: str, variant: str, device: Device, count: int) -> None:
    arch = device._platform.default_arch(device._index)
    print(f"openhip.numpy: compiling {family} {variant} for {device.platform}/{arch} "
          f"({count} kernels) ...", file=sys.stderr, flush=True)


def collapse(shape: Sequence[int], strides: Sequence[Sequence[int]]
             ) -> tuple[list[int], list[list[int]]]:
    """Drop length-1 dimensions and merge neighbours that are contiguous for every operand
    (``strides[k]`` in bytes per operand). Returns the new shape and strides (maybe empty)."""
    dims = [i for i, s in enumerate(shape) if s != 1]
    shp = [shape[i] for i in dims]
    sts = [[st[i] for i in dims] for st in strides]
    if not shp:
        return [], [[] for _ in strides]
    out_shape = [shp[-1]]
    out_st = [[st[-1]] for st in sts]
    for d in range(len(shp) - 2, -1, -1):
        n_inner = out_shape[0]
        if all(st[d] == ost[0] * n_inner for st, ost in zip(sts, out_st, strict=True)):
            out_shape[0] *= shp[d]
        else:
            out_shape.insert(0, shp[d])
            for st, ost in zip(sts, out_st, strict=True):
                ost.insert(0, st[d])
    return out_shape, out_st
