"""Creation functions of the Array API: asarray, empty/zeros/ones/full (and ``*_like``),
arange, linspace, eye, tril/triu, meshgrid, from_dlpack. Values are produced by the kernels of
kernels/create.hip (a memset for zeros); host data reaches the device by one copy."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..runtime.array import DeviceArray, _check_shape
from ..runtime.device import Device, get_device
from ..runtime.memory import memcpy_htod, memset
from . import _dtypes as D
from ._array import as_ndarray, empty_array, ndarray
from ._kernels import Family, OhArgs, ctype

__all__ = ["asarray", "empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like",
           "full", "full_like", "arange", "linspace", "eye", "tril", "triu", "meshgrid",
           "from_dlpack"]

FAMILY = Family("create", "create.hip", options=("-std=c++17", "-O2"))


#: the builds of a dtype: the common fill/arange apart from the rest (a first use compiles less)
_BUILDS = {"fill": "basic", "arange": "basic", "linspace": "more", "eye": "more", "tri": "more"}


def _kernel(name: str, dt: np.dtype, device: Device):
    build = _BUILDS[name]
    exprs = tuple(f"{k}<{ctype(dt)}>" for k, b in _BUILDS.items() if b == build)
    return FAMILY.kernel(f"create.{build}.{dt.name}", exprs, f"{name}<{ctype(dt)}>", device)


def _resolve_device(device: Any) -> Device:
    if device is None:
        return get_device()
    if isinstance(device, Device):
        return device
    if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        return Device(int(device))
    if isinstance(device, str):
        from ..runtime.device import devices

        for d in devices():
            if device in (d.platform, f"{d.platform}:{d._index}", str(d.id)):
                return d
    raise ValueError(f"unknown device {device!r}; use one of openhip.numpy."
                     f"__array_namespace_info__().devices()")


def _scal(a: OhArgs, k: int, value: Any, dt: np.dtype) -> None:
    raw = np.array(value, dtype=dt).tobytes().ljust(16, b"\0")
    a.scal[k][0] = int.from_bytes(raw[:8], "little")
    a.scal[k][1] = int.from_bytes(raw[8:], "little")


def _fill(out: ndarray, value: Any) -> None:
    """Set every element of ``out`` to ``value`` (converted to out's dtype)."""
    if out.size == 0:
        return
    raw = np.array(value, dtype=out.dtype)
    if not out._contig:
        tmp = full(out.shape, value, dtype=out.dtype, device=out.device)
        from ._manipulation import _copy_into

        _copy_into(out, tmp)
        return
    if not raw.tobytes().strip(b"\0"):
        from ..runtime.memory import memset_async

        memset_async(out, 0)
        return
    a = OhArgs()
    a.n = out.size
    a.ptr[0] = out.data.ptr
    _scal(a, 1, raw, out.dtype)
    _kernel("fill", out.dtype, out.device).launch_flat(out.size, a, (out.dtype.itemsize,))


def _default_dtype(host: np.ndarray) -> np.dtype:
    k = host.dtype.kind
    if k == "b":
        return D.bool
    if k in "iu":
        return host.dtype if host.dtype in D.DTYPES else D.int64
    if k == "f":
        return host.dtype if host.dtype in D.DTYPES else D.float64
    if k == "c":
        return host.dtype if host.dtype in D.DTYPES else D.complex128
    if host.dtype == D.bfloat16:
        return D.bfloat16
    raise TypeError(f"openhip.numpy cannot hold {host.dtype} data")


def _python_dtype(obj: Any) -> np.dtype | None:
    """The standard's default dtype of a (nested) Python scalar/list."""
    kinds: set[type] = set()

    def walk(o: Any) -> None:
        if isinstance(o, (list, tuple)):
            for v in o:
                walk(v)
        else:
            kinds.add(type(o))
    walk(obj)
    if not kinds:
        return D.float64
    if not kinds <= {bool, int, float, complex}:
        return None
    if complex in kinds:
        return D.complex128
    if float in kinds:
        return D.float64
    if int in kinds:
        return D.int64
    return D.bool


def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None
            ) -> ndarray:
    """An openhip.numpy array from an array (openhip, numpy or any DLPack/buffer producer),
    a Python scalar or a nested sequence. ``copy=False`` refuses to copy; ``copy=True``
    always copies."""
    dev = None if device is None else _resolve_device(device)
    dt = None if dtype is None else D.to_dtype(dtype)
    if isinstance(obj, DeviceArray):
        x = as_ndarray(obj)
        if dev is not None and dev is not x.device:
            if copy is False:
                raise ValueError(f"asarray: moving the array from {x.device} to {dev} needs "
                                 f"a copy (copy=False)")
            x = x.to_device(dev)
            copied = True
        else:
            copied = False
        if dt is not None and dt != x.dtype:
            if copy is False:
                raise ValueError("asarray: a dtype change needs a copy (copy=False)")
            from ._elementwise import astype

            return astype(x, dt)
        if copy and not copied:
            return x.copy()
        return x
    if isinstance(obj, (list, tuple)) and _has_device_arrays(obj):
        if copy is False:
            raise ValueError("asarray: copy=False but a sequence of arrays needs a copy")
        return _from_array_sequence(obj, dt, dev)
    if copy is False and not isinstance(obj, np.ndarray):
        if hasattr(obj, "__dlpack__"):
            return from_dlpack(obj, device=dev)
        raise ValueError("asarray: copy=False but the data is not on the device")
    if dt is None and isinstance(obj, (bool, int, float, complex, list, tuple)):
        dt = _python_dtype(obj)
    if isinstance(obj, int) and not isinstance(obj, bool) and dt is not None and \
            D.kind_of(dt) in "iu":
        info = np.iinfo(dt)
        if not info.min <= obj <= info.max:
            raise OverflowError(f"Python int {obj} does not fit in {dt}")
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray) and copy is not True \
            and dt is None:
        try:
            return from_dlpack(obj, device=dev)
        except (TypeError, ValueError, BufferError):
            pass
    try:
        host = np.asarray(obj, dtype=dt)
    except OverflowError:
        raise OverflowError(f"asarray: a value does not fit in {dt}") from None
    if copy is False:
        raise ValueError("asarray: copy=False but the data is on the host")
    if dt is None:
        dt = _default_dtype(host)
        host = host.astype(dt, copy=False)
    else:
        D.to_dtype(dt)
    if not host.flags.c_contiguous:
        host = np.ascontiguousarray(host)  # (0-d arrays are contiguous: ndim is kept)
    out = empty_array(host.shape, host.dtype, dev or get_device())
    if out.nbytes:
        memcpy_htod(out, host)
    return out


