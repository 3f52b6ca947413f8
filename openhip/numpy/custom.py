"""CuPy-style user-defined kernels: ElementwiseKernel, ReductionKernel, RawKernel, RawModule.

The same signatures as CuPy's (``cupy.ElementwiseKernel(in_params, out_params, operation,
name)``, ``cupy.ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr,
identity, name)``...), so a CuPy user's kernels port by changing the import::

    squared_diff = hnp.ElementwiseKernel('float32 x, float32 y', 'float32 z',
                                         'z = (x - y) * (x - y)', 'squared_diff')
    l2norm = hnp.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm')

Parameters are ``[raw] <type> <name>`` with numpy dtype names, or a one-letter *type
placeholder* (``T``) bound from the arguments (outputs first, then inputs, as CuPy).
Arrays broadcast against each other; ``raw`` arrays are indexed by hand (``y[i]``, with
``i`` the loop index and ``_ind.size()`` the broadcast size). Outputs are allocated unless
passed (positionally after the inputs, or ``out=`` for reductions). Each distinct binding of
the types generates one HIP C++ kernel (from ``kernels/custom_*.hip`` templates), compiled
through the compile cache, on every platform. Reductions walk the reduced space in a fixed
order per output (split into parts for few outputs, then combined in part order): results do
not depend on the thread count.

``RawKernel(code, name, options=())`` and ``RawModule(code=..., options=...,
name_expressions=...)`` are :class:`openhip.Function` / :class:`openhip.Module` under CuPy's
constructor signatures (``kernel(grid, block, args, shared_mem=0, stream=None)``,
``module.get_function(name)``).
"""

from __future__ import annotations

import re
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.array import DeviceArray
from ..runtime.device import get_device
from ..runtime.module import Function, Module
from ._array import empty_array, ndarray
from ._reduction import MAXDIM, ctype, normalize_axis, scratch

__all__ = ["ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule"]

_TEMPLATES = Path(__file__).parent / "kernels"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = {"i", "n"}
_BLOCK = 256


@dataclass(frozen=True)
class Param:
    """One parsed parameter: ``raw``, its type (a dtype name or a placeholder) and name."""

    raw: bool
    type: str
    name: str

    @property
    def placeholder(self) -> bool:
        return len(self.type) == 1


