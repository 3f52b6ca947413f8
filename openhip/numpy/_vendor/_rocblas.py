"""rocBLAS (``librocblas.so``, the user's ROCm): the amd platform's gemm.

The same column-major mapping as ``_cublas`` (row-major C = A B called as C^T = B^T A^T, op
and leading dimension per operand from its strides, strided-batched calls with the batch
strides as they are): ``rocblas_{s,d,c,z}gemm_strided_batched`` and, for float16/bfloat16,
``rocblas_gemm_strided_batched_ex`` with float32 compute (its D output is C itself, as
rocBLAS allows for in-place use). rocBLAS's integers are 32-bit (``rocblas_int``), its batch
strides 64-bit. One handle per device and stream (``rocblas_set_stream`` with the hipStream_t).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import _common
from ._loader import Library, check

_I, _L, _P = ctypes.c_int, ctypes.c_longlong, ctypes.c_void_p

SYMBOLS = ("rocblas_create_handle", "rocblas_destroy_handle", "rocblas_set_stream",
           "rocblas_sgemm_strided_batched", "rocblas_dgemm_strided_batched",
           "rocblas_cgemm_strided_batched", "rocblas_zgemm_strided_batched",
           "rocblas_gemm_strided_batched_ex")

OP_N, OP_T = 111, 112  # rocblas_operation_none / _transpose
_DATATYPE = {np.dtype(np.float16): 150, np.dtype(np.float32): 151}  # rocblas_datatype
BF16 = 168
GEMM_ALGO_STANDARD = 0

STATUS = {1: "rocblas_status_invalid_handle", 2: "rocblas_status_not_implemented",
          3: "rocblas_status_invalid_pointer", 4: "rocblas_status_invalid_size",
          5: "rocblas_status_memory_error", 6: "rocblas_status_internal_error",
          7: "rocblas_status_perf_degraded", 8: "rocblas_status_size_query_mismatch",
          11: "rocblas_status_invalid_value", 12: "rocblas_status_arch_mismatch"}

_TYPED = {np.dtype(np.float32): "rocblas_sgemm_strided_batched",
          np.dtype(np.float64): "rocblas_dgemm_strided_batched",
          np.dtype(np.complex64): "rocblas_cgemm_strided_batched",
          np.dtype(np.complex128): "rocblas_zgemm_strided_batched"}


def _datatype(dt: np.dtype) -> int:
    return BF16 if dt.name == "bfloat16" else _DATATYPE[dt]


class Rocblas:
    """rocBLAS for openhip arrays (see the module's docstring); ``gemm`` as ``Cublas.gemm``,
    with the ops given as ``OP_N``/``OP_T`` of this module."""

    SYMBOLS = SYMBOLS
    OP_N, OP_T = OP_N, OP_T

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self._handles = _common.StreamHandles(lib, ("rocblas_create_handle", "rocblas_create_handle"),
                                              ("rocblas_set_stream", "rocblas_set_stream"), STATUS)

    def handle_for(self, device: Any, stream_ptr: int) -> ctypes.c_void_p:
        return self._handles.get(device, stream_ptr)

    def gemm(self, device: Any, dtype: np.dtype, count: int, m: int, n: int, k: int,
             a: tuple[int, int, int, int], b: tuple[int, int, int, int],
             c: tuple[int, int, int]) -> None:
        """Row-major ``C[z] = A[z] @ B[z]``; arguments as ``_cublas.Cublas.gemm``."""
        dt = np.dtype(dtype)
        _, sptr = _common.stream_of(device)
        a_ptr, a_op, lda, a_bs = a
        b_ptr, b_op, ldb, b_bs = b
        c_ptr, ldc, c_bs = c
        args = (_I(b_op), _I(a_op), _I(n), _I(m), _I(k))
        with self.lib.lock:
            h = self.handle_for(device, sptr)
            if dt in _TYPED:
                alpha, beta = _common.scalar(1.0, dt), _common.scalar(0.0, dt)
                st = self.lib.fn(_TYPED[dt])(
                    h, *args, ctypes.byref(alpha), _P(b_ptr), _I(ldb), _L(b_bs), _P(a_ptr), _I(lda),
                    _L(a_bs), ctypes.byref(beta), _P(c_ptr), _I(ldc), _L(c_bs), _I(count))
                check(st, _TYPED[dt], STATUS)
                return
            t = _I(_datatype(dt))
            alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
            st = self.lib.fn("rocblas_gemm_strided_batched_ex")(
                h, *args, ctypes.byref(alpha), _P(b_ptr), t, _I(ldb), _L(b_bs), _P(a_ptr), t,
                _I(lda), _L(a_bs), ctypes.byref(beta), _P(c_ptr), t, _I(ldc), _L(c_bs), _P(c_ptr), t,
                _I(ldc), _L(c_bs), _I(count), _I(_DATATYPE[np.dtype(np.float32)]),
                _I(GEMM_ALGO_STANDARD), _I(0), ctypes.c_uint(0))
            check(st, "rocblas_gemm_strided_batched_ex", STATUS)
