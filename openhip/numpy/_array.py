"""``openhip.numpy.ndarray``: a strided view of device memory (the Array API array object).

An ndarray is a :class:`openhip.DeviceArray` (so every runtime API that takes a DeviceArray
takes it) plus strides: ``data`` is a MemoryPointer (buffer + byte offset), ``shape``,
``dtype`` and ``strides`` **in bytes** (numpy's convention; may be zero for broadcast views or
negative for flipped ones). Views share the buffer and keep their base alive (``_base``).
Every operation enqueues kernels on the current stream; only host reads (``get``, ``repr``,
``bool(x)``, ``float(x)``...) synchronise.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..runtime.array import DeviceArray, MemoryPointer
from ..runtime.device import Device, get_device
from ..runtime.memory import DeviceBuffer, memcpy_dtoh
from . import _dtypes
from ._fusion import _PENDING
from ._fusion import flush as _flush_pending

__all__ = ["ndarray", "_alloc", "as_ndarray", "c_strides", "empty_array"]


def _alloc(nbytes: int, device: Device) -> DeviceBuffer:
    """Device memory for arrays, from the runtime's memory pool (stream-ordered reuse).

    Requests take a whole size class: the pool moves a reused block's CPU red zone to the
    request's end when it hands the block out, while a kernel queued before the free may
    still write the previous (larger) request's extent; with whole classes the red zone stays
    put (a false hipErrorIllegalAddress otherwise)."""
    if nbytes <= 0:
        from ..runtime.memory import malloc

        return malloc(0, device)
    return _pool_allocate_class(_size_class(nbytes), device)


from ..runtime.pool import allocate_class as _pool_allocate_class  # noqa: E402
from ..runtime.pool import size_class as _size_class  # noqa: E402


def c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """C-order strides in bytes."""
    strides = []
    step = itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


_C_STRIDES: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}


def empty_array(shape: tuple[int, ...], dtype: np.dtype, device: Device) -> ndarray:
    """A new C-contiguous uninitialised array."""
    n = math.prod(shape)
    return ndarray._new(_alloc(n * dtype.itemsize, device), shape, dtype, 0, None)


def as_ndarray(x: DeviceArray) -> ndarray:
    """``x`` itself when it is an ndarray, else a view of a DeviceArray's memory."""
    if isinstance(x, ndarray):
        return x
    out = ndarray._new(x.data.mem, tuple(x.shape), _dtypes.to_dtype(x.dtype), x.data.offset,
                       None)
    out._base = x
    return out


