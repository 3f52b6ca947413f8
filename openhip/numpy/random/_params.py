"""Array-valued distribution parameters, as numpy's Generator takes them: the parameters
broadcast together (and against ``size`` when given), checked with numpy's messages, and read
by the ``*_a`` kernels through a broadcast descriptor (random_common.h: ohr_param_offsets), so
nothing is expanded on the host or looped over there.

The checks run on the device (one reduction and one boolean read each); a parameter that is a
host sequence or numpy array is copied to the device once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._arrays import normalize_size


def is_scalar(value: Any) -> bool:
    """A Python/numpy scalar or a 0-d numpy array (numpy's scalar path); any openhip array
    is an array parameter (its values stay on the device)."""
    from ...runtime.array import DeviceArray

    if isinstance(value, DeviceArray):
        return False
    return np.ndim(value) == 0


def all_scalar(*values: Any) -> bool:
    return all(is_scalar(v) for v in values)


def device_param(value: Any, name: str, routine: str, dtype: Any = np.float64,
                 kinds: str = "biuf") -> Any:
    """``value`` as a C-contiguous openhip array of ``dtype`` on the current device
    (``dtype=None``: its own dtype, bool as int64); TypeError for a dtype kind not in
    ``kinds``."""
    from ...runtime.device import get_device
    from .. import asarray, astype

    try:
        x = asarray(value, device=get_device())
    except (TypeError, ValueError) as e:
        raise TypeError(f"{routine}: {name} must be a real number or an array of them "
                        f"({e})") from None
    if x.dtype.kind not in kinds:
        raise TypeError(f"{routine}: {name} has the unsupported dtype {x.dtype.name}")
    if dtype is None:
        dtype = np.int64 if x.dtype.kind == "b" else x.dtype
    if x.dtype != np.dtype(dtype):
        x = astype(x, dtype)
    if not x._contig:
        x = x.copy()
    return x


def out_shape(size: Any, params: tuple) -> tuple[int, ...]:
    """The output shape: ``size`` when given (the parameters must broadcast to it), else the
    parameters' broadcast shape; numpy's ValueError messages."""
    shapes = [tuple(p.shape) for p in params]
    try:
        joint = np.broadcast_shapes(*shapes)
    except ValueError as e:
        raise ValueError(str(e)) from None
    if size is None:
        return joint
    shape = normalize_size(size)
    try:
        full = np.broadcast_shapes(shape, *shapes)
    except ValueError as e:
        raise ValueError(str(e)) from None
    if full != shape:
        raise ValueError(f"Output size {shape} is not compatible with broadcast dimensions of "
                         f"inputs {joint}.")
    return shape


def _strides(shape: tuple[int, ...], p: Any) -> list[int]:
    """Element strides of contiguous ``p`` broadcast to ``shape`` (0 along broadcast dims)."""
    ps = tuple(p.shape)
    pad = len(shape) - len(ps)
    st = [0] * len(shape)
    acc = 1
    for d in range(len(ps) - 1, -1, -1):
        st[pad + d] = acc if ps[d] != 1 else 0
        acc *= ps[d]
    return st


def _collapse(shape: tuple[int, ...], strides: list[list[int]]
              ) -> tuple[list[int], list[list[int]]]:
    dims: list[int] = []
    out: list[list[int]] = [[] for _ in strides]
    for d, extent in enumerate(shape):
        if extent == 1:
            continue
        if dims and all(out[k][-1] == strides[k][d] * extent for k in range(len(strides))):
            dims[-1] *= extent
            for k in range(len(strides)):
                out[k][-1] = strides[k][d]
        else:
            dims.append(extent)
            for k in range(len(strides)):
                out[k].append(strides[k][d])
    if not dims:
        return [1], [[0] for _ in strides]
    return dims, out


def broadcast(shape: tuple[int, ...], params: tuple) -> tuple[Any, bool]:
    """The parameters' descriptor array (int64, on the current device) for ``shape``, any
    number of dimensions (the kernels loop over them), and whether it has one dimension (the
    vector kernels' FLAT form)."""
    from .. import asarray

    dims, strides = _collapse(shape, [_strides(shape, p) for p in params])
    desc = [len(dims), *dims]
    for st in strides:
        desc.extend(st)
    desc.extend(_magic(dims, math.prod(shape)))
    return asarray(np.array(desc, dtype=np.int64)), len(dims) == 1


def _magic(dims: list[int], total: int) -> list[int]:
    """Per dimension, ceil(2^64 / extent) as an int64 bit pattern when ``total`` < 2^32 (the
    kernels then divide by a multiply-high: exact for numerators < 2^32 and extents <= 2^32),
    else 0 (a plain division)."""
    out = []
    for e in dims:
        m = -(-(1 << 64) // e) if total < (1 << 32) and 2 <= e <= (1 << 32) else 0
        out.append(m - (1 << 64) if m >= (1 << 63) else m)
    return out


def any_true(mask: Any) -> bool:
    """Whether any element of a device boolean array is true (one reduction, one read)."""
    from .. import any as hnp_any

    return bool(hnp_any(mask))


# ---- numpy's parameter checks (numpy/random/_common.pyx: check_constraint) -----------------
def non_negative(x: Any, name: str) -> None:
    """CONS_NON_NEGATIVE: a negative value (-0.0 too; NaN passes) is a ValueError."""
    from .. import isnan, logical_and, logical_not, signbit

    if any_true(logical_and(signbit(x), logical_not(isnan(x)))):
        raise ValueError(f"{name} < 0")


def non_negative_scalar(v: float, name: str) -> None:
    if not math.isnan(v) and math.copysign(1.0, v) < 0:
        raise ValueError(f"{name} < 0")


def positive(x: Any, name: str) -> None:
    """CONS_POSITIVE: a value <= 0 is a ValueError (NaN passes)."""
    if any_true(x <= 0):
        raise ValueError(f"{name} <= 0")


def bounded_0_1(x: Any, name: str) -> None:
    """CONS_BOUNDED_0_1: outside [0, 1] or NaN is a ValueError."""
    from .. import logical_and, logical_not

    if any_true(logical_not(logical_and(x >= 0, x <= 1))):
        raise ValueError(f"{name} < 0, {name} > 1 or {name} contains NaNs")


def poisson_lam(x: Any, name: str, lam_max: float) -> None:
    """CONS_POISSON: above lam_max (or NaN) is 'too large', below 0 the other message."""
    from .. import logical_not

    if any_true(logical_not(x <= lam_max)):
        raise ValueError(f"{name} value too large")
    if any_true(logical_not(x >= 0)):
        raise ValueError(f"{name} < 0 or {name} contains NaNs")


def finite(x: Any) -> bool:
    from .. import all as hnp_all
    from .. import isfinite

    return bool(hnp_all(isfinite(x)))
