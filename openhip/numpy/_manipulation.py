"""Manipulation functions of the Array API. Views (reshape of contiguous data, permute_dims,
expand_dims, squeeze, flip, broadcast_to, unstack) only change shape/strides/offset; the
others copy through the size-templated ``copy_s`` kernel of kernels/index.hip, which reads any
strides (so nothing is made contiguous first)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..runtime.array import DeviceArray
from ..runtime.memory import memcpy_dtod_async
from . import _dtypes as D
from ._array import as_ndarray, c_strides, empty_array, ndarray
from ._kernels import Family, OhArgs

__all__ = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
           "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
           "normalize_axis"]

FAMILY = Family("index", "index.hip", options=("-std=c++17",))  # -O3
SIZES = (1, 2, 4, 8, 16)
#: the builds of the index family: one per kernel and element size (a script uses one or two
#: sizes of a few of them; each kernel compiled costs a user about 0.1-0.3 s on its first use)
_VARIANTS = {f"{k}.{s}": (f"{k}<{s}>",) for k in ("copy_s", "copy_s2", "gather", "scatter")
             for s in SIZES}
_VARIANTS["mask"] = ("mask_count", "mask_index")
_EXPRS = tuple(e for v in _VARIANTS.values() for e in v)
_VARIANT_OF = {e: v for v, exprs in _VARIANTS.items() for e in exprs}


def index_kernel(name: str, device: Any):
    """A kernel of the index family (its build serves every element size)."""
    variant = _VARIANT_OF[name]
    return FAMILY.kernel(variant, _VARIANTS[variant], name, device)


def normalize_axis(axis: Any, ndim: int, name: str = "axis") -> int:
    """``axis`` in [0, ndim) (negative counts from the end); numpy's AxisError otherwise."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{name} must be an integer, not {type(axis).__name__}")
    a = int(axis)
    if not -ndim <= a < ndim:
        raise np.exceptions.AxisError(a, ndim)
    return a + ndim if a < 0 else a


def _arr(x: Any) -> ndarray:
    if type(x) is ndarray:
        return x
    if isinstance(x, DeviceArray):
        return as_ndarray(x)
    raise TypeError(f"expected an openhip.numpy array, got {type(x).__name__}")


def _copy_into(out: ndarray, x: ndarray) -> None:
    """``out[...] = x`` (x broadcast to out's shape; dtypes converted when they differ)."""
    if out.size == 0:
        return
    if out.device is not x.device:
        raise ValueError(f"the arrays are on different devices ({out.device} and {x.device})")
    if out.dtype != x.dtype:
        from ._elementwise import _cast_into

        _cast_into(out, x)
        return
    if out._contig and x._contig and out.shape == x.shape:
        memcpy_dtod_async(out, x, nbytes=out.nbytes)
        return
    from ._elementwise import _bstrides, _fill_strided
    from ._kernels import pack_struct

    a = OhArgs()
    a.n = out.size
    a.ptr[0] = out.data.ptr
    a.ptr[1] = x.data.ptr
    layout, grid = _fill_strided(a, out.shape, [list(out.strides), _bstrides(x, out.shape)])
    if grid is None:
        index_kernel(f"copy_s<{out.dtype.itemsize}>", out.device).launch_ohargs(out.size, a)
    else:
        index_kernel(f"copy_s2<{out.dtype.itemsize}>", out.device).launch_grid(
            grid, pack_struct(a))


def broadcast_to(x: Any, /, shape: Sequence[int]) -> ndarray:
    """A read-only-by-convention view of ``x`` broadcast to ``shape``."""
    from ._elementwise import _bstrides, broadcast_shapes

    x = _arr(x)
    shape = tuple(int(s) for s in shape)
    if len(shape) < x.ndim or broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {x.shape} and requested shape {shape}")
    return x._view_as(shape, tuple(_bstrides(x, shape)))


def broadcast_arrays(*arrays: Any) -> list[ndarray]:
    """Views of the arrays broadcast against each other."""
    from ._elementwise import broadcast_shapes

    xs = [_arr(a) for a in arrays]
    shape = broadcast_shapes(*(x.shape for x in xs))
    return [broadcast_to(x, shape) for x in xs]


def reshape(x: Any, /, shape: Sequence[int], *, copy: bool | None = None) -> ndarray:
    """``x`` with another shape (one dimension may be -1): a view of contiguous data, a copy
    otherwise (``copy=False`` then raises ValueError)."""
    x = _arr(x)
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    dims = [int(d) for d in shape]
    if dims.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if any(d < -1 for d in dims):
        raise ValueError(f"negative dimensions not allowed: {tuple(dims)}")
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or x.size % known:
            raise ValueError(f"cannot reshape array of size {x.size} into shape "
                             f"{tuple(shape)}")
        dims[dims.index(-1)] = x.size // known
    new = tuple(dims)
    if math.prod(new) != x.size:
        raise ValueError(f"cannot reshape array of size {x.size} into shape {new}")
    if copy:
        x = x.copy()
    if x._contig:
        return x._view_as(new, c_strides(new, x.dtype.itemsize))
    if copy is False:
        raise ValueError("reshape: this strided view cannot be reshaped without a copy")
    y = x.copy()
    return y._view_as(new, c_strides(new, x.dtype.itemsize))


