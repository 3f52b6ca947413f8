"""openhip.numpy.fft: the Array API ``fft`` extension.

Per platform, the FFT its users trust: on the CPU platform pocketfft as numpy ships it, run on
the device memory itself (the CPU platform's device memory is host memory; numpy's ``out=``
writes the result in place, float32 stays float32); on nvidia cuFFT from NVIDIA's wheel, on the
device and its stream (``_vendor_path``), on amd rocFFT where the user's ROCm has it; where
the platform's library is absent the operand is staged through host memory to the same
pocketfft (one warning per process says which library is missing). ``fftfreq``, ``rfftfreq``, ``fftshift`` and ``ifftshift`` are openhip.numpy's own
kernels. Any length, not only powers of two. (The n-dimensional transforms compute into a host
temporary and copy: numpy's ``out=`` rejects an ``s`` that changes several axes' lengths.)
"""

from __future__ import annotations

import ctypes
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _vendor
from .._array import ndarray
from . import _vendor_path

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_warned = False


def _as_array(x: Any) -> ndarray:
    from .. import asarray

    return x if isinstance(x, ndarray) else asarray(x)


def _host_view(x: ndarray) -> np.ndarray:
    """A numpy view of a CPU-platform array's memory (no copy), strides included."""
    if x.size == 0:
        return np.empty(x.shape, dtype=x.dtype)
    lo = sum((n - 1) * s for n, s in zip(x.shape, x.strides, strict=True) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(x.shape, x.strides, strict=True) if s > 0)
    span = hi - lo + x.dtype.itemsize
    buf = (ctypes.c_char * span).from_address(x.data.ptr + lo)
    return np.ndarray(x.shape, dtype=x.dtype, buffer=buf, offset=-lo, strides=x.strides)


def _complex_of(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex64) if dt in (np.float32, np.complex64, np.float16) else \
        np.dtype(np.complex128)


def _real_of(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dt in (np.float32, np.complex64, np.float16) else \
        np.dtype(np.float64)


def _input_type(dt: np.dtype) -> np.dtype:
    """What a complex transform reads: real input stays real (pocketfft takes it as it is)."""
    return _complex_of(dt) if np.dtype(dt).kind == "c" else _real_of(dt)


def _check_norm(norm: str) -> None:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or '
                         '"forward".')


def _run(routine: str, x: Any, out_shape: tuple[int, ...], out_dtype: np.dtype,
         in_dtype: np.dtype, call) -> ndarray:
    """Run ``call(host_input, host_output)`` (numpy.fft with out=) on the operand."""
    global _warned
    from .. import astype, empty

    arr = _as_array(x)
    _check_type(arr, routine)
    if arr.dtype.kind in "iub":
        arr = astype(arr, np.float64)
    if arr.dtype != in_dtype:
        arr = astype(arr, in_dtype)
    device = arr.device
    out = empty(out_shape, dtype=out_dtype, device=device)
    if out.size == 0:
        return out
    if device.platform == "cpu":
        device.synchronize()  # the library runs on the host: after the queued work
        call(_host_view(arr), _host_view(out))
        return out
    if not _warned:
        _warned = True
        warnings.warn(f"openhip.numpy.fft.{routine}: {_vendor.why_missing('cufft', device.platform)}"
                      f"; the {device.platform} platform's operands are transformed by pocketfft "
                      "in host memory", RuntimeWarning, stacklevel=3)
    host_out = np.empty(out_shape, dtype=out_dtype)
    call(arr.get(), host_out)
    out.set(host_out)
    return out


def _check_type(arr: ndarray, routine: str) -> None:
    if arr.dtype.kind not in "fciub":
        raise TypeError(f"fft.{routine}: unsupported dtype {arr.dtype.name}")


def _axis(x: ndarray, axis: int, routine: str) -> int:
    ax = operator.index(axis)
    if not -x.ndim <= ax < x.ndim:
        raise np.exceptions.AxisError(ax, x.ndim, f"fft.{routine}")
    return ax % x.ndim


def _n(n: Any, default: int, routine: str) -> int:
    if n is None:
        return default
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.{routine}: invalid number of data points ({n}) specified")
    return n


def fft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The one-dimensional discrete Fourier transform along ``axis``."""
    return _c2c("fft", np.fft.fft, x, n, axis, norm, False)


def ifft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The inverse of :func:`fft`."""
    return _c2c("ifft", np.fft.ifft, x, n, axis, norm, True)


def _c2c(routine: str, fn, x: Any, n: Any, axis: int, norm: str, inverse: bool) -> ndarray:
    _check_norm(norm)
    arr = _as_array(x)
    if arr.ndim == 0:
        raise ValueError(f"fft.{routine}: x must be at least 1-dimensional")
    ax = _axis(arr, axis, routine)
    length = _n(n, arr.shape[ax], routine)
    lib = _vendor_path.library(arr)
    if lib is not None:
        _check_type(arr, routine)
        return _vendor_path.transform(lib, arr, ax, length, "c2c", inverse, norm)
    shape = arr.shape[:ax] + (length,) + arr.shape[ax + 1:]
    cdt = _complex_of(arr.dtype)
    return _run(routine, arr, shape, cdt, _input_type(arr.dtype),
                lambda h, o: fn(h, n=length, axis=ax, norm=norm, out=o))


