"""Elementwise functions of the Array API (and the array object's operators).

Each function resolves the operands' dtypes by the standard's promotion rules
(:mod:`._dtypes`), broadcasts their shapes, casts an operand whose dtype differs from the
computation's (one cast kernel), and launches one kernel of kernels/elementwise.hip:
``un0/bi0/tri0<op, input type, output type>`` for layout 0 (every array operand C-contiguous
with the output's shape, scalars inline; vectorises on the CPU), ``un3/...`` for layout 3 (two
dimensions after collapsing, every array operand's inner stride its item size: a row vector
broadcast over a matrix, row slices; vectorises too), ``un/bi/tri<..., layout>`` for layouts
1 (arbitrary byte strides, n-D) and 2 (the same in two dimensions, a 2-D grid): broadcasts
are stride 0, transposes and slices are read in place.

Kernels are built per *group* of operations x dtype x layout (``Op.group``), so one build
serves e.g. add/subtract/multiply/... of float32; the groups put the common operations
(add/subtract/multiply/divide/negative/abs, exp/log/sqrt, where/maximum/minimum/clip,
isnan/isinf/isfinite/signbit) apart from the rarer ones, and a strided layout's build holds
at most four operations of its group: a first use compiles fewer kernels. The launch plan of a call (kernel, shapes,
strides) is memoised per (operation, dtypes, layouts), so a warm call costs a dict lookup, an
allocation and a launch.

Fusion (_fusion.py): an operation of the fusable set over contiguous operands of one dtype
does not launch at once; it returns a pending array, and a chain of them (``a * x + y``) is
computed by one launch of the fused interpreter kernel when the result's memory is first
taken (a one-operation result by its own kernel here, through ``into``).
"""

from __future__ import annotations

import builtins
import ctypes
import math
import os
import struct
import sys
import threading
from typing import Any

import numpy as np

from ..runtime.array import DeviceArray, MemoryPointer
from ..runtime.pool import allocate_class as _allocate_class
from ..runtime.pool import size_class as _size_class
from ..runtime.stream import _local as _stream_local
from ..runtime.stream import resolve_stream
from . import _creation, _fusion, _kernels, _manipulation
from . import _dtypes as D
from ._array import _alloc, as_ndarray, empty_array, ndarray
from ._fusion import _PENDING
from ._fusion import flush as _flush_pending
from ._kernels import _ORIGINAL_LAUNCHES, Family, OhArgs, collapse, ctype, grid2d, pack_struct
from ._kernels import Kernel as _Kernel

__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1",
    "floor", "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf",
    "isnan", "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
    "sign", "signbit", "sin", "sinh", "square", "sqrt", "subtract", "tan", "tanh", "trunc",
    "where", "astype", "broadcast_shapes",
]

FAMILY = Family("elementwise", "elementwise.hip", options=("-std=c++17",))  # -O3

_NUM = "iufc"
_REAL = "iuf"


class Op:
    """One operation: its C++ struct, arity, group, accepted kinds and result rule.

    ``result``: "same" (the computation dtype), "bool", "real" (complex -> its real dtype),
    ``inexact`` ops compute integers and bools in float64 (numpy's choice).
    """

    __slots__ = ("name", "cpp", "arity", "group", "kinds", "result", "inexact", "bool_input")

    def __init__(self, name: str, cpp: str, arity: int, group: str, kinds: str,
                 result: str = "same", inexact: bool = False, bool_input: bool = False) -> None:
        self.name, self.cpp, self.arity, self.group = name, cpp, arity, group
        self.kinds, self.result, self.inexact = kinds, result, inexact
        self.bool_input = bool_input


_OPS: dict[str, Op] = {}


def _op(*args: Any, **kw: Any) -> None:
    op = Op(*args, **kw)
    _OPS[op.name] = op


for _n, _c, _a, _k, _r, _i in [
        ("add", "o_add", 2, "b" + _NUM, "same", False),
        ("subtract", "o_sub", 2, _NUM, "same", False),
        ("multiply", "o_mul", 2, "b" + _NUM, "same", False),
        ("divide", "o_div", 2, "fc", "same", True),
        ("negative", "o_neg", 1, _NUM, "same", False),
        ("positive", "o_copy", 1, _NUM, "same", False),
        ("abs", "o_abs", 1, _NUM, "real", False),
        ("square", "o_square", 1, _NUM, "same", False),
        ("reciprocal", "o_recip", 1, "fc", "same", True)]:
    _op(_n, _c, _a, "arith2" if _n in ("positive", "square", "reciprocal") else "arith", _k,
        _r, _i)
for _n, _c in [("equal", "o_eq"), ("not_equal", "o_ne")]:
    _op(_n, _c, 2, "compare", "b" + _NUM, "bool")
for _n, _c in [("less", "o_lt"), ("less_equal", "o_le"), ("greater", "o_gt"),
               ("greater_equal", "o_ge")]:
    _op(_n, _c, 2, "compare", "b" + _REAL, "bool")
for _n, _c, _a, _k in [("bitwise_and", "o_and", 2, "biu"), ("bitwise_or", "o_or", 2, "biu"),
                       ("bitwise_xor", "o_xor", 2, "biu"), ("bitwise_invert", "o_invert", 1,
                                                            "biu"),
                       ("bitwise_left_shift", "o_lshift", 2, "iu"),
                       ("bitwise_right_shift", "o_rshift", 2, "iu")]:
    _op(_n, _c, _a, "bits", _k)