def permute_dims(x: Any, /, axes: Sequence[int]) -> ndarray:
    """A view with the axes permuted."""
    x = _arr(x)
    ax = [normalize_axis(a, x.ndim) for a in axes]
    if sorted(ax) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} are not a permutation of "
                         f"{x.ndim} dimensions")
    return x._view_as(tuple(x.shape[a] for a in ax), tuple(x.strides[a] for a in ax))


def moveaxis(x: Any, source: Any, destination: Any, /) -> ndarray:
    """A view with axes moved (``source``/``destination`` ints or tuples)."""
    x = _arr(x)
    src = [source] if isinstance(source, (int, np.integer)) else list(source)
    dst = [destination] if isinstance(destination, (int, np.integer)) else list(destination)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need the same number of axes")
    src = [normalize_axis(a, x.ndim, "source") for a in src]
    dst = [normalize_axis(a, x.ndim, "destination") for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("moveaxis: repeated axis")
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return permute_dims(x, order)


def expand_dims(x: Any, /, axis: Any = 0) -> ndarray:
    """A view with a new axis of length one at ``axis`` (or each of a tuple of axes)."""
    x = _arr(x)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    nd = x.ndim + len(axes)
    ax = sorted(normalize_axis(a, nd) for a in axes)
    if len(set(ax)) != len(ax):
        raise ValueError("expand_dims: repeated axis")
    shape, st = list(x.shape), list(x.strides)
    for a in ax:
        shape.insert(a, 1)
        st.insert(a, 0)
    return x._view_as(tuple(shape), tuple(st))


def squeeze(x: Any, /, axis: Any) -> ndarray:
    """A view without the given length-one axes (ValueError for an axis of another length)."""
    x = _arr(x)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    ax = {normalize_axis(a, x.ndim) for a in axes}
    if len(ax) != len(axes):
        raise ValueError("squeeze: repeated axis")
    for a in ax:
        if x.shape[a] != 1:
            raise ValueError(f"cannot select an axis to squeeze out which has size not equal "
                             f"to one (axis {a} of shape {x.shape})")
    keep = [i for i in range(x.ndim) if i not in ax]
    return x._view_as(tuple(x.shape[i] for i in keep), tuple(x.strides[i] for i in keep))


def flip(x: Any, /, *, axis: Any = None) -> ndarray:
    """A view with the order of elements reversed along ``axis`` (all axes by default)."""
    x = _arr(x)
    if axis is None:
        axes = range(x.ndim)
    else:
        axes = [normalize_axis(a, x.ndim) for a in (
            (axis,) if isinstance(axis, (int, np.integer)) else axis)]
    st = list(x.strides)
    off = 0
    for a in set(axes):
        if x.shape[a] > 1:
            off += (x.shape[a] - 1) * st[a]
        st[a] = -st[a]
    if x.size == 0:
        off = 0
    return x._view_as(x.shape, tuple(st), off)


def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> ndarray:
    """Join arrays along an existing axis (flattened first when ``axis`` is None)."""
    xs = [_arr(a) for a in arrays]
    if not xs:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        xs = [reshape(x, (-1,)) for x in xs]
        axis = 0
    dt = D.result_type(*xs)
    nd = xs[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    ax = normalize_axis(axis, nd)
    for x in xs[1:]:
        if x.ndim != nd:
            raise ValueError(f"all the input array dimensions except for the concatenation "
                             f"axis must match exactly, but shapes {xs[0].shape} and {x.shape} "
                             f"have different numbers of dimensions")
        if x.device is not xs[0].device:
            raise ValueError(f"concat: the arrays are on different devices ({xs[0].device} "
                             f"and {x.device})")
        for d in range(nd):
            if d != ax and x.shape[d] != xs[0].shape[d]:
                raise ValueError(f"all the input array dimensions except for the "
                                 f"concatenation axis must match exactly, but along dimension "
                                 f"{d}, the shapes are {xs[0].shape} and {x.shape}")
    shape = list(xs[0].shape)
    shape[ax] = sum(x.shape[ax] for x in xs)
    out = empty_array(tuple(shape), dt, xs[0].device)
    pos = 0
    for x in xs:
        n = x.shape[ax]
        if n:
            view = out._view_as(x.shape, out.strides, pos * out.strides[ax])
            _copy_into(view, x)
        pos += n
    return out


def stack(arrays: Sequence[Any], /, *, axis: int = 0) -> ndarray:
    """Join arrays of one shape along a new axis."""
    xs = [_arr(a) for a in arrays]
    if not xs:
        raise ValueError("need at least one array to stack")
    for x in xs[1:]:
        if x.shape != xs[0].shape:
            raise ValueError(f"all input arrays must have the same shape ({xs[0].shape} and "
                             f"{x.shape})")
    ax = normalize_axis(axis, xs[0].ndim + 1)
    return concat([expand_dims(x, axis=ax) for x in xs], axis=ax)


def unstack(x: Any, /, *, axis: int = 0) -> tuple[ndarray, ...]:
    """Views of ``x``'s slices along ``axis``."""
    x = _arr(x)
    if x.ndim == 0:
        raise ValueError("unstack: x must have at least one dimension")
    ax = normalize_axis(axis, x.ndim)
    shape = x.shape[:ax] + x.shape[ax + 1:]
    st = x.strides[:ax] + x.strides[ax + 1:]
    return tuple(x._view_as(shape, st, i * x.strides[ax]) for i in range(x.shape[ax]))


def roll(x: Any, /, shift: Any, *, axis: Any = None) -> ndarray:
    """Elements shifted cyclically along ``axis`` (the flattened array when None)."""
    x = _arr(x)
    if axis is None:
        return reshape(roll(reshape(x, (-1,)), shift, axis=0), x.shape)
    shifts = (shift,) if isinstance(shift, (int, np.integer)) else tuple(shift)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        else:
            raise ValueError("roll: shift and axis must have the same length")
    total: dict[int, int] = {}
    for s, a in zip(shifts, axes, strict=True):
        a = normalize_axis(a, x.ndim)
        total[a] = total.get(a, 0) + int(s)
    out = x.copy() if x.size else empty_array(x.shape, x.dtype, x.device)
    for a, s in total.items():
        n = x.shape[a]
        if n == 0:
            continue
        s %= n
        if s == 0:
            continue
        src = out
        out = empty_array(x.shape, x.dtype, x.device)
        st = src.strides[a]
        shp_hi = src.shape[:a] + (n - s,) + src.shape[a + 1:]
        shp_lo = src.shape[:a] + (s,) + src.shape[a + 1:]
        # out[..., s:, ...] = src[..., :n-s, ...]; out[..., :s, ...] = src[..., n-s:, ...]
        _copy_into(out._view_as(shp_hi, out.strides, s * out.strides[a]),
                   src._view_as(shp_hi, src.strides, 0))
        _copy_into(out._view_as(shp_lo, out.strides, 0),
                   src._view_as(shp_lo, src.strides, (n - s) * st))
    return out


def tile(x: Any, repetitions: Sequence[int], /) -> ndarray:
    """``x`` repeated ``repetitions[i]`` times along each axis (numpy's rule for ranks)."""
    x = _arr(x)
    reps = tuple(int(r) for r in repetitions)
    if any(r < 0 for r in reps):
        raise ValueError("tile: repetitions must be non-negative")
    nd = max(len(reps), x.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    xs = reshape(x, (1,) * (nd - x.ndim) + x.shape)
    inter, bshape = [], []
    for r, d in zip(reps, xs.shape, strict=True):
        inter += [1, d]
        bshape += [r, d]
    y = broadcast_to(reshape(xs, tuple(inter)), tuple(bshape)).copy()
    return reshape(y, tuple(r * d for r, d in zip(reps, xs.shape, strict=True)))


def repeat(x: Any, repeats: Any, /, *, axis: int | None = None) -> ndarray:
    """Each element repeated ``repeats`` times (an int, or an array with a count per
    element along ``axis``; its counts are read on the host, as nonzero's size)."""
    x = _arr(x)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    ax = normalize_axis(axis, x.ndim)
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        r = int(repeats)
        if r < 0:
            raise ValueError("repeat: repeats must be non-negative")
        inter = x.shape[:ax + 1] + (1,) + x.shape[ax + 1:]
        b = x.shape[:ax + 1] + (r,) + x.shape[ax + 1:]
        y = broadcast_to(reshape(x, inter), b).copy()
        return reshape(y, x.shape[:ax] + (x.shape[ax] * r,) + x.shape[ax + 1:])
    reps = _arr(repeats)
    if D.kind_of(reps.dtype) not in "iu":
        raise TypeError(f"repeat: repeats must be integers, not {reps.dtype}")
    counts = reps.get().astype(np.int64).reshape(-1)  # host metadata, like nonzero's size
    if counts.size == 1:
        return repeat(x, int(counts[0]), axis=ax)
    if counts.size != x.shape[ax]:
        raise ValueError(f"repeat: {counts.size} repeats for an axis of length {x.shape[ax]}")
    if (counts < 0).any():
        raise ValueError("repeat: repeats must be non-negative")
    from ._creation import asarray
    from ._indexing import take

    idx = asarray(np.repeat(np.arange(x.shape[ax], dtype=np.int64), counts), device=x.device)
    return take(x, idx, axis=ax)
