"""Searching functions: argmax, argmin, nonzero, count_nonzero, searchsorted.

``argmax``/``argmin`` and ``count_nonzero`` are reductions (``kernels/reduce.hip``);
``nonzero`` counts per chunk, scans the counts and writes coordinates
(``kernels/search.hip``) — its result size is the one value read back to the host;
``searchsorted`` is a binary search per element of ``x2``. ``where`` lives with the
elementwise functions.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from ._array import empty_array, ndarray
from ._reduction import (
    MAXDIM,
    argreduce_into,
    by_value,
    canonical,
    ctype,
    launch_1d,
    load,
    normalize_axis,
    reduce_into,
    scratch,
)
from ._statistics import _elem_strides, _out_shape, prepare

__all__ = ["argmax", "argmin", "nonzero", "count_nonzero", "searchsorted"]

_ND = struct.Struct("<4q" + "q" * (2 * MAXDIM))
by_value("OhNd", _ND.size)
_CHUNK = 8192
_MAX_CHUNKS = 4096


def _arg(x: Any, axis: Any, keepdims: bool, op: str) -> ndarray:
    x = prepare(x, op)
    if x.dtype.kind == "c":
        raise TypeError(f"{op}() is not defined for complex arrays ({x.dtype})")
    if isinstance(axis, tuple):
        raise TypeError(f"{op}(): axis must be an int or None, not a tuple")
    axes = normalize_axis(axis, x.ndim)
    if any(x.shape[d] == 0 for d in axes) or (axis is None and x.size == 0):
        raise ValueError(f"attempt to get {op} of an empty sequence")
    c = canonical(x.shape, _elem_strides(x), axes, keep_order=True)
    out = empty_array(_out_shape(x, axes, keepdims), np.dtype(np.int64), x.device)
    argreduce_into(x, c, x.dtype, out, op, device=x.device)
    return out


def argmax(x: Any, /, *, axis: int | None = None, keepdims: bool = False) -> ndarray:
    """Index (int64) of the first maximum along ``axis`` (flattened C order when None); a NaN
    counts as the maximum (numpy's rule)."""
    return _arg(x, axis, keepdims, "argmax")


def argmin(x: Any, /, *, axis: int | None = None, keepdims: bool = False) -> ndarray:
    """Index (int64) of the first minimum along ``axis``; a NaN counts as the minimum."""
    return _arg(x, axis, keepdims, "argmin")


def count_nonzero(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> ndarray:
    """Number (int64) of nonzero elements over ``axis`` (NaN counts as nonzero)."""
    x = prepare(x, "count_nonzero")
    axes = normalize_axis(axis, x.ndim)
    c = canonical(x.shape, _elem_strides(x), axes)
    i64 = np.dtype(np.int64)
    out = empty_array(_out_shape(x, axes, keepdims), i64, x.device)
    reduce_into(x, c, x.dtype, out, i64, "count_nonzero", i64, device=x.device)
    return out


def _nd(x: ndarray) -> tuple[bytes, int]:
    shape = [int(n) for n in x.shape] or [1]
    strides = _elem_strides(x) or [0]
    if len(shape) > MAXDIM:
        raise ValueError(f"nonzero() supports at most {MAXDIM} dimensions")
    n = int(np.prod(shape, dtype=np.int64))
    nchunks = max(1, min(_MAX_CHUNKS, -(-n // _CHUNK)))
    chunk = -(-n // nchunks) if n else 1
    pad = [0] * MAXDIM
    return _ND.pack(len(shape), n, chunk, nchunks, *(shape + pad)[:MAXDIM],
                    *(strides + pad)[:MAXDIM]), nchunks


def nonzero(x: Any, /) -> tuple[ndarray, ...]:
    """The indices of the nonzero elements, one int64 array per dimension (C order).
    Reads one count back to the host (the result's size)."""
    x = prepare(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero() of a 0-d array is not allowed (the standard and numpy "
                         "2 refuse it); use atleast_1d / reshape first")
    ct = ctype(x.dtype)
    exprs = [f"nz_count<{ct}>", f"nz_write<{ct}>", "nz_scan"]
    mod = load("search.hip", f"nonzero-{x.dtype.name}", exprs, device=x.device)
    args, nchunks = _nd(x)
    counts = scratch(nchunks + 1, np.int64, x.device)
    if x.size:
        launch_1d(mod.get_function(exprs[0]), nchunks, (x, counts, args))
        launch_1d(mod.get_function(exprs[2]), 1, (counts, nchunks))
        host = np.empty(nchunks + 1, np.int64)
        counts.get(out=host)
        total = int(host[nchunks])
    else:
        total = 0
    out = empty_array((x.ndim, total), np.dtype(np.int64), x.device)
    if total:
        launch_1d(mod.get_function(exprs[1]), nchunks, (x, counts, out, total, args))
    return tuple(out._view_as((total,), (8,), d * total * 8) for d in range(x.ndim))


def searchsorted(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> ndarray:
    """Indices (int64) where the elements of ``x2`` would be inserted into the sorted 1-D
    ``x1`` (through ``sorter``, the indices that sort it, if given) to keep it sorted;
    ``side`` 'left' gives the first such place, 'right' the last. NaNs sort last."""
    from ._dtypes import result_type

    x1 = prepare(x1, "searchsorted")
    x2 = prepare(x2, "searchsorted")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', not {side!r}")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted(): x1 must be 1-D, not {x1.ndim}-D")
    if x1.dtype.kind == "c" or x2.dtype.kind == "c":
        raise TypeError("searchsorted() does not take complex arrays")
    if x1.device is not x2.device:
        raise ValueError("searchsorted(): x1 and x2 are on different devices")
    dt = result_type(x1, x2)
    a = x1.astype(dt, copy=False) if x1.dtype != dt else x1
    b = x2.astype(dt, copy=False) if x2.dtype != dt else x2
    a = a if a.flags_c_contiguous else a._ascontiguous()
    b = b if b.flags_c_contiguous else b._ascontiguous()
    srt = None
    if sorter is not None:
        srt = prepare(sorter, "searchsorted")
        if srt.shape != x1.shape or srt.dtype.kind not in "iu":
            raise ValueError("searchsorted(): sorter must be an integer array of x1's shape")
        if srt.dtype != np.int64:
            srt = srt.astype(np.int64)
        srt = srt if srt.flags_c_contiguous else srt._ascontiguous()
    ct = ctype(dt)
    exprs = [f"searchsorted<{ct},{r},{s}>" for r in ("false", "true") for s in ("false", "true")]
    mod = load("search.hip", f"searchsorted-{dt.name}", exprs, device=x1.device)
    out = empty_array(tuple(x2.shape), np.dtype(np.int64), x1.device)
    fn = mod.get_function(f"searchsorted<{ct},{'true' if side == 'right' else 'false'},"
                          f"{'true' if srt is None else 'false'}>")
    launch_1d(fn, b.size, (a, srt, b, out, a.size, b.size))
    return out
