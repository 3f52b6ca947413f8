"""Data types and reduction operators of openhip.ccl (NCCL's enum values), and buffer checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from openhip.errors import CclError

__all__ = ["DTYPES", "REDUCIBLE", "OPS", "PreMulSum", "premul_sum", "CclArgumentError",
           "dtype_code", "op_code", "host_array", "is_device_buffer"]


class CclArgumentError(CclError, ValueError):
    """A bad argument (dtype, size, layout, rank, root, op), raised before anything is sent."""


#: numpy dtype -> ncclDataType_t value (RCCL uses the same values)
DTYPES: dict[np.dtype, int] = {
    np.dtype(np.int8): 0,
    np.dtype(np.uint8): 1,
    np.dtype(np.int32): 2,
    np.dtype(np.uint32): 3,
    np.dtype(np.int64): 4,
    np.dtype(np.uint64): 5,
    np.dtype(np.float16): 6,
    np.dtype(np.float32): 7,
    np.dtype(np.float64): 8,
    np.dtype(ml_dtypes.bfloat16): 9,
    np.dtype(ml_dtypes.float8_e4m3fn): 10,
    np.dtype(ml_dtypes.float8_e5m2): 11,
}
CODE_TO_DTYPE: dict[int, np.dtype] = {v: k for k, v in DTYPES.items()}
#: dtype codes the reductions accept (fp8 only moves data)
REDUCIBLE = frozenset(range(10))

#: op name -> ncclRedOp_t value; premul_sum is carried out as a scaled sum
OPS: dict[str, int] = {"sum": 0, "prod": 1, "max": 2, "min": 3, "avg": 4, "premul_sum": 5}
OP_NAMES = {v: k for k, v in OPS.items()}


@dataclass(frozen=True)
class PreMulSum:
    """ncclRedOpCreatePreMulSum: each rank's input is multiplied by its ``scalar`` and summed."""

    scalar: Any


def premul_sum(scalar: Any) -> PreMulSum:
    """The premul_sum reduction with this rank's ``scalar``."""
    return PreMulSum(scalar)


def dtype_name(code: int) -> str:
    dt = CODE_TO_DTYPE.get(code)
    return str(dt) if dt is not None else f"dtype#{code}"


def dtype_code(dtype: np.dtype, what: str, reduction: bool) -> int:
    """ncclDataType_t of ``dtype``; CclArgumentError when it is not supported."""
    code = DTYPES.get(dtype)
    if code is None:
        names = ", ".join(str(d) for d in DTYPES)
        raise CclArgumentError(f"{what}: dtype {dtype} is not supported (supported: {names})")
    if reduction and code not in REDUCIBLE:
        raise CclArgumentError(
            f"{what}: dtype {dtype} can only be moved (broadcast, all_gather, all_to_all, gather, "
            "scatter, send/recv), not reduced"
        )
    return code


def op_code(op: Any, what: str) -> tuple[int, Any]:
    """(code, premul scalar or None) of a reduction given as a name or PreMulSum."""
    if isinstance(op, PreMulSum):
        return 5, op.scalar
    code = OPS.get(op) if isinstance(op, str) else None
    if code is None:
        raise CclArgumentError(
            f"{what}: unknown reduction {op!r} (use one of {', '.join(OPS)} or ccl.premul_sum(x))"
        )
    if code == 5:
        raise CclArgumentError(f"{what}: premul_sum needs its scalar: op=ccl.premul_sum(scalar)")
    return code, None


def is_device_buffer(obj: Any) -> bool:
    """True for GPU buffers (``__cuda_array_interface__`` without a host view)."""
    return hasattr(obj, "__cuda_array_interface__") and not hasattr(obj, "__array_interface__")


#: DLPack device types whose memory the host reads directly (kDLCPU, kDLCUDAHost, kDLROCMHost)
_HOST_DEVICES = (1, 3, 11)


class _DLPackView:
    """Keeps an imported DLPack tensor alive under the numpy view made of it."""

    def __init__(self, owner: Any, data: int, nbytes: int) -> None:
        self.owner = owner  # bytes here; viewed as the dtype after (ml_dtypes have no typestr)
        self.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1",
                                    "data": (data, False), "strides": None}


def _from_dlpack(obj: Any, what: str) -> np.ndarray:
    """A numpy view of a host-memory DLPack tensor (a torch CPU tensor...), without a copy."""
    from openhip.runtime.dlpack import from_capsule

    try:
        device = obj.__dlpack_device__()
    except Exception as exc:  # noqa: BLE001 - whatever the producer raises
        raise CclArgumentError(f"{what}: __dlpack_device__() failed: {exc}") from exc
    if int(device[0]) not in _HOST_DEVICES:
        raise CclArgumentError(
            f"{what}: a DLPack tensor on device type {int(device[0])} without "
            "__cuda_array_interface__: pass host memory or a CUDA/HIP array")
    try:
        try:
            capsule = obj.__dlpack__(max_version=(1, 0))
        except TypeError:
            capsule = obj.__dlpack__()
        owner, data, shape, dtype, _, _ = from_capsule(capsule, obj)
    except ValueError as exc:
        raise CclArgumentError(f"{what}: the tensor is not contiguous ({exc})") from exc
    except (TypeError, BufferError, RuntimeError) as exc:  # torch: requires_grad, ...
        raise CclArgumentError(f"{what}: cannot import the DLPack tensor: {exc}") from exc
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if not data or not nbytes:
        return np.zeros(shape, dtype)
    return np.asarray(_DLPackView(owner, data, nbytes)).view(dtype).reshape(shape)


def host_array(obj: Any, what: str, writable: bool) -> np.ndarray:
    """View ``obj`` as a C-contiguous numpy array sharing its memory, or raise CclArgumentError.

    Takes numpy arrays, objects with ``__array_interface__`` (openhip.DeviceArray on the CPU
    platform) and host-memory DLPack tensors (torch CPU tensors, any dtype ccl supports).
    """
    if type(obj) is not np.ndarray:
        if isinstance(obj, np.ndarray):
            pass
        elif hasattr(obj, "__array_interface__"):
            obj = np.asarray(obj)
        elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
            obj = _from_dlpack(obj, what)
        else:
            raise CclArgumentError(
                f"{what}: expected a numpy array, an object with __array_interface__ "
                f"(openhip.DeviceArray) or a host DLPack tensor, got {type(obj).__name__}"
            )
    if not obj.flags.c_contiguous:
        raise CclArgumentError(f"{what}: the array is not contiguous (use np.ascontiguousarray)")
    if writable and not obj.flags.writeable:
        raise CclArgumentError(f"{what}: the array is read-only")
    return obj
