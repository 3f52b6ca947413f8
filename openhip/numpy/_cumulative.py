"""Cumulative sums and products: ``cumulative_sum``, ``cumulative_prod`` (Array API 2024.12).

Inclusive scans along one axis (``kernels/scan.hip``), on the input as it lies in memory.
A long row is scanned in three launches (part totals, their exclusive scan, the parts again
from their carries); rows along a non-contiguous axis whose neighbours are contiguous (axis 0
of a C-contiguous matrix) advance 16 at a time. The parts depend on the shapes only. Result
dtypes as ``sum``/``prod`` (:func:`openhip.numpy._reduction.sum_dtype`); ``include_initial``
prepends the identity (0 or 1) to every row.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from ._array import c_strides, empty_array, ndarray
from ._reduction import (
    MAXDIM,
    acc_dtype,
    by_value,
    ctype,
    launch_1d,
    load,
    normalize_axis,
    scratch,
    sum_dtype,
)
from ._statistics import _dtype_arg, prepare

__all__ = ["cumulative_sum", "cumulative_prod"]

_SCAN = struct.Struct("<7q" + "q" * (3 * MAXDIM))
by_value("OhScan", _SCAN.size)
_PART_MIN = 16384
_THREADS_WANTED = 4096


def _exprs(op: str, ti: np.dtype, acc: np.dtype, to: np.dtype) -> list[str]:
    o = "Sum" if op == "sum" else "Prod"
    ci, ca, co = ctype(ti), ctype(acc), ctype(to)
    s1 = f"{o}<{ci},{ca}>"
    return [f"scan_rows<{s1},{ci},{co}>", f"scan_cols<{s1},{ci},{co}>",
            f"scan_carry<{s1}>"]


def _scan(x: Any, axis: Any, dtype: Any, include_initial: Any, op: str) -> ndarray:
    name = f"cumulative_{op}"
    x = prepare(x, name)
    if x.dtype.kind not in "biufc" and x.dtype.name != "bfloat16":
        raise TypeError(f"{name}(): unsupported dtype {x.dtype}")
    if not isinstance(include_initial, (bool, np.bool_)):
        raise TypeError(f"{name}(): include_initial must be a bool")
    if x.ndim == 0:
        raise ValueError(f"{name}() needs an array of at least one dimension")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}(): axis must be given for an array of {x.ndim} "
                             f"dimensions")
        axis = 0
    if isinstance(axis, tuple):
        raise TypeError(f"{name}(): axis must be an int, not a tuple")
    (ax,) = normalize_axis(axis, x.ndim)
    dt = _dtype_arg(dtype, name) or sum_dtype(x.dtype)
    acc = acc_dtype(dt)
    length = x.shape[ax]
    out_shape = tuple(n + (1 if d == ax and include_initial else 0)
                      for d, n in enumerate(x.shape))
    out = empty_array(out_shape, dt, x.device)
    if out.size == 0:
        return out
    item, oitem = x.dtype.itemsize, dt.itemsize
    ostr = [s // oitem for s in c_strides(out_shape, oitem)]
    istr = [s // item for s in x.strides]
    kept: list[list[int]] = []
    for d in range(x.ndim):
        if d == ax or x.shape[d] == 1:
            continue
        n, si, so = x.shape[d], istr[d], ostr[d]
        if kept and kept[-1][1] == si * n and kept[-1][2] == so * n:
            kept[-1] = [kept[-1][0] * n, si, so]
        else:
            kept.append([n, si, so])
    if len(kept) > MAXDIM:
        raise ValueError(f"{name}(): the array's layout does not merge to {MAXDIM} dimensions")
    n_rows = int(np.prod([k[0] for k in kept], dtype=np.int64)) if kept else 1
    sa, so = istr[ax], ostr[ax]
    cols = bool(kept) and kept[-1][1] == 1 and kept[-1][2] == 1 and sa != 1
    parts = 1
    if not cols and length > 0:
        parts = max(1, min(length // _PART_MIN, _THREADS_WANTED // n_rows))

    def pack(p: int) -> bytes:
        pad = [0] * MAXDIM
        col = [([k[i] for k in kept] + pad)[:MAXDIM] for i in range(3)]
        return _SCAN.pack(len(kept), n_rows, p, length, sa, so, int(bool(include_initial)),
                          *col[0], *col[1], *col[2])

    exprs = _exprs(op, x.dtype, acc, dt)
    mod = load("scan.hip", f"scan-{op}-{x.dtype.name}-{dt.name}", exprs, device=x.device)
    if cols:
        inner = kept[-1][0]
        launch_1d(mod.get_function(exprs[1]), (n_rows // inner) * -(-inner // 16),
                  (x, out, pack(1)))
        return out
    rows = mod.get_function(exprs[0])
    if parts == 1:
        launch_1d(rows, n_rows, (x, out, None, None, pack(1)))
        return out
    carry = scratch(n_rows * parts, acc, x.device)
    launch_1d(rows, n_rows * parts, (x, out, None, carry, pack(parts)))
    launch_1d(mod.get_function(exprs[2]), n_rows, (carry, n_rows, parts))
    launch_1d(rows, n_rows * parts, (x, out, carry, None, pack(parts)))
    return out


def cumulative_sum(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> ndarray:
    """Cumulative sum along ``axis`` (may be omitted for a 1-D array)."""
    return _scan(x, axis, dtype, include_initial, "sum")


def cumulative_prod(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                    include_initial: bool = False) -> ndarray:
    """Cumulative product along ``axis`` (may be omitted for a 1-D array)."""
    return _scan(x, axis, dtype, include_initial, "prod")