def _from_array_sequence(obj: list | tuple, dt: np.dtype | None, dev: Device | None
                         ) -> ndarray:
    """asarray of a nested sequence holding openhip arrays (and maybe Python or numpy
    scalars): the arrays are read back with one wait per device (their copies are queued,
    then the device's default stream is synchronised once), and without ``dtype`` the result
    type is the arrays' promoted dtype with the Python scalars weak, as the standard's
    promotion says (0-d float32 arrays and Python floats give float32)."""
    arrays: list[ndarray] = []
    scalars: list[Any] = []
    strong: list[np.dtype] = []

    def walk(o: Any) -> None:
        for v in o:
            if isinstance(v, DeviceArray):
                arrays.append(as_ndarray(v))
            elif isinstance(v, (list, tuple)):
                walk(v)
            elif isinstance(v, (builtins.bool, int, float, complex)):
                scalars.append(v)
            elif isinstance(v, (np.generic, np.ndarray)):
                strong.append(D.to_dtype(v.dtype))
            else:
                raise TypeError(f"asarray: cannot hold a {type(v).__name__} in an array")
    walk(obj)
    if dt is None:
        dt = D.result_type(*(a.dtype for a in arrays), *strong, *scalars)
        for v in scalars:
            if isinstance(v, int) and not isinstance(v, builtins.bool) and \
                    D.kind_of(dt) in "iu" and not \
                    np.iinfo(dt).min <= v <= np.iinfo(dt).max:
                raise OverflowError(f"Python int {v} does not fit in {dt}, the dtype of the "
                                    f"arrays beside it")
    from ..runtime.stream import Stream

    streams: dict[int, Stream] = {}
    hosts: list[np.ndarray] = []
    for a in arrays:
        if a.device.id not in streams:
            a.device.synchronize()
            streams[a.device.id] = Stream._default(a.device)
        hosts.append(a.get(stream=streams[a.device.id]))
    for s in streams.values():
        s.synchronize()
    read = iter(hosts)

    def build(o: Any) -> list:
        out = []
        for v in o:
            if isinstance(v, DeviceArray):
                out.append(next(read))
            elif isinstance(v, (list, tuple)):
                out.append(build(v))
            else:
                out.append(v)
        return out
    try:
        host = np.asarray(build(obj), dtype=dt)
    except OverflowError:
        raise OverflowError(f"asarray: a value does not fit in {dt}") from None
    return asarray(host, device=dev)


def _has_device_arrays(obj: Any) -> bool:
    return any(isinstance(v, DeviceArray) or isinstance(v, (list, tuple)) and
               _has_device_arrays(v) for v in obj)


