"""DeviceArray: an n-dimensional, C-contiguous array in device memory.

On the CPU platform device memory is host memory, so a DeviceArray exposes
``__array_interface__`` and ``numpy.asarray(x)`` shares it without a copy. On every platform it
speaks DLPack (``__dlpack__``/``__dlpack_device__``; :func:`from_dlpack` imports), and on GPU
platforms ``__cuda_array_interface__`` (v3).

Arrays take their memory from the device's memory pool (:mod:`openhip.runtime.pool`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import HipError
from . import dlpack as _dl
from .device import Device, get_device
from .memory import (
    DeviceBuffer,
    memcpy_dtod,
    memcpy_dtoh,
    memcpy_dtoh_async,
    memcpy_htod,
    memcpy_htod_async,
    memset,
)
from .pool import allocate as _pool_allocate
from .stream import Stream

__all__ = ["DeviceArray", "MemoryPointer", "asarray", "empty", "zeros", "ones", "full",
           "empty_like", "zeros_like", "from_dlpack", "dtype_for_type"]

_DLPACK_DEVICE = {"cpu": _dl.DLDeviceType.CPU, "nvidia": _dl.DLDeviceType.CUDA,
                  "amd": _dl.DLDeviceType.ROCM}


def _check_dtype(dtype: Any) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"not a dtype: {dtype!r}") from exc
    if dt.hasobject or dt.kind in ("U", "S", "O", "M", "m") or dt.fields is not None and \
            any(f[0].hasobject for f in dt.fields.values()):
        raise TypeError(f"dtype {dt} cannot live in device memory")
    return dt


def _check_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        dims = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, not {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"negative dimensions are not allowed: {dims}")
    return dims


def dtype_for_type(type_text: str, typedefs: dict[str, str] | None = None) -> np.dtype | None:
    """The numpy dtype of a C++ scalar type name (``unsigned int`` -> uint32), or None."""
    from ..compiler.scan import Param
    from .kernel_args import classify

    spec = classify(Param("", type_text), typedefs)
    if spec.kind != "scalar":
        return None
    if spec.code == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(spec.code)


class MemoryPointer:
    """Where an array's data lives: ``ptr`` (an int) inside ``mem`` (a DeviceBuffer)."""

    __slots__ = ("mem", "offset")

    def __init__(self, mem: DeviceBuffer, offset: int = 0) -> None:
        self.mem = mem
        self.offset = offset

    @property
    def ptr(self) -> int:
        return self.mem.ptr + self.offset if self.mem.nbytes or self.offset else self.mem.ptr

    @property
    def device(self) -> Device:
        return self.mem.device

    def __int__(self) -> int:
        return self.ptr


