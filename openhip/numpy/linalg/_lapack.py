"""The LAPACK-backed functions of the Array API ``linalg`` extension.

On the CPU platform OpenBLAS's LAPACKE runs on a contiguous working copy in device memory (the
CPU platform's device memory is host memory). On nvidia cholesky, solve, inv, det, slogdet,
eigh, eigvalsh, qr, svd and svdvals run on cuSOLVER (``_solver``) when NVIDIA's wheel is
installed, on amd on rocSOLVER where the user's ROCm has it; without them the working copy is
staged through host memory to the same LAPACK (one warning per function and process says so). Post-processing (determinants, signs, triangles) is done by
openhip.numpy's own kernels.
"""

from __future__ import annotations

import ctypes
import math
import warnings
from typing import Any, NamedTuple

import numpy as np

from ...runtime.stream import resolve_stream
from .. import _vendor
from .._array import ndarray
from . import _openblas, _solver

LinAlgError = np.linalg.LinAlgError
_LAPACK_TYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64),
                 np.dtype(np.complex128))


class EighResult(NamedTuple):
    eigenvalues: ndarray
    eigenvectors: ndarray


class QRResult(NamedTuple):
    Q: ndarray
    R: ndarray


class SlogdetResult(NamedTuple):
    sign: ndarray
    logabsdet: ndarray


class SVDResult(NamedTuple):
    U: ndarray
    S: ndarray
    Vh: ndarray


def _lib() -> _openblas.OpenBlas:
    lib = _openblas.load()
    if lib is None:
        raise LinAlgError("no LAPACK available: openhip.numpy.linalg needs the OpenBLAS numpy "
                          "ships (or a system libopenblas) for this function")
    return lib


_warned_staging: set[str] = set()


def _vendor_solver(arr: ndarray) -> Any:
    """cuSOLVER for ``arr``'s device when its platform has it and the matrices are not
    empty, else None."""
    if arr.size == 0:
        return None
    return _vendor.get("cusolver", arr.device.platform)


class _Work:
    """Contiguous working buffers LAPACK can address: device memory on the CPU platform, host
    copies on a GPU platform (staged back afterwards)."""

    def __init__(self, device: Any, routine: str, vendor: bool = False) -> None:
        self.device = device
        self.on_host = device.platform != "cpu" and not vendor
        if self.on_host and routine not in _warned_staging:
            _warned_staging.add(routine)
            if _vendor.get("cusolver", device.platform) is not None:
                lib = "rocSOLVER" if device.platform == "amd" else "cuSOLVER"
                why = f"{routine} is not wired to {lib} yet"
            else:
                why = _vendor.why_missing("cusolver", device.platform)
            warnings.warn(f"openhip.numpy.linalg.{routine}: {why}; the {device.platform} "
                          "platform's operands are computed by OpenBLAS's LAPACK in host memory",
                          RuntimeWarning, stacklevel=3)

    def copy(self, x: ndarray, dtype: np.dtype) -> Any:
        from .. import asarray, astype

        if self.on_host:
            return np.ascontiguousarray(x.get(), dtype=dtype)
        y = astype(x, dtype, copy=True) if x.dtype != dtype else asarray(x, copy=True)
        if not y.flags_c_contiguous:
            y = y.copy()
        return y

    def new(self, shape: tuple[int, ...], dtype: Any) -> Any:
        from .. import empty

        if self.on_host:
            return np.empty(shape, dtype=dtype)
        return empty(shape, dtype=dtype, device=self.device)

    def ptr(self, buf: Any, offset_items: int = 0) -> ctypes.c_void_p:
        base = buf.ctypes.data if isinstance(buf, np.ndarray) else buf.data.ptr
        return ctypes.c_void_p(base + offset_items * buf.dtype.itemsize)

    def ready(self) -> None:
        if not self.on_host:
            resolve_stream(None, self.device).synchronize()

    def out(self, buf: Any) -> ndarray:
        from .. import asarray

        return asarray(buf, device=self.device) if isinstance(buf, np.ndarray) else buf


def _as_array(x: Any) -> ndarray:
    from .. import asarray

    return x if isinstance(x, ndarray) else asarray(x)


def _float_type(x: ndarray, routine: str) -> np.dtype:
    if x.dtype in _LAPACK_TYPES:
        return x.dtype
    if x.dtype.kind in "iub":
        return np.dtype(np.float64)
    raise TypeError(f"{routine}: array type {x.dtype.name} is unsupported in linalg")


def _square(x: Any, routine: str) -> ndarray:
    arr = _as_array(x)
    if arr.ndim < 2:
        raise LinAlgError(f"{routine}: {arr.ndim}-dimensional array given. Array must be at "
                          "least two-dimensional")
    if arr.shape[-1] != arr.shape[-2]:
        raise LinAlgError(f"{routine}: last 2 dimensions of the array must be square, got shape "
                          f"{arr.shape}")
    return arr