def _shape(shape: Any) -> tuple[int, ...]:
    return _check_shape(shape)


def empty(shape: Any, *, dtype: Any = None, device: Any = None) -> ndarray:
    """An uninitialised array (default dtype float64)."""
    dt = D.float64 if dtype is None else D.to_dtype(dtype)
    return empty_array(_shape(shape), dt, _resolve_device(device))


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> ndarray:
    """An array of zeros (a device memset)."""
    out = empty(shape, dtype=dtype, device=device)
    if out.nbytes:
        from ..runtime.memory import memset_async

        memset_async(out, 0)
    return out


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> ndarray:
    """An array of ones (default dtype float64)."""
    return full(shape, 1, dtype=D.float64 if dtype is None else dtype, device=device)


def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> ndarray:
    """An array filled with ``fill_value`` (dtype from the value when not given)."""
    if isinstance(fill_value, DeviceArray):
        fill_value = as_ndarray(fill_value).item()
    if dtype is None:
        dt = _python_dtype(fill_value)
        if dt is None:
            dt = _default_dtype(np.asarray(fill_value))
    else:
        dt = D.to_dtype(dtype)
    if isinstance(fill_value, int) and not isinstance(fill_value, bool) and \
            D.kind_of(dt) in "iu":
        info = np.iinfo(dt)
        if not info.min <= fill_value <= info.max:
            raise OverflowError(f"full: {fill_value} does not fit in {dt}")
    out = empty_array(_shape(shape), dt, _resolve_device(device))
    _fill(out, fill_value)
    return out


def _like(x: Any, dtype: Any, device: Any) -> tuple[tuple[int, ...], Any, Any]:
    x = as_ndarray(x) if isinstance(x, DeviceArray) else x
    return (tuple(x.shape), x.dtype if dtype is None else dtype,
            getattr(x, "device", None) if device is None else device)


def empty_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> ndarray:
    """An uninitialised array like ``x``."""
    s, d, v = _like(x, dtype, device)
    return empty(s, dtype=d, device=v)


def zeros_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> ndarray:
    """Zeros like ``x``."""
    s, d, v = _like(x, dtype, device)
    return zeros(s, dtype=d, device=v)


def ones_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> ndarray:
    """Ones like ``x``."""
    s, d, v = _like(x, dtype, device)
    return ones(s, dtype=d, device=v)


def full_like(x: Any, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> ndarray:
    """``fill_value`` everywhere, like ``x``."""
    s, d, v = _like(x, dtype, device)
    return full(s, fill_value, dtype=d, device=v)


def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None,
           device: Any = None) -> ndarray:
    """Evenly spaced values in [start, stop) (numpy's length rule: ceil((stop-start)/step))."""
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, complex):
            raise TypeError(f"arange: {v!r} is not a real number")
    if step == 0:
        raise ZeroDivisionError("arange: step must not be zero")
    if dtype is None:
        is_float = any(isinstance(v, (float, np.floating)) for v in (start, stop, step))
        dt = D.float64 if is_float else D.int64
    else:
        dt = D.to_dtype(dtype)
    n = builtins.max(int(math.ceil((stop - start) / step)), 0)
    if D.kind_of(dt) in "iu" and n and not all(
            float(v).is_integer() for v in (start, step)):
        raise TypeError("arange: a fractional start or step with an integer dtype")
    out = empty_array((n,), dt, _resolve_device(device))
    if n:
        a = OhArgs()
        a.n = n
        a.ptr[0] = out.data.ptr
        _scal(a, 1, start, dt)
        _scal(a, 2, step, dt)
        _kernel("arange", dt, out.device).launch_flat(n, a, (dt.itemsize,))
    return out


