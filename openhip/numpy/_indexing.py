"""Indexing: ``x[key]``, ``x[key] = v``, ``take``, ``take_along_axis``.

Integers, slices, ``...`` and ``None`` make views (bounds checked on the host, numpy's
IndexError messages). Integer arrays and boolean masks follow numpy's advanced-indexing rules
and run the ``gather``/``scatter`` kernels of kernels/index.hip; those check every index on the
device and report an out-of-bounds one through an error flag (read after the launch, so an
advanced index synchronises like numpy's nonzero size does) — nothing is read or written out
of bounds. A boolean mask becomes integer positions on the device (``mask_count`` per chunk,
an exclusive prefix of the chunk counts on the host, ``mask_index``).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from ..runtime.array import DeviceArray
from . import _dtypes as D
from ._array import as_ndarray, c_strides, empty_array, ndarray
from ._kernels import MAXDIM, OhArgs
from ._manipulation import _copy_into, broadcast_to, expand_dims, index_kernel, normalize_axis

__all__ = ["getitem", "setitem", "take", "take_along_axis", "nonzero_flat"]

_I64 = ctypes.c_int64


class OhGather(ctypes.Structure):
    """Mirror of ``struct OhGather`` in kernels/index.hip."""

    _fields_ = [
        ("out", ctypes.c_uint64), ("src", ctypes.c_uint64),
        ("idx", ctypes.c_uint64 * MAXDIM), ("err", ctypes.c_uint64),
        ("n", _I64), ("ndim", ctypes.c_int32), ("nidx", ctypes.c_int32),
        ("shape", _I64 * MAXDIM), ("lin_st", _I64 * MAXDIM), ("base_st", _I64 * MAXDIM),
        ("idx_st", (_I64 * MAXDIM) * MAXDIM), ("ax_st", _I64 * MAXDIM),
        ("ax_len", _I64 * MAXDIM),
    ]


def _int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _normalize_key(x: ndarray, key: Any) -> list[Any]:
    if not isinstance(key, tuple):
        key = (key,)
    out: list[Any] = []
    for k in key:
        if isinstance(k, DeviceArray):
            k = as_ndarray(k)
            if k.device is not x.device:
                raise ValueError(f"the index is on {k.device}, the array on {x.device}")
            if D.kind_of(k.dtype) not in "biu":
                raise IndexError(f"arrays used as indices must be of integer or boolean type, "
                                 f"not {k.dtype}")
        elif isinstance(k, (list, np.ndarray)) or (isinstance(k, np.generic) and
                                                   k.dtype == np.bool_):
            from ._creation import asarray

            host = np.asarray(k)
            if host.dtype.kind not in "biu":
                if host.size == 0:
                    host = host.astype(np.int64)
                else:
                    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and "
                                     "integer or boolean arrays are valid indices")
            k = asarray(host, device=x.device)
        elif isinstance(k, bool):
            from ._creation import asarray

            k = asarray(k, device=x.device)
        elif not (_int(k) or isinstance(k, slice) or k is None or k is Ellipsis):
            if hasattr(k, "__index__"):
                k = k.__index__()
            else:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and "
                                 "integer or boolean arrays are valid indices")
        out.append(k)
    if sum(k is Ellipsis for k in out) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(k.ndim if (type(k) is ndarray and k.dtype == D.bool) else
               (0 if (k is None or k is Ellipsis) else 1) for k in out)
    if used > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but "
                         f"{used} were indexed")
    if Ellipsis in [k for k in out if not isinstance(k, ndarray)]:
        i = next(i for i, k in enumerate(out) if k is Ellipsis)
        out[i:i + 1] = [slice(None)] * (x.ndim - used)
    else:
        out += [slice(None)] * (x.ndim - used)
    return out


def _basic(x: ndarray, key: list[Any]) -> tuple[ndarray, list[tuple[int, ndarray]]]:
    """Apply ints/slices/None; keep advanced indices as full dims. Returns the view and
    (dimension in the view, index array) for each advanced index."""
    shape, st = [], []
    off = 0
    adv: list[tuple[int, ndarray]] = []
    d = 0
    for k in key:
        if k is None:
            shape.append(1)
            st.append(0)
        elif type(k) is ndarray:
            if k.dtype == D.bool and k.ndim == 0:
                adv.append((len(shape), k))
                shape.append(1)
                st.append(0)
                continue
            nd = k.ndim if k.dtype == D.bool else 1
            if k.dtype == D.bool:
                for j in range(nd):
                    if k.shape[j] != x.shape[d + j]:
                        raise IndexError(f"boolean index did not match indexed array along "
                                         f"axis {d + j}; size of axis is {x.shape[d + j]} but "
                                         f"size of corresponding boolean axis is {k.shape[j]}")
            adv.append((len(shape), k))
            for j in range(nd):
                shape.append(x.shape[d + j])
                st.append(x.strides[d + j])
            d += nd
        elif isinstance(k, slice):
            n = x.shape[d]
            start, stop, step = k.indices(n)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            length = len(range(start, stop, step))
            if length:
                off += start * x.strides[d]
            shape.append(length)
            st.append(x.strides[d] * step)
            d += 1
        else:
            n = x.shape[d]
            i = int(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {d} with size {n}")
            off += (i + n if i < 0 else i) * x.strides[d]
            d += 1
    if math.prod(shape) == 0:
        off = 0
    return x._view_as(tuple(shape), tuple(st), off), adv


def nonzero_flat(mask: ndarray) -> ndarray:
    """int64 flat positions (C order) of the true elements of a boolean array."""
    from ._creation import asarray

    m = mask if mask._contig else mask.copy()
    n = m.size
    chunk = 4096
    nchunks = max((n + chunk - 1) // chunk, 1)
    counts = empty_array((nchunks,), D.int64, m.device)
    if n == 0:
        return empty_array((0,), D.int64, m.device)
    a = OhArgs()
    a.n = n
    a.ptr[0] = counts.data.ptr
    a.ptr[1] = m.data.ptr
    a.extra[0] = chunk
    index_kernel("mask_count", m.device).launch_ohargs(nchunks, a)
    host = counts.get()  # the result's size: a host read, as numpy's nonzero
    total = int(host.sum())
    offsets = asarray(np.concatenate(([0], np.cumsum(host)[:-1])).astype(np.int64),
                      device=m.device)
    out = empty_array((total,), D.int64, m.device)
    if total:
        b = OhArgs()
        b.n = n
        b.ptr[0] = out.data.ptr
        b.ptr[1] = m.data.ptr
        b.ptr[2] = offsets.data.ptr
        b.extra[0] = chunk
        index_kernel("mask_index", m.device).launch_ohargs(nchunks, b)
    return out


def _mask_to_indices(mask: ndarray) -> list[ndarray]:
    flat = nonzero_flat(mask)
    if mask.ndim == 1:
        return [flat]
    from ._elementwise import floor_divide, remainder

    out = []
    inner = math.prod(mask.shape)
    for d in range(mask.ndim):
        inner //= mask.shape[d]
        q = floor_divide(flat, inner) if inner != 1 else flat
        out.append(remainder(q, mask.shape[d]) if d else q)
    return out


def _advanced(view: ndarray, adv: list[tuple[int, ndarray]]):
    """(result shape, per-dim base strides, index arrays, their element strides, the view's
    axis of each, its stride and length) for the gather/scatter kernels."""
    from ._elementwise import _bstrides, astype, broadcast_shapes

    dims: list[int] = []      # view dims consumed by each index array
    arrays: list[ndarray] = []
    for pos, k in adv:
        if k.dtype == D.bool:
            if k.ndim == 0:
                from ._creation import asarray

                idx = asarray(np.zeros(int(bool(k)), np.int64), device=view.device)
                dims.append(pos)
                arrays.append(idx)
                continue
            for j, idx in enumerate(_mask_to_indices(k)):
                dims.append(pos + j)
                arrays.append(idx)
        else:
            dims.append(pos)
            arrays.append(k if k.dtype == D.int64 else astype(k, D.int64))
    if len(arrays) > MAXDIM:
        raise IndexError(f"at most {MAXDIM} index arrays")
    bshape = broadcast_shapes(*(a.shape for a in arrays))
    rest = [d for d in range(view.ndim) if d not in dims]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if adjacent:
        first = dims[0]
        before = [d for d in rest if d < first]
        after = [d for d in rest if d > first]
    else:
        before, after = [], rest
    shape = tuple(view.shape[d] for d in before) + bshape + tuple(view.shape[d] for d in after)
    nb = len(before)
    base_st = [view.strides[d] for d in before] + [0] * len(bshape) + [
        view.strides[d] for d in after]
    idx_st = []
    for a in arrays:
        est = [s // 8 for s in _bstrides(a, bshape)]
        idx_st.append([0] * nb + est + [0] * len(after))
    ax_st = [view.strides[d] for d in dims]
    ax_len = [view.shape[d] for d in dims]
    return shape, base_st, arrays, idx_st, ax_st, ax_len


def _launch_gather(kind: str, view: ndarray, other: ndarray, shape, lin_st, base_st, arrays,
                   idx_st, ax_st, ax_len) -> None:
    from ._creation import zeros

    n = math.prod(shape)
    if n == 0:
        return
    if len(shape) > MAXDIM:
        raise IndexError(f"advanced indexing supports at most {MAXDIM} result dimensions")
    err = zeros((1,), dtype=D.int32, device=view.device)
    g = OhGather()
    g.out = view.data.ptr if kind == "scatter" else other.data.ptr
    g.src = other.data.ptr if kind == "scatter" else view.data.ptr
    for k, a in enumerate(arrays):
        g.idx[k] = a.data.ptr
        for d, s in enumerate(idx_st[k]):
            g.idx_st[k][d] = s
        g.ax_st[k] = ax_st[k]
        g.ax_len[k] = ax_len[k]
    g.err = err.data.ptr
    g.n = n
    g.ndim = len(shape)
    g.nidx = len(arrays)
    for d, s in enumerate(shape):
        g.shape[d] = s
        g.lin_st[d] = lin_st[d]
        g.base_st[d] = base_st[d]
    index_kernel(f"{kind}<{view.dtype.itemsize}>", view.device).launch_struct(n, g)
    if int(err.get()[0]):
        bad = ", ".join(f"axis of size {n_}" for n_ in ax_len)
        raise IndexError(f"index out of bounds in an integer-array index ({bad}); nothing "
                         f"out of bounds was read or written")


def getitem(x: ndarray, key: Any) -> ndarray:
    """``x[key]`` with numpy's rules."""
    if type(key) is int:  # fast path: x[i]
        n = x.shape[0] if x.ndim else None
        if n is None:
            raise IndexError("too many indices for array: array is 0-dimensional, but 1 "
                             "were indexed")
        if not -n <= key < n:
            raise IndexError(f"index {key} is out of bounds for axis 0 with size {n}")
        return x._view_as(x.shape[1:], x.strides[1:], (key % n) * x.strides[0])
    k = _normalize_key(x, key)
    view, adv = _basic(x, k)
    if not adv:
        return view
    if len(adv) == 1 and adv[0][1].dtype == D.bool and adv[0][1].ndim == 0:
        pos, m = adv[0]
        return view if bool(m) else view._view_as(
            view.shape[:pos] + (0,) + view.shape[pos + 1:], view.strides)
    shape, base_st, arrays, idx_st, ax_st, ax_len = _advanced(view, adv)
    out = empty_array(shape, x.dtype, x.device)
    _launch_gather("gather", view, out, shape, list(out.strides), base_st, arrays, idx_st,
                   ax_st, ax_len)
    return out


