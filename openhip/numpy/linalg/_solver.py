"""linalg's factorisations on a vendor solver (cuSOLVER on nvidia, ``_vendor._cusolver``).

cuSOLVER is column-major; a contiguous row-major buffer of A is, to it, A^T (conj(A) for a
Hermitian A). So: the Cholesky factor L of A (row-major lower) is the column-major UPPER factor
of that buffer; LU factors A^T (same determinant, the same pivot-sign rule), ``solve`` uses
``getrs`` with op T on them and the right-hand sides transposed to column-major, ``inv``
solves A^T X = I with op N (whose column-major X read row-major is A^-1); ``eigh`` asks for the
column-major UPPER triangle (the row-major lower one, numpy's default) and conjugates-transposes
the eigenvectors back. The other functions (qr, svd, ...) are not wired: they stay on the
host-staged LAPACK of ``_lapack``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._array import ndarray
from .._vendor import _cusolver

LinAlgError = np.linalg.LinAlgError


def _work_copy(arr: ndarray, dtype: np.dtype) -> ndarray:
    """A contiguous private copy of ``arr`` in ``dtype`` on its device."""
    from .. import asarray, astype

    y = astype(arr, dtype, copy=True) if arr.dtype != dtype else asarray(arr, copy=True)
    return y if y.flags_c_contiguous else y.copy()


def _batch(shape: tuple[int, ...]) -> int:
    b = 1
    for d in shape[:-2]:
        b *= d
    return b


def cholesky(sol: Any, arr: ndarray, dt: np.dtype, upper: bool) -> ndarray:
    from .. import tril, triu

    n = arr.shape[-1]
    a = _work_copy(arr, dt)
    info = sol.potrf(a.device, a, n, _batch(arr.shape),
                     _cusolver.FILL_LOWER if upper else _cusolver.FILL_UPPER)
    if (info > 0).any():
        raise LinAlgError("Matrix is not positive definite")
    return triu(a) if upper else tril(a)


def lu(sol: Any, arr: ndarray, dt: np.dtype) -> tuple[ndarray, ndarray, list[int]]:
    """(LU factors of A^T in a row-major buffer, 1-based pivots (batch, n), infos)."""
    from .. import empty

    n = arr.shape[-1]
    a = _work_copy(arr, dt)
    ipiv = empty(arr.shape[:-2] + (n,), dtype=np.int32, device=arr.device)
    info = sol.getrf(a.device, a, ipiv, n, _batch(arr.shape))
    return a, ipiv, [int(i) for i in info]


def solve(sol: Any, a: ndarray, b: ndarray, dt: np.dtype) -> ndarray:
    """X with A X = B; a (batch, n, n), b (batch, n, nrhs) already broadcast."""
    n, nrhs = b.shape[-2:]
    fac, ipiv, infos = lu(sol, a, dt)
    if any(i > 0 for i in infos):
        raise LinAlgError("Singular matrix")
    bt = _work_copy(b.mT, dt)  # column-major n x nrhs per matrix
    info = sol.getrs(a.device, _cusolver.OP_T, fac, ipiv, bt, n, nrhs, _batch(a.shape))
    if (info != 0).any():
        raise LinAlgError("Singular matrix")
    return bt.mT


def inv(sol: Any, arr: ndarray, dt: np.dtype) -> ndarray:
    from .. import broadcast_to, eye

    n = arr.shape[-1]
    fac, ipiv, infos = lu(sol, arr, dt)
    if any(i > 0 for i in infos):
        raise LinAlgError("Singular matrix")
    x = _work_copy(broadcast_to(eye(n, dtype=dt, device=arr.device), arr.shape), dt)
    info = sol.getrs(arr.device, _cusolver.OP_N, fac, ipiv, x, n, n, _batch(arr.shape))
    if (info != 0).any():
        raise LinAlgError("Singular matrix")
    return x


def eigh(sol: Any, arr: ndarray, dt: np.dtype, real: np.dtype,
         vectors: bool) -> tuple[ndarray, ndarray | None]:
    from .. import conj, empty

    n = arr.shape[-1]
    a = _work_copy(arr, dt)
    w = empty(arr.shape[:-1], dtype=real, device=arr.device)
    info = sol.evd(a.device, a, w, n, _batch(arr.shape), vectors, _cusolver.FILL_UPPER)
    if (info > 0).any():
        raise LinAlgError("Eigenvalues did not converge")
    if not vectors:
        return w, None
    v = conj(a) if dt.kind == "c" else a
    return w, v.mT
