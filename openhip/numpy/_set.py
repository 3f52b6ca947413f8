"""Set functions of the Array API: unique_all, unique_counts, unique_inverse, unique_values.

The flattened input is sorted (stable radix sort with its permutation, :mod:`._sorting`), the
starts of runs of equal values are counted per chunk and scanned (``kernels/set.hip``); the
number of unique values is the one value read back to the host. Unique values come out
sorted (as numpy's); every NaN is a value of its own (NaN != NaN, as the standard says), and
-0.0 and +0.0 are one value. ``indices`` are the first occurrences; ``inverse_indices`` have
the input's shape.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ._array import empty_array, ndarray
from ._reduction import ctype, launch_1d, load, scratch
from ._sorting import _check_sortable, sort_flat
from ._statistics import prepare

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values"]

_CHUNK = 8192
_MAX_CHUNKS = 4096
_I64 = np.dtype(np.int64)


class UniqueAllResult(NamedTuple):
    values: ndarray
    indices: ndarray
    inverse_indices: ndarray
    counts: ndarray


class UniqueCountsResult(NamedTuple):
    values: ndarray
    counts: ndarray


class UniqueInverseResult(NamedTuple):
    values: ndarray
    inverse_indices: ndarray


def _unique(x: Any, name: str, indices: bool, inverse: bool, counts: bool
            ) -> tuple[ndarray, ndarray | None, ndarray | None, ndarray | None]:
    x = prepare(x, name)
    _check_sortable(x, name)
    dev = x.device
    n = x.size
    flat = x if x.flags_c_contiguous else x._ascontiguous()
    flat = flat._view_as((n,), (x.dtype.itemsize,))
    values_sorted, perm = sort_flat(flat, False, True, True)
    ct = ctype(x.dtype)
    exprs = [f"uq_count<{ct}>", f"uq_write<{ct}>", "uq_scan", "uq_counts"]
    mod = load("set.hip", f"unique-{x.dtype.name}", exprs, device=dev)
    nchunks = max(1, min(_MAX_CHUNKS, -(-n // _CHUNK)))
    chunk = max(1, -(-n // nchunks))
    prefix = scratch(nchunks + 1, _I64, dev)
    groups = 0
    if n:
        launch_1d(mod.get_function(exprs[0]), nchunks, (values_sorted, prefix, n, chunk, nchunks))
        launch_1d(mod.get_function(exprs[2]), 1, (prefix, nchunks))
        host = np.empty(nchunks + 1, np.int64)
        prefix.get(out=host)
        groups = int(host[nchunks])
    values = empty_array((groups,), x.dtype, dev)
    first = empty_array((groups,), _I64, dev) if indices else None
    inv = empty_array(tuple(x.shape), _I64, dev) if inverse else None
    starts = scratch(groups, _I64, dev) if counts else None
    cnt = empty_array((groups,), _I64, dev) if counts else None
    if n:
        launch_1d(mod.get_function(exprs[1]), nchunks,
                  (values_sorted, perm, prefix, values, first, starts, inv, n, chunk, nchunks))
        if counts:
            launch_1d(mod.get_function(exprs[3]), groups, (starts, cnt, groups, n))
    return values, first, inv, cnt


def unique_values(x: Any, /) -> ndarray:
    """The unique elements of ``x`` (flattened), sorted."""
    return _unique(x, "unique_values", False, False, False)[0]


def unique_counts(x: Any, /) -> UniqueCountsResult:
    """(values, counts): the unique elements and how often each occurs."""
    v, _, _, c = _unique(x, "unique_counts", False, False, True)
    return UniqueCountsResult(v, c)


def unique_inverse(x: Any, /) -> UniqueInverseResult:
    """(values, inverse_indices): ``values[inverse_indices]`` rebuilds ``x`` (same shape)."""
    v, _, inv, _ = _unique(x, "unique_inverse", False, True, False)
    return UniqueInverseResult(v, inv)


def unique_all(x: Any, /) -> UniqueAllResult:
    """(values, indices, inverse_indices, counts): the unique elements, the index of each one's
    first occurrence in the flattened ``x``, the inverse (``x``'s shape) and the counts."""
    v, first, inv, c = _unique(x, "unique_all", True, True, True)
    return UniqueAllResult(v, first, inv, c)
