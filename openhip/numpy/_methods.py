"""numpy/CuPy-style methods of the array object (``x.sum()``, ``x.max(axis=0)``,
``x.argsort()``, ``x.sort()`` in place, ...): each calls the namespace function of the same
name, so a method and the function give the same result."""

from __future__ import annotations

from typing import Any

from ._array import ndarray

__all__: list[str] = []


def _ns():
    from .. import numpy as hnp

    return hnp


def _reduction(name: str):
    def method(self: ndarray, axis: Any = None, *, keepdims: bool = False, **kw: Any) -> ndarray:
        return getattr(_ns(), name)(self, axis=axis, keepdims=keepdims, **kw)

    method.__name__ = name
    method.__doc__ = f"``hnp.{name}(x, axis=..., keepdims=...)``"
    return method


for _name in ("sum", "prod", "mean", "var", "std", "min", "max", "all", "any"):
    setattr(ndarray, _name, _reduction(_name))


def _argmax(self: ndarray, axis: Any = None, *, keepdims: bool = False) -> ndarray:
    """``hnp.argmax``."""
    return _ns().argmax(self, axis=axis, keepdims=keepdims)


def _argmin(self: ndarray, axis: Any = None, *, keepdims: bool = False) -> ndarray:
    """``hnp.argmin``."""
    return _ns().argmin(self, axis=axis, keepdims=keepdims)


def _cumsum(self: ndarray, axis: Any = None, dtype: Any = None) -> ndarray:
    """numpy's ``x.cumsum()`` (flattened when axis is None)."""
    x = self.reshape(-1) if axis is None else self
    return _ns().cumulative_sum(x, axis=0 if axis is None else axis, dtype=dtype)


def _cumprod(self: ndarray, axis: Any = None, dtype: Any = None) -> ndarray:
    """numpy's ``x.cumprod()`` (flattened when axis is None)."""
    x = self.reshape(-1) if axis is None else self
    return _ns().cumulative_prod(x, axis=0 if axis is None else axis, dtype=dtype)


def _sort(self: ndarray, axis: int = -1, *, descending: bool = False,
          stable: bool = True) -> None:
    """Sort in place along ``axis`` (numpy's ``x.sort()``; the function form returns a copy)."""
    self[...] = _ns().sort(self, axis=axis, descending=descending, stable=stable)


def _argsort(self: ndarray, axis: int = -1, *, descending: bool = False,
             stable: bool = True) -> ndarray:
    """``hnp.argsort``."""
    return _ns().argsort(self, axis=axis, descending=descending, stable=stable)


def _nonzero(self: ndarray) -> tuple[ndarray, ...]:
    return _ns().nonzero(self)


def _clip(self: ndarray, min: Any = None, max: Any = None) -> ndarray:  # noqa: A002
    return _ns().clip(self, min, max)


def _conj(self: ndarray) -> ndarray:
    return _ns().conj(self)


def _flatten(self: ndarray) -> ndarray:
    """A C-order 1-d copy."""
    return self.reshape(-1).copy()


def _transpose(self: ndarray, *axes: Any) -> ndarray:
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return _ns().permute_dims(self, axes or tuple(range(self.ndim - 1, -1, -1)))


def _squeeze(self: ndarray, axis: Any = None) -> ndarray:
    if axis is None:
        axis = tuple(i for i, n in enumerate(self.shape) if n == 1)
    return _ns().squeeze(self, axis=axis)


def _dot(self: ndarray, other: Any) -> ndarray:
    return _ns().matmul(self, other)


for _name, _fn in (("argmax", _argmax), ("argmin", _argmin), ("cumsum", _cumsum),
                   ("cumprod", _cumprod), ("sort", _sort), ("argsort", _argsort),
                   ("nonzero", _nonzero), ("clip", _clip), ("conj", _conj),
                   ("conjugate", _conj), ("flatten", _flatten), ("transpose", _transpose),
                   ("squeeze", _squeeze), ("dot", _dot)):
    setattr(ndarray, _name, _fn)
