"""Statistical functions of the Array API: sum, prod, mean, var, std, min, max.

Each is one or two launches of the reduction kernels (``kernels/reduce.hip``, see
:mod:`openhip.numpy._reduction`) on the array as it lies in memory (views and transposes
included); nothing synchronises. Result dtypes follow the standard (2024.12): ``sum``/``prod``
of bool and signed integers give int64, of unsigned integers uint64, of floating and complex
types their own dtype, unless ``dtype=`` says otherwise (the input is then cast element by
element before it is accumulated, as numpy does). float16/bfloat16 accumulate in float32.
``mean``/``var``/``std`` of integers give float64 (numpy's rule; the standard leaves them
unspecified), ``var``/``std`` of complex their real dtype. Empty reductions: sum 0, prod 1,
mean/var/std NaN, min/max ValueError (as numpy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import empty_array, ndarray
from ._reduction import Canon, acc_dtype, canonical, normalize_axis, reduce_into, scratch, sum_dtype

__all__ = ["sum", "prod", "mean", "var", "std", "min", "max"]


def prepare(x: Any, name: str) -> ndarray:
    """``x`` as an :class:`ndarray` (a DeviceArray is viewed as one); TypeError otherwise."""
    from ..runtime.array import DeviceArray
    from ._array import as_ndarray

    if isinstance(x, ndarray):
        return x
    if isinstance(x, DeviceArray):
        return as_ndarray(x)
    raise TypeError(f"{name}() takes an openhip.numpy array, not {type(x).__name__} "
                    f"(convert it with openhip.numpy.asarray)")


def _elem_strides(x: ndarray) -> list[int]:
    item = x.dtype.itemsize
    return [s // item for s in x.strides]


def _out_shape(x: ndarray, axes: tuple[int, ...], keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(x.shape))
    return tuple(n for d, n in enumerate(x.shape) if d not in axes)


def _dtype_arg(dtype: Any, name: str) -> np.dtype | None:
    if dtype is None:
        return None
    from . import _dtypes

    try:
        return _dtypes.to_dtype(dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}(): unsupported dtype {dtype!r}: {exc}") from None


def reduce_public(x: Any, axis: Any, keepdims: bool, op: str, name: str, *,
                  out_dtype: np.dtype | None = None, acc: np.dtype | None = None,
                  post: int = 0, scale: Any = 1.0, aux: Any = None,
                  aux_dtype: np.dtype | None = None) -> ndarray:
    """The reduction ``op`` of ``x`` over ``axis`` as a new array. ``scale`` may be a
    function of the reduced element count."""
    x = prepare(x, name)
    axes = normalize_axis(axis, x.ndim)
    c = canonical(x.shape, _elem_strides(x), axes)
    dt_out = x.dtype if out_dtype is None else out_dtype
    out = empty_array(_out_shape(x, axes, keepdims), dt_out, x.device)
    if callable(scale):
        scale = scale(c.n_red)
    reduce_into(x, c, x.dtype, out, dt_out, op, acc_dtype(dt_out) if acc is None else acc,
                post=post, scale=scale, aux=aux, aux_dtype=aux_dtype, device=x.device)
    return out


def _check_numeric(x: ndarray, name: str, allow_bool: bool = True,
                   allow_complex: bool = True) -> None:
    k = x.dtype.kind
    if k == "b" and not allow_bool:
        raise TypeError(f"{name}() does not take a bool array")
    if k == "c" and not allow_complex:
        raise TypeError(f"{name}() is not defined for complex arrays ({x.dtype})")
    if k not in "biufcV":
        raise TypeError(f"{name}(): unsupported dtype {x.dtype}")


def sum(x: Any, /, *, axis: Any = None, dtype: Any = None,  # noqa: A001 - the standard's name
        keepdims: bool = False) -> ndarray:
    """Sum of the elements over ``axis`` (None: all; an int or a tuple of ints).
    Floating sums are pairwise (blocked), as accurate as numpy's."""
    x = prepare(x, "sum")
    _check_numeric(x, "sum")
    dt = _dtype_arg(dtype, "sum") or sum_dtype(x.dtype)
    return reduce_public(x, axis, keepdims, "sum", "sum", out_dtype=dt)


