"""Sorting: ``sort`` and ``argsort`` (stable, ascending or descending, along any axis).

A least-significant-digit radix sort over 8-bit digits (``kernels/sort.hip``): the elements
become unsigned keys whose order is the sort order (floats: sign-flipped bits, every NaN the
largest key, so NaNs sort last in both directions as numpy's sort puts them), then each pass
counts digits per chunk, scans the counts and scatters every chunk in order — stable, and the
same result whatever the thread count. Sorting along an axis sorts all rows at once: the row
number is the most significant key (extra passes over the argsort payload). ``argsort`` makes
-0.0 equal to +0.0 so the permutation is exactly numpy's stable one; ``sort`` returns the
values themselves (a -0.0 before an equal +0.0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import empty_array, ndarray
from ._reduction import ctype, launch_1d, load, normalize_axis, scratch
from ._statistics import prepare

__all__ = ["sort", "argsort"]

_KEY = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
        8: np.dtype(np.uint64)}
_CHUNK_MIN = 4096
_MAX_CHUNKS = 1024


def _check_sortable(x: ndarray, name: str) -> None:
    if x.dtype.kind == "c":
        raise TypeError(f"{name}() does not sort complex arrays ({x.dtype}): the standard "
                        f"defines no order for them")
    if x.dtype.kind not in "biuf" and x.dtype.name != "bfloat16":
        raise TypeError(f"{name}(): unsupported dtype {x.dtype}")


def _exprs(dt: np.dtype, kdt: np.dtype, vdt: np.dtype) -> list[str]:
    ct, ck, cv = ctype(dt), ctype(kdt), ctype(vdt)
    out = [f"keyify<{ct},{ck},false>", f"keyify<{ct},{ck},true>", f"unkey<{ct},{ck}>",
           f"iota<{cv}>", f"widen<{cv}>", "offsets_total", "offsets_scan"]
    for row in ("false", "true"):
        out.append(f"hist<{ck},{cv},{row}>")
        for has in ("false", "true"):
            if row == "true" and has == "false":
                continue
            out.append(f"scatter<{ck},{cv},{row},{has}>")
    return out


def _radix(mod: Any, keys: Any, vals: Any, n: int, kdt: np.dtype, vdt: np.dtype,
           rows: int, row_len: int, device: Any) -> tuple[Any, Any]:
    """Sort ``keys`` (with payload ``vals`` if not None) in place order; returns the buffers
    holding the result (the inputs or their alternates)."""
    ck, cv = ctype(kdt), ctype(vdt)
    nchunks = max(1, min(_MAX_CHUNKS, -(-n // _CHUNK_MIN)))
    chunk = -(-n // nchunks)
    counts = scratch(256 * nchunks, np.uint32, device)
    totals = scratch(256, np.uint64, device)
    offs = scratch(256 * nchunks, np.uint64, device)
    k2 = scratch(n, kdt, device)
    v2 = scratch(n, vdt, device) if vals is not None else None
    has = "true" if vals is not None else "false"
    passes: list[tuple[str, int]] = [("false", s) for s in range(0, kdt.itemsize * 8, 8)]
    if rows > 1:
        passes += [("true", s) for s in range(0, int(rows - 1).bit_length(), 8)]
    total_fn = mod.get_function("offsets_total")
    scan_fn = mod.get_function("offsets_scan")
    for row, shift in passes:
        h = mod.get_function(f"hist<{ck},{cv},{row}>")
        sc = mod.get_function(f"scatter<{ck},{cv},{row},{has}>")
        launch_1d(h, nchunks, (keys, vals, counts, n, chunk, nchunks, shift, row_len))
        launch_1d(total_fn, 256, (counts, totals, nchunks))
        launch_1d(scan_fn, 256, (counts, totals, offs, nchunks))
        launch_1d(sc, nchunks, (keys, k2, vals, v2, offs, n, chunk, nchunks, shift, row_len))
        keys, k2 = k2, keys
        vals, v2 = v2, vals
    return keys, vals


def _rows_last(x: ndarray, axis: int) -> tuple[ndarray, tuple[int, ...]]:
    """A C-contiguous array with ``axis`` moved last, and the permutation used."""
    perm = tuple(d for d in range(x.ndim) if d != axis) + (axis,)
    v = x._view_as(tuple(x.shape[d] for d in perm), tuple(x.strides[d] for d in perm))
    return (v if v.flags_c_contiguous else v._ascontiguous()), perm


def _unpermute(y: ndarray, perm: tuple[int, ...]) -> ndarray:
    inv = [0] * len(perm)
    for i, d in enumerate(perm):
        inv[d] = i
    if list(perm) == sorted(perm):
        return y
    return y._view_as(tuple(y.shape[i] for i in inv), tuple(y.strides[i] for i in inv))


def sort_flat(x: ndarray, descending: bool, want_values: bool, want_indices: bool,
              row_len: int | None = None) -> tuple[ndarray | None, ndarray | None]:
    """Sort a C-contiguous ``x`` (flat, or rows of ``row_len``): (values, int64 indices
    within each row), each None when not wanted. With indices wanted, -0.0 sorts as +0.0
    (and the values come back as +0.0)."""
    dev = x.device
    n = x.size
    rows = 1 if not row_len else n // row_len
    row_len = row_len or max(n, 1)
    kdt = _KEY[x.dtype.itemsize]
    vdt = np.dtype(np.uint32) if n < 2**32 else np.dtype(np.uint64)
    mod = load("sort.hip", f"sort-{x.dtype.name}", _exprs(x.dtype, kdt, vdt), device=dev)
    ct, ck, cv = ctype(x.dtype), ctype(kdt), ctype(vdt)
    values = empty_array(tuple(x.shape), x.dtype, dev) if want_values else None
    indices = empty_array(tuple(x.shape), np.dtype(np.int64), dev) if want_indices else None
    if n == 0:
        return values, indices
    keys = scratch(n, kdt, dev)
    arg = "true" if want_indices else "false"
    launch_1d(mod.get_function(f"keyify<{ct},{ck},{arg}>"), n, (x, keys, n, int(descending)))
    vals = None
    if want_indices or rows > 1:
        vals = scratch(n, vdt, dev)
        launch_1d(mod.get_function(f"iota<{cv}>"), n, (vals, n))
    keys, vals = _radix(mod, keys, vals, n, kdt, vdt, rows, row_len, dev)
    if want_values:
        launch_1d(mod.get_function(f"unkey<{ct},{ck}>"), n, (keys, values, n, int(descending)))
    if want_indices:
        launch_1d(mod.get_function(f"widen<{cv}>"), n, (vals, indices, n, row_len))
    return values, indices


def _sort_common(x: Any, axis: Any, descending: Any, stable: Any, name: str,
                 indices: bool) -> ndarray:
    x = prepare(x, name)
    _check_sortable(x, name)
    for flag, what in ((descending, "descending"), (stable, "stable")):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name}(): {what} must be a bool, not {type(flag).__name__}")
    if isinstance(axis, tuple) or axis is None:
        raise TypeError(f"{name}(): axis must be an int, not {axis!r}")
    (ax,) = normalize_axis(axis, x.ndim)
    rows_last, perm = _rows_last(x, ax)
    vals, idx = sort_flat(rows_last, bool(descending), not indices, indices,
                          row_len=x.shape[ax] if x.ndim > 1 else None)
    return _unpermute(idx if indices else vals, perm)


def sort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True
         ) -> ndarray:
    """The elements of ``x`` sorted along ``axis`` (stable; NaNs last)."""
    return _sort_common(x, axis, descending, stable, "sort", indices=False)


def argsort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True
            ) -> ndarray:
    """The indices (int64) that sort ``x`` along ``axis``: numpy's stable permutation
    (ties keep their order; in descending order too)."""
    return _sort_common(x, axis, descending, stable, "argsort", indices=True)