for _n, _c, _a in [("logical_and", "o_land", 2), ("logical_or", "o_lor", 2),
                   ("logical_xor", "o_lxor", 2), ("logical_not", "o_not", 1)]:
    _op(_n, _c, _a, "bits", "b", "bool", bool_input=True)
for _n, _c, _a, _k in [("exp", "o_exp", 1, "fc"), ("expm1", "o_expm1", 1, "fc"),
                       ("log", "o_log", 1, "fc"), ("log1p", "o_log1p", 1, "fc"),
                       ("log2", "o_log2", 1, "fc"), ("log10", "o_log10", 1, "fc"),
                       ("sqrt", "o_sqrt", 1, "fc"), ("logaddexp", "o_logaddexp", 2, "f")]:
    _op(_n, _c, _a, "exp" if _n in ("exp", "log", "sqrt") else "exp2", _k, "same", True)
_op("pow", "o_pow", 2, "exp2", _NUM)
for _n in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
           "acosh", "atanh"):
    _op(_n, "o_" + _n, 1, "trig", "fc", "same", True)
_op("atan2", "o_atan2", 2, "trig", "f", "same", True)
for _n, _c, _k, _r in [("floor", "o_floor", "f", "same"), ("ceil", "o_ceil", "f", "same"),
                       ("trunc", "o_trunc", "f", "same"), ("round", "o_round", "fc", "same"),
                       ("sign", "o_sign", _NUM, "same"), ("signbit", "o_signbit", "f", "bool"),
                       ("isnan", "o_isnan", "fc", "bool"), ("isinf", "o_isinf", "fc", "bool"),
                       ("isfinite", "o_isfinite", "fc", "bool")]:
    _op(_n, _c, 1, "class" if _r == "bool" else "round", _k, _r)
for _n, _c, _a, _k, _r in [("maximum", "o_max", 2, _REAL, "same"),
                           ("minimum", "o_min", 2, _REAL, "same"),
                           ("copysign", "o_copysign", 2, "f", "same"),
                           ("hypot", "o_hypot", 2, "f", "same"),
                           ("nextafter", "o_nextafter", 2, "f", "same"),
                           ("floor_divide", "o_floordiv", 2, _REAL, "same"),
                           ("remainder", "o_rem", 2, _REAL, "same"),
                           ("conj", "o_conj", 1, "c", "same"),
                           ("real", "o_real", 1, "c", "real"),
                           ("imag", "o_imag", 1, "c", "real"),
                           ("clip", "o_clip", 3, _REAL, "same"),
                           ("where", "o_where", 3, "b" + _NUM, "same")]:
    _op(_n, _c, _a, "select" if _n in ("maximum", "minimum", "clip", "where") else "misc",
        _k, _r)

_KINDNAME = {"b": "boolean", "i": "integer", "u": "unsigned integer", "f": "floating-point",
             "c": "complex floating-point"}
_REAL_OF = {D.complex64: D.float32, D.complex128: D.float64}


def _out_dtype(op: Op, dt: np.dtype) -> np.dtype:
    if op.result == "bool":
        return D.bool
    if op.result == "real" and dt in _REAL_OF:
        return _REAL_OF[dt]
    return dt


def _expr(op: Op, dt: np.dtype, layout: int) -> str:
    kind = ("un", "bi", "tri")[op.arity - 1]
    if layout in (0, 3):
        return f"{kind}{layout}<{op.cpp}, {ctype(dt)}, {ctype(_out_dtype(op, dt))}>"
    return f"{kind}<{op.cpp}, {ctype(dt)}, {ctype(_out_dtype(op, dt))}, {layout}>"


_GROUP_EXPRS: dict[tuple[str, np.dtype, int], tuple[str, ...]] = {}


def _group_exprs(group: str, dt: np.dtype, layout: int) -> tuple[str, ...]:
    key = (group, dt, layout)
    ex = _GROUP_EXPRS.get(key)
    if ex is None:
        k = D.kind_of(dt)
        ex = tuple(_expr(op, dt, layout) for op in _OPS.values()
                   if op.group == group and k in op.kinds and not (
                       k in "iu" and op.inexact and op.kinds == "fc"))
        _GROUP_EXPRS[key] = ex
    return ex


def _kernel(op: Op, dt: np.dtype, layout: int, device: Any):
    exprs = _group_exprs(op.group, dt, layout)
    expr = _expr(op, dt, layout)
    variant = f"{op.group}.{dt.name}.{_LAYOUT_NAME[layout]}"
    if layout:  # strided layouts are rarer: a build holds at most _STRIDED_BUILD of the group
        part = exprs.index(expr) // _STRIDED_BUILD
        exprs = exprs[part * _STRIDED_BUILD:(part + 1) * _STRIDED_BUILD]
        variant += str(part)
    return _chunked(FAMILY.kernel(variant, exprs, expr, device), layout)


#: elements per CPU thread of a layout-0 kernel (OH_EW_CH in kernels/elementwise.hip) and the
#: threads of a block of them
_CPU_CHUNK, _CPU_CHUNK_BLOCK = 2048, 8


