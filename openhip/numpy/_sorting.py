"""Sorting: ``sort`` and ``argsort`` (stable, ascending or descending, along any axis).

A least-significant-digit radix sort over 8-bit digits (``kernels/sort.hip``): the elements
become unsigned keys whose order is the sort order (floats: sign-flipped bits, every NaN the
largest key, so NaNs sort last in both directions as numpy's sort puts them), then each pass
counts digits per chunk, scans the counts and scatters every chunk in order — stable, and the
same result whatever the thread count. The first pass's histogram launch writes the keys
(no separate launch), its scatter makes the indices, the last pass writes the results
(values, indices) directly, and a pass whose digit is the same for every element is skipped
on the device. Sorting along an axis sorts all rows at once: the row
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
_CHUNK_MIN = 32768   # elements per chunk (one thread of a pass) at least
_MAX_CHUNKS = 64     # chunks at most: each has 256 slots per pass, chunk-major


def _check_sortable(x: ndarray, name: str) -> None:
    if x.dtype.kind == "c":
        raise TypeError(f"{name}() does not sort complex arrays ({x.dtype}): the standard "
                        f"defines no order for them")
    if x.dtype.kind not in "biuf" and x.dtype.name != "bfloat16":
        raise TypeError(f"{name}(): unsupported dtype {x.dtype}")


def _passes(kdt: np.dtype, rows: int) -> list[tuple[bool, int]]:
    """The passes of a sort: (row key, shift) each, least significant first."""
    out = [(False, s) for s in range(0, kdt.itemsize * 8, 8)]
    if rows > 1:
        out += [(True, s) for s in range(0, int(rows - 1).bit_length(), 8)]
    return out


def _scatter_expr(ct: str, ck: str, cv: str, first: bool, last: bool, row: bool,
                  has: bool) -> str:
    b = {True: "true", False: "false"}
    return f"scatter<{ct},{ck},{cv},{b[first]},{b[last]},{b[row]},{b[has]}>"


def _exprs(dt: np.dtype, kdt: np.dtype, vdt: np.dtype) -> list[str]:
    """Every kernel of the sort family of ``dt`` (keys ``kdt``, payload ``vdt``): the first
    pass's histogram (by value / by index), later passes' (key / row digit), the offsets, and
    each scatter kind a sort can use (first / middle / last, key or row digit, with or
    without a payload)."""
    ct, ck, cv = ctype(dt), ctype(kdt), ctype(vdt)
    out = [f"hist0<{ct},{ck},false>", f"hist0<{ct},{ck},true>", "offsets",
           f"hist<{ck},{cv},false>", f"hist<{ck},{cv},true>"]
    seen = set(out)
    for first in (True, False):
        for last in (True, False):
            for row in (False, True):
                for has in (False, True):
                    if (row and (first or not has)) or (first and last and row):
                        continue
                    e = _scatter_expr(ct, ck, cv, first, last, row, has)
                    if e not in seen:
                        seen.add(e)
                        out.append(e)
    return out


def _radix(mod: Any, x: ndarray, n: int, dt: np.dtype, kdt: np.dtype, vdt: np.dtype,
           rows: int, row_len: int, descending: bool, arg: bool, values: Any, indices: Any,
           device: Any) -> None:
    """Sort the C-contiguous ``x`` (``rows`` rows of ``row_len``) into ``values`` (the
    sorted elements) and/or ``indices`` (int64, within each row); either may be None."""
    ct, ck, cv = ctype(dt), ctype(kdt), ctype(vdt)
    nchunks = max(1, min(_MAX_CHUNKS, n // _CHUNK_MIN))
    chunk = -(-n // nchunks)
    counts = scratch(256 * nchunks, np.uint32, device)
    offs = scratch(256 * nchunks, np.uint64, device)
    state = scratch(4, np.int32, device)
    has = indices is not None or rows > 1
    ka, kb = scratch(n, kdt, device), scratch(n, kdt, device)
    va, vb = (scratch(n, vdt, device), scratch(n, vdt, device)) if has else (None, None)
    passes = _passes(kdt, rows)
    off_fn = mod.get_function("offsets")
    desc = int(descending)
    for p, (row, shift) in enumerate(passes):
        first, last = p == 0, p == len(passes) - 1
        if first:
            h = mod.get_function(f"hist0<{ct},{ck},{'true' if arg else 'false'}>")
            launch_1d(h, nchunks, (x, ka, counts, n, chunk, nchunks, desc))
        else:
            h = mod.get_function(f"hist<{ck},{cv},{'true' if row else 'false'}>")
            launch_1d(h, nchunks, (ka, kb, va, vb, state, counts, n, chunk, nchunks, shift,
                                   row_len))
        launch_1d(off_fn, 1, (counts, offs, state, n, nchunks, int(first)))
        sc = mod.get_function(_scatter_expr(ct, ck, cv, first, last, row, has))
        launch_1d(sc, nchunks, (ka, kb, va, vb, state, offs, values if last else None,
                                indices if last else None, n, chunk, nchunks, shift, row_len,
                                desc))


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
    values = empty_array(tuple(x.shape), x.dtype, dev) if want_values else None
    indices = empty_array(tuple(x.shape), np.dtype(np.int64), dev) if want_indices else None
    if n == 0:
        return values, indices
    _radix(mod, x, n, x.dtype, kdt, vdt, rows, row_len, descending, want_indices, values,
           indices, dev)
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
