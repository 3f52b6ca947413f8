"""rocSOLVER (``librocsolver.so``, the user's ROCm): the amd platform's dense factorisations.

The same interface as ``_cusolver.Cusolver`` (so ``openhip.numpy.linalg._solver`` drives
either), with cuSOLVER's enum values for ``uplo`` / ``trans`` translated here to rocBLAS's
(``rocblas_fill``, ``rocblas_operation``). rocSOLVER's routines take a ``rocblas_handle``
(created here with ``rocblas_create_handle``, found through librocsolver's dependency on
librocBLAS, and bound to the stream with ``rocblas_set_stream``), allocate their workspace
through it (no ``*_bufferSize`` queries), and write ``info`` as device ints. Batches run as one
``*_strided_batched`` call (potrf, getrf, getrs, syevd/heevd, geqrf, gesvd; orgqr/ungqr have no
batched form and run once per matrix). getrs and geqrf report no ``info``: their words are 0.
Integers are ``rocblas_int`` (32-bit), strides ``rocblas_stride`` (64-bit).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import _common
from ._loader import Library, check
from ._rocblas import STATUS

_P = {np.dtype(np.float32): "s", np.dtype(np.float64): "d", np.dtype(np.complex64): "c",
      np.dtype(np.complex128): "z"}

SYMBOLS = ("rocblas_create_handle", "rocblas_destroy_handle", "rocblas_set_stream") + tuple(
    f"rocsolver_{p}{r}_strided_batched" for p in "sdcz"
    for r in ("potrf", "getrf", "getrs", "geqrf", "gesvd")) + tuple(
    f"rocsolver_{p}{r}" for p, r in (("s", "syevd_strided_batched"),
                                     ("d", "syevd_strided_batched"),
                                     ("c", "heevd_strided_batched"),
                                     ("z", "heevd_strided_batched"),
                                     ("s", "orgqr"), ("d", "orgqr"), ("c", "ungqr"),
                                     ("z", "ungqr")))

#: cuSOLVER's fill mode / operation (the values ``_solver`` passes) -> rocBLAS's
FILL = {0: 122, 1: 121}  # lower -> rocblas_fill_lower, upper -> rocblas_fill_upper
OPERATION = {0: 111, 1: 112, 2: 113}  # N, T, C -> rocblas_operation_*
EVECT_ORIGINAL, EVECT_NONE = 211, 213
SVECT = {"A": 191, "S": 192, "O": 193, "N": 194}  # rocblas_svect_*
OUTOFPLACE = 201  # rocblas_workmode

_I, _L = ctypes.c_int, ctypes.c_longlong


class Rocsolver:
    """rocSOLVER's dense routines on openhip arrays (see the module's docstring); the methods
    and their arguments are ``_cusolver.Cusolver``'s, each returning the info words (a numpy
    int array, one per matrix)."""

    SYMBOLS = SYMBOLS

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self._handles = _common.StreamHandles(lib, ("rocblas_create_handle", "rocblas_create_handle"),
                                              ("rocblas_set_stream", "rocblas_set_stream"), STATUS)

    def _handle(self, device: Any, stream_ptr: int) -> ctypes.c_void_p:
        return self._handles.get(device, stream_ptr)

    def _run(self, device: Any, batch: int, calls) -> np.ndarray:
        """Run ``calls(call, info)`` under the library's lock on the thread's stream with a
        fresh device int32 ``info`` array of ``batch`` words, then read the words back
        (which waits for the stream)."""
        from .. import zeros

        _, sptr = _common.stream_of(device)
        info = zeros((batch,), dtype=np.int32, device=device)
        with self.lib.lock:
            h = self._handle(device, sptr)

            def call(routine: str, *args: Any) -> None:
                check(self.lib.fn(routine)(h, *args), routine, STATUS)

            calls(call, info)
        return info.get()

    def potrf(self, device: Any, a: Any, n: int, batch: int, uplo: int) -> np.ndarray:
        """Cholesky factors in place (column-major triangle ``uplo``, cuSOLVER's value)."""
        name = f"rocsolver_{_P[a.dtype]}potrf_strided_batched"
        return self._run(device, batch, lambda call, info: call(
            name, _I(FILL[uplo]), _I(n), _common.ptr(a), _I(n), _L(n * n), _common.ptr(info),
            _I(batch)))

    def getrf(self, device: Any, a: Any, ipiv: Any, n: int, batch: int) -> np.ndarray:
        """LU factors with partial pivoting in place; ``ipiv`` (batch, n) int32, 1-based."""
        name = f"rocsolver_{_P[a.dtype]}getrf_strided_batched"
        return self._run(device, batch, lambda call, info: call(
            name, _I(n), _I(n), _common.ptr(a), _I(n), _L(n * n), _common.ptr(ipiv), _L(n),
            _common.ptr(info), _I(batch)))

    def getrs(self, device: Any, trans: int, a: Any, ipiv: Any, b: Any, n: int, nrhs: int,
              batch: int) -> np.ndarray:
        """``op(A) X = B`` from getrf's factors (``trans`` cuSOLVER's value); B (column-major
        n x nrhs each) overwritten. rocSOLVER's getrs has no info: the words are 0."""
        name = f"rocsolver_{_P[a.dtype]}getrs_strided_batched"
        return self._run(device, batch, lambda call, info: call(
            name, _I(OPERATION[trans]), _I(n), _I(nrhs), _common.ptr(a), _I(n), _L(n * n),
            _common.ptr(ipiv), _L(n), _common.ptr(b), _I(n), _L(n * nrhs), _I(batch)))

    def evd(self, device: Any, a: Any, w: Any, n: int, batch: int, vectors: bool,
            uplo: int) -> np.ndarray:
        """syevd/heevd: eigenvalues ascending into ``w`` (batch, n); with ``vectors`` the
        eigenvectors overwrite ``a`` (column-major columns). ``E`` (the tridiagonal's
        off-diagonal, n per matrix) is a scratch buffer here."""
        from .. import empty

        name = (f"rocsolver_{_P[a.dtype]}"
                f"{'heevd' if a.dtype.kind == 'c' else 'syevd'}_strided_batched")
        e = empty((batch, max(n, 1)), dtype=w.dtype, device=device)

        def calls(call, info):
            call(name, _I(EVECT_ORIGINAL if vectors else EVECT_NONE), _I(FILL[uplo]), _I(n),
                 _common.ptr(a), _I(n), _L(n * n), _common.ptr(w), _L(n), _common.ptr(e),
                 _L(e.shape[1]), _common.ptr(info), _I(batch))

        return self._run(device, batch, calls)  # ``e`` lives until the stream is done

    def geqrf(self, device: Any, a: Any, tau: Any, m: int, n: int, batch: int) -> np.ndarray:
        """Householder QR in place (column-major m x n each); ``tau`` (batch, min(m, n)).
        rocSOLVER's geqrf has no info: the words are 0."""
        name = f"rocsolver_{_P[a.dtype]}geqrf_strided_batched"
        k = min(m, n)
        return self._run(device, batch, lambda call, info: call(
            name, _I(m), _I(n), _common.ptr(a), _I(m), _L(m * n), _common.ptr(tau),
            _L(max(k, 1)), _I(batch)))

    def orgqr(self, device: Any, q: Any, tau: Any, m: int, n: int, k: int,
              batch: int) -> np.ndarray:
        """The m x n Q of geqrf's k reflectors in place (orgqr, ungqr for complex), one call
        per matrix; no info (the words are 0)."""
        name = f"rocsolver_{_P[q.dtype]}{'ungqr' if q.dtype.kind == 'c' else 'orgqr'}"
        step = max(k, 1)

        def calls(call, info):
            for z in range(batch):
                call(name, _I(m), _I(n), _I(k), _common.ptr(q, z * m * n), _I(m),
                     _common.ptr(tau, z * step))

        return self._run(device, batch, calls)

    def gesvd(self, device: Any, a: Any, s: Any, u: Any, vt: Any, m: int, n: int, jobu: str,
              jobvt: str, ucols: int, batch: int) -> np.ndarray:
        """SVD of column-major m x n (m >= n) matrices: ``s`` (batch, n); ``u`` (m x ucols
        each, ld m) and ``vt`` (V^H, n x n, ld n) unless their job is ``"N"`` (then None).
        ``E`` (the bidiagonal's superdiagonal, min(m, n) - 1 per matrix) is scratch."""
        from .. import empty

        name = f"rocsolver_{_P[a.dtype]}gesvd_strided_batched"
        k = min(m, n)
        e = empty((batch, max(k - 1, 1)), dtype=s.dtype, device=device)

        def calls(call, info):
            up = _common.ptr(u) if u is not None else None
            vp = _common.ptr(vt) if vt is not None else None
            call(name, _I(SVECT[jobu]), _I(SVECT[jobvt]), _I(m), _I(n), _common.ptr(a), _I(m),
                 _L(m * n), _common.ptr(s), _L(k), up, _I(m), _L(m * ucols), vp, _I(n),
                 _L(n * n), _common.ptr(e), _L(e.shape[1]), _I(OUTOFPLACE), _common.ptr(info),
                 _I(batch))

        return self._run(device, batch, calls)  # ``e`` lives until the stream is done
