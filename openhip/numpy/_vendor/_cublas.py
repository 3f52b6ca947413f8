"""cuBLAS (``libcublas.so.13``, NVIDIA's ``nvidia-cublas`` wheel): the nvidia platform's gemm.

openhip arrays are row-major; cuBLAS is column-major. A row-major ``C = A @ B`` is the
column-major ``C^T = B^T A^T``, so :meth:`Cublas.gemm` calls cuBLAS with the operands swapped
and m/n exchanged, each operand's ``op`` (N or T) and leading dimension taken from its strides
(a row-major matrix with unit column stride is a column-major transpose with ld = its row
stride; one with unit row stride is the column-major matrix itself, used with op T). Batches go
to the ``StridedBatched`` calls with the batch strides as they are (0 for a broadcast
operand). float16/bfloat16 go through ``cublasGemmStridedBatchedEx`` with
``CUBLAS_COMPUTE_32F`` (float32 accumulation, float32 alpha/beta). One handle per device and
stream.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import _common
from ._loader import Library, check

SYMBOLS = ("cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2",
           "cublasSgemmStridedBatched", "cublasDgemmStridedBatched",
           "cublasCgemmStridedBatched", "cublasZgemmStridedBatched",
           "cublasGemmStridedBatchedEx")

OP_N, OP_T = 0, 1
COMPUTE_32F = 68
GEMM_DEFAULT = -1

STATUS = {1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
          7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH",
          11: "CUBLAS_STATUS_MAPPING_ERROR", 13: "CUBLAS_STATUS_EXECUTION_FAILED",
          14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED",
          16: "CUBLAS_STATUS_LICENSE_ERROR"}

_TYPED = {np.dtype(np.float32): "cublasSgemmStridedBatched",
          np.dtype(np.float64): "cublasDgemmStridedBatched",
          np.dtype(np.complex64): "cublasCgemmStridedBatched",
          np.dtype(np.complex128): "cublasZgemmStridedBatched"}


def supports(dtype: np.dtype) -> bool:
    """Whether cuBLAS serves matmuls of ``dtype`` (the four BLAS types, float16, bfloat16)."""
    dt = np.dtype(dtype)
    return dt in _TYPED or dt == np.float16 or dt.name == "bfloat16"


class Cublas:
    """cuBLAS for openhip arrays (see the module's docstring)."""

    SYMBOLS = SYMBOLS
    OP_N, OP_T = OP_N, OP_T

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self._handles = _common.StreamHandles(lib, ("cublasCreate_v2", "cublasCreate"),
                                              ("cublasSetStream_v2", "cublasSetStream"), STATUS)

    def handle_for(self, device: Any, stream_ptr: int) -> ctypes.c_void_p:
        """The handle of (device, stream), created and bound to the stream on first use."""
        return self._handles.get(device, stream_ptr)

    def gemm(self, device: Any, dtype: np.dtype, count: int, m: int, n: int, k: int,
             a: tuple[int, int, int, int], b: tuple[int, int, int, int],
             c: tuple[int, int, int]) -> None:
        """Row-major ``C[z] (m x n) = A[z] (m x k) @ B[z] (k x n)`` for z < count.

        ``a``/``b``: (address, op, leading dimension, batch stride in elements) of the
        row-major operand, op ``OP_N`` when its columns are unit-stride (ld = row stride) and
        ``OP_T`` when its rows are (ld = column stride); ``c``: (address, row stride, batch
        stride), unit column stride.
        """
        dt = np.dtype(dtype)
        _, sptr = _common.stream_of(device)
        a_ptr, a_op, lda, a_bs = a
        b_ptr, b_op, ldb, b_bs = b
        c_ptr, ldc, c_bs = c
        # column-major C^T (n x m) = op(B^T) (n x k) @ op(A^T) (k x m)
        args = (ctypes.c_int(b_op), ctypes.c_int(a_op), ctypes.c_int(n), ctypes.c_int(m),
                ctypes.c_int(k))
        with self.lib.lock:
            h = self.handle_for(device, sptr)
            if dt in _TYPED:
                alpha, beta = _common.scalar(1.0, dt), _common.scalar(0.0, dt)
                st = self.lib.fn(_TYPED[dt])(
                    h, *args, ctypes.byref(alpha), ctypes.c_void_p(b_ptr), ctypes.c_int(ldb),
                    ctypes.c_longlong(b_bs), ctypes.c_void_p(a_ptr), ctypes.c_int(lda),
                    ctypes.c_longlong(a_bs), ctypes.byref(beta), ctypes.c_void_p(c_ptr),
                    ctypes.c_int(ldc), ctypes.c_longlong(c_bs), ctypes.c_int(count))
                check(st, _TYPED[dt], STATUS)
                return
            t = ctypes.c_int(_common.cuda_type(dt))
            alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
            st = self.lib.fn("cublasGemmStridedBatchedEx")(
                h, *args, ctypes.byref(alpha), ctypes.c_void_p(b_ptr), t, ctypes.c_int(ldb),
                ctypes.c_longlong(b_bs), ctypes.c_void_p(a_ptr), t, ctypes.c_int(lda),
                ctypes.c_longlong(a_bs), ctypes.byref(beta), ctypes.c_void_p(c_ptr), t,
                ctypes.c_int(ldc), ctypes.c_longlong(c_bs), ctypes.c_int(count),
                ctypes.c_int(COMPUTE_32F), ctypes.c_int(GEMM_DEFAULT))
            check(st, "cublasGemmStridedBatchedEx", STATUS)
