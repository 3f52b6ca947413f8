"""Reductions: sum, prod, min, max, mean, var, std, all, any, count_nonzero, argmax, argmin.

Every reduction is a launch of one kernel of ``kernels/reduce.hip`` (two when the reduced
space is split for parallelism) on a canonical form of the problem built here on the host:

- the *kept* dimensions (in the output's C order) and the *reduced* dimensions, each with its
  input stride in elements; size-1 dimensions dropped, adjacent dimensions that address
  memory as one merged (so a C-contiguous ``sum()`` is one reduced dimension), the reduced
  dimensions ordered by decreasing stride (smallest innermost) unless the flat index matters
  (argmax/argmin keep C order);
- a layout: ``rows`` (each thread walks a reduced row; vectorised when the innermost reduced
  stride is 1) or ``cols`` (the kept innermost dimension has stride 1: each thread owns 16
  adjacent outputs, as axis 0 of a C-contiguous matrix);
- ``parts``: when there are few outputs, the outermost reduced dimension is split into
  ``parts`` ranges, one thread each, and a second ``rows`` launch combines the partials. The
  split depends on the shapes only, never on the device's thread count: results are
  reproducible.

Kernels are grouped into one build per (operation family, dtype): a first ``sum`` of float32
compiles the sum family for float32 once, then the compile cache serves it.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..runtime.array import DeviceArray
from ..runtime.device import get_device
from ._kernels import BLOCK, Family, grid_for
from ._kernels import ctype as _ctype

__all__: list[str] = []  # the engine; the public functions live in _statistics, _searching

_FAMILIES: dict[str, Family] = {}


def ctype(dtype: Any) -> str:
    """The C++ storage type of ``dtype`` in the kernels; TypeError for one they lack."""
    try:
        name = _ctype(dtype)
    except KeyError:
        raise TypeError(f"openhip.numpy has no kernels for dtype {np.dtype(dtype)}") from None
    # the template itself, not its typedef: hiprtc (ROCm 5.2) cannot lower name expressions
    # that spell a typedef
    return {"oh_c64": "ohc<float>", "oh_c128": "ohc<double>"}.get(name, name)


def load(filename: str, variant: str, exprs: Sequence[str], device: Any = None) -> Any:
    """The build of ``variant`` of ``kernels/<filename>`` (every kernel of ``exprs``), as an
    object with ``get_function(expr)``: compiled once per platform and arch into the compile
    cache, memoised per device (see :mod:`openhip.numpy._kernels`)."""
    dev = get_device() if device is None else device
    fam = _FAMILIES.get(filename)
    if fam is None:
        fam = _FAMILIES.setdefault(filename, Family(filename.rsplit(".", 1)[0], filename))
    return _Build(fam, variant, tuple(exprs), dev)


#: bytes of the structs part 2's kernels take by value (name -> size): the GPU platforms do
#: not report parameter sizes, so opaque parameters of these types get them from here
STRUCT_SIZES: dict[str, int] = {}


def by_value(struct_name: str, size: int) -> None:
    """Declare a kernel struct passed by value (see :data:`STRUCT_SIZES`)."""
    STRUCT_SIZES[struct_name] = size


def sized(fn: Any) -> Any:
    """``fn`` (a Function, or a Kernel wrapping one) with every opaque parameter whose type
    is in :data:`STRUCT_SIZES` and whose size the platform did not report given that size."""
    from ..runtime.kernel_args import ArgumentPacker, ParamSpec

    func = getattr(fn, "fn", fn)
    specs = func.params
    if not any(p.kind == "opaque" and p.size == 0 for p in specs):
        return fn
    fixed = []
    for p in specs:
        name = p.type.replace("const", "").replace("struct", "").strip()
        if p.kind == "opaque" and p.size == 0 and name in STRUCT_SIZES:
            size = STRUCT_SIZES[name]
            p = ParamSpec(p.name, p.type, "opaque", "", 1, size, 8)
        fixed.append(p)
    func.params = fixed
    func._packer = ArgumentPacker(func.name, fixed, func.module.device)
    return fn


class _Build:
    __slots__ = ("fam", "variant", "exprs", "dev")

    def __init__(self, fam: Family, variant: str, exprs: tuple[str, ...], dev: Any) -> None:
        self.fam, self.variant, self.exprs, self.dev = fam, variant, exprs, dev

    def get_function(self, expr: str) -> Any:
        return sized(self.fam.kernel(self.variant, self.exprs, expr, self.dev))


def block_for(n: int, block: int = BLOCK) -> int:
    """Threads per block for ``n`` threads: ``block``, or fewer when there are few (heavy)
    threads, so that there are at least 16 blocks — a block is the CPU platform's unit of
    parallelism (its threads run one after another on one worker)."""
    b = block
    while b > 1 and b * 16 > n:
        b //= 2
    return b


def launch_1d(fn: Any, n: int, args: tuple, block: int = BLOCK) -> None:
    """Launch ``fn`` over ``n`` threads (a 1-D index space, see ``oh_index()``). The block
    size does not change any result: each thread's work follows from its index alone."""
    if n <= 0:
        return
    block = block_for(n, block)
    fn(grid_for(n, fn.device, block), block, args)