def _chunked(k: Any, layout: int) -> Any:
    """``k``, launched in chunks of _CPU_CHUNK elements per thread when it is a layout-0
    kernel on the CPU platform."""
    if layout == 0 and k.chunk == 1 and k.device.platform == "cpu":
        k.block = _CPU_CHUNK_BLOCK
        k.chunk = _CPU_CHUNK
    return k


#: kernels per build of a strided layout (a script uses few of them; each costs compile time)
_STRIDED_BUILD = 4
_LAYOUT_NAME = "cs2r"  # 0 contiguous, 1 strided n-D, 2 strided 2-D, 3 2-D with contiguous rows

#: the contiguous groups a program usually needs after one of a dtype: on a cold cache they
#: are built in the background while it goes on (_prefetch.py; _kernels.Family.hints)
_NEXT_GROUPS = {"create.basic": ("arith", "compare"), "arith": ("exp", "compare", "select"),
                "compare": ("select",), "exp": ("class",)}


def _prefetch_after(variant: str, device: Any) -> None:
    """Family hint: queue the groups of ``_NEXT_GROUPS`` after a build of ``variant``
    (``<group>.<dtype>.c``, or ``create.basic.<dtype>``)."""
    parts = variant.split(".")
    if parts[0] == "create" and len(parts) == 3:
        key, dt = "create." + parts[1], _DTYPE_NAMES.get(parts[2])
    elif len(parts) == 3 and parts[2] == "c":
        key, dt = parts[0], _DTYPE_NAMES.get(parts[1])
    else:
        return
    if dt is None:
        return
    for group in _NEXT_GROUPS.get(key, ()):
        exprs = _group_exprs(group, dt, 0)
        if exprs:
            FAMILY.prefetch(f"{group}.{dt.name}.c", exprs, device)
    if key == "compare" and dt.itemsize in _manipulation.SIZES:
        # a boolean mask often follows a comparison (x[x > 0]: the mask, then a gather)
        gather = f"gather.{dt.itemsize}"
        for index_variant in ("mask", gather):
            _manipulation.FAMILY.prefetch(index_variant, _manipulation._VARIANTS[index_variant],
                                          device)


_DTYPE_NAMES = {dt.name: dt for dt in D.DTYPES}
FAMILY.hints = _prefetch_after
_creation.FAMILY.hints = _prefetch_after


# ---- casts -------------------------------------------------------------------------------
def _cast_kernel(src: np.dtype, dst: np.dtype, layout: int, device: Any):
    if layout in (0, 3):
        expr = f"un{layout}<o_copy, {ctype(src)}, {ctype(dst)}>"
    else:
        expr = f"un<o_copy, {ctype(src)}, {ctype(dst)}, {layout}>"
    return _chunked(FAMILY.kernel(f"cast.{src.name}.{dst.name}.{_LAYOUT_NAME[layout]}",
                                  (expr,), expr, device), layout)


def _cast_into(out: ndarray, x: ndarray) -> None:
    """``out[...] = x`` converting dtypes (``x`` broadcast to ``out``'s shape)."""
    if out.size == 0:
        return
    strides = [list(out.strides), _bstrides(x, out.shape)]
    layout, grid = (0, None) if (out._contig and x._contig and x.shape == out.shape) else (1, 0)
    a = OhArgs()
    a.n = out.size
    a.ptr[0] = out.data.ptr
    a.ptr[1] = x.data.ptr
    if layout:
        layout, grid = _fill_strided(a, out.shape, strides,
                                     [out.dtype.itemsize, x.dtype.itemsize])
    k = _cast_kernel(x.dtype, out.dtype, layout, out.device)
    if layout == 0:
        k.launch_flat(out.size, a, (out.dtype.itemsize, x.dtype.itemsize))
    elif grid is None:
        k.launch_ohargs(out.size, a)
    else:
        k.launch_grid(grid, pack_struct(a))


def astype(x: ndarray, dtype: Any, /, *, copy: bool = True, device: Any = None) -> ndarray:
    """``x`` converted to ``dtype`` (complex -> real is refused, as the standard says)."""
    x = _as_array(x)
    dt = D.to_dtype(dtype)
    if device is not None:
        x = x.to_device(device)
    if dt == x.dtype:
        return x.copy() if copy else x
    if D.kind_of(x.dtype) == "c" and D.kind_of(dt) != "c":
        raise TypeError(f"astype: cannot cast complex {x.dtype} to {dt}; take real() or "
                        f"abs() first")
    if type(x) is ndarray and x.size:  # a plan per layout, as the operations'
        key = ("astype", x.dtype, x.shape, x._strides, dt)
        plan = _PLANS.get(key)
        if plan is None or x._data.mem.device is not plan.device:
            plan = _cast_plan(x, dt)
            with _PLAN_LOCK:
                if len(_PLANS) > 4096:
                    _PLANS.clear()
                _PLANS[key] = plan
        return _launch(plan, (x,), None)
    out = empty_array(x.shape, dt, x.device)
    _cast_into(out, x)
    return out


# ---- operands ------------------------------------------------------------------------------
_SCALARS = (bool, int, float, complex)


def _is_operand(v: Any) -> bool:
    return isinstance(v, (DeviceArray, bool, int, float, complex, np.ndarray, np.generic))