class ndarray(DeviceArray):
    """An n-dimensional strided array in device memory (``import openhip.numpy as hnp``)."""

    __hash__ = DeviceArray.__hash__
    #: a pending (fused, not yet computed) array's expression (see _fusion.py); else None
    _pend = None

    @property
    def data(self) -> MemoryPointer:
        """Where the data lives (a MemoryPointer). Taking it computes every pending fused
        operation first (so the memory holds the array's value and no pending expression
        reads memory that the taker then writes)."""
        if _PENDING:
            _flush_pending()
        return self._data

    @data.setter
    def data(self, value: MemoryPointer) -> None:
        self._data = value

    @property
    def device(self) -> Device:
        """The device the array lives on."""
        return self._data.mem.device

    def __init__(self, shape: Any, dtype: Any = None, device: Device | int | None = None,
                 *, buffer: DeviceBuffer | None = None, offset: int = 0,
                 strides: Any = None) -> None:
        from ..runtime.array import _check_shape

        dims = _check_shape(shape)
        dt = _dtypes.float64 if dtype is None else _dtypes.to_dtype(dtype)
        dev = get_device() if device is None else (
            device if isinstance(device, Device) else Device(device))
        if buffer is None:
            buffer = _alloc(math.prod(dims) * dt.itemsize, dev)
        self._init(buffer, dims, dt, offset)
        self._strides = c_strides(dims, dt.itemsize) if strides is None else tuple(
            int(s) for s in strides)
        self._contig = strides is None or self._strides == c_strides(dims, dt.itemsize)

    @classmethod
    def _new(cls, buffer: DeviceBuffer, shape: tuple[int, ...], dtype: np.dtype, offset: int,
             strides: tuple[int, ...] | None, base: Any = None) -> ndarray:
        self = object.__new__(cls)
        self._data = MemoryPointer(buffer, offset)
        self.shape = shape
        self.dtype = dtype
        self._base = base
        if strides is None:
            self._strides = c_strides(shape, dtype.itemsize)
            self._contig = True
        else:
            self._strides = strides
            self._contig = strides == c_strides(shape, dtype.itemsize) or math.prod(shape) <= 1
        return self

    @classmethod
    def _new_contig(cls, buffer: DeviceBuffer, shape: tuple[int, ...], dtype: np.dtype
                    ) -> ndarray:
        """A new C-contiguous array over ``buffer`` (the strides memoised per shape)."""
        self = object.__new__(cls)
        self._data = MemoryPointer(buffer, 0)
        self.shape = shape
        self.dtype = dtype
        self._base = None
        key = (shape, dtype.itemsize)
        st = _C_STRIDES.get(key)
        if st is None:
            st = c_strides(shape, dtype.itemsize)
            if len(_C_STRIDES) < 4096:
                _C_STRIDES[key] = st
        self._strides = st
        self._contig = True
        return self

    def _view_as(self, shape: tuple[int, ...], strides: tuple[int, ...],
                 offset: int = 0) -> ndarray:
        """A view with ``shape``/``strides`` starting ``offset`` bytes after this one."""
        return ndarray._new(self.data.mem, shape, self.dtype, self.data.offset + offset,
                            strides, self)

    # ---- attributes ------------------------------------------------------------------
    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides (numpy's convention)."""
        return self._strides

    @property
    def flags_c_contiguous(self) -> bool:
        return self._contig

    @property
    def T(self) -> ndarray:
        """The transpose of a 2-D array (the standard forbids other ranks)."""
        if self.ndim != 2:
            raise ValueError(f"x.T requires a 2-D array (got {self.ndim}-D); use "
                             f"permute_dims or x.mT")
        return self._view_as(self.shape[::-1], self._strides[::-1])

    @property
    def mT(self) -> ndarray:
        """The transpose of the last two axes."""
        if self.ndim < 2:
            raise ValueError(f"x.mT requires at least 2 dimensions (got {self.ndim})")
        shape = self.shape[:-2] + (self.shape[-1], self.shape[-2])
        st = self._strides[:-2] + (self._strides[-1], self._strides[-2])
        return self._view_as(shape, st)

    def __array_namespace__(self, *, api_version: str | None = None) -> Any:
        if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12",
                                                           "2024.12"):
            raise ValueError(f"unsupported Array API version {api_version!r}")
        import openhip.numpy as hnp

        return hnp

    def to_device(self, device: Any, /, *, stream: Any = None) -> ndarray:
        """This array on ``device`` (itself when it is there already)."""
        from ._creation import _resolve_device

        dev = _resolve_device(device)
        if dev is self.device:
            return self
        host = self.get()
        from ._creation import asarray

        return asarray(host, device=dev)

    # ---- host transfers ----------------------------------------------------------------
    def get(self, stream: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        """A numpy copy of the data (synchronises, or queues on ``stream``)."""
        src = self if self._contig else self._ascontiguous()
        if out is None:
            out = np.empty(self.shape, dtype=self.dtype)
        elif out.shape != self.shape or out.dtype != self.dtype:
            raise ValueError(f"out has shape {out.shape} and dtype {out.dtype}; the array has "
                             f"{self.shape} and {self.dtype}")
        if src.nbytes:
            if stream is None:
                memcpy_dtoh(out, src)
            else:
                from ..runtime.memory import memcpy_dtoh_async

                memcpy_dtoh_async(out, src, stream)
        return out

    def _ascontiguous(self) -> ndarray:
        from ._manipulation import _copy_into

        out = empty_array(self.shape, self.dtype, self.device)
        _copy_into(out, self)
        return out

    def copy(self) -> ndarray:
        """A C-contiguous copy on the same device."""
        return self._ascontiguous()

    def set(self, host: Any, stream: Any = None) -> ndarray:
        arr = np.asarray(host)
        if not self._contig:
            from ._creation import asarray

            self[...] = asarray(arr, dtype=self.dtype, device=self.device)
            return self
        return DeviceArray.set(self, arr, stream)

    def fill(self, value: Any) -> ndarray:
        from ._creation import _fill

        _fill(self, value)
        return self

    def reshape(self, *shape: Any, copy: bool | None = None) -> ndarray:
        from ._manipulation import reshape

        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        return reshape(self, shape, copy=copy)

    def ravel(self) -> ndarray:
        from ._manipulation import reshape

        return reshape(self, (-1,))

    def view(self, dtype: Any) -> ndarray:
        dt = _dtypes.to_dtype(dtype)
        src = self if self._contig else self._ascontiguous()
        v = DeviceArray.view(src, dt)
        return ndarray._new(v.data.mem, tuple(v.shape), dt, v.data.offset, None, src)

    def astype(self, dtype: Any, copy: bool = True) -> ndarray:
        from ._elementwise import astype

        return astype(self, dtype, copy=copy)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy is False and not (self.device.platform == "cpu" and self._contig):
            raise ValueError("this array cannot be viewed from the host without a copy")
        if self._contig:
            self._host_ready()
            return DeviceArray.__array__(self, dtype, copy)
        host = self.get()
        return host if dtype is None else host.astype(dtype)

    @property
    def __array_interface__(self) -> dict[str, Any]:
        if not self._contig:
            raise AttributeError("__array_interface__ is given for C-contiguous arrays only")
        self._host_ready()
        return DeviceArray.__array_interface__.fget(self)

    def _host_ready(self) -> None:
        """Wait for the queued work before the host (a CPU-platform consumer) reads."""
        if self.device.platform == "cpu":
            self.device.synchronize()

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        if not self._contig:
            raise AttributeError("__cuda_array_interface__ is given for C-contiguous arrays")
        return DeviceArray.__cuda_array_interface__.fget(self)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        if not self._contig:
            if copy is False:
                raise BufferError("a strided view is exported through DLPack only with a copy")
            return self._ascontiguous().__dlpack__(stream=stream, max_version=max_version,
                                                   dl_device=dl_device)
        if stream is None or self.device.platform == "cpu":
            self._host_ready()
        return DeviceArray.__dlpack__(self, stream=stream, max_version=max_version,
                                      dl_device=dl_device, copy=copy)

    # ---- Python scalars ----------------------------------------------------------------
    def _scalar(self, what: str) -> Any:
        if self.size != 1 or self.ndim:
            if self.ndim == 0 or self.size == 1 and what == "bool":
                pass
            else:
                raise TypeError(f"only 0-d arrays can be converted to Python {what} "
                                f"(shape {self.shape})")
        return self.get().reshape(()).item() if self.size == 1 else None

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(f"the truth value of an array with {self.size} elements is "
                             f"ambiguous")
        v = self.get().reshape(()).item()
        return bool(v)

    def __int__(self) -> int:
        if self.ndim:
            raise TypeError(f"only 0-d arrays can be converted to int (shape {self.shape})")
        v = self.get().item()
        if isinstance(v, complex):
            raise TypeError("a complex array cannot be converted to int")
        return int(v)

    def __float__(self) -> float:
        if self.ndim:
            raise TypeError(f"only 0-d arrays can be converted to float (shape {self.shape})")
        v = self.get().item()
        if isinstance(v, complex):
            raise TypeError("a complex array cannot be converted to float")
        return float(v)

    def __complex__(self) -> complex:
        if self.ndim:
            raise TypeError(f"only 0-d arrays can be converted to complex (shape {self.shape})")
        return complex(self.get().item())

    def __index__(self) -> int:
        if self.ndim or _dtypes.kind_of(self.dtype) not in "iu":
            raise TypeError(f"only 0-d integer arrays can be used as an index (got "
                            f"{self.dtype} of shape {self.shape})")
        return int(self.get().item())

    def item(self) -> Any:
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.get().reshape(()).item()

    def tolist(self) -> Any:
        return self.get().tolist()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    def __repr__(self) -> str:
        host = self.get()
        body = np.array2string(host, separator=", ", prefix="array(")
        suffix = ""
        if self.dtype not in (_dtypes.float64, _dtypes.int64, _dtypes.bool,
                              _dtypes.complex128) or self.size == 0:
            suffix = f", dtype={self.dtype}"
        dev = self.device
        where = "" if dev.platform == "cpu" and dev.id == 0 else f", device={dev.id}"
        return f"array({body}{suffix}{where})"

    def __str__(self) -> str:
        return np.array2string(self.get())

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self.get().item(), spec)
        return str(self)

    # ---- indexing ------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> ndarray:
        from ._indexing import getitem

        return getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        from ._indexing import setitem

        setitem(self, key, value)


