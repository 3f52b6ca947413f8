"""cuSOLVER (``libcusolver.so.12``, NVIDIA's ``nvidia-cusolver`` wheel): the nvidia platform's
dense factorisations.

The routines (potrf, getrf/getrs, syevd/heevd, geqrf + orgqr/ungqr, gesvd) are LAPACK's,
column-major: the callers (``openhip.numpy.linalg._solver``) hand
them row-major buffers, which cuSOLVER sees transposed, and choose the triangle / ``trans``
argument accordingly. Each routine's workspace is queried (``*_bufferSize``) and allocated in
device memory once per call, a batch runs as one call per matrix on the stream with one
``devInfo`` word each, and the info words are read back once (the caller raises LinAlgError for
a positive one). One handle per device and stream.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import _common
from ._loader import Library, check

_P = {np.dtype(np.float32): "S", np.dtype(np.float64): "D", np.dtype(np.complex64): "C",
      np.dtype(np.complex128): "Z"}

SYMBOLS = ("cusolverDnCreate", "cusolverDnDestroy", "cusolverDnSetStream") + tuple(
    f"cusolverDn{p}{r}" for p in "SDCZ" for r in (
        "potrf_bufferSize", "potrf", "getrf_bufferSize", "getrf", "getrs")) + tuple(
    f"cusolverDn{p}{r}{s}" for p, r in (("S", "syevd"), ("D", "syevd"), ("C", "heevd"),
                                        ("Z", "heevd"), ("S", "orgqr"), ("D", "orgqr"),
                                        ("C", "ungqr"), ("Z", "ungqr"))
    for s in ("_bufferSize", "")) + tuple(
    f"cusolverDn{p}{r}{s}" for p in "SDCZ" for r in ("geqrf", "gesvd")
    for s in ("_bufferSize", ""))

FILL_LOWER, FILL_UPPER = 0, 1
OP_N, OP_T = 0, 1
EIG_NOVECTOR, EIG_VECTOR = 0, 1

STATUS = {1: "CUSOLVER_STATUS_NOT_INITIALIZED", 2: "CUSOLVER_STATUS_ALLOC_FAILED",
          3: "CUSOLVER_STATUS_INVALID_VALUE", 4: "CUSOLVER_STATUS_ARCH_MISMATCH",
          6: "CUSOLVER_STATUS_EXECUTION_FAILED", 7: "CUSOLVER_STATUS_INTERNAL_ERROR",
          8: "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", 9: "CUSOLVER_STATUS_NOT_SUPPORTED"}

_I = ctypes.c_int


class Cusolver:
    """cuSOLVER's dense routines on openhip arrays (see the module's docstring).

    Every routine takes contiguous buffers holding ``batch`` matrices one after another and
    returns the ``devInfo`` words (a numpy int array, one per matrix).
    """

    SYMBOLS = SYMBOLS

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self._handles = _common.StreamHandles(lib, ("cusolverDnCreate", "cusolverDnCreate"),
                                              ("cusolverDnSetStream", "cusolverDnSetStream"), STATUS)

    def _handle(self, device: Any, stream_ptr: int) -> ctypes.c_void_p:
        return self._handles.get(device, stream_ptr)

    def _run(self, device: Any, calls) -> np.ndarray:
        """Run ``calls(call)`` under the library's lock on the thread's stream; it returns
        (the device int32 info array, the workspace), both kept until the info words are read
        back (which waits for the stream)."""
        _, sptr = _common.stream_of(device)
        with self.lib.lock:
            h = self._handle(device, sptr)

            def call(routine: str, *args: Any) -> None:
                check(self.lib.fn(routine)(h, *args), routine, STATUS)

            info, work = calls(call)
        words = info.get()
        del work
        return words

    @staticmethod
    def _buffers(device: Any, dtype: np.dtype, lwork: int, batch: int) -> tuple[Any, Any]:
        from .. import empty, zeros

        return (empty((max(lwork, 1),), dtype=dtype, device=device),
                zeros((batch,), dtype=np.int32, device=device))

    def potrf(self, device: Any, a: Any, n: int, batch: int, uplo: int) -> np.ndarray:
        """Cholesky factors in place (column-major triangle ``uplo``)."""
        p = _P[a.dtype]

        def calls(call):
            lwork = _I()
            call(f"cusolverDn{p}potrf_bufferSize", _I(uplo), _I(n), _common.ptr(a), _I(n),
                 ctypes.byref(lwork))
            work, info = self._buffers(device, a.dtype, lwork.value, batch)
            for z in range(batch):
                call(f"cusolverDn{p}potrf", _I(uplo), _I(n), _common.ptr(a, z * n * n), _I(n),
                     _common.ptr(work), _I(lwork.value), _common.ptr(info, z))
            return info, work

        return self._run(device, calls)

    def getrf(self, device: Any, a: Any, ipiv: Any, n: int, batch: int) -> np.ndarray:
        """LU factors with partial pivoting in place; ``ipiv`` (batch, n) int32, 1-based."""
        p = _P[a.dtype]

        def calls(call):
            lwork = _I()
            call(f"cusolverDn{p}getrf_bufferSize", _I(n), _I(n), _common.ptr(a), _I(n),
                 ctypes.byref(lwork))
            work, info = self._buffers(device, a.dtype, lwork.value, batch)
            for z in range(batch):
                call(f"cusolverDn{p}getrf", _I(n), _I(n), _common.ptr(a, z * n * n), _I(n),
                     _common.ptr(work), _common.ptr(ipiv, z * n), _common.ptr(info, z))
            return info, work

        return self._run(device, calls)

    def getrs(self, device: Any, trans: int, a: Any, ipiv: Any, b: Any, n: int, nrhs: int,
              batch: int) -> np.ndarray:
        """``op(A) X = B`` from getrf's factors; B (column-major n x nrhs each) overwritten."""
        p = _P[a.dtype]

        def calls(call):
            from .. import zeros

            info = zeros((batch,), dtype=np.int32, device=device)
            for z in range(batch):
                call(f"cusolverDn{p}getrs", _I(trans), _I(n), _I(nrhs),
                     _common.ptr(a, z * n * n), _I(n), _common.ptr(ipiv, z * n),
                     _common.ptr(b, z * n * nrhs), _I(n), _common.ptr(info, z))
            return info, None

        return self._run(device, calls)

    def evd(self, device: Any, a: Any, w: Any, n: int, batch: int, vectors: bool,
            uplo: int) -> np.ndarray:
        """syevd/heevd: eigenvalues ascending into ``w`` (batch, n); with ``vectors`` the
        eigenvectors overwrite ``a`` (column-major columns)."""
        p = _P[a.dtype]
        name = f"cusolverDn{p}{'heevd' if a.dtype.kind == 'c' else 'syevd'}"
        jobz = EIG_VECTOR if vectors else EIG_NOVECTOR

        def calls(call):
            lwork = _I()
            call(f"{name}_bufferSize", _I(jobz), _I(uplo), _I(n), _common.ptr(a), _I(n),
                 _common.ptr(w), ctypes.byref(lwork))
            work, info = self._buffers(device, a.dtype, lwork.value, batch)
            for z in range(batch):
                call(name, _I(jobz), _I(uplo), _I(n), _common.ptr(a, z * n * n), _I(n),
                     _common.ptr(w, z * n), _common.ptr(work), _I(lwork.value),
                     _common.ptr(info, z))
            return info, work

        return self._run(device, calls)

    def geqrf(self, device: Any, a: Any, tau: Any, m: int, n: int, batch: int) -> np.ndarray:
        """Householder QR in place (column-major m x n each); ``tau`` (batch, min(m, n))."""
        p = _P[a.dtype]
        k = min(m, n)

        def calls(call):
            lwork = _I()
            call(f"cusolverDn{p}geqrf_bufferSize", _I(m), _I(n), _common.ptr(a), _I(m),
                 ctypes.byref(lwork))
            work, info = self._buffers(device, a.dtype, lwork.value, batch)
            for z in range(batch):
                call(f"cusolverDn{p}geqrf", _I(m), _I(n), _common.ptr(a, z * m * n), _I(m),
                     _common.ptr(tau, z * k), _common.ptr(work), _I(lwork.value),
                     _common.ptr(info, z))
            return info, work

        return self._run(device, calls)

    def orgqr(self, device: Any, q: Any, tau: Any, m: int, n: int, k: int,
              batch: int) -> np.ndarray:
        """The m x n Q of geqrf's k reflectors in place (orgqr, ungqr for complex)."""
        p = _P[q.dtype]
        name = f"cusolverDn{p}{'ungqr' if q.dtype.kind == 'c' else 'orgqr'}"

        def calls(call):
            lwork = _I()
            call(f"{name}_bufferSize", _I(m), _I(n), _I(k), _common.ptr(q), _I(m),
                 _common.ptr(tau), ctypes.byref(lwork))
            work, info = self._buffers(device, q.dtype, lwork.value, batch)
            for z in range(batch):
                call(name, _I(m), _I(n), _I(k), _common.ptr(q, z * m * n), _I(m),
                     _common.ptr(tau, z * k), _common.ptr(work), _I(lwork.value),
                     _common.ptr(info, z))
            return info, work

        return self._run(device, calls)

    def gesvd(self, device: Any, a: Any, s: Any, u: Any, vt: Any, m: int, n: int, jobu: str,
              jobvt: str, ucols: int, batch: int) -> np.ndarray:
        """SVD of column-major m x n (m >= n) matrices: ``s`` (batch, n); ``u`` (m x ucols
        each, ld m) and ``vt`` (n x n, ld n) unless their job is ``"N"`` (then None)."""
        p = _P[a.dtype]

        def calls(call):
            lwork = _I()
            call(f"cusolverDn{p}gesvd_bufferSize", _I(m), _I(n), ctypes.byref(lwork))
            work, info = self._buffers(device, a.dtype, lwork.value, batch)
            for z in range(batch):
                up = _common.ptr(u, z * m * ucols) if u is not None else None
                vp = _common.ptr(vt, z * n * n) if vt is not None else None
                call(f"cusolverDn{p}gesvd", ctypes.c_char(jobu.encode()),
                     ctypes.c_char(jobvt.encode()), _I(m), _I(n), _common.ptr(a, z * m * n),
                     _I(m), _common.ptr(s, z * n), up, _I(m), vp, _I(n), _common.ptr(work),
                     _I(lwork.value), None, _common.ptr(info, z))
            return info, work

        return self._run(device, calls)
