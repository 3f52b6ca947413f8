"""The linalg functions built from openhip.numpy's own operations: norms, trace, cross, outer,
matrix_power, matrix_rank, pinv."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .._array import ndarray
from . import _lapack, _matmul


def _as_array(x: Any) -> ndarray:
    from .. import asarray

    return x if isinstance(x, ndarray) else asarray(x)


def _real_float(x: ndarray, routine: str) -> ndarray:
    from .. import astype

    if x.dtype.kind not in "fc":
        if x.dtype.kind in "iub":
            return astype(x, np.float64)
        raise TypeError(f"{routine}: unsupported dtype {x.dtype.name}")
    return x


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False,
                ord: Any = 2) -> ndarray:
    """The vector p-norm over ``axis`` (all elements by default); real floating result."""
    from .. import abs as habs
    from .. import max as hmax
    from .. import min as hmin
    from .. import sqrt
    from .. import sum as hsum

    arr = _real_float(_as_array(x), "vector_norm")
    a = habs(arr)
    if ord == 2:
        return sqrt(hsum(a * a, axis=axis, keepdims=keepdims))
    if ord == 1:
        return hsum(a, axis=axis, keepdims=keepdims)
    if ord == math.inf:
        return hmax(a, axis=axis, keepdims=keepdims) if a.size else hsum(a, axis=axis,
                                                                       keepdims=keepdims)
    if ord == -math.inf:
        return hmin(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return hsum((a != 0).astype(a.dtype), axis=axis, keepdims=keepdims)
    if isinstance(ord, (int, float)) and not isinstance(ord, bool):
        p = float(ord)
        return hsum(a ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)
    raise ValueError(f"vector_norm: invalid ord {ord!r}")


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> ndarray:
    """Matrix norms of the last two axes: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    from .. import abs as habs
    from .. import expand_dims, sqrt
    from .. import max as hmax
    from .. import min as hmin
    from .. import sum as hsum

    arr = _real_float(_as_array(x), "matrix_norm")
    if arr.ndim < 2:
        raise ValueError(f"matrix_norm: x must be at least 2-dimensional, got {arr.shape}")
    if ord == "fro":
        a = habs(arr)
        out = sqrt(hsum(a * a, axis=(-2, -1)))
    elif ord == "nuc":
        out = hsum(_lapack.svdvals(arr), axis=-1)
    elif ord in (2, -2):
        s = _lapack.svdvals(arr)
        out = hmax(s, axis=-1) if ord == 2 else hmin(s, axis=-1)
    elif ord in (1, -1):
        col = hsum(habs(arr), axis=-2)
        out = hmax(col, axis=-1) if ord == 1 else hmin(col, axis=-1)
    elif ord in (math.inf, -math.inf):
        row = hsum(habs(arr), axis=-1)
        out = hmax(row, axis=-1) if ord == math.inf else hmin(row, axis=-1)
    else:
        raise ValueError(f"matrix_norm: invalid ord {ord!r}")
    if keepdims:
        out = expand_dims(expand_dims(out, axis=-1), axis=-1)
    return out


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> ndarray:
    """Sums of the ``offset``-th diagonals."""
    from .. import sum as hsum

    return hsum(_lapack.diagonal(_as_array(x), offset=offset), axis=-1, dtype=dtype)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> ndarray:
    """The cross product of 3-element vectors along ``axis``."""
    from .. import broadcast_arrays, moveaxis, stack

    a, b = _as_array(x1), _as_array(x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("cross: operands must be at least 1-dimensional")
    ax = operator.index(axis)
    nd = max(a.ndim, b.ndim)
    if not -nd <= ax < nd:
        raise np.exceptions.AxisError(ax, nd)
    a, b = broadcast_arrays(a, b)
    if a.shape[ax] != 3:
        raise ValueError(f"cross: the vectors along axis {axis} must have 3 elements, got "
                         f"shapes {x1.shape if hasattr(x1, 'shape') else ()} and "
                         f"{x2.shape if hasattr(x2, 'shape') else ()}")
    a, b = moveaxis(a, ax, -1), moveaxis(b, ax, -1)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(out, -1, ax)


def outer(x1: Any, x2: Any, /) -> ndarray:
    """The outer product of two vectors."""
    a, b = _as_array(x1), _as_array(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer: operands must be 1-dimensional, got {a.shape} and {b.shape}")
    return a[:, None] * b[None, :]


def matrix_power(x: Any, n: int, /) -> ndarray:
    """``x`` raised to the integer power ``n`` (repeated squaring; n < 0 through inv)."""
    from .. import broadcast_to, eye

    arr = _lapack._square(x, "matrix_power")
    try:
        p = operator.index(n)
    except TypeError:
        raise TypeError("matrix_power: exponent must be an integer") from None
    if p == 0:
        ident = eye(arr.shape[-1], dtype=arr.dtype, device=arr.device)
        return broadcast_to(ident, arr.shape).copy()
    if p < 0:
        arr = _lapack.inv(arr)
        p = -p
    result = None
    base = arr
    while p:
        if p & 1:
            result = base if result is None else _matmul.matmul(result, base)
        p >>= 1
        if p:
            base = _matmul.matmul(base, base)
    return result if result is not arr else arr.copy()


def matrix_rank(x: Any, /, *, rtol: Any = None) -> ndarray:
    """The number of singular values above ``rtol * max(S)`` (default rtol: max(M, N) * eps)."""
    from .. import count_nonzero
    from .. import max as hmax

    arr = _as_array(x)
    if arr.ndim < 2:
        raise ValueError(f"matrix_rank: x must be at least 2-dimensional, got {arr.shape}")
    s = _lapack.svdvals(arr)
    if rtol is None:
        tol = max(arr.shape[-2:]) * np.finfo(s.dtype).eps
        cutoff = hmax(s, axis=-1, keepdims=True) * tol
    else:
        cutoff = hmax(s, axis=-1, keepdims=True) * (
            rtol[..., None] if isinstance(rtol, ndarray) else rtol)
    return count_nonzero(s > cutoff, axis=-1)


def pinv(x: Any, /, *, rtol: Any = None) -> ndarray:
    """The Moore-Penrose pseudo-inverse (through the SVD)."""
    from .. import conj, where
    from .. import max as hmax

    arr = _as_array(x)
    if arr.ndim < 2:
        raise ValueError(f"pinv: x must be at least 2-dimensional, got {arr.shape}")
    m, n = arr.shape[-2:]
    u, s, vh = _lapack.svd(arr, full_matrices=False)
    tol = max(m, n) * np.finfo(s.dtype).eps if rtol is None else rtol
    if isinstance(tol, ndarray):
        tol = tol[..., None]
    cutoff = hmax(s, axis=-1, keepdims=True) * tol if s.shape[-1] else s
    s_inv = where(s > cutoff, 1.0 / where(s > cutoff, s, 1.0), 0.0).astype(s.dtype)
    vt = conj(vh) if vh.dtype.kind == "c" else vh
    ut = conj(u) if u.dtype.kind == "c" else u
    return _matmul.matmul(vt.mT * s_inv[..., None, :].astype(vt.dtype), ut.mT)