def _axes_and_sizes(arr: ndarray, s: Any, axes: Any, routine: str
                    ) -> tuple[list[int], list[int]]:
    if axes is None:
        if s is None:
            axes = list(range(arr.ndim))
        else:
            axes = list(range(arr.ndim - len(s), arr.ndim))
    else:
        axes = [_axis(arr, a, routine) for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"fft.{routine}: repeated axes are not allowed")
    if s is None:
        sizes = [arr.shape[a] for a in axes]
    else:
        s = list(s)
        if len(s) != len(axes):
            raise ValueError(f"fft.{routine}: s and axes must have the same length")
        sizes = [arr.shape[a] if v == -1 else _n(v, 0, routine) for v, a in zip(s, axes,
                                                                               strict=True)]
    return axes, sizes


def fftn(x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str = "backward") -> ndarray:
    """The n-dimensional discrete Fourier transform over ``axes``."""
    return _c2cn("fftn", np.fft.fftn, x, s, axes, norm, False)


def ifftn(x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> ndarray:
    """The inverse of :func:`fftn`."""
    return _c2cn("ifftn", np.fft.ifftn, x, s, axes, norm, True)


def _c2cn(routine: str, fn, x: Any, s: Any, axes: Any, norm: str, inverse: bool) -> ndarray:
    _check_norm(norm)
    arr = _as_array(x)
    ax, sizes = _axes_and_sizes(arr, s, axes, routine)
    lib = _vendor_path.library(arr)
    if lib is not None and ax:
        _check_type(arr, routine)
        for a, v in zip(reversed(ax), reversed(sizes), strict=True):
            arr = _vendor_path.transform(lib, arr, a, v, "c2c", inverse, norm)
        return arr
    shape = list(arr.shape)
    for a, v in zip(ax, sizes, strict=True):
        shape[a] = v
    cdt = _complex_of(arr.dtype)
    return _run(routine, arr, tuple(shape), cdt, _input_type(arr.dtype),
                lambda h, o: o.__setitem__(..., fn(h, s=sizes, axes=ax, norm=norm)))


def rfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The FFT of real input: the ``n // 2 + 1`` non-negative frequencies."""
    _check_norm(norm)
    arr = _as_array(x)
    if arr.dtype.kind == "c":
        raise TypeError("fft.rfft: x must be real-valued")
    if arr.ndim == 0:
        raise ValueError("fft.rfft: x must be at least 1-dimensional")
    ax = _axis(arr, axis, "rfft")
    length = _n(n, arr.shape[ax], "rfft")
    lib = _vendor_path.library(arr)
    if lib is not None:
        _check_type(arr, "rfft")
        return _vendor_path.transform(lib, arr, ax, length, "r2c", False, norm)
    shape = arr.shape[:ax] + (length // 2 + 1,) + arr.shape[ax + 1:]
    rdt = _real_of(arr.dtype)
    return _run("rfft", arr, shape, _complex_of(rdt), rdt,
                lambda h, o: np.fft.rfft(h, n=length, axis=ax, norm=norm, out=o))


def irfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The inverse of :func:`rfft`: ``n`` real outputs (default ``2 * (m - 1)``)."""
    _check_norm(norm)
    arr = _as_array(x)
    if arr.ndim == 0:
        raise ValueError("fft.irfft: x must be at least 1-dimensional")
    ax = _axis(arr, axis, "irfft")
    length = _n(n, 2 * (arr.shape[ax] - 1), "irfft")
    lib = _vendor_path.library(arr)
    if lib is not None:
        _check_type(arr, "irfft")
        return _vendor_path.transform(lib, arr, ax, length, "c2r", True, norm)
    shape = arr.shape[:ax] + (length,) + arr.shape[ax + 1:]
    cdt = _complex_of(arr.dtype)
    return _run("irfft", arr, shape, _real_of(cdt), cdt,
                lambda h, o: np.fft.irfft(h, n=length, axis=ax, norm=norm, out=o))


def rfftn(x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> ndarray:
    """The n-dimensional FFT of real input (the last axis halved)."""
    _check_norm(norm)
    arr = _as_array(x)
    if arr.dtype.kind == "c":
        raise TypeError("fft.rfftn: x must be real-valued")
    ax, sizes = _axes_and_sizes(arr, s, axes, "rfftn")
    lib = _vendor_path.library(arr)
    if lib is not None and ax:
        _check_type(arr, "rfftn")
        arr = _vendor_path.transform(lib, arr, ax[-1], sizes[-1], "r2c", False, norm)
        for a, v in zip(ax[:-1], sizes[:-1], strict=True):
            arr = _vendor_path.transform(lib, arr, a, v, "c2c", False, norm)
        return arr
    shape = list(arr.shape)
    for a, v in zip(ax, sizes, strict=True):
        shape[a] = v
    shape[ax[-1]] = sizes[-1] // 2 + 1
    rdt = _real_of(arr.dtype)
    return _run("rfftn", arr, tuple(shape), _complex_of(rdt), rdt,
                lambda h, o: o.__setitem__(..., np.fft.rfftn(h, s=sizes, axes=ax, norm=norm)))


def irfftn(x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str = "backward") -> ndarray:
    """The inverse of :func:`rfftn`."""
    _check_norm(norm)
    arr = _as_array(x)
    ax, sizes = _axes_and_sizes(arr, s, axes, "irfftn")
    if s is None:
        sizes[-1] = 2 * (arr.shape[ax[-1]] - 1)
    lib = _vendor_path.library(arr)
    if lib is not None and ax:
        _check_type(arr, "irfftn")
        for a, v in zip(ax[:-1], sizes[:-1], strict=True):
            arr = _vendor_path.transform(lib, arr, a, v, "c2c", True, norm)
        return _vendor_path.transform(lib, arr, ax[-1], sizes[-1], "c2r", True, norm)
    shape = list(arr.shape)
    for a, v in zip(ax, sizes, strict=True):
        shape[a] = v
    cdt = _complex_of(arr.dtype)
    return _run("irfftn", arr, tuple(shape), _real_of(cdt), cdt,
                lambda h, o: o.__setitem__(..., np.fft.irfftn(h, s=sizes, axes=ax, norm=norm)))


def hfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The FFT of a Hermitian-symmetric signal given by its first half: real output."""
    _check_norm(norm)
    arr = _as_array(x)
    ax = _axis(arr, axis, "hfft")
    length = _n(n, 2 * (arr.shape[ax] - 1), "hfft")
    lib = _vendor_path.library(arr)
    if lib is not None:
        from .. import conj

        _check_type(arr, "hfft")
        src = conj(arr) if arr.dtype.kind == "c" else arr
        return _vendor_path.transform(lib, src, ax, length, "c2r", True,
                                      _vendor_path.swap_norm(norm))
    shape = arr.shape[:ax] + (length,) + arr.shape[ax + 1:]
    cdt = _complex_of(arr.dtype)
    return _run("hfft", arr, shape, _real_of(cdt), cdt,
                lambda h, o: o.__setitem__(..., _hfft(h, length, ax, norm)))


def _hfft(h: np.ndarray, n: int, axis: int, norm: str) -> np.ndarray:
    # numpy 2.x's hfft(out=...) writes garbage (its irfft step reuses out before the scaling):
    # compute it into a temporary and copy.
    return np.fft.hfft(h, n=n, axis=axis, norm=norm)


def ihfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The inverse of :func:`hfft` (real input, ``n // 2 + 1`` complex outputs)."""
    _check_norm(norm)
    arr = _as_array(x)
    if arr.dtype.kind == "c":
        raise TypeError("fft.ihfft: x must be real-valued")
    ax = _axis(arr, axis, "ihfft")
    length = _n(n, arr.shape[ax], "ihfft")
    lib = _vendor_path.library(arr)
    if lib is not None:
        from .. import conj

        _check_type(arr, "ihfft")
        return conj(_vendor_path.transform(lib, arr, ax, length, "r2c", False,
                                           _vendor_path.swap_norm(norm)))
    shape = arr.shape[:ax] + (length // 2 + 1,) + arr.shape[ax + 1:]
    rdt = _real_of(arr.dtype)
    return _run("ihfft", arr, shape, _complex_of(rdt), rdt,
                lambda h, o: np.fft.ihfft(h, n=length, axis=ax, norm=norm, out=o))


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> ndarray:
    """The sample frequencies of an ``n``-point FFT: ``[0, 1, ..., -1] / (d * n)``."""
    from .. import arange, where

    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.fftfreq: n must be positive, got {n}")
    dt = np.dtype(np.float64 if dtype is None else dtype)
    k = arange(n, dtype=np.int64, device=device)
    k = where(k < (n + 1) // 2, k, k - n)
    return (k.astype(dt) * (1.0 / (d * n))).astype(dt)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> ndarray:
    """The non-negative sample frequencies of an ``n``-point real FFT."""
    from .. import arange

    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.rfftfreq: n must be positive, got {n}")
    dt = np.dtype(np.float64 if dtype is None else dtype)
    return (arange(n // 2 + 1, dtype=dt, device=device) * (1.0 / (d * n))).astype(dt)


def _shift(x: Any, axes: Any, inverse: bool) -> ndarray:
    from .. import roll

    arr = _as_array(x)
    if axes is None:
        axes = tuple(range(arr.ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes),)
    axes = tuple(axes)
    shifts = tuple((-(arr.shape[a] // 2) if inverse else arr.shape[a] // 2) for a in axes)
    if not axes:
        return arr.copy()
    return roll(arr, shifts, axis=axes)


def fftshift(x: Any, /, *, axes: Any = None) -> ndarray:
    """The zero frequency moved to the centre."""
    return _shift(x, axes, False)


def ifftshift(x: Any, /, *, axes: Any = None) -> ndarray:
    """The inverse of :func:`fftshift`."""
    return _shift(x, axes, True)

