"""linalg's factorisations on a vendor solver (cuSOLVER on nvidia, ``_vendor._cusolver``;
rocSOLVER on amd, ``_vendor._rocsolver``, which takes the same arguments, cuSOLVER's enum
values included, and translates them to rocBLAS's).

The solvers are column-major; a contiguous row-major buffer of A is, to it, A^T (conj(A) for a
Hermitian A). So: the Cholesky factor L of A (row-major lower) is the column-major UPPER factor
of that buffer; LU factors A^T (same determinant, the same pivot-sign rule), ``solve`` uses
``getrs`` with op T on them and the right-hand sides transposed to column-major, ``inv``
solves A^T X = I with op N (whose column-major X read row-major is A^-1); ``eigh`` asks for the
column-major UPPER triangle (the row-major lower one, numpy's default) and conjugates-transposes
the eigenvectors back. ``qr`` factors a column-major copy (A transposed, made contiguous)
and builds Q with orgqr in a column-major buffer whose first columns are the reflectors.
``svd``: cuSOLVER's gesvd needs m >= n, so a tall A is factored from a column-major copy, and a
wide A from its row-major buffer as it is (column-major A^T = U' S V'^H, so U = the row-major
reading of V'^H's buffer and Vh = that of U').
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


def qr(sol: Any, arr: ndarray, dt: np.dtype, mode: str) -> tuple[ndarray, ndarray]:
    from .. import empty, triu, zeros

    m, n = arr.shape[-2:]
    k = min(m, n)
    batch = _batch(arr.shape)
    at = _work_copy(arr.mT, dt)  # row-major (n, m): column-major A
    tau = empty(arr.shape[:-2] + (max(k, 1),), dtype=dt, device=arr.device)
    info = sol.geqrf(arr.device, at, tau, m, n, batch)
    if (info != 0).any():
        raise LinAlgError("qr: the factorisation failed")
    factored = at.mT
    qcols = m if mode == "complete" else k
    r = triu(factored if mode == "complete" else factored[..., :k, :])
    qb = zeros(arr.shape[:-2] + (qcols, m), dtype=dt, device=arr.device)
    c = min(qcols, n)
    qb[..., :c, :] = at[..., :c, :]
    info = sol.orgqr(arr.device, qb, tau, m, qcols, k, batch)
    if (info != 0).any():
        raise LinAlgError("qr: building Q failed")
    return qb.mT, r


def svd(sol: Any, arr: ndarray, dt: np.dtype, real: np.dtype,
        job: str) -> tuple[ndarray | None, ndarray, ndarray | None]:
    """``job`` as LAPACK's gesdd: "A" (full), "S" (reduced), "N" (values only)."""
    from .. import empty

    m, n = arr.shape[-2:]
    k = min(m, n)
    batch = _batch(arr.shape)
    bshape = arr.shape[:-2]
    tall = m >= n
    # the column-major matrix gesvd factors: A (tall) or A^T (wide), M x N with M >= N
    mm, nn = (m, n) if tall else (n, m)
    a = _work_copy(arr.mT if tall else arr, dt)
    s = empty(bshape + (k,), dtype=real, device=arr.device)
    ucols = mm if job == "A" else nn
    u = vt = None
    if job != "N":
        u = empty(bshape + (ucols, mm), dtype=dt, device=arr.device)  # column-major mm x ucols
        vt = empty(bshape + (nn, nn), dtype=dt, device=arr.device)
    info = sol.gesvd(arr.device, a, s, u, vt, mm, nn, job, job if job == "N" else "A", ucols,
                     batch)
    if (info > 0).any():
        raise LinAlgError("SVD did not converge")
    if job == "N":
        return None, s, None
    if tall:  # U = column-major u, Vh = column-major vt
        return u.mT, s, vt.mT
    return vt, s, u
