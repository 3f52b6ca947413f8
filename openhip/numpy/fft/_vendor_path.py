"""The fft functions on a vendor FFT (cuFFT on nvidia, rocFFT on amd: ``_vendor._cufft``,
``_vendor._rocfft``, one interface).

Every transform is built from one-dimensional batched ones, as numpy builds its n-dimensional
transforms: the axis is moved last and made contiguous (an openhip.numpy copy, skipped when it
already is), cut or zero-padded to the transform's input length, transformed by the library on
the device and the stream, scaled for ``norm`` by an openhip.numpy kernel, and the axis moved
back (a view).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _vendor
from .._array import ndarray
from .._vendor import _cufft


def library(x: ndarray) -> Any:
    """The platform's vendor FFT for ``x``'s device (cuFFT or rocFFT), or None (pocketfft
    serves then)."""
    return _vendor.get("cufft", x.device.platform)


def _factor(norm: str, n: int, inverse: bool) -> float:
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "backward") == inverse:
        return 1.0 / n
    return 1.0


def transform(lib: Any, arr: ndarray, axis: int, n: int, kind: str, inverse: bool,
              norm: str) -> ndarray:
    """The one-dimensional ``kind`` (``"c2c"``, ``"r2c"``, ``"c2r"``) transform of length
    ``n`` along ``axis`` (non-negative), numpy's ``norm`` applied."""
    from .. import astype, empty, moveaxis, zeros

    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    if arr.dtype.kind in "iub":
        arr = astype(arr, np.float64)
    double = arr.dtype in (np.float64, np.complex128)
    cplx = np.dtype(np.complex128 if double else np.complex64)
    real = np.dtype(np.float64 if double else np.float32)
    in_dt = real if kind == "r2c" else cplx
    out_dt = real if kind == "c2r" else cplx
    if arr.dtype != in_dt:
        arr = astype(arr, in_dt)
    x = moveaxis(arr, axis, -1)
    nin, nout = _cufft.lengths(kind, n)
    have = x.shape[-1]
    fresh = False
    if have > nin:
        x = x[..., :nin]
    elif have < nin:
        padded = zeros(x.shape[:-1] + (nin,), dtype=in_dt, device=x.device)
        if have:
            padded[..., :have] = x
        x, fresh = padded, True
    # C2R may overwrite its input: never hand it the caller's array
    if not x.flags_c_contiguous or (kind == "c2r" and not fresh):
        x = x.copy()
    out = empty(x.shape[:-1] + (nout,), dtype=out_dt, device=x.device)
    if out.size:
        batch = math.prod(x.shape[:-1])
        lib.execute(x.device, kind, double, n, batch, x, out,
                    _cufft.INVERSE if inverse else _cufft.FORWARD)
        factor = _factor(norm, n, inverse)
        if factor != 1.0:
            out *= factor
    return moveaxis(out, -1, axis)


def swap_norm(norm: str) -> str:
    """numpy's ``_swap_direction``: hfft/ihfft are irfft/rfft with the norm reversed."""
    return {"backward": "forward", "forward": "backward"}.get(norm, norm)
