"""DLPack export and import (the ``dltensor`` PyCapsule protocol) with ctypes.

Export: :func:`to_capsule` wraps a DeviceArray's memory in a ``DLManagedTensor`` whose deleter
releases the reference that keeps the array alive. Import: :func:`from_capsule` reads a
producer's ``DLManagedTensor``, renames the capsule ``used_dltensor`` (we own it now) and calls the
producer's deleter when the importing array is garbage-collected.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

__all__ = ["DLDeviceType", "to_capsule", "from_capsule", "dtype_to_dl", "dl_to_dtype"]


class DLDeviceType:
    CPU = 1
    CUDA = 2
    CUDA_HOST = 3
    ROCM = 10
    ROCM_HOST = 11


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_FLAG_READ_ONLY = 1

_api = ctypes.pythonapi
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p)(("PyCapsule_New", _api))
_capsule_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_capsule_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_capsule_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", _api))

_NAME = b"dltensor"
_USED = b"used_dltensor"
_VNAME = b"dltensor_versioned"
_VUSED = b"used_dltensor_versioned"
# exported tensors alive until their consumer calls the deleter: address -> (struct, owner...)
_exported: dict[int, tuple[Any, ...]] = {}

_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT, _DL_COMPLEX, _DL_BOOL = 0, 1, 2, 4, 5, 6
_DL_F8_E4M3FN, _DL_F8_E5M2 = 10, 12


def _ml_dtypes():
    import ml_dtypes

    return ml_dtypes


def dtype_to_dl(dtype: np.dtype) -> tuple[int, int]:
    """(DLPack type code, bits) of a numpy/ml_dtypes dtype."""
    dtype = np.dtype(dtype)
    name = dtype.name
    if name == "bfloat16":
        return _DL_BFLOAT, 16
    if name == "float8_e4m3fn":
        return _DL_F8_E4M3FN, 8
    if name == "float8_e5m2":
        return _DL_F8_E5M2, 8
    kind = dtype.kind
    code = {"i": _DL_INT, "u": _DL_UINT, "f": _DL_FLOAT, "c": _DL_COMPLEX, "b": _DL_BOOL}.get(kind)
    if code is None:
        raise TypeError(f"dtype {dtype} has no DLPack equivalent")
    return code, dtype.itemsize * 8


def dl_to_dtype(code: int, bits: int, lanes: int) -> np.dtype:
    """The numpy dtype of a DLPack type."""
    if lanes != 1:
        raise TypeError(f"DLPack vector types (lanes={lanes}) are not supported")
    if code == _DL_BFLOAT and bits == 16:
        return np.dtype(_ml_dtypes().bfloat16)
    if code == _DL_F8_E4M3FN and bits == 8:
        return np.dtype(_ml_dtypes().float8_e4m3fn)
    if code == _DL_F8_E5M2 and bits == 8:
        return np.dtype(_ml_dtypes().float8_e5m2)
    kind = {_DL_INT: "i", _DL_UINT: "u", _DL_FLOAT: "f", _DL_COMPLEX: "c", _DL_BOOL: "b"}.get(code)
    if kind is None or bits % 8:
        raise TypeError(f"DLPack type code {code} with {bits} bits is not supported")
    return np.dtype(f"{kind}{bits // 8}" if kind != "b" else "?")


@_DELETER
def _exported_deleter(address: int) -> None:
    _exported.pop(address, None)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule: int) -> None:
    # Called when the capsule dies. Unconsumed: we still own the tensor, so free it.
    for name in (_NAME, _VNAME):
        if _capsule_is_valid_raw(capsule, name):
            address = _capsule_get_pointer_raw(capsule, name)
            if address:
                _exported.pop(address, None)


def to_capsule(owner: Any, data_ptr: int, shape: tuple[int, ...], dtype: np.dtype,
               device_type: int, device_id: int, versioned: bool = False) -> Any:
    """A ``dltensor`` (or, with ``versioned``, a DLPack 1.0 ``dltensor_versioned``) capsule
    over C-contiguous memory kept alive through ``owner``."""
    code, bits = dtype_to_dl(dtype)
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    if versioned:
        managed = _DLManagedTensorVersioned()
        managed.version = _DLPackVersion(1, 0)
        managed.flags = 0
    else:
        managed = _DLManagedTensor()
    t = managed.dl_tensor
    t.data = data_ptr
    t.device = _DLDevice(device_type, device_id)
    t.ndim = ndim
    t.dtype = _DLDataType(code, bits, 1)
    t.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.POINTER(ctypes.c_int64)()  # NULL: C-contiguous
    t.byte_offset = 0
    managed.deleter = _exported_deleter
    address = ctypes.addressof(managed)
    _exported[address] = (managed, shape_arr, owner)
    return _capsule_new(address, _VNAME if versioned else _NAME,
                        ctypes.cast(_capsule_destructor, ctypes.c_void_p))


class _Imported:
    """Owns a consumed DLManagedTensor(Versioned); calls the producer's deleter when
    collected."""

    def __init__(self, address: int, producer: Any, versioned: bool) -> None:
        self.address = address
        self.producer = producer
        self.versioned = versioned

    def __del__(self) -> None:
        address, self.address = self.address, 0
        if address:
            cls = _DLManagedTensorVersioned if self.versioned else _DLManagedTensor
            managed = cls.from_address(address)
            if managed.deleter:
                managed.deleter(address)


def from_capsule(capsule: Any, producer: Any = None) -> tuple[_Imported, int, tuple[int, ...],
                                                              np.dtype, int, int]:
    """Consume a ``dltensor`` capsule: (owner, data pointer, shape, dtype, device type, id).

    Only C-contiguous tensors are accepted (ValueError otherwise).
    """
    if _capsule_is_valid(capsule, _VNAME):
        versioned, name, used = True, _VNAME, _VUSED
    elif _capsule_is_valid(capsule, _NAME):
        versioned, name, used = False, _NAME, _USED
    else:
        raise TypeError("expected an unconsumed 'dltensor' PyCapsule from __dlpack__()")
    address = _capsule_get_pointer(capsule, name)
    if versioned:
        vmanaged = _DLManagedTensorVersioned.from_address(address)
        if vmanaged.version.major != 1:
            raise TypeError(f"DLPack major version {vmanaged.version.major} is not supported")
        t = vmanaged.dl_tensor
    else:
        t = _DLManagedTensor.from_address(address).dl_tensor
    ndim = t.ndim
    shape = tuple(t.shape[i] for i in range(ndim))
    dtype = dl_to_dtype(t.dtype.code, t.dtype.bits, t.dtype.lanes)
    if t.strides:
        expected = 1
        for i in reversed(range(ndim)):
            if shape[i] != 1 and t.strides[i] != expected:
                raise ValueError("only C-contiguous DLPack tensors can be imported; "
                                 "make the tensor contiguous first")
            expected *= shape[i]
    _capsule_set_name(capsule, used)
    owner = _Imported(address, producer, versioned)
    data = (t.data or 0) + t.byte_offset
    return owner, data, shape, dtype, t.device.device_type, t.device.device_id