def _value(x: ndarray, value: Any) -> ndarray:
    from ._creation import asarray

    if isinstance(value, DeviceArray):
        v = as_ndarray(value)
        if v.device is not x.device:
            raise ValueError(f"the value is on {v.device}, the array on {x.device}")
        return v
    if isinstance(value, (bool, int, float, complex)):
        k = D.kind_of(x.dtype)
        if isinstance(value, complex) and k != "c":
            raise TypeError(f"cannot assign a complex value to a {x.dtype} array")
        if isinstance(value, float) and k in "biu":
            raise TypeError(f"cannot assign a float value to a {x.dtype} array")
        return asarray(value, dtype=x.dtype, device=x.device)
    return asarray(value, dtype=x.dtype, device=x.device)


def setitem(x: ndarray, key: Any, value: Any) -> None:
    """``x[key] = value`` (value broadcast to the selection, cast to x's dtype)."""
    k = _normalize_key(x, key)
    view, adv = _basic(x, k)
    v = _value(x, value)
    if not adv:
        _copy_into(view, broadcast_to(v, view.shape) if v.shape != view.shape else v)
        return
    if len(adv) == 1 and adv[0][1].dtype == D.bool and adv[0][1].ndim == 0:
        if bool(adv[0][1]):
            _copy_into(view, broadcast_to(v, view.shape))
        return
    shape, base_st, arrays, idx_st, ax_st, ax_len = _advanced(view, adv)
    if v.dtype != x.dtype:
        from ._elementwise import astype

        v = astype(v, x.dtype)
    vb = broadcast_to(v, shape)
    _launch_gather("scatter", view, vb, shape, list(vb.strides), base_st, arrays, idx_st,
                   ax_st, ax_len)