def _as_array(x: Any) -> ndarray:
    if type(x) is ndarray:
        return x
    if isinstance(x, DeviceArray):
        return as_ndarray(x)
    if isinstance(x, (np.ndarray, np.generic)):
        from ._creation import asarray

        return asarray(x)
    raise TypeError(f"expected an openhip.numpy array, got {type(x).__name__}")


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """numpy's broadcasting of shapes; ValueError naming every shape when they do not."""
    nd = builtins.max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, d in enumerate(s, nd - len(s)):
            if d != 1:
                if out[i] == 1:
                    out[i] = d
                elif out[i] != d:
                    raise ValueError("operands could not be broadcast together with shapes "
                                     + " ".join(str(tuple(t)) for t in shapes))
    if any(d == 0 for d in out) and any(0 in s for s in shapes):
        pass
    return tuple(out)


def _bstrides(x: ndarray, shape: tuple[int, ...]) -> list[int]:
    """``x``'s byte strides seen with the broadcast ``shape`` (0 where broadcast)."""
    nd = len(shape)
    st = [0] * nd
    off = nd - x.ndim
    for i, (d, s) in enumerate(zip(x.shape, x.strides, strict=True)):
        st[off + i] = 0 if d == 1 and shape[off + i] != 1 else s
    return st


def _fill_strided(a: OhArgs, shape: tuple[int, ...], strides: list[list[int]],
                  itemsizes: list[int | None] | None = None
                  ) -> tuple[int, tuple[int, int, int] | None]:
    """Fill a strided layout; (2, its grid) when it collapses to at most two dimensions,
    else (1, None) (the n-D layout, 1-D grid). With ``itemsizes`` (operand k's element size,
    None for an inline scalar), (3, its grid) when moreover every array operand's inner stride
    is its element size (the row layout: a row vector broadcast, row slices)."""
    shp, sts = collapse(shape, strides)
    if len(shp) <= 2:
        while len(shp) < 2:
            shp.insert(0, 1)
            for st in sts:
                st.insert(0, 0)
        a.ndim = 2
        for d in range(2):
            a.shape[d] = shp[d]
            for k, st in enumerate(sts):
                a.strides[k][d] = st[d]
        rows = itemsizes is not None and shp[0] < 2**31 and shp[1] < 2**31 and all(
            size is None or st[1] == size for st, size in zip(sts, itemsizes, strict=True))
        return (3 if rows else 2), grid2d(shp[0], shp[1])
    _fill_layout(a, shape, strides)
    return 1, None


def _fill_layout(a: OhArgs, shape: tuple[int, ...], strides: list[list[int]]) -> None:
    shp, sts = collapse(shape, strides)
    if len(shp) > 8:
        raise ValueError(f"arrays of more than 8 non-trivial dimensions are not supported "
                         f"(shape {shape})")
    a.ndim = len(shp)
    for d, s in enumerate(shp):
        a.shape[d] = s
    for k, st in enumerate(sts):
        for d, s in enumerate(st):
            a.strides[k][d] = s


def _check_devices(name: str, arrays: list[ndarray]) -> Any:
    dev = arrays[0].device
    for x in arrays[1:]:
        if x.device is not dev:
            raise ValueError(f"{name}: the arrays are on different devices ({dev} and "
                             f"{x.device}); move one with to_device()")
    return dev


def _check_kind(op: Op, dt: np.dtype) -> None:
    k = D.kind_of(dt)
    if k not in op.kinds and not (op.inexact and k in "biu"):
        allowed = ", ".join(_KINDNAME[c] for c in op.kinds)
        raise TypeError(f"{op.name}: unsupported dtype {dt} (accepts {allowed})")


def _scalar_bytes(value: Any, dt: np.dtype, name: str) -> bytes:
    try:
        with np.errstate(over="raise"):
            raw = np.array(value, dtype=dt).tobytes()
    except (OverflowError, FloatingPointError):
        raise OverflowError(f"{name}: Python scalar {value!r} does not fit in {dt}") from None
    return raw.ljust(16, b"\0")


def _set_scalar(a: OhArgs, k: int, value: Any, dt: np.dtype, name: str) -> None:
    raw = _scalar_bytes(value, dt, name)
    a.scal[k][0] = int.from_bytes(raw[:8], "little")
    a.scal[k][1] = int.from_bytes(raw[8:16], "little")


def _int_packer(size: int, signed: bool) -> Any:
    def pack(value: int) -> bytes:
        return value.to_bytes(size, "little", signed=signed)
    return pack


#: the bytes of a Python scalar in a dtype (by ``dtype.char``), as :func:`_scalar_bytes`
#: computes them (OverflowError where it raises), without a numpy array per call
_PACKERS: dict[str, Any] = {
    "f": struct.Struct("<f").pack, "d": struct.Struct("<d").pack,
    "b": _int_packer(1, True), "h": _int_packer(2, True), "i": _int_packer(4, True),
    "l": _int_packer(8, True), "q": _int_packer(8, True),
    "B": _int_packer(1, False), "H": _int_packer(2, False), "I": _int_packer(4, False),
    "L": _int_packer(8, False), "Q": _int_packer(8, False),
}
_PACK_TYPES = {"f": (bool, int, float), "d": (bool, int, float)}


def _scalar_packer(dt: np.dtype, kind: type) -> Any:
    """A fast ``pack(value) -> bytes`` for Python scalars of type ``kind`` in ``dt`` (the
    itemsize's bytes), or None (then :func:`_scalar_bytes`)."""
    pack = _PACKERS.get(dt.char)
    if pack is None or dt.byteorder not in "=|<" or dt.itemsize > 8:
        return None
    if kind not in _PACK_TYPES.get(dt.char, (bool, int)):
        return None
    return pack


