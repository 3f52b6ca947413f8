"""Where the random functions get their output arrays: openhip.numpy's arrays when the namespace
is importable, the runtime's DeviceArray otherwise (the same device memory either way)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def normalize_size(size: Any) -> tuple[int, ...]:
    """``size`` as a shape tuple (None -> a 0-d result), with numpy's errors."""
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        size = (int(size),)
    try:
        shape = tuple(int(operator_index(s)) for s in size)
    except TypeError:
        raise TypeError(f"size must be an int or a tuple of ints, not {size!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: size={size!r}")
    return shape


def operator_index(value: Any) -> int:
    import operator

    return operator.index(value)


def empty(shape: tuple[int, ...], dtype: Any) -> Any:
    """A new uninitialised array on the current device."""
    try:
        from .. import empty as hnp_empty  # openhip.numpy's own arrays
    except ImportError:
        from ...runtime.array import empty as hnp_empty
    return hnp_empty(shape, dtype=np.dtype(dtype))


def count(shape: tuple[int, ...]) -> int:
    return math.prod(shape)