class DeviceArray:
    """An array in device memory. Create with :func:`asarray`, :func:`empty`, :func:`zeros`;
    read back with :meth:`get`."""

    __array_priority__ = 100
    _exported = False  # has handed out an __array_interface__/__cuda_array_interface__ view

    def __init__(self, shape: Any, dtype: Any = np.float64,
                 device: Device | int | None = None) -> None:
        dims = _check_shape(shape)
        dt = _check_dtype(dtype)
        dev = get_device() if device is None else (
            device if isinstance(device, Device) else Device(device))
        nbytes = math.prod(dims) * dt.itemsize
        self._init(_pool_allocate(nbytes, dev), dims, dt)  # the device's memory pool

    def _init(self, buffer: DeviceBuffer, shape: tuple[int, ...], dtype: np.dtype,
              offset: int = 0) -> None:
        self.data = MemoryPointer(buffer, offset)
        self.shape = shape
        self.dtype = dtype
        self._base: Any = None

    @classmethod
    def _wrap(cls, buffer: DeviceBuffer, shape: tuple[int, ...], dtype: np.dtype,
              offset: int = 0) -> DeviceArray:
        self = object.__new__(cls)
        self._init(buffer, shape, np.dtype(dtype), offset)
        return self

    # ---- basic properties --------------------------------------------------------------
    @property
    def device(self) -> Device:
        return self.data.mem.device

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        strides, step = [], self.dtype.itemsize
        for d in reversed(self.shape):
            strides.append(step)
            step *= max(d, 1)
        return tuple(reversed(strides))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"<openhip.DeviceArray shape={self.shape} dtype={self.dtype} "
                f"device={self.device.id} ({self.device.platform})>")

    # ---- the array API: operators and methods delegate to openhip.numpy -------------------
    # (imported on first use; ``x == y`` is elementwise; openhip.numpy.ndarray overrides all)
    __hash__ = object.__hash__

    def __array_namespace__(self, *, api_version: str | None = None) -> Any:
        return _hnp_view(self).__array_namespace__(api_version=api_version)

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        return _hnp_view(self).astype(dtype, copy=copy)

    @property
    def T(self) -> Any:
        return _hnp_view(self).T

    @property
    def mT(self) -> Any:
        return _hnp_view(self).mT

    def __getitem__(self, key: Any) -> Any:
        return _hnp_view(self)[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        _hnp_view(self)[key] = value

    # ---- transfers ------------------------------------------------------------------------
    def get(self, stream: Stream | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """A numpy copy of the data (into ``out`` when given). With ``stream`` the copy is
        queued on it and ``out`` is valid after the stream synchronises."""
        if out is None:
            out = np.empty(self.shape, dtype=self.dtype)
        elif not isinstance(out, np.ndarray):
            raise TypeError("out must be a numpy array")
        elif out.shape != self.shape or out.dtype != self.dtype:
            raise ValueError(f"out has shape {out.shape} and dtype {out.dtype}; the array has "
                             f"{self.shape} and {self.dtype}")
        if self.nbytes:
            if stream is None:
                memcpy_dtoh(out, self)
            else:
                memcpy_dtoh_async(out, self, stream)
        return out

    def set(self, host: Any, stream: Stream | None = None) -> DeviceArray:
        """Copy ``host`` (same shape and dtype) into this array."""
        arr = np.asarray(host)
        if arr.shape != self.shape:
            raise ValueError(f"host array has shape {arr.shape}; the device array {self.shape}")
        if arr.dtype != self.dtype:
            raise TypeError(f"host array has dtype {arr.dtype}; the device array {self.dtype}")
        arr = np.ascontiguousarray(arr)
        if self.nbytes:
            if stream is None:
                memcpy_htod(self, arr)
            else:
                memcpy_htod_async(self, arr, stream)
        return self

    def copy(self) -> DeviceArray:
        """A new array with the same data, on the same device."""
        out = DeviceArray(self.shape, self.dtype, self.device)
        if self.nbytes:
            memcpy_dtod(out, self)
        return out

    def fill(self, value: Any) -> DeviceArray:
        """Set every element to ``value``."""
        if value == 0:
            memset(self, 0)
        else:
            self.set(np.full(self.shape, value, dtype=self.dtype))
        return self

    def reshape(self, *shape: Any) -> DeviceArray:
        """A view with another shape (one dimension may be -1)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        dims = list(shape)
        if dims.count(-1) > 1:
            raise ValueError("only one dimension can be -1")
        if -1 in dims:
            known = math.prod(d for d in dims if d != -1)
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape {self.size} elements into {tuple(shape)}")
            dims[dims.index(-1)] = self.size // known
        dims_t = _check_shape(dims)
        if math.prod(dims_t) != self.size:
            raise ValueError(f"cannot reshape {self.shape} into {dims_t}")
        return self._view(dims_t, self.dtype)

    def ravel(self) -> DeviceArray:
        return self.reshape(-1)

    def view(self, dtype: Any) -> DeviceArray:
        """The same bytes seen as another dtype (the last dimension rescales)."""
        dt = _check_dtype(dtype)
        if dt.itemsize == self.dtype.itemsize:
            return self._view(self.shape, dt)
        last = self.shape[-1] if self.shape else 1
        if (last * self.dtype.itemsize) % dt.itemsize:
            raise ValueError(f"cannot view {self.dtype} as {dt}: sizes do not divide")
        shape = (self.shape[:-1] if self.shape else ()) + (
            last * self.dtype.itemsize // dt.itemsize,)
        return self._view(shape, dt)

    def _view(self, shape: tuple[int, ...], dtype: np.dtype) -> DeviceArray:
        out = DeviceArray._wrap(self.data.mem, shape, dtype, self.data.offset)
        out._base = self
        return out

    # ---- interop ------------------------------------------------------------------------
    @property
    def __array_interface__(self) -> dict[str, Any]:
        if self.device.platform != "cpu":
            raise AttributeError("__array_interface__ exists only on the CPU platform; "
                                 "use .get() to copy to the host")
        if self.dtype.str[1] == "V" and self.dtype.fields is None:
            raise AttributeError("this dtype is exported through __array__")
        ptr = self.data.ptr
        if not self._exported:  # numpy's view holds this array: it counts as an export
            self._exported = True
            self.data.mem._export_via(self)
        return {"version": 3, "shape": self.shape, "typestr": self.dtype.str,
                "descr": self.dtype.descr, "data": (ptr, False), "strides": None}

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if self.device.platform == "cpu" and not copy:
            import ctypes

            if self.nbytes:
                raw = (ctypes.c_char * self.nbytes).from_address(self.data.ptr)
                raw._openhip_export = self.data.mem._export()  # the view's base holds it
            else:
                raw = bytearray()
            arr = np.frombuffer(raw, dtype=self.dtype).reshape(self.shape)
            if dtype is not None and np.dtype(dtype) != self.dtype:
                if copy is False:
                    raise ValueError("a dtype change needs a copy")
                return arr.astype(dtype)
            return arr
        if copy is False:
            raise ValueError("device memory cannot be viewed from the host without a copy")
        host = self.get()
        return host if dtype is None else host.astype(dtype)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        if self.device.platform == "cpu":
            raise AttributeError("__cuda_array_interface__ exists only on GPU platforms")
        # openhip's default stream is the legacy default stream (1 in the interface's terms);
        # consumers synchronise on it before touching the data.
        ptr = self.data.ptr
        if not self._exported:  # consumers hold this array: it counts as an export
            self._exported = True
            self.data.mem._export_via(self)
        return {"version": 3, "shape": self.shape, "typestr": self.dtype.str,
                "descr": self.dtype.descr, "data": (ptr, False), "strides": None,
                "stream": 1}

    def __dlpack_device__(self) -> tuple[int, int]:
        dev = self.device
        return _DLPACK_DEVICE[dev.platform], (dev._index if dev.platform != "cpu" else 0)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"cannot export to DLPack device {dl_device} without a copy")
        if copy:
            return self.copy().__dlpack__()
        if stream not in (None, -1) and self.device.platform != "cpu":
            self._order_before_consumer(stream)
        dtype, did = self.__dlpack_device__()
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        ptr = self.data.ptr if self.nbytes else 0  # HipError if freed
        # The token counts the export until the consumer calls the deleter (a free() waits).
        owner = (self, self.data.mem._export())
        return _dl.to_capsule(owner, ptr, self.shape,
                              self.dtype, dtype, did, versioned=versioned)


    def _order_before_consumer(self, stream: int) -> None:
        """Make the consumer's stream wait for the work queued on our default stream (which,
        being the legacy default stream, follows all blocking streams)."""
        dev = self.device
        platform, index = dev._platform, dev._index
        wrap = getattr(platform, "stream_from_handle", None)
        if wrap is None or not isinstance(stream, int):
            dev.synchronize()
            return
        handle = 0 if stream in (1, 2) else stream
        event = platform.event_create(index)
        try:
            platform.event_record(index, event, None)
            platform.stream_wait_event(index, wrap(index, handle), event)
        finally:
            platform.event_destroy(index, event)


def _hnp_view(x: DeviceArray) -> Any:
    """``x`` as an openhip.numpy array sharing its memory (imported lazily)."""
    from ..numpy._array import as_ndarray

    return as_ndarray(x)


def _delegate(name: str) -> Any:
    def method(self: DeviceArray, *args: Any) -> Any:
        return getattr(_hnp_view(self), name)(*args)
    method.__name__ = name
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
              "lshift", "rshift"):
    for _form in ("__{}__", "__r{}__", "__i{}__"):
        setattr(DeviceArray, _form.format(_name), _delegate(_form.format(_name)))
for _name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__pos__",
              "__abs__", "__invert__", "__int__", "__float__", "__complex__",
              "__index__"):
    setattr(DeviceArray, _name, _delegate(_name))
del _name, _form


def asarray(obj: Any, dtype: Any = None, device: Device | int | None = None,
            stream: Stream | None = None) -> DeviceArray:
    """Copy ``obj`` (a numpy array or anything ``numpy.asarray`` accepts) to the device. A
    DeviceArray on the target device with the right dtype is returned as is."""
    dev = get_device() if device is None else (
        device if isinstance(device, Device) else Device(device))
    if isinstance(obj, DeviceArray):
        if obj.device is dev and (dtype is None or np.dtype(dtype) == obj.dtype):
            return obj
        obj = obj.get()
    host = np.asarray(obj, dtype=dtype)
    _check_dtype(host.dtype)
    host = np.ascontiguousarray(host)
    out = DeviceArray(host.shape, host.dtype, dev)
    if out.nbytes:
        if stream is None:
            memcpy_htod(out, host)
        else:
            memcpy_htod_async(out, host, stream)
    return out


def empty(shape: Any, dtype: Any = np.float64, device: Device | int | None = None) -> DeviceArray:
    """An uninitialised array."""
    return DeviceArray(shape, dtype, device)


def zeros(shape: Any, dtype: Any = np.float64, device: Device | int | None = None) -> DeviceArray:
    """An array of zeros."""
    out = DeviceArray(shape, dtype, device)
    if out.nbytes:
        memset(out, 0)
    return out


def ones(shape: Any, dtype: Any = np.float64, device: Device | int | None = None) -> DeviceArray:
    """An array of ones."""
    return full(shape, 1, dtype, device)


def full(shape: Any, value: Any, dtype: Any = None,
         device: Device | int | None = None) -> DeviceArray:
    """An array filled with ``value``."""
    host = np.full(_check_shape(shape), value, dtype=dtype)
    return asarray(host, device=device)


def empty_like(a: DeviceArray | np.ndarray, dtype: Any = None) -> DeviceArray:
    """An uninitialised array with ``a``'s shape and dtype (and device)."""
    device = a.device if isinstance(a, DeviceArray) else None
    return DeviceArray(a.shape, a.dtype if dtype is None else dtype, device)


def zeros_like(a: DeviceArray | np.ndarray, dtype: Any = None) -> DeviceArray:
    """An array of zeros with ``a``'s shape and dtype (and device)."""
    device = a.device if isinstance(a, DeviceArray) else None
    return zeros(a.shape, a.dtype if dtype is None else dtype, device)


def from_dlpack(obj: Any) -> DeviceArray:
    """Share the memory of any DLPack producer (numpy, torch, CuPy...) as a DeviceArray.

    The producer's device must match a device of an active platform: CPU tensors map to the CPU
    platform, CUDA tensors to the nvidia platform, ROCm tensors to the amd platform.
    """
    if isinstance(obj, DeviceArray):
        return obj
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"{type(obj).__name__} does not implement __dlpack__")
    dev_type, dev_id = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (1, 0)
    platform = {_dl.DLDeviceType.CPU: "cpu", _dl.DLDeviceType.CUDA: "nvidia",
                _dl.DLDeviceType.ROCM: "amd"}.get(int(dev_type))
    if platform is None:
        raise TypeError(f"DLPack device type {dev_type} is not supported")
    from .device import devices

    target = next((d for d in devices() if d.platform == platform and
                   (platform == "cpu" or d._index == dev_id)), None)
    if target is None:
        raise HipError("hipErrorInvalidDevice", f"no active {platform} device {dev_id} for this "
                       "DLPack tensor (check OPENHIP_PLATFORM)", routine="from_dlpack")
    try:
        capsule = obj.__dlpack__(max_version=(1, 0))
    except TypeError:
        capsule = obj.__dlpack__()
    owner, ptr, shape, dtype, _, _ = _dl.from_capsule(capsule, obj)
    nbytes = math.prod(shape) * dtype.itemsize
    buf = DeviceBuffer(ptr, nbytes, target, owner=False)
    arr = DeviceArray._wrap(buf, shape, dtype)
    arr._base = owner
    return arr
