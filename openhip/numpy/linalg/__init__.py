"""openhip.numpy.linalg: the Array API ``linalg`` extension, plus ``deterministic()``.

``matmul`` and friends run on the platform's BLAS where one is wired (OpenBLAS on the CPU
platform, on the device memory itself) or on the project's own gemm (every numeric type, every
platform, and always with ``deterministic=True``: a fixed reduction order, batch-invariant). The
factorizations use LAPACK (OpenBLAS's LAPACKE on the CPU platform), cuSOLVER on nvidia and
rocSOLVER on amd where present (staged through the host to LAPACK where not). Errors are numpy's: ``LinAlgError`` for a
singular or non-positive-definite matrix, ValueError naming both shapes for a mismatch.
"""

from __future__ import annotations

from ._gemm import deterministic
from ._lapack import (
    EighResult,
    LinAlgError,
    QRResult,
    SlogdetResult,
    SVDResult,
    cholesky,
    det,
    diagonal,
    eigh,
    eigvalsh,
    inv,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
)
from ._matmul import backend, matmul, matrix_transpose, tensordot, vecdot
from ._norms import (
    cross,
    matrix_norm,
    matrix_power,
    matrix_rank,
    outer,
    pinv,
    trace,
    vector_norm,
)

__all__ = [
    "LinAlgError", "EighResult", "QRResult", "SlogdetResult", "SVDResult", "backend",
    "cholesky", "cross", "det", "deterministic", "diagonal", "eigh", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
    "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]