def take(x: Any, indices: Any, /, *, axis: int | None = None) -> ndarray:
    """Elements of ``x`` at ``indices`` (an integer array) along ``axis``."""
    from ._elementwise import astype

    x = as_ndarray(x)
    idx = as_ndarray(indices)
    if D.kind_of(idx.dtype) not in "iu":
        raise TypeError(f"take: indices must be integers, not {idx.dtype}")
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take: axis is required for arrays of more than one dimension")
        axis = 0
    ax = normalize_axis(axis, x.ndim)
    if idx.dtype != D.int64:
        idx = astype(idx, D.int64)
    shape = x.shape[:ax] + idx.shape + x.shape[ax + 1:]
    out = empty_array(shape, x.dtype, x.device)
    ni = idx.ndim
    base_st = list(x.strides[:ax]) + [0] * ni + list(x.strides[ax + 1:])
    idx_st = [[0] * ax + [s // 8 for s in idx.strides] + [0] * (x.ndim - ax - 1)]
    _launch_gather("gather", x, out, shape, list(out.strides), base_st, [idx], idx_st,
                   [x.strides[ax]], [x.shape[ax]])
    return out


def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> ndarray:
    """``x``'s elements at ``indices`` along ``axis``, the other axes broadcast."""
    from ._elementwise import _bstrides, astype, broadcast_shapes

    x = as_ndarray(x)
    idx = as_ndarray(indices)
    if D.kind_of(idx.dtype) not in "iu":
        raise TypeError(f"take_along_axis: indices must be integers, not {idx.dtype}")
    if idx.ndim != x.ndim:
        raise ValueError(f"take_along_axis: indices have {idx.ndim} dimensions, x has "
                         f"{x.ndim}")
    ax = normalize_axis(axis, x.ndim)
    if idx.dtype != D.int64:
        idx = astype(idx, D.int64)
    xs = list(x.shape)
    xs[ax] = 1
    ishape = list(idx.shape)
    ishape[ax] = 1
    b = list(broadcast_shapes(tuple(xs), tuple(ishape)))
    b[ax] = idx.shape[ax]
    shape = tuple(b)
    out = empty_array(shape, x.dtype, x.device)
    xb_shape = list(shape)
    xb_shape[ax] = x.shape[ax]
    base_st = _bstrides(x, tuple(xb_shape))
    base_st[ax] = 0
    idx_st = [[s // 8 for s in _bstrides(idx, shape)]]
    _launch_gather("gather", x, out, shape, list(out.strides), base_st, [idx], idx_st,
                   [x.strides[ax]], [x.shape[ax]])
    return out


_ = (c_strides, expand_dims)