def parse_params(text: str, what: str) -> tuple[Param, ...]:
    """``'float32 x, raw T y'`` -> Params; ValueError naming the bad entry."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str such as 'float32 x, T y'")
    out: list[Param] = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        words = item.split()
        raw = words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) != 2:
            raise ValueError(f"{what}: cannot read parameter {item!r} (want '[raw] type name')")
        typ, name = words
        if not _NAME.match(name) or name in _RESERVED or name.startswith("_"):
            raise ValueError(f"{what}: {name!r} is not a usable parameter name (i, n and names "
                             f"starting with _ are reserved)")
        if len(typ) != 1:
            try:
                _dtype_of(typ)
            except TypeError:
                raise ValueError(f"{what}: unknown type {typ!r} of parameter {name!r}") from None
        out.append(Param(raw, typ, name))
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: duplicate parameter names in {text!r}")
    return tuple(out)


def _dtype_of(name: str) -> np.dtype:
    from . import _dtypes

    try:
        dt = _dtypes.to_dtype(name)
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"unknown dtype {name!r}") from None
    if dt.kind == "c":
        raise TypeError("complex parameters are not supported by the generated kernels yet "
                        "(use a RawKernel with openhip's hip_complex.h)")
    ctype(dt)
    return dt


def _is_array(v: Any) -> bool:
    return isinstance(v, DeviceArray)


def _as_nd(v: Any) -> ndarray:
    from ._array import as_ndarray

    return v if isinstance(v, ndarray) else as_ndarray(v)


def _scalar_dtype(v: Any) -> np.dtype:
    if isinstance(v, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(v, np.generic):
        return v.dtype
    if isinstance(v, int):
        return np.dtype(np.int64)
    if isinstance(v, float):
        return np.dtype(np.float64)
    raise TypeError(f"unsupported argument of type {type(v).__name__} (arrays and real "
                    f"scalars only)")


def _bind(params: Sequence[Param], args: Sequence[Any], types: dict[str, np.dtype],
          kernel: str, weak: bool) -> None:
    """Bind placeholders from array arguments (``weak``: from scalars too, where still
    unbound)."""
    for p, a in zip(params, args, strict=False):
        if a is None or not p.placeholder:
            continue
        if _is_array(a):
            dt = np.dtype(a.dtype)
        elif weak:
            dt = _scalar_dtype(a)
        else:
            continue
        have = types.get(p.type)
        if have is None:
            types[p.type] = dt
        elif have != dt and _is_array(a):
            raise TypeError(f"{kernel}: type {p.type} is bound to {have} and {dt} "
                            f"(parameter {p.name!r})")


def _resolve(p: Param, types: dict[str, np.dtype], kernel: str) -> np.dtype:
    if not p.placeholder:
        return _dtype_of(p.type)
    dt = types.get(p.type)
    if dt is None:
        raise TypeError(f"{kernel}: cannot determine type {p.type} of {p.name!r} from the "
                        f"arguments (pass the output array)")
    _dtype_of(dt.name)
    return dt


def _template(name: str) -> str:
    return (_TEMPLATES / name).read_text(encoding="utf-8")


def _broadcast(shapes: Sequence[tuple[int, ...]], kernel: str) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    except ValueError:
        raise ValueError(f"{kernel}: shapes {', '.join(map(str, shapes))} do not broadcast "
                         f"together") from None


def _bstrides(a: ndarray, shape: tuple[int, ...]) -> list[int]:
    """Byte strides of ``a`` broadcast to ``shape``."""
    pad = len(shape) - a.ndim
    out = []
    for d, n in enumerate(shape):
        if d < pad:
            out.append(0)
        else:
            out.append(0 if a.shape[d - pad] == 1 and n != 1 else a.strides[d - pad])
    return out


def _collapse(shape: Sequence[int], strides: Sequence[Sequence[int]]
              ) -> tuple[list[int], list[list[int]]]:
    """Drop size-1 dimensions; merge neighbours contiguous for every operand."""
    keep = [d for d, n in enumerate(shape) if n != 1]
    shp = [shape[d] for d in keep]
    sts = [[s[d] for d in keep] for s in strides]
    out_shape: list[int] = []
    out_st: list[list[int]] = [[] for _ in strides]
    for d in range(len(shp)):
        if out_shape and all(st[-1] == s[d] * shp[d] for st, s in zip(out_st, sts, strict=True)):
            out_shape[-1] *= shp[d]
            for st, s in zip(out_st, sts, strict=True):
                st[-1] = s[d]
        else:
            out_shape.append(shp[d])
            for st, s in zip(out_st, sts, strict=True):
                st.append(s[d])
    return out_shape, out_st


def _launch(fn: Function, n: int, args: tuple, stream: Any = None) -> None:
    from ._kernels import grid_for
    from ._reduction import block_for

    if n > 0:
        block = block_for(n, _BLOCK)
        fn(grid_for(n, fn.module.device, block), block, args, stream=stream)


def _sized(fn: Function, size: int) -> Function:
    """The last parameter (the generated struct) by value with its size, which the GPU
    platforms do not report."""
    from ..runtime.kernel_args import ArgumentPacker, ParamSpec

    last = fn.params[-1]
    if last.kind == "opaque" and last.size == 0:
        fn.params = list(fn.params[:-1]) + [ParamSpec(last.name, last.type, "opaque", "", 1,
                                                      size, 8)]
        fn._packer = ArgumentPacker(fn.name, fn.params, fn.module.device)
    return fn


class _Cache:
    """Generated modules per type binding and device."""

    def __init__(self) -> None:
        self._mods: dict[tuple, Module] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple, make) -> Module:
        mod = self._mods.get(key)
        if mod is None:
            with self._lock:
                mod = self._mods.get(key)
                if mod is None:
                    mod = self._mods[key] = make()
        return mod


# ------------------------------------------------------------------------------------------
class ElementwiseKernel:
    """A user-defined elementwise kernel (CuPy's ``cupy.ElementwiseKernel``).

    ``in_params``/``out_params``: ``'[raw] type name, ...'``; ``operation``: C++ statements
    run for each element ``i`` of the broadcast shape, the inputs read by value, the outputs
    bound by reference, ``raw`` arrays as ``name[index]`` (flat C-order index, any strides) with
    ``name.size()``; ``name``: the kernel's name; ``preamble``: code before the kernel;
    ``loop_prep``/``after_loop``: code before/after the element's statements; ``options``:
    compiler options. Call with the inputs (then optionally the outputs) and ``size=`` when
    every array is raw; returns the output (a tuple for several).
    """

    def __init__(self, in_params: str, out_params: str, operation: str,
                 name: str = "kernel", reduce_dims: bool = True, options: Sequence[str] = (),
                 preamble: str = "", loop_prep: str = "", after_loop: str = "",
                 **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"ElementwiseKernel: unexpected arguments {sorted(kwargs)}")
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"ElementwiseKernel: {name!r} is not a valid kernel name")
        if not isinstance(operation, str):
            raise TypeError("ElementwiseKernel: operation must be a str of C++ code")
        self.in_params = parse_params(in_params, "in_params")
        self.out_params = parse_params(out_params, "out_params")
        if not self.out_params:
            raise ValueError("ElementwiseKernel needs at least one output parameter")
        clash = {p.name for p in self.in_params} & {p.name for p in self.out_params}
        if clash:
            raise ValueError(f"ElementwiseKernel: {sorted(clash)} both input and output")
        self.operation = operation
        self.name = name
        self.reduce_dims = reduce_dims
        self.options = tuple(options)
        self.preamble = preamble
        self.loop_prep = loop_prep
        self.after_loop = after_loop
        self._cache = _Cache()

    @property
    def nin(self) -> int:
        return len(self.in_params)

    @property
    def nout(self) -> int:
        return len(self.out_params)

    def _source(self, dtypes: list[np.dtype], kinds: list[str], ndim: int) -> tuple[str, int]:
        """The kernel text and its struct size. ``kinds``: 'b' broadcast array, 'r' raw
        array, 's' scalar per parameter."""
        params = self.in_params + self.out_params
        nb = kinds.count("b")
        nr = kinds.count("r")
        sig, body, bi, ri = [], [], 0, 0
        types: dict[str, str] = {}
        for p, dt, k in zip(params, dtypes, kinds, strict=True):
            c = ctype(dt)
            if p.placeholder:
                types[p.type] = c
            is_out = p in self.out_params
            if k == "s":
                sig.append(f"{c} {p.name}")
            elif k == "r":
                sig.append(f"char* _p_{p.name}")
                body.append(f"  _Raw<{c}> {p.name}(_p_{p.name}, _ind, {ri});")
                ri += 1
            else:
                sig.append(f"char* _p_{p.name}")
                if is_out:
                    body.append(f"  {c}& {p.name} = *({c}*)(_p_{p.name} + _off[{bi}]);")
                else:
                    body.append(f"  const {c} {p.name} = *(const {c}*)(_p_{p.name} + "
                                f"_off[{bi}]);")
                bi += 1
        typedefs = "".join(f"typedef {c} {t};\n" for t, c in sorted(types.items()))
        for k, (p, dt) in enumerate(zip(params, dtypes, strict=True)):
            role = f"in{k}" if k < self.nin else f"out{k - self.nin}"
            typedefs += f"typedef {ctype(dt)} type_{p.name};\n"
            del role
        text = (_template("custom_elementwise.hip")
                .replace("@NB@", str(max(nb, 1))).replace("@NR@", str(max(nr, 1)))
                .replace("@MAXDIM@", str(MAXDIM))
                .replace("@TYPEDEFS@", typedefs).replace("@PREAMBLE@", self.preamble)
                .replace("@NAME@", self.name).replace("@PARAMS@", ", ".join(sig))
                .replace("@BINDINGS@", "\n".join(body)).replace("@LOOP_PREP@", self.loop_prep)
                .replace("@OPERATION@", self.operation).replace("@AFTER_LOOP@",
                                                                 self.after_loop))
        size = _ind_struct(max(nb, 1), max(nr, 1)).size
        return text, size

    def __call__(self, *args: Any, size: int | None = None, stream: Any = None,
                 block_size: int | None = None) -> Any:
        del block_size
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f"{self.name}() takes {self.nin} input(s) (and optionally "
                            f"{self.nout} output(s)); {len(args)} given")
        ins = list(args[: self.nin])
        outs: list[Any] = list(args[self.nin:]) or [None] * self.nout
        for a in ins + outs:
            if a is not None and not _is_array(a) and not isinstance(
                    a, (bool, int, float, np.generic)):
                raise TypeError(f"{self.name}(): unsupported argument of type "
                                f"{type(a).__name__}")
        for p, a in zip(self.out_params, outs, strict=True):
            if a is not None and not _is_array(a):
                raise TypeError(f"{self.name}(): output {p.name!r} must be an array")
        devs = {a.device.id for a in ins + outs if _is_array(a)}
        if len(devs) > 1:
            raise ValueError(f"{self.name}(): arrays on different devices {sorted(devs)}")
        types: dict[str, np.dtype] = {}
        _bind(self.out_params, outs, types, self.name, False)
        _bind(self.in_params, ins, types, self.name, False)
        _bind(self.in_params, ins, types, self.name, True)
        params = self.in_params + self.out_params
        dtypes = [_resolve(p, types, self.name) for p in params]
        # broadcast shape over the non-raw arrays
        shapes = [tuple(a.shape) for p, a in zip(params, ins + outs, strict=True)
                  if a is not None and _is_array(a) and not p.raw]
        shape = _broadcast(shapes, self.name)
        if size is not None:
            if shapes:
                raise ValueError(f"{self.name}(): size= is for kernels whose arrays are all raw")
            shape = (int(size),)
        elif not shapes:
            if any(p.raw for p in params):
                raise ValueError(f"{self.name}(): every array is raw: give size=")
        dev = next((a.device for a in ins + outs if _is_array(a)), None) or get_device()
        # outputs
        for k, (p, a) in enumerate(zip(self.out_params, outs, strict=True)):
            dt = dtypes[self.nin + k]
            if a is None:
                outs[k] = empty_array(shape, dt, dev)
            else:
                if np.dtype(a.dtype) != dt:
                    raise TypeError(f"{self.name}(): output {p.name!r} is {a.dtype}, the kernel "
                                    f"writes {dt}")
                if not p.raw and tuple(a.shape) != shape:
                    raise ValueError(f"{self.name}(): output {p.name!r} has shape {a.shape}, "
                                     f"the broadcast shape is {shape}")
        # inputs: arrays cast to their declared type
        values: list[Any] = []
        for p, a, dt in zip(params, ins + outs, dtypes, strict=True):
            if _is_array(a):
                a = _as_nd(a)
                if np.dtype(a.dtype) != dt:
                    if p.raw:
                        raise TypeError(f"{self.name}(): raw {p.name!r} is {a.dtype}, declared "
                                        f"{dt}")
                    a = a.astype(dt)
            values.append(a)
        kinds = ["s" if not _is_array(v) else ("r" if p.raw else "b")
                 for p, v in zip(params, values, strict=True)]
        bvals = [v for v, k in zip(values, kinds, strict=True) if k == "b"]
        rvals = [v for v, k in zip(values, kinds, strict=True) if k == "r"]
        cshape, cst = _collapse(shape, [_bstrides(v, shape) for v in bvals])
        if not self.reduce_dims:
            cshape, cst = list(shape), [_bstrides(v, shape) for v in bvals]
            cshape = cshape or [1]
            cst = [s or [0] for s in cst]
        if len(cshape) > MAXDIM:
            raise ValueError(f"{self.name}(): more than {MAXDIM} dimensions after merging")
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        key = (dev.id, tuple(d.str for d in dtypes), tuple(kinds), len(cshape))

        def make() -> Module:
            text, _ = self._source(dtypes, kinds, len(cshape))
            return Module(text, options=self.options, name=f"{self.name}.hip", device=dev)

        mod = self._cache.get(key, make)
        fn = _sized(mod.get_function(self.name),
                    _ind_struct(max(len(bvals), 1), max(len(rvals), 1)).size)
        packed = _pack_ind(n, cshape, cst, rvals, max(len(bvals), 1), max(len(rvals), 1))
        kargs = []
        for v, k in zip(values, kinds, strict=True):
            kargs.append(v if k != "s" else v)
        _launch(fn, n, (*kargs, packed), stream)
        return outs[0] if self.nout == 1 else tuple(outs)


def _ind_struct(nb: int, nr: int) -> struct.Struct:
    # n, ndim, shape[MAXDIM], st[nb][MAXDIM], rsize[nr], rndim[nr], rshape[nr][MAXDIM],
    # rst[nr][MAXDIM]
    return struct.Struct("<2q" + "q" * (MAXDIM + nb * MAXDIM + 2 * nr + 2 * nr * MAXDIM))


def _pack_ind(n: int, shape: Sequence[int], strides: Sequence[Sequence[int]],
              raws: Sequence[ndarray], nb: int, nr: int) -> bytes:
    pad = [0] * MAXDIM

    def fill(v: Sequence[int]) -> list[int]:
        return (list(v) + pad)[:MAXDIM]

    vals = [n, len(shape)] + fill(shape)
    for k in range(nb):
        vals += fill(strides[k]) if k < len(strides) else pad
    rs = [r.size for r in raws] + [0] * (nr - len(raws))
    rd = [r.ndim for r in raws] + [0] * (nr - len(raws))
    vals += rs + rd
    for k in range(nr):
        vals += fill(raws[k].shape) if k < len(raws) else pad
    for k in range(nr):
        vals += fill(raws[k].strides) if k < len(raws) else pad
    return _ind_struct(nb, nr).pack(*vals)


# ------------------------------------------------------------------------------------------
class ReductionKernel:
    """A user-defined reduction kernel (CuPy's ``cupy.ReductionKernel``).

    ``map_expr`` maps each element (the input parameters by name) to the reduction type;
    ``reduce_expr`` combines two values ``a`` and ``b``; ``post_map_expr`` writes the output
    from the reduced ``a``; ``identity`` is the initial value (None: the reduction starts
    from the first element, and an empty one is an error); ``reduce_type`` the C++ type of
    ``a``/``b`` (default: the first output's). Call as ``k(x, ..., axis=None,
    keepdims=False, out=None)``: the inputs broadcast, ``axis`` is reduced.
    """

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str,
                 post_map_expr: str, identity: str | None, name: str = "reduce_kernel",
                 reduce_type: str | None = None, reduce_dims: bool = True,
                 options: Sequence[str] = (), preamble: str = "", **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"ReductionKernel: unexpected arguments {sorted(kwargs)}")
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"ReductionKernel: {name!r} is not a valid kernel name")
        for what, v in (("map_expr", map_expr), ("reduce_expr", reduce_expr),
                        ("post_map_expr", post_map_expr)):
            if not isinstance(v, str):
                raise TypeError(f"ReductionKernel: {what} must be a str of C++ code")
        self.in_params = parse_params(in_params, "in_params")
        self.out_params = parse_params(out_params, "out_params")
        if any(p.raw for p in self.in_params + self.out_params):
            raise ValueError("ReductionKernel: raw parameters are not supported")
        if not self.out_params:
            raise ValueError("ReductionKernel needs an output parameter")
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = identity
        self.name = name
        self.reduce_type = reduce_type
        self.reduce_dims = reduce_dims
        self.options = tuple(options)
        self.preamble = preamble
        self._cache = _Cache()

    def _source(self, dtypes: list[np.dtype], kinds: list[str], nin_arrays: int) -> str:
        params = self.in_params + self.out_params
        sig, loads, outs_bind, types = [], [], [], {}
        ai, oi = 0, 0
        for p, dt, k in zip(params, dtypes, kinds, strict=True):
            c = ctype(dt)
            if p.placeholder:
                types[p.type] = c
            if p in self.out_params:
                sig.append(f"char* _p_{p.name}")
                outs_bind.append(f"    {c}& {p.name} = *({c}*)(_p_{p.name} + _ooff[{oi}]);")
                oi += 1
            elif k == "s":
                sig.append(f"{c} {p.name}")
            else:
                sig.append(f"char* _p_{p.name}")
                loads.append(f"      const {c} {p.name} = *(const {c}*)(_p_{p.name} + "
                             f"_off[{ai}]);")
                ai += 1
        rtype = self.reduce_type or ctype(dtypes[len(self.in_params)])
        if self.reduce_type and len(self.reduce_type) == 1 and self.reduce_type in types:
            rtype = types[self.reduce_type]
        typedefs = "".join(f"typedef {c} {t};\n" for t, c in sorted(types.items()))
        for p, dt in zip(params, dtypes, strict=True):
            typedefs += f"typedef {ctype(dt)} type_{p.name};\n"
        ident = self.identity
        return (_template("custom_reduction.hip")
                .replace("@NA@", str(max(nin_arrays, 1))).replace("@NO@", str(len(self.out_params)))
                .replace("@MAXDIM@", str(MAXDIM)).replace("@TYPEDEFS@", typedefs)
                .replace("@REDUCE_TYPE@", rtype).replace("@PREAMBLE@", self.preamble)
                .replace("@NAME@", self.name).replace("@PARAMS@", ", ".join(sig))
                .replace("@OUT_PARAMS@", ", ".join(f"char* _p_{p.name}"
                                                    for p in self.out_params))
                .replace("@LOADS@", "\n".join(loads)).replace("@OUTS@", "\n".join(outs_bind))
                .replace("@MAP@", self.map_expr).replace("@REDUCE@", self.reduce_expr)
                .replace("@POST_MAP@", self.post_map_expr)
                .replace("@HAS_IDENTITY@", "0" if ident is None else "1")
                .replace("@IDENTITY@", "0" if ident is None else str(ident)))

    def __call__(self, *args: Any, axis: Any = None, keepdims: bool = False, out: Any = None,
                 stream: Any = None) -> Any:
        nin, nout = len(self.in_params), len(self.out_params)
        if len(args) not in (nin, nin + nout):
            raise TypeError(f"{self.name}() takes {nin} input(s); {len(args)} given")
        ins = list(args[:nin])
        outs: list[Any] = list(args[nin:]) or [None] * nout
        if out is not None:
            if nout != 1 or args[nin:]:
                raise TypeError(f"{self.name}(): out= is for a kernel with one output, not "
                                f"given twice")
            outs = [out]
        for p, a in zip(self.out_params, outs, strict=True):
            if a is not None and not _is_array(a):
                raise TypeError(f"{self.name}(): output {p.name!r} must be an array")
        types: dict[str, np.dtype] = {}
        _bind(self.out_params, outs, types, self.name, False)
        _bind(self.in_params, ins, types, self.name, False)
        _bind(self.in_params, ins, types, self.name, True)
        params = self.in_params + self.out_params
        dtypes = [_resolve(p, types, self.name) for p in params]
        values = []
        for a, dt in zip(ins, dtypes[:nin], strict=True):
            if _is_array(a):
                a = _as_nd(a)
                if np.dtype(a.dtype) != dt:
                    a = a.astype(dt)
            elif not isinstance(a, (bool, int, float, np.generic)):
                raise TypeError(f"{self.name}(): unsupported argument {type(a).__name__}")
            values.append(a)
        arrays = [v for v in values if _is_array(v)]
        if not arrays:
            raise TypeError(f"{self.name}() needs at least one array input")
        devs = {a.device.id for a in arrays} | {a.device.id for a in outs if a is not None}
        if len(devs) > 1:
            raise ValueError(f"{self.name}(): arrays on different devices {sorted(devs)}")
        dev = arrays[0].device
        shape = _broadcast([tuple(a.shape) for a in arrays], self.name)
        axes = normalize_axis(axis, len(shape))
        out_shape = tuple((1 if d in axes else n) for d, n in enumerate(shape)) if keepdims \
            else tuple(n for d, n in enumerate(shape) if d not in axes)
        kept_shape = tuple(n for d, n in enumerate(shape) if d not in axes)
        for k, (p, a) in enumerate(zip(self.out_params, outs, strict=True)):
            dt = dtypes[nin + k]
            if a is None:
                outs[k] = empty_array(out_shape, dt, dev)
            else:
                if np.dtype(a.dtype) != dt:
                    raise TypeError(f"{self.name}(): output {p.name!r} is {a.dtype}, the kernel "
                                    f"writes {dt}")
                if tuple(a.shape) != out_shape:
                    raise ValueError(f"{self.name}(): output {p.name!r} has shape {a.shape}; "
                                     f"the reduction gives {out_shape}")
        outs = [_as_nd(o) for o in outs]
        n_out = int(np.prod(kept_shape, dtype=np.int64)) if kept_shape else 1
        n_red = int(np.prod([shape[d] for d in axes], dtype=np.int64)) if axes else 1
        if n_red == 0 and self.identity is None and n_out:
            raise ValueError(f"{self.name}(): zero-size reduction without an identity")
        # per-array byte strides over (kept dims..., reduced dims...), dims of size 1 dropped
        bst = [_bstrides(a, shape) for a in arrays]
        kept = [d for d in range(len(shape)) if d not in axes and shape[d] != 1]
        red = [d for d in axes if shape[d] != 1] or []
        ost = []
        for o in outs:
            full = list(o.strides)
            if not keepdims:  # out's dims are the kept dims in order
                it = iter(full)
                full = [0 if d in axes else next(it) for d in range(len(shape))]
            ost.append([full[d] for d in kept])
        if len(kept) > MAXDIM or len(red) > MAXDIM:
            raise ValueError(f"{self.name}(): more than {MAXDIM} kept or reduced dimensions")
        parts = 1
        if n_out and n_red >= 2 * 16384:
            parts = max(1, min(n_red // 16384, 4096 // n_out, shape[red[0]] if red else 1))
        kinds = ["s" if not _is_array(v) else "b" for v in values] + ["o"] * nout
        key = (dev.id, tuple(d.str for d in dtypes), tuple(kinds))

        def make() -> Module:
            return Module(self._source(dtypes, kinds, len(arrays)), options=self.options,
                          name=f"{self.name}.hip", device=dev)

        mod = self._cache.get(key, make)
        st = _red_struct(max(len(arrays), 1), nout)
        pack = st.pack(n_out, parts, len(kept), len(red),
                       *_fill([shape[d] for d in kept]), *_fill([shape[d] for d in red]),
                       *[x for k in range(max(len(arrays), 1)) for x in _fill(
                           [bst[k][d] for d in kept] if k < len(bst) else [])],
                       *[x for k in range(max(len(arrays), 1)) for x in _fill(
                           [bst[k][d] for d in red] if k < len(bst) else [])],
                       *[x for k in range(nout) for x in _fill(ost[k])])
        if n_out == 0:
            return outs[0] if nout == 1 else tuple(outs)
        f1 = _sized(mod.get_function(f"{self.name}"), st.size)
        if parts == 1:
            _launch(f1, n_out, (*values, *outs, None, None, pack), stream)
        else:
            # partials: 16 bytes a slot (the template asserts the reduce type fits)
            part = scratch(n_out * parts * 16, np.uint8, dev)
            have = scratch(n_out * parts, np.uint8, dev)
            _launch(f1, n_out * parts, (*values, *outs, part, have, pack), stream)
            f2 = _sized(mod.get_function(f"{self.name}_combine"), st.size)
            _launch(f2, n_out, (*outs, part, have, pack), stream)
        return outs[0] if nout == 1 else tuple(outs)


def _fill(v: Sequence[int]) -> list[int]:
    return (list(v) + [0] * MAXDIM)[:MAXDIM]


def _red_struct(na: int, no: int) -> struct.Struct:
    # n_out, parts, nk, nr, kn[MAXDIM], rn[MAXDIM], ks[na][MAXDIM], rs[na][MAXDIM],
    # os[no][MAXDIM]
    return struct.Struct("<4q" + "q" * (2 * MAXDIM + 2 * na * MAXDIM + no * MAXDIM))


# ------------------------------------------------------------------------------------------
class RawModule(Module):
    """HIP (or CUDA: ``language='cuda'``) source as a module, under CuPy's signature:
    ``RawModule(code=..., options=(), name_expressions=None)``; ``get_function(name)``.
    ``path=`` reads the source from a file; ``backend``, ``translate_cucomplex`` and
    ``jitify`` are accepted for compatibility (one compiler per platform; hipify maps
    cuComplex)."""

    def __init__(self, code: str | None = None, *, path: str | None = None,
                 options: Sequence[str] = (), backend: str = "nvrtc",
                 translate_cucomplex: bool = False, enable_cooperative_groups: bool = False,
                 name_expressions: Sequence[str] | None = None, jitify: bool = False,
                 language: str = "hip") -> None:
        del backend, translate_cucomplex, enable_cooperative_groups, jitify
        if (code is None) == (path is None):
            raise TypeError("RawModule: give exactly one of code= and path=")
        if path is not None:
            code = Path(path).read_text(encoding="utf-8")
        super().__init__(code, options=tuple(options), name_expressions=tuple(
            name_expressions or ()), language=language)


class RawKernel(Function):
    """One kernel of HIP source, under CuPy's signature: ``RawKernel(code, name,
    options=())``; call ``kernel(grid, block, args, shared_mem=0, stream=None)``."""

    def __init__(self, code: str, name: str, options: Sequence[str] = (),
                 backend: str = "nvrtc", translate_cucomplex: bool = False, *,
                 enable_cooperative_groups: bool = False, jitify: bool = False,
                 language: str = "hip") -> None:
        del backend, translate_cucomplex, enable_cooperative_groups, jitify
        module = Module(code, options=tuple(options), language=language)
        super().__init__(module, name)
        self.code = code
        self.options = tuple(options)

    @property
    def kernel(self) -> Function:
        return self