# ---- operators: generated, each a call of the elementwise function ----------------------
def _install_operators() -> None:
    from . import _elementwise as ew

    binary = {
        "add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "truediv": ew.divide,
        "floordiv": ew.floor_divide, "mod": ew.remainder, "pow": ew.pow,
        "and": ew.bitwise_and, "or": ew.bitwise_or, "xor": ew.bitwise_xor,
        "lshift": ew.bitwise_left_shift, "rshift": ew.bitwise_right_shift,
    }

    apply, is_operand = ew._apply, ew._is_operand

    def make(fn, reflected: bool):
        o = getattr(fn, "_op", None)
        if o is not None:  # (x + y: straight to the elementwise machinery)
            if reflected:
                def op(self, other):
                    if type(other) is ndarray or is_operand(other):
                        return apply(o, (other, self))
                    return NotImplemented
            else:
                def op(self, other):
                    if type(other) is ndarray or is_operand(other):
                        return apply(o, (self, other))
                    return NotImplemented
            return op
        if reflected:
            def op(self, other):
                if not ew._is_operand(other):
                    return NotImplemented
                return fn(other, self)
        else:
            def op(self, other):
                if not ew._is_operand(other):
                    return NotImplemented
                return fn(self, other)
        return op

    def make_inplace(fn):
        def op(self, other):
            if not ew._is_operand(other):
                return NotImplemented
            return ew._inplace(fn, self, other)
        return op

    for name, fn in binary.items():
        setattr(ndarray, f"__{name}__", make(fn, False))
        setattr(ndarray, f"__r{name}__", make(fn, True))
        setattr(ndarray, f"__i{name}__", make_inplace(fn))
    for name, fn in {"eq": ew.equal, "ne": ew.not_equal, "lt": ew.less, "le": ew.less_equal,
                     "gt": ew.greater, "ge": ew.greater_equal}.items():
        setattr(ndarray, f"__{name}__", make(fn, False))

    ndarray.__neg__ = lambda self: ew.negative(self)
    ndarray.__pos__ = lambda self: ew.positive(self)
    ndarray.__abs__ = lambda self: ew.abs(self)
    ndarray.__invert__ = lambda self: ew.bitwise_invert(self)
    ndarray.__hash__ = object.__hash__