def scratch(n: int, dtype: Any, device: Any = None):
    """A device buffer of ``n`` elements for intermediate results, from the memory pool
    (reused in stream order once dropped). The request is the whole size class (512 B steps
    to 1 MiB, 64 KiB above): a cached block then changes hands between temporaries without
    the CPU platform moving its red zone while a queued kernel still writes the old
    request's extent (the pool moves the zone at hand-out time, on the host)."""
    from ..runtime.pool import allocate

    dt = np.dtype(dtype)
    n = max(int(n), 1)
    nbytes = n * dt.itemsize
    step = 512 if nbytes <= (1 << 20) else (1 << 16)
    buf = allocate(-(-nbytes // step) * step, device or get_device())
    return DeviceArray._wrap(buf, (n,), dt)


MAXDIM = 8
_PART_MIN = 16384       # elements per part at least
_THREADS_WANTED = 4096  # split the reduced space until about this many threads exist

_RED = struct.Struct("<5qd" + "q" * (4 * MAXDIM))
by_value("OhRed", _RED.size)


@dataclass(frozen=True)
class Canon:
    """A reduction in canonical form (see the module docstring)."""

    kept: tuple[tuple[int, int], ...]  # (size, stride in elements), output C order
    red: tuple[tuple[int, int], ...]   # (size, stride), outermost first; never empty
    n_out: int
    n_red: int

    def pack(self, parts: int, post: int = 0, scale: float = 1.0,
             kept: Sequence[tuple[int, int]] | None = None,
             red: Sequence[tuple[int, int]] | None = None, n_out: int | None = None) -> bytes:
        """The kernel's ``OhRed`` argument."""
        kept = self.kept if kept is None else kept
        red = self.red if red is None else red
        n_out = self.n_out if n_out is None else n_out
        pad = [0] * MAXDIM

        def col(items, i):
            return ([d[i] for d in items] + pad)[:MAXDIM]

        return _RED.pack(len(kept), len(red), n_out, parts, post, scale,
                         *col(kept, 0), *col(kept, 1), *col(red, 0), *col(red, 1))


def normalize_axis(axis: Any, ndim: int, name: str = "axis") -> tuple[int, ...]:
    """``None`` -> every axis; an int or a tuple of ints -> sorted non-negative axes.
    AxisError (a ValueError and IndexError) out of range, ValueError for a repeated axis,
    TypeError for anything else, as numpy."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"'{type(a).__name__}' object cannot be interpreted as an integer "
                            f"({name}={axis!r})")
        a = int(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in '{name}': {axis!r}")
    return tuple(sorted(out))


def _merge(dims: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge adjacent (outer, inner) dimensions that address memory as one."""
    out: list[tuple[int, int]] = []
    for n, s in dims:
        if out and out[-1][1] == s * n:
            out[-1] = (out[-1][0] * n, s)
        else:
            out.append((n, s))
    return out


def canonical(shape: Sequence[int], strides: Sequence[int], axes: Sequence[int],
              keep_order: bool = False) -> Canon:
    """The canonical form of reducing ``axes`` of an array of ``shape`` / element
    ``strides``."""
    axset = set(axes)
    kept_all = [(n, s) for d, (n, s) in enumerate(zip(shape, strides, strict=True))
                if d not in axset]
    red_all = [(n, s) for d, (n, s) in enumerate(zip(shape, strides, strict=True)) if d in axset]
    n_out = int(np.prod([n for n, _ in kept_all], dtype=np.int64)) if kept_all else 1
    n_red = int(np.prod([n for n, _ in red_all], dtype=np.int64)) if red_all else 1
    kept = _merge([(n, s) for n, s in kept_all if n != 1])
    if n_red == 0:
        red = [(0, 0)]
    else:
        red = [(n, s) for n, s in red_all if n != 1]
        if not keep_order:
            red.sort(key=lambda d: -abs(d[1]))
        red = _merge(red) or [(1, 0)]
    if len(kept) > MAXDIM or len(red) > MAXDIM:
        raise ValueError(f"reduction over an array of {len(shape)} dimensions whose memory "
                         f"layout does not merge to {MAXDIM} or fewer")
    return Canon(tuple(kept), tuple(red), n_out, n_red)


def sum_dtype(dtype: np.dtype, kind: str = "sum") -> np.dtype:
    """The Array API's default result dtype of ``sum``/``prod``/``cumulative_sum``: the
    default integer for bool and signed integers, uint64 for unsigned, the input's own for
    floating and complex."""
    if dtype == np.bool_ or dtype.kind == "i":
        return np.dtype(np.int64)
    if dtype.kind == "u":
        return np.dtype(np.uint64)
    return dtype


def acc_dtype(dtype: np.dtype) -> np.dtype:
    """The accumulator of a value of ``dtype``: float32 for float16/bfloat16."""
    if dtype.itemsize == 2 and dtype.kind not in "iub":
        return np.dtype(np.float32)
    return dtype


# operation -> (C++ template of stage 1, of stage 2 (combining partials), accumulator kind)
def _op_names(op: str, ti: np.dtype, acc: np.dtype, aux: np.dtype | None) -> tuple[str, str]:
    ci, ca = ctype(ti), ctype(acc)
    if op == "sum":
        return f"Sum<{ci},{ca}>", f"Sum<{ca},{ca}>"
    if op == "prod":
        return f"Prod<{ci},{ca}>", f"Prod<{ca},{ca}>"
    if op in ("max", "min"):
        o = op.capitalize()
        return f"{o}<{ci}>", f"{o}<{ca}>"
    if op in ("all", "any"):
        o = op.capitalize()
        return f"{o}<{ci}>", f"{o}<int>"
    if op == "count_nonzero":
        return f"CountNZ<{ci}>", "Sum<long long,long long>"
    if op == "sqdev":
        return f"SqDev<{ci},{ctype(aux)},{ca}>", f"Sum<{ca},{ca}>"
    raise ValueError(op)


def cols_tile(device: Any, acc: np.dtype) -> int:
    """Outputs per thread of the cols layout (OH_CW in kernels/reduce_ops.h): 16 KiB of
    accumulators on the CPU platform, 16 on GPUs."""
    return 16384 // acc.itemsize if (device or get_device()).platform == "cpu" else 16


def _op_acc(op: str, dtype_in: np.dtype, acc: np.dtype) -> np.dtype:
    """The accumulator type of ``op``'s kernels (Op::Acc)."""
    if op in ("max", "min"):
        return acc_dtype(dtype_in)
    if op in ("all", "any"):
        return np.dtype(np.int32)
    if op == "count_nonzero":
        return np.dtype(np.int64)
    return acc


def _parts(c: Canon, layout: str, tile: int = 16) -> int:
    if c.n_out == 0 or c.n_red == 0:
        return 1
    n0 = c.red[0][0]
    if layout == "cols":
        inner = c.kept[-1][0]
        threads = (c.n_out // inner) * -(-inner // tile)
        # a part's partials are written strided: keep them few (>= 256 Ki elements a part)
        per_thread = c.n_red * min(inner, tile) // 16
    else:
        threads, per_thread = c.n_out, c.n_red
    return max(1, min(n0, per_thread // _PART_MIN, _THREADS_WANTED // max(threads, 1)))


def _layout(c: Canon, allow_cols: bool = True) -> str:
    if c.red[-1][1] == 1 or not c.kept or not allow_cols:
        return "rows"
    return "cols" if c.kept[-1][1] == 1 else "rows"


def reduce_into(x: Any, c: Canon, dtype_in: np.dtype, out: Any, dtype_out: np.dtype, op: str,
                acc: np.dtype, *, post: int = 0, scale: float = 1.0, aux: Any = None,
                aux_dtype: np.dtype | None = None, device: Any = None) -> None:
    """Launch the reduction ``op`` of ``x`` (anything a kernel takes as a pointer, at its first
    element) in canonical form ``c`` into the contiguous ``out`` (n_out elements of
    ``dtype_out``). ``acc``: the accumulator dtype; ``post``/``scale``: the final scaling;
    ``aux``: the per-output mean of ``sqdev``."""
    if c.n_out == 0:
        return
    layout = _layout(c)
    tile = cols_tile(device, _op_acc(op, dtype_in, acc))
    parts = _parts(c, layout, tile)
    s1, s2 = _op_names(op, dtype_in, acc, aux_dtype)
    ci, ca, co = ctype(dtype_in), ctype(acc), ctype(dtype_out)
    family = f"reduce-{op}-{dtype_in.name}-{acc.name}-{dtype_out.name}"
    exprs = [f"{layout}<{s1},{ci},{co}>"]
    if parts > 1:
        exprs = [f"{layout}<{s1},{ci},{ca}>", f"{layout}<{s2},{ca},{co}>"]
    mod = load("reduce.hip", family, _family_exprs(op, dtype_in, acc, dtype_out, aux_dtype),
               device=device)
    if parts == 1:
        threads = _threads(c, layout, 1, tile)
        launch_1d(mod.get_function(exprs[0]), threads, (x, out, aux, c.pack(1, post, scale)))
        return
    partial = scratch(c.n_out * parts, acc, device)
    threads = _threads(c, layout, parts, tile)
    launch_1d(mod.get_function(exprs[0]), threads, (x, partial, aux, c.pack(parts)))
    if layout == "cols":  # partials (parts, n_out): each part's outputs contiguous
        c2 = Canon(((c.n_out, 1),), ((parts, c.n_out),), c.n_out, parts)
        launch_1d(mod.get_function(exprs[1]), _threads(c2, "cols", 1, tile),
                  (partial, out, aux, c2.pack(1, post, scale)))
        return
    launch_1d(mod.get_function(exprs[1]), c.n_out,
              (partial, out, aux, c.pack(1, post, scale, kept=[(c.n_out, parts)],
                                         red=[(parts, 1)])))


def _threads(c: Canon, layout: str, parts: int, tile: int) -> int:
    if layout == "cols":
        inner = c.kept[-1][0]
        return (c.n_out // inner) * -(-inner // tile) * parts
    return c.n_out * parts


def _family_exprs(op: str, ti: np.dtype, acc: np.dtype, to: np.dtype,
                  aux: np.dtype | None) -> list[str]:
    """Every kernel of one (op, dtypes) family: both layouts, direct and split."""
    s1, s2 = _op_names(op, ti, acc, aux)
    ci, ca, co = ctype(ti), ctype(acc), ctype(to)
    out = []
    for layout in ("rows", "cols"):
        out += [f"{layout}<{s1},{ci},{co}>", f"{layout}<{s1},{ci},{ca}>",
                f"{layout}<{s2},{ca},{co}>"]
    seen: list[str] = []
    for e in out:
        if e not in seen:
            seen.append(e)
    return seen


def argreduce_into(x: Any, c: Canon, dtype_in: np.dtype, out: Any, op: str,
                   device: Any = None) -> None:
    """argmax/argmin (``op``) of ``x`` in canonical form ``c`` (reduced dimensions in C
    order) into the contiguous int64 ``out``."""
    if c.n_out == 0:
        return
    parts = _parts(c, "rows")
    ci = ctype(dtype_in)
    cc = ctype(acc_dtype(dtype_in))
    flag = "true" if op == "argmax" else "false"
    exprs = [f"argrows<{ci},{flag}>", f"argcombine<{cc},{flag}>"]
    mod = load("reduce.hip", f"reduce-{op}-{dtype_in.name}", exprs, device=device)
    vals = scratch(c.n_out * parts, acc_dtype(dtype_in), device)
    idxs = scratch(c.n_out * parts, np.dtype(np.int64), device) if parts > 1 else out
    launch_1d(mod.get_function(exprs[0]), c.n_out * parts, (x, vals, idxs, c.pack(parts)))
    if parts > 1:
        launch_1d(mod.get_function(exprs[1]), c.n_out, (vals, idxs, out, c.n_out, parts))