_FUSABLE = frozenset(_fusion.OPCODES)
_LAUNCH_PACKED, _LAUNCH_GRID = _ORIGINAL_LAUNCHES


class _Plan:
    """A memoised launch of one (operation, operand dtypes/shapes/strides): the kernel, its
    packed arguments (every field but the pointers and scalars fixed), the output's layout,
    and the platform's prepared launch (``go``). A repeat of the same layout fills in the
    pointers (and scalars) and launches; nothing is re-derived."""

    __slots__ = ("kernel", "args", "packed", "out_shape", "out_dtype", "out_strides", "n",
                 "lock", "scalars", "name", "grid", "itemsizes", "device", "cls", "fuse",
                 "words", "raw", "arrays", "go")


_PLANS: dict[tuple, _Plan] = {}
_PLAN_LOCK = threading.Lock()
_new_object = object.__new__


def _plan_key(name: str, operands: tuple[Any, ...]) -> tuple:
    """The memo key of ``operands``: each array's (dtype, shape, strides), each scalar's
    type (a plan serves exactly one layout)."""
    if len(operands) == 2:
        a, b = operands
        return (name, (a.dtype, a.shape, a._strides) if type(a) is ndarray else type(a),
                (b.dtype, b.shape, b._strides) if type(b) is ndarray else type(b))
    if len(operands) == 1:
        a = operands[0]
        return (name, (a.dtype, a.shape, a._strides) if type(a) is ndarray else type(a))
    return (name,) + tuple(
        (v.dtype, v.shape, v._strides) if type(v) is ndarray else type(v) for v in operands)


def _out_key(name: str, operands: tuple[Any, ...], out: ndarray) -> tuple:
    """The memo key of an operation writing into ``out`` (the in-place operators)."""
    return _plan_key(name, operands) + (("out", out.dtype, out.shape, out._strides),)


def _apply(op: Op, operands: tuple[Any, ...], out: ndarray | None = None,
           into: ndarray | None = None) -> ndarray:
    """Run ``op`` over arrays and Python scalars (numpy/DeviceArray inputs are converted).

    A fusable operation (_fusion.py) returns a pending array instead of launching. ``into``:
    the new C-contiguous result array to write (a pending one-operation result being
    computed), else one is allocated; unlike ``out`` it takes the memoised plan."""
    if out is None:
        # the warm path: the plan of this exact layout, on the arrays' device
        if len(operands) == 2:  # (_plan_key, inline)
            a, b = operands
            plan = _PLANS.get((
                op.name, (a.dtype, a.shape, a._strides) if type(a) is ndarray else type(a),
                (b.dtype, b.shape, b._strides) if type(b) is ndarray else type(b)))
        else:
            plan = _PLANS.get(_plan_key(op.name, operands))
        if plan is not None:
            dev = plan.device
            for i in plan.arrays:
                if operands[i - 1]._data.mem.device is not dev:
                    break
            else:
                if plan.fuse >= _fusion.MIN_ELEMENTS and into is None:
                    res = _fusion.try_fuse(op, operands, ndarray)
                    if res is not None:
                        return res
                return _launch(plan, operands, into)
        if into is None and op.name in _FUSABLE:
            res = _fusion.try_fuse(op, operands, ndarray)
            if res is not None:
                return res
    arrays: list[ndarray] = []
    for i, v in enumerate(operands):
        if type(v) is ndarray:
            arrays.append(v)
        elif isinstance(v, _SCALARS):
            continue
        else:
            arrays.append(_as_array(v))
            operands = operands[:i] + (arrays[-1],) + operands[i + 1:]
    if not arrays:
        raise TypeError(f"{op.name}: at least one argument must be an array")
    dev = _check_devices(op.name, arrays)
    # dtype of the computation
    if op.name == "where":
        cond = operands[0]
        if type(cond) is not ndarray or cond.dtype != D.bool:
            raise TypeError("where: the condition must be a boolean array")
        dt = D.result_type(*operands[1:]) if any(
            type(v) is ndarray for v in operands[1:]) else _scalars_dtype(operands[1:])
    elif op.bool_input:
        dt = D.bool
    else:
        dt = D.result_type(*operands)
    if op.inexact and D.kind_of(dt) in "biu":
        dt = D.float64
    _check_kind(op, dt)
    shape = broadcast_shapes(*(v.shape for v in operands if type(v) is ndarray))
    # operands converted to dt (arrays with another dtype are cast first)
    conv: list[Any] = []
    for i, v in enumerate(operands):
        want = D.bool if (op.name == "where" and i == 0) else dt
        if type(v) is ndarray:
            conv.append(v if v.dtype == want else astype(v, want))
        else:
            conv.append(v)
    odt = _out_dtype(op, dt)
    contig_ok = all(type(v) is not ndarray or (v._contig and v.shape == shape) for v in conv)
    if out is not None:
        if out.shape != shape:
            raise ValueError(f"{op.name}: the result has shape {shape}; the output "
                             f"array {out.shape}")
        contig_ok = contig_ok and out._contig
    plan = _Plan()
    plan.out_shape = shape
    plan.out_dtype = odt
    plan.n = math.prod(shape)
    a = OhArgs()
    a.n = plan.n
    smask = 0
    plan.scalars = []
    plan.name = op.name
    strides: list[list[int]] = [list(out.strides) if out is not None else
                                list(_c_strides(shape, odt.itemsize))]
    for k, v in enumerate(conv, 1):
        if type(v) is ndarray:
            strides.append(_bstrides(v, shape))
        else:
            smask |= 1 << k
            want = D.bool if (op.name == "where" and k == 1) else dt
            _set_scalar(a, k, v, want, op.name)
            pack = _scalar_packer(want, type(v))
            off = OhArgs.scal.offset + 16 * k
            plan.scalars.append((k, want, pack, off, off + want.itemsize))
            strides.append([0] * len(shape))
    a.smask = smask
    layout, plan.grid = (0, None) if contig_ok else _fill_strided(
        a, shape, strides, [odt.itemsize] + [
            None if (smask >> k) & 1 else
            (D.bool if (op.name == "where" and k == 1) else dt).itemsize
            for k in range(1, len(conv) + 1)])
    plan.itemsizes = [odt.itemsize] + [  # layout 0's pointer steps (0: an inline scalar)
        0 if (smask >> k) & 1 else (D.bool if (op.name == "where" and k == 1) else dt).itemsize
        for k in range(1, len(conv) + 1)] if layout == 0 else None
    k = plan.kernel = _kernel(op, dt, layout, dev)
    plan.args = a
    plan.packed = pack_struct(a)
    plan.out_strides = _c_strides(shape, odt.itemsize)
    plan.lock = threading.Lock()
    plan.device = dev
    plan.cls = _size_class(plan.n * odt.itemsize) if plan.n else 0
    plan.raw = memoryview(a).cast("B")
    plan.words = plan.raw.cast("Q")  # a.ptr[i] is words[i]
    plan.arrays = tuple(i for i, v in enumerate(conv, 1) if type(v) is ndarray)
    first = conv[plan.arrays[0] - 1].shape
    # try_fuse's early exit (a first array operand of fewer than MIN_ELEMENTS) by the layout:
    # the size it compares (-1: not fusable; a 0-d first operand: always asked)
    plan.fuse = -1 if op.name not in _FUSABLE else math.prod(first) if first else sys.maxsize
    plan.go = None
    if all(type(v) is ndarray or type(v) in _SCALARS for v in operands) and \
            all(c is v for c, v in zip(conv, operands, strict=True)):  # memoised
        _prepare(plan)
        key = _plan_key(op.name, operands) if out is None else _out_key(op.name, operands, out)
        with _PLAN_LOCK:
            if len(_PLANS) > 4096:
                _PLANS.clear()
            _PLANS[key] = plan
    return _launch(plan, tuple(conv), out if out is not None else into)