def _matrices(arr: ndarray, routine: str) -> ndarray:
    if arr.ndim < 2:
        raise LinAlgError(f"{routine}: {arr.ndim}-dimensional array given. Array must be at "
                          "least two-dimensional")
    return arr


def _batch(shape: tuple[int, ...]) -> int:
    return math.prod(shape[:-2])


def _real_of(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dtype in (np.complex64, np.float32) else np.dtype(np.float64)


def _char(c: str) -> ctypes.c_char:
    return ctypes.c_char(c.encode())


# ---- factorizations ---------------------------------------------------------------------
def cholesky(x: Any, /, *, upper: bool = False) -> ndarray:
    """The Cholesky factor (lower, or upper with ``upper=True``) of Hermitian positive-definite
    matrices; LinAlgError when one is not positive definite."""
    from .. import tril, triu

    arr = _square(x, "cholesky")
    dt = _float_type(arr, "cholesky")
    sol = _vendor_solver(arr)
    if sol is not None:
        return _solver.cholesky(sol, arr, dt, upper)
    n = arr.shape[-1]
    lib = _lib()
    work = _Work(arr.device, "cholesky")
    a = work.copy(arr, dt)
    work.ready()
    fn = lib.lapacke("potrf", dt)
    for z in range(_batch(arr.shape)):
        info = fn(ctypes.c_int(_openblas.ROW_MAJOR), _char("U" if upper else "L"), lib.int(n),
                  work.ptr(a, z * n * n), lib.int(max(n, 1)))
        if info > 0:
            raise LinAlgError("Matrix is not positive definite")
    out = work.out(a)
    return triu(out) if upper else tril(out)


def _lu(arr: ndarray, routine: str) -> tuple[_Work, Any, Any, np.dtype, list[int]]:
    dt = _float_type(arr, routine)
    sol = _vendor_solver(arr)
    if sol is not None:
        a, ipiv, infos = _solver.lu(sol, arr, dt)
        return _Work(arr.device, routine, vendor=True), a, ipiv, dt, infos
    n = arr.shape[-1]
    lib = _lib()
    work = _Work(arr.device, routine)
    a = work.copy(arr, dt)
    ipiv = work.new(arr.shape[:-2] + (n,), np.dtype(lib.int))
    work.ready()
    fn = lib.lapacke("getrf", dt)
    infos = []
    for z in range(_batch(arr.shape)):
        infos.append(int(fn(ctypes.c_int(_openblas.ROW_MAJOR), lib.int(n), lib.int(n),
                            work.ptr(a, z * n * n), lib.int(max(n, 1)), work.ptr(ipiv, z * n))))
    return work, a, ipiv, dt, infos


def _pivot_sign(work: _Work, ipiv: Any, n: int) -> ndarray:
    from .. import arange, count_nonzero

    piv = work.out(ipiv)
    swaps = count_nonzero(piv != arange(1, n + 1, dtype=piv.dtype, device=work.device), axis=-1)
    return 1 - 2 * (swaps % 2)


def det(x: Any, /) -> ndarray:
    """Determinants (LU with partial pivoting; 0 for singular matrices, as numpy)."""
    from .. import prod

    arr = _square(x, "det")
    n = arr.shape[-1]
    if n == 0:
        from .. import ones

        return ones(arr.shape[:-2], dtype=_float_type(arr, "det"), device=arr.device)
    work, a, ipiv, dt, _ = _lu(arr, "det")
    lu = work.out(a)
    sign = _pivot_sign(work, ipiv, n)
    return prod(diagonal(lu), axis=-1) * sign.astype(dt)


def slogdet(x: Any, /) -> SlogdetResult:
    """``(sign, log|det|)``; a singular matrix gives sign 0 and -inf."""
    from .. import abs as habs
    from .. import any as hany
    from .. import log, prod, where
    from .. import sum as hsum

    arr = _square(x, "slogdet")
    n = arr.shape[-1]
    work, a, ipiv, dt, _ = _lu(arr, "slogdet")
    lu = work.out(a)
    d = diagonal(lu)
    real = _real_of(dt)
    mag = habs(d)
    logabs = hsum(log(mag), axis=-1).astype(real)
    singular = hany(d == 0, axis=-1)
    unit = where(mag == 0, 1, d / where(mag == 0, 1, mag).astype(dt))
    sign = prod(unit, axis=-1) * _pivot_sign(work, ipiv, n).astype(dt)
    sign = where(singular, 0, sign).astype(dt)
    logabs = where(singular, -math.inf, logabs).astype(real)
    return SlogdetResult(sign, logabs)


def inv(x: Any, /) -> ndarray:
    """Matrix inverses; LinAlgError for a singular matrix."""
    arr = _square(x, "inv")
    n = arr.shape[-1]
    sol = _vendor_solver(arr)
    if sol is not None:
        return _solver.inv(sol, arr, _float_type(arr, "inv"))
    work, a, ipiv, dt, infos = _lu(arr, "inv")
    if any(i > 0 for i in infos):
        raise LinAlgError("Singular matrix")
    lib = _lib()
    fn = lib.lapacke("getri", dt)
    for z in range(_batch(arr.shape)):
        info = fn(ctypes.c_int(_openblas.ROW_MAJOR), lib.int(n), work.ptr(a, z * n * n),
                  lib.int(max(n, 1)), work.ptr(ipiv, z * n))
        if info > 0:
            raise LinAlgError("Singular matrix")
    return work.out(a)


def solve(x1: Any, x2: Any, /) -> ndarray:
    """The solution of ``x1 @ x = x2`` (x2 a vector when it is 1-D, else a stack of matrices
    whose batch broadcasts against x1's); LinAlgError for a singular matrix."""
    from .. import broadcast_to

    a = _square(x1, "solve")
    b = _as_array(x2)
    n = a.shape[-1]
    vector = b.ndim == 1
    if vector:
        if b.shape[0] != n:
            raise ValueError(f"solve: x2 has {b.shape[0]} rows, x1 is {n}x{n}: shapes "
                             f"{a.shape} and {b.shape}")
        b = b[:, None]
    if b.shape[-2] != n:
        raise ValueError(f"solve: x2's rows ({b.shape[-2]}) do not match x1 ({n}x{n}): shapes "
                         f"{a.shape} and {b.shape}")
    try:
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    except ValueError:
        raise ValueError(f"solve: batch dimensions of {a.shape} and {b.shape} do not "
                         "broadcast") from None
    dt = np.result_type(_float_type(a, "solve"), _float_type(b, "solve"))
    nrhs = b.shape[-1]
    a = broadcast_to(a, batch + (n, n))
    b = broadcast_to(b, batch + (n, nrhs))
    sol = _vendor_solver(a) if b.size else None
    if sol is not None:
        out = _solver.solve(sol, a, b, dt)
        return out[..., 0] if vector else out
    lib = _lib()
    work = _Work(a.device, "solve")
    wa, wb = work.copy(a, dt), work.copy(b, dt)
    ipiv = work.new((max(n, 1),), np.dtype(lib.int))
    work.ready()
    fn = lib.lapacke("gesv", dt)
    for z in range(math.prod(batch)):
        info = fn(ctypes.c_int(_openblas.ROW_MAJOR), lib.int(n), lib.int(nrhs),
                  work.ptr(wa, z * n * n), lib.int(max(n, 1)), work.ptr(ipiv),
                  work.ptr(wb, z * n * nrhs), lib.int(max(nrhs, 1)))
        if info > 0:
            raise LinAlgError("Singular matrix")
    out = work.out(wb)
    return out[..., 0] if vector else out


def _syevd(x: Any, routine: str, vectors: bool) -> tuple[ndarray, Any]:
    arr = _square(x, routine)
    dt = _float_type(arr, routine)
    sol = _vendor_solver(arr)
    if sol is not None:
        return _solver.eigh(sol, arr, dt, _real_of(dt), vectors)
    n = arr.shape[-1]
    lib = _lib()
    work = _Work(arr.device, routine)
    a = work.copy(arr, dt)
    w = work.new(arr.shape[:-1], _real_of(dt))
    work.ready()
    fn = lib.lapacke("heevd" if dt.kind == "c" else "syevd", dt)
    for z in range(_batch(arr.shape)):
        info = fn(ctypes.c_int(_openblas.ROW_MAJOR), _char("V" if vectors else "N"), _char("L"),
                  lib.int(n), work.ptr(a, z * n * n), lib.int(max(n, 1)), work.ptr(w, z * n))
        if info > 0:
            raise LinAlgError("Eigenvalues did not converge")
    return work.out(w), work.out(a)


def eigh(x: Any, /) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors (columns) of Hermitian matrices (the lower
    triangle is used)."""
    w, v = _syevd(x, "eigh", True)
    return EighResult(w, v)


def eigvalsh(x: Any, /) -> ndarray:
    """Eigenvalues (ascending) of Hermitian matrices."""
    return _syevd(x, "eigvalsh", False)[0]


def qr(x: Any, /, *, mode: str = "reduced") -> QRResult:
    """``Q, R`` with ``mode`` ``"reduced"`` (Q m x k, R k x n) or ``"complete"`` (m x m)."""
    from .. import triu

    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    arr = _matrices(_as_array(x), "qr")
    dt = _float_type(arr, "qr")
    sol = _vendor_solver(arr)
    if sol is not None:
        return QRResult(*_solver.qr(sol, arr, dt, mode))
    m, n = arr.shape[-2:]
    k = min(m, n)
    lib = _lib()
    work = _Work(arr.device, "qr")
    a = work.copy(arr, dt)
    batch = _batch(arr.shape)
    tau = work.new(arr.shape[:-2] + (max(k, 1),), dt)
    work.ready()
    geqrf = lib.lapacke("geqrf", dt)
    for z in range(batch):
        geqrf(ctypes.c_int(_openblas.ROW_MAJOR), lib.int(m), lib.int(n), work.ptr(a, z * m * n),
              lib.int(max(n, 1)), work.ptr(tau, z * max(k, 1)))
    factored = work.out(a)
    qcols = m if mode == "complete" else k
    r = triu(factored if mode == "complete" else factored[..., :k, :])
    # Q from the reflectors: the first min(qcols, n) columns of the factored matrix, padded
    q = work.new(arr.shape[:-2] + (m, qcols), dt)
    qd = work.out(q) if not work.on_host else None
    if work.on_host:
        fac = factored.get()
        q[...] = 0
        c = min(qcols, n)
        q[..., :, :c] = fac[..., :, :c]
    else:
        from .. import zeros

        qd[...] = zeros(qd.shape, dtype=dt, device=arr.device)
        c = min(qcols, n)
        qd[..., :, :c] = factored[..., :, :c]
        work.ready()
    orgqr = lib.lapacke("ungqr" if dt.kind == "c" else "orgqr", dt)
    for z in range(batch):
        orgqr(ctypes.c_int(_openblas.ROW_MAJOR), lib.int(m), lib.int(qcols), lib.int(k),
              work.ptr(q, z * m * qcols), lib.int(max(qcols, 1)), work.ptr(tau, z * max(k, 1)))
    return QRResult(work.out(q), r)


def _gesdd(x: Any, routine: str, job: str) -> tuple[Any, Any, Any]:
    arr = _matrices(_as_array(x), routine)
    dt = _float_type(arr, routine)
    sol = _vendor_solver(arr)
    if sol is not None:
        return _solver.svd(sol, arr, dt, _real_of(dt), job)
    m, n = arr.shape[-2:]
    k = min(m, n)
    lib = _lib()
    work = _Work(arr.device, routine)
    a = work.copy(arr, dt)
    batch_shape = arr.shape[:-2]
    s = work.new(batch_shape + (k,), _real_of(dt))
    ucols, vrows = (m, n) if job == "A" else (k, k)
    if job == "N":
        u = work.new((1,), dt)
        vt = work.new((1,), dt)
    else:
        u = work.new(batch_shape + (m, ucols), dt)
        vt = work.new(batch_shape + (vrows, n), dt)
    work.ready()
    fn = lib.lapacke("gesdd", dt)
    for z in range(_batch(arr.shape)):
        uz = work.ptr(u) if job == "N" else work.ptr(u, z * m * ucols)
        vz = work.ptr(vt) if job == "N" else work.ptr(vt, z * vrows * n)
        info = fn(ctypes.c_int(_openblas.ROW_MAJOR), _char(job), lib.int(m), lib.int(n),
                  work.ptr(a, z * m * n), lib.int(max(n, 1)), work.ptr(s, z * k), uz,
                  lib.int(max(ucols, 1) if job != "N" else 1), vz,
                  lib.int(max(n, 1) if job != "N" else 1))
        if info > 0:
            raise LinAlgError("SVD did not converge")
    if job == "N":
        return None, work.out(s), None
    return work.out(u), work.out(s), work.out(vt)


def svd(x: Any, /, *, full_matrices: bool = True) -> SVDResult:
    """``U, S, Vh`` with ``x = U @ diag(S) @ Vh`` (S descending)."""
    u, s, vh = _gesdd(x, "svd", "A" if full_matrices else "S")
    return SVDResult(u, s, vh)


def svdvals(x: Any, /) -> ndarray:
    """Singular values, descending."""
    return _gesdd(x, "svdvals", "N")[1]


def diagonal(x: Any, /, *, offset: int = 0) -> ndarray:
    """The ``offset``-th diagonal of the last two axes (a view)."""
    arr = _as_array(x)
    if arr.ndim < 2:
        raise ValueError(f"diagonal: x must be at least 2-dimensional, got shape {arr.shape}")
    m, n = arr.shape[-2:]
    sr, sc = arr.strides[-2:]
    if offset >= 0:
        length = max(min(m, n - offset), 0)
        start = offset * sc if length else 0
    else:
        length = max(min(m + offset, n), 0)
        start = -offset * sr if length else 0
    return arr._view_as(arr.shape[:-2] + (length,), arr.strides[:-2] + (sr + sc,), start)
