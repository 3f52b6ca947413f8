"""The linear-algebra functions of the main namespace (``hnp.matmul``, ``@``, ``tensordot``,
``vecdot``, ``matrix_transpose``, ``deterministic``): the same objects as in
:mod:`openhip.numpy.linalg`."""

from __future__ import annotations

from ._array import ndarray
from .linalg import deterministic, matmul, matrix_transpose, tensordot, vecdot

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot", "deterministic"]


def _rmatmul(self: ndarray, other: object) -> ndarray:
    return matmul(other, self)


def _imatmul(self: ndarray, other: object) -> ndarray:
    result = matmul(self, other)
    if result.shape != self.shape:
        raise ValueError(f"@=: the result's shape {result.shape} differs from the operand's "
                         f"{self.shape}")
    self[...] = result
    return self


ndarray.__matmul__ = matmul  # type: ignore[assignment]
ndarray.__rmatmul__ = _rmatmul  # type: ignore[assignment]
ndarray.__imatmul__ = _imatmul  # type: ignore[assignment]