def _after_fork_child() -> None:
    """A forked child's plans get fresh locks (a parent's thread may hold one at the fork)."""
    global _PLAN_LOCK
    _PLAN_LOCK = threading.Lock()
    for plan in list(_PLANS.values()):
        plan.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_child)


def _prepare(plan: _Plan) -> None:
    """The prepared launch of a plan that is kept (making one costs 2 us)."""
    k = plan.kernel
    if plan.n:
        if plan.grid is not None:  # (what _launch would call: launch_grid)
            plan.go = k.launcher(plan.grid, plan.packed)
        elif plan.itemsizes is None or plan.n <= _kernels.FLAT_CHUNK:  # launch_packed
            grid, block = k.packed_grid(plan.n)
            plan.go = k.launcher(grid, plan.packed, block)


def _cast_plan(x: ndarray, dt: np.dtype) -> _Plan:
    """The plan of ``x.astype(dt)`` into a new C-contiguous array (:func:`_cast_into`'s
    kernel and layout), memoised per (x's dtype, shape, strides; dt)."""
    shape, n, dev = x.shape, x.size, x.device
    plan = _Plan()
    plan.out_shape, plan.out_dtype, plan.n, plan.name = shape, dt, n, "astype"
    a = OhArgs()
    a.n = n
    ostr = _c_strides(shape, dt.itemsize)
    sizes = [dt.itemsize, x.dtype.itemsize]
    layout, plan.grid = (0, None) if x._contig else _fill_strided(
        a, shape, [list(ostr), _bstrides(x, shape)], sizes)
    plan.itemsizes = sizes if layout == 0 else None
    plan.kernel = _cast_kernel(x.dtype, dt, layout, dev)
    plan.args = a
    plan.packed = pack_struct(a)
    plan.out_strides = ostr
    plan.lock = threading.Lock()
    plan.device = dev
    plan.cls = _size_class(n * dt.itemsize) if n else 0
    plan.raw = memoryview(a).cast("B")
    plan.words = plan.raw.cast("Q")
    plan.arrays = (1,)
    plan.scalars = []
    plan.fuse = -1
    plan.go = None
    _prepare(plan)
    return plan


def _apply_into(op: Op, operands: tuple[Any, ...], into: ndarray) -> None:
    _apply(op, operands, into=into)


def _same_device(arrays: list[ndarray]) -> bool:
    d = arrays[0].device
    return all(x.device is d for x in arrays)