def prod(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> ndarray:
    """Product of the elements over ``axis``."""
    x = prepare(x, "prod")
    _check_numeric(x, "prod")
    dt = _dtype_arg(dtype, "prod") or sum_dtype(x.dtype)
    return reduce_public(x, axis, keepdims, "prod", "prod", out_dtype=dt)


def _extreme(x: Any, axis: Any, keepdims: bool, op: str) -> ndarray:
    x = prepare(x, op)
    _check_numeric(x, op, allow_complex=False)
    axes = normalize_axis(axis, x.ndim)
    if any(x.shape[d] == 0 for d in axes):
        name = "maximum" if op == "max" else "minimum"
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         f"identity")
    return reduce_public(x, axes, keepdims, op, op, out_dtype=x.dtype,
                         acc=acc_dtype(x.dtype))


def max(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A001
    """Largest element over ``axis``; NaN if any element is NaN (numpy's rule)."""
    return _extreme(x, axis, keepdims, "max")


def min(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A001
    """Smallest element over ``axis``; NaN if any element is NaN."""
    return _extreme(x, axis, keepdims, "min")


def _mean_dtypes(dt: np.dtype) -> tuple[np.dtype, np.dtype]:
    """(result dtype, accumulator dtype) of the mean of ``dt``."""
    if dt.kind in "biu":
        return np.dtype(np.float64), np.dtype(np.float64)
    return dt, acc_dtype(dt)


def _inv(n: int) -> float:
    return 1.0 / n if n > 0 else float("nan")


def mean(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> ndarray:
    """Arithmetic mean over ``axis`` (NaN for an empty reduction)."""
    x = prepare(x, "mean")
    _check_numeric(x, "mean")
    dt, acc = _mean_dtypes(x.dtype)
    return reduce_public(x, axis, keepdims, "sum", "mean", out_dtype=dt, acc=acc, post=1,
                         scale=_inv)


def _moment(x: Any, axis: Any, correction: Any, keepdims: bool, name: str) -> ndarray:
    x = prepare(x, name)
    _check_numeric(x, name)
    if isinstance(correction, bool) or not isinstance(correction, (int, float, np.integer,
                                                                  np.floating)):
        raise TypeError(f"{name}(): correction must be a real number, not "
                        f"{type(correction).__name__}")
    dt, acc = _mean_dtypes(x.dtype)
    real = np.dtype(dt.char.lower()) if dt.kind == "c" else dt
    real_acc = np.dtype(acc.char.lower()) if acc.kind == "c" else acc
    axes = normalize_axis(axis, x.ndim)
    c: Canon = canonical(x.shape, _elem_strides(x), axes)
    means = scratch(c.n_out, acc, x.device)   # the mean in the accumulator's precision
    reduce_into(x, c, x.dtype, means, acc, "sum", acc, post=1, scale=_inv(c.n_red),
                device=x.device)
    dof = c.n_red - float(correction)
    scale = 1.0 / dof if dof > 0 else float("inf")
    if c.n_red == 0:
        scale = float("nan")
    out = empty_array(_out_shape(x, axes, keepdims), real, x.device)
    reduce_into(x, c, x.dtype, out, real, "sqdev", real_acc, post=2 if name == "std" else 1,
                scale=scale, aux=means, aux_dtype=acc, device=x.device)
    return out


def var(x: Any, /, *, axis: Any = None, correction: int | float = 0.0,
        keepdims: bool = False) -> ndarray:
    """Variance over ``axis``: sum(|x - mean|^2) / (N - correction) (two passes)."""
    return _moment(x, axis, correction, keepdims, "var")


def std(x: Any, /, *, axis: Any = None, correction: int | float = 0.0,
        keepdims: bool = False) -> ndarray:
    """Standard deviation over ``axis``: the square root of :func:`var`."""
    return _moment(x, axis, correction, keepdims, "std")