def linspace(start: Any, stop: Any, /, num: int, *, dtype: Any = None, device: Any = None,
             endpoint: bool = True) -> ndarray:
    """``num`` evenly spaced values from ``start`` to ``stop`` (computed in double)."""
    if not isinstance(num, (int, np.integer)) or isinstance(num, bool) or num < 0:
        raise ValueError(f"linspace: num must be a non-negative int, not {num!r}")
    if dtype is None:
        dt = D.complex128 if isinstance(start, complex) or isinstance(stop, complex) \
            else D.float64
    else:
        dt = D.to_dtype(dtype)
    if D.kind_of(dt) not in "fc":
        raise TypeError(f"linspace: the dtype must be floating-point, not {dt}")
    out = empty_array((num,), dt, _resolve_device(device))
    if num:
        div = (num - 1) if endpoint else num
        s, e = complex(start), complex(stop)
        step = (e - s) / div if div else 0j
        a = OhArgs()
        a.n = num
        a.ptr[0] = out.data.ptr
        _scal(a, 1, s, D.complex128)
        _scal(a, 2, step, D.complex128)
        _scal(a, 3, e, D.complex128)
        a.extra[0] = 1 if endpoint and num > 1 else 0
        _kernel("linspace", dt, out.device).launch_ohargs(num, a)
    return out


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None,
        device: Any = None) -> ndarray:
    """Ones on the k-th diagonal, zeros elsewhere."""
    m = n_rows if n_cols is None else n_cols
    dt = D.float64 if dtype is None else D.to_dtype(dtype)
    out = empty_array(_shape((n_rows, m)), dt, _resolve_device(device))
    if out.size:
        a = OhArgs()
        a.n = out.size
        a.ptr[0] = out.data.ptr
        a.extra[0] = m
        a.extra[1] = k
        _kernel("eye", dt, out.device).launch_ohargs(out.size, a)
    return out


def _tri(x: Any, k: int, upper: int) -> ndarray:
    x = as_ndarray(x) if isinstance(x, DeviceArray) else asarray(x)
    if x.ndim < 2:
        raise ValueError(f"{'triu' if upper else 'tril'}: x must have at least 2 dimensions, "
                         f"got shape {x.shape}")
    out = empty_array(x.shape, x.dtype, x.device)
    if out.size:
        from ._elementwise import _fill_layout

        a = OhArgs()
        a.n = out.size
        a.ptr[0] = out.data.ptr
        a.ptr[1] = x.data.ptr
        if x.ndim > 8:
            raise ValueError("tril/triu: at most 8 dimensions")
        _ = _fill_layout
        a.ndim = x.ndim
        for d, s in enumerate(x.shape):
            a.shape[d] = s
            a.strides[0][d] = out.strides[d]
            a.strides[1][d] = x.strides[d]
        a.extra[0] = x.shape[-2]
        a.extra[1] = x.shape[-1]
        a.extra[2] = int(k)
        a.extra[3] = upper
        _kernel("tri", x.dtype, x.device).launch_ohargs(out.size, a)
    return out


def tril(x: Any, /, *, k: int = 0) -> ndarray:
    """The lower triangle (on and below the k-th diagonal) of the last two axes."""
    return _tri(x, k, 0)


def triu(x: Any, /, *, k: int = 0) -> ndarray:
    """The upper triangle (on and above the k-th diagonal) of the last two axes."""
    return _tri(x, k, 1)


def meshgrid(*arrays: Any, indexing: str = "xy") -> list[ndarray]:
    """Coordinate matrices from 1-D arrays (``indexing`` 'xy' or 'ij'); copies, as numpy."""
    from ._manipulation import broadcast_to, reshape

    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    xs = [as_ndarray(a) if isinstance(a, DeviceArray) else asarray(a) for a in arrays]
    if not xs:
        return []
    dts = {x.dtype for x in xs}
    if len(dts) > 1:
        raise ValueError("meshgrid: the arrays must have the same dtype")
    for x in xs:
        if x.ndim != 1:
            raise ValueError(f"meshgrid: the arrays must be 1-D, got shape {x.shape}")
    shape = [x.shape[0] for x in xs]
    if indexing == "xy" and len(xs) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        s = [1] * len(xs)
        j = i
        if indexing == "xy" and len(xs) > 1 and i < 2:
            j = 1 - i
        s[j] = x.shape[0]
        out.append(broadcast_to(reshape(x, tuple(s)), tuple(shape)).copy())
    return out


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> ndarray:
    """Share the memory of a DLPack producer (a copy when ``copy=True`` or when it must be
    made contiguous / moved to ``device``)."""
    from ..runtime.array import from_dlpack as _rt_from_dlpack

    if isinstance(x, DeviceArray):
        out = as_ndarray(x)
    else:
        if not hasattr(x, "__dlpack__"):
            raise TypeError(f"from_dlpack: {type(x).__name__} does not implement __dlpack__")
        try:
            out = as_ndarray(_rt_from_dlpack(x))
        except (ValueError, BufferError):
            if copy is False:
                raise
            out = asarray(np.from_dlpack(x))
    if device is not None:
        dev = _resolve_device(device)
        if dev is not out.device:
            if copy is False:
                raise ValueError(f"from_dlpack: moving to {dev} needs a copy")
            out = out.to_device(dev)
    if copy:
        out = out.copy()
    return out


def _sequence_of(x: Sequence[Any]) -> list[ndarray]:
    return [as_ndarray(a) if isinstance(a, DeviceArray) else asarray(a) for a in x]


_ = memset