def _scalars_dtype(vals: tuple[Any, ...]) -> np.dtype:
    if any(isinstance(v, complex) for v in vals):
        return D.complex128
    if any(isinstance(v, float) for v in vals):
        return D.float64
    if all(isinstance(v, bool) for v in vals):
        return D.bool
    return D.int64


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    from ._array import c_strides

    return c_strides(shape, itemsize)


def _launch(plan: _Plan, operands: tuple[Any, ...], out: ndarray | None) -> ndarray:
    if out is None:
        if not plan.n:
            dt = plan.out_dtype
            return ndarray._new(_alloc(0, plan.device), plan.out_shape, dt, 0,
                                plan.out_strides)
        out = _new_object(ndarray)  # ndarray._new_contig's fields, without the frames
        buf = _allocate_class(plan.cls, plan.device)
        mp = out._data = _new_object(MemoryPointer)
        mp.mem = buf
        mp.offset = 0
        out.shape = plan.out_shape
        out.dtype = plan.out_dtype
        out._base = None
        out._strides = plan.out_strides
        out._contig = True
        optr = buf._ptr
    else:
        if plan.n == 0:
            return out
        optr = out.data.ptr
    if _PENDING:  # (what ndarray.data does) the operands' pending values are computed
        _flush_pending()
    with plan.lock:
        words = plan.words
        words[0] = optr
        for i in plan.arrays:
            d = operands[i - 1]._data
            m = d.mem
            p = m._ptr
            words[i] = (m.ptr if p is None else p) + d.offset  # (a freed buffer raises)
        if plan.scalars:
            for i, dt, pack, lo, hi in plan.scalars:
                if pack is None:
                    _set_scalar(plan.args, i, operands[i - 1], dt, plan.name)
                    continue
                v = operands[i - 1]
                try:
                    plan.raw[lo:hi] = pack(v)  # (the rest of its 16 bytes stays zero)
                except (OverflowError, struct.error):
                    raise OverflowError(f"{plan.name}: Python scalar {v!r} does not fit in "
                                        f"{dt}") from None
        go = plan.go
        if go is not None and _Kernel.launch_packed is _LAUNCH_PACKED and \
                _Kernel.launch_grid is _LAUNCH_GRID:
            go(resolve_stream(None, plan.device)._handle
               if getattr(_stream_local, "stack", None) else None)
            return out
        k = plan.kernel
        if plan.itemsizes is not None and plan.n > _kernels.FLAT_CHUNK:
            k.launch_flat(plan.n, plan.args, plan.itemsizes)
        elif plan.grid is None:
            k.launch_packed(plan.n, plan.packed)
        else:
            k.launch_grid(plan.grid, plan.packed)
    return out


def _inplace(fn: Any, x: ndarray, other: Any) -> ndarray:
    """``x <op>= other``: the result must keep x's shape and dtype (the standard's rule)."""
    op = _OPS[fn.__name__]
    if type(x) is ndarray:  # the warm path: this layout's plan (its dtypes were checked here)
        plan = _PLANS.get(_out_key(op.name, (x, other), x))
        if plan is not None and x._data.mem.device is plan.device and (
                type(other) is not ndarray or other._data.mem.device is plan.device):
            _launch(plan, (x, other), x)
            return x
    res_dt = D.result_type(x, other) if type(other) is not ndarray or True else None
    if op.inexact and D.kind_of(res_dt) in "biu":
        res_dt = D.float64
    if res_dt != x.dtype:
        raise TypeError(f"{op.name} in place: the result dtype {res_dt} differs from the "
                        f"array's {x.dtype}")
    if type(other) is not ndarray and not isinstance(other, _SCALARS):
        other = _as_array(other)
    _apply(op, (x, other), out=x)
    return x


# ---- the public functions -------------------------------------------------------------------
def _make1(name: str):
    op = _OPS[name]

    def f(x: Any, /) -> ndarray:
        if type(x) is not ndarray:
            x = _as_array(x)
        return _apply(op, (x,))
    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}`` (Array API)."
    return f


def _make2(name: str):
    op = _OPS[name]

    def f(x1: Any, x2: Any, /) -> ndarray:
        return _apply(op, (x1, x2))
    f._op = op  # (the array's operators call _apply with it, one frame less)
    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}`` (Array API), broadcasting ``x1`` and ``x2``."
    return f


abs = _make1("abs")  # noqa: A001
acos = _make1("acos")
acosh = _make1("acosh")
asin = _make1("asin")
asinh = _make1("asinh")
atan = _make1("atan")
atanh = _make1("atanh")
bitwise_invert = _make1("bitwise_invert")
cos = _make1("cos")
cosh = _make1("cosh")
exp = _make1("exp")
expm1 = _make1("expm1")
isfinite_ = _make1("isfinite")
isinf_ = _make1("isinf")
isnan_ = _make1("isnan")
log = _make1("log")
log1p = _make1("log1p")
log2 = _make1("log2")
log10 = _make1("log10")
logical_not = _make1("logical_not")
negative = _make1("negative")
positive_ = _make1("positive")
reciprocal = _make1("reciprocal")
sign = _make1("sign")
signbit = _make1("signbit")
sin = _make1("sin")
sinh = _make1("sinh")
square = _make1("square")
sqrt = _make1("sqrt")
tan = _make1("tan")
tanh = _make1("tanh")
conj_ = _make1("conj")
real_ = _make1("real")
imag_ = _make1("imag")
floor_ = _make1("floor")
ceil_ = _make1("ceil")
trunc_ = _make1("trunc")
round_ = _make1("round")

