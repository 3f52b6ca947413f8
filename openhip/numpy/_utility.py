"""Utility functions of the Array API: ``all``, ``any`` (reductions of the elements' truth:
``kernels/reduce.hip``; NaN is true) and ``diff`` (the n-th discrete difference: the
elementwise ``subtract`` — ``not_equal`` for bool, as numpy — of two shifted views, as CuPy
does it; ``prepend``/``append`` are concatenated first)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import ndarray
from ._reduction import normalize_axis
from ._statistics import prepare, reduce_public

__all__ = ["all", "any", "diff"]


def all(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A001
    """Whether every element over ``axis`` is true (True for an empty reduction)."""
    return reduce_public(x, axis, keepdims, "all", "all", out_dtype=np.dtype(np.bool_),
                         acc=np.dtype(np.int32))


def any(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A001
    """Whether any element over ``axis`` is true (False for an empty reduction)."""
    return reduce_public(x, axis, keepdims, "any", "any", out_dtype=np.dtype(np.bool_),
                         acc=np.dtype(np.int32))


def _as_operand(v: Any, x: ndarray, axis: int, what: str) -> ndarray:
    """``prepend``/``append`` as an array: a scalar is broadcast to x's shape with length 1
    along ``axis`` (numpy's rule)."""
    from . import _creation, _manipulation

    if isinstance(v, ndarray):
        return v
    if isinstance(v, (bool, int, float, complex, np.generic)):
        shape = tuple(1 if d == axis else n for d, n in enumerate(x.shape))
        return _manipulation.broadcast_to(_creation.asarray(v, dtype=x.dtype, device=x.device),
                                          shape)
    try:
        return prepare(v, "diff")
    except TypeError:
        raise TypeError(f"diff(): {what} must be an array or a scalar, not "
                        f"{type(v).__name__}") from None


def diff(x: Any, /, *, axis: int = -1, n: int = 1, prepend: Any = None,
         append: Any = None) -> ndarray:
    """The ``n``-th discrete difference along ``axis``: ``out[i] = x[i+1] - x[i]``, applied
    ``n`` times, after concatenating ``prepend`` before and ``append`` after ``x``."""
    from . import _elementwise, _manipulation

    x = prepare(x, "diff")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"diff(): n must be an int, not {type(n).__name__}")
    if n < 0:
        raise ValueError(f"diff(): order must be non-negative but got {n}")
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    if isinstance(axis, tuple) or axis is None:
        raise TypeError(f"diff(): axis must be an int, not {axis!r}")
    (ax,) = normalize_axis(axis, x.ndim)
    parts = []
    if prepend is not None:
        parts.append(_as_operand(prepend, x, ax, "prepend"))
    parts.append(x)
    if append is not None:
        parts.append(_as_operand(append, x, ax, "append"))
    if len(parts) > 1:
        x = _manipulation.concat(parts, axis=ax)
    op = _elementwise.not_equal if x.dtype == np.bool_ else _elementwise.subtract
    for _ in range(n):
        length = x.shape[ax]
        if length == 0:
            break
        hi = tuple(slice(1, None) if d == ax else slice(None) for d in range(x.ndim))
        lo = tuple(slice(None, -1) if d == ax else slice(None) for d in range(x.ndim))
        x = op(x[hi], x[lo])
    return x