add = _make2("add")
atan2 = _make2("atan2")
bitwise_and = _make2("bitwise_and")
bitwise_left_shift = _make2("bitwise_left_shift")
bitwise_or = _make2("bitwise_or")
bitwise_right_shift = _make2("bitwise_right_shift")
bitwise_xor = _make2("bitwise_xor")
copysign = _make2("copysign")
divide = _make2("divide")
equal = _make2("equal")
floor_divide = _make2("floor_divide")
greater = _make2("greater")
greater_equal = _make2("greater_equal")
hypot = _make2("hypot")
less = _make2("less")
less_equal = _make2("less_equal")
logaddexp = _make2("logaddexp")
logical_and = _make2("logical_and")
logical_or = _make2("logical_or")
logical_xor = _make2("logical_xor")
maximum = _make2("maximum")
minimum = _make2("minimum")
multiply = _make2("multiply")
nextafter = _make2("nextafter")
not_equal = _make2("not_equal")
pow = _make2("pow")  # noqa: A001
remainder = _make2("remainder")
subtract = _make2("subtract")


def _keep_or(x: ndarray, kinds: str, fn: Any) -> ndarray:
    """Integer/bool inputs of rounding functions are returned unchanged (a copy)."""
    x = _as_array(x)
    if D.kind_of(x.dtype) in kinds:
        return x.copy()
    return fn(x)


def floor(x: Any, /) -> ndarray:
    """Elementwise floor (integers unchanged)."""
    return _keep_or(x, "biu", floor_)


def ceil(x: Any, /) -> ndarray:
    """Elementwise ceil (integers unchanged)."""
    return _keep_or(x, "biu", ceil_)


def trunc(x: Any, /) -> ndarray:
    """Elementwise trunc (integers unchanged)."""
    return _keep_or(x, "biu", trunc_)


def round(x: Any, /) -> ndarray:  # noqa: A001
    """Round half to even (integers unchanged)."""
    return _keep_or(x, "biu", round_)


def positive(x: Any, /) -> ndarray:
    """A copy of ``x`` (numeric dtypes)."""
    x = _as_array(x)
    _check_kind(_OPS["positive"], x.dtype)
    return x.copy()


def conj(x: Any, /) -> ndarray:
    """Complex conjugate (real inputs unchanged)."""
    return _keep_or(x, "biuf", conj_)


def real(x: Any, /) -> ndarray:
    """The real part (real inputs unchanged)."""
    return _keep_or(x, "biuf", real_)


def imag(x: Any, /) -> ndarray:
    """The imaginary part (zeros for real inputs)."""
    x = _as_array(x)
    if D.kind_of(x.dtype) != "c":
        from ._creation import zeros

        return zeros(x.shape, dtype=x.dtype, device=x.device)
    return imag_(x)


def _bool_for_ints(fn: Any, value: bool):
    def f(x: Any, /) -> ndarray:
        x = _as_array(x)
        if D.kind_of(x.dtype) in "biu":
            from ._creation import full

            return full(x.shape, value, dtype=D.bool, device=x.device)
        return fn(x)
    f.__name__ = fn.__name__
    f.__doc__ = fn.__doc__
    return f


isnan = _bool_for_ints(isnan_, False)
isinf = _bool_for_ints(isinf_, False)
isfinite = _bool_for_ints(isfinite_, True)


def where(condition: Any, x1: Any, x2: Any, /) -> ndarray:
    """Elements of ``x1`` where ``condition`` is true, else of ``x2`` (all broadcast)."""
    return _apply(_OPS["where"], (_as_array(condition), x1, x2))


def clip(x: Any, /, min: Any = None, max: Any = None) -> ndarray:  # noqa: A002
    """``x`` limited to [min, max] (either may be None, a scalar or an array); the result
    keeps ``x``'s dtype and shape."""
    x = _as_array(x)
    k = D.kind_of(x.dtype)
    if k not in "iuf":
        raise TypeError(f"clip: unsupported dtype {x.dtype}")
    if min is None and max is None:
        return x.copy()
    bounds = []
    for b, default in ((min, "min"), (max, "max")):
        if b is None:
            if k == "f":
                b = -math.inf if default == "min" else math.inf
            else:
                info = np.iinfo(x.dtype)
                b = int(info.min if default == "min" else info.max)
        elif isinstance(b, float) and k in "iu":
            raise TypeError("clip: a float bound for an integer array")
        elif isinstance(b, int) and not isinstance(b, bool) and k in "iu":
            info = np.iinfo(x.dtype)
            b = builtins.min(builtins.max(b, int(info.min)), int(info.max))
        elif not isinstance(b, _SCALARS):
            b = _as_array(b)
            if b.dtype != x.dtype:
                b = astype(b, x.dtype)
        bounds.append(b)
    shape = broadcast_shapes(x.shape, *(b.shape for b in bounds if type(b) is ndarray))
    if shape != x.shape:
        raise ValueError(f"clip: the bounds of shapes {[getattr(b, 'shape', ()) for b in bounds]}"
                         f" do not broadcast to x's shape {x.shape}")
    return _apply(_OPS["clip"], (x, bounds[0], bounds[1]))


_fusion.bind(_alloc, _scalar_bytes, _apply_into)
_ = ctypes  # ctypes is used through OhArgs
