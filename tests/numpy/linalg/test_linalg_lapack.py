"""The LAPACK-backed linalg functions and the ones built on openhip.numpy's own kernels, against
numpy.linalg: batched, strided, every floating dtype; singular and non-square input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp
from openhip.numpy import linalg as LA

RNG = np.random.default_rng(11)
FLOATS = [np.float32, np.float64, np.complex64, np.complex128]


def _tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def _mat(shape, dtype):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def _spd(batch, n, dtype):
    a = _mat(batch + (n, n), dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def close(got, ref, dtype, scale=1.0):
    return np.allclose(np.asarray(got), ref, atol=_tol(dtype) * scale, rtol=_tol(dtype) * scale)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_factorizations(device, dtype):
    a = _mat((3, 5, 5), dtype)
    s = _spd((2,), 4, dtype)
    A, S = hnp.asarray(a), hnp.asarray(s)
    assert close(LA.cholesky(S).get(), np.linalg.cholesky(s), dtype, 10)
    assert close(LA.cholesky(S, upper=True).get(),
                 np.conj(np.swapaxes(np.linalg.cholesky(s), -1, -2)), dtype, 10)
    assert close(LA.det(A).get(), np.linalg.det(a), dtype, 50)
    sign, logdet = LA.slogdet(A)
    rs, rl = np.linalg.slogdet(a)
    assert close(sign.get(), rs, dtype, 10) and close(logdet.get(), rl, dtype, 10)
    assert close(LA.inv(A).get(), np.linalg.inv(a), dtype, 1e3)
    b = _mat((3, 5, 2), dtype)
    assert close(LA.solve(A, hnp.asarray(b)).get(), np.linalg.solve(a, b), dtype, 1e3)
    v = _mat((5,), dtype)
    assert close(LA.solve(A[0], hnp.asarray(v)).get(), np.linalg.solve(a[0], v), dtype, 1e3)
    w, vec = LA.eigh(S)
    assert close(w.get(), np.linalg.eigvalsh(s), dtype, 50)
    recon = vec.get() @ (w.get()[..., None] * np.conj(np.swapaxes(vec.get(), -1, -2)))
    assert close(recon, s, dtype, 50)
    assert close(LA.eigvalsh(S).get(), np.linalg.eigvalsh(s), dtype, 50)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 5, 5)])
def test_qr_svd(device, dtype, shape):
    a = _mat(shape, dtype)
    A = hnp.asarray(a)
    q, r = LA.qr(A)
    m, n = shape[-2:]
    k = min(m, n)
    assert q.shape == shape[:-2] + (m, k) and r.shape == shape[:-2] + (k, n)
    assert close(q.get() @ r.get(), a, dtype, 10)
    assert close(np.tril(r.get(), -1), 0, dtype)
    qc, rc = LA.qr(A, mode="complete")
    assert qc.shape == shape[:-2] + (m, m) and close(qc.get() @ rc.get(), a, dtype, 10)
    u, s, vh = LA.svd(A, full_matrices=False)
    assert close(u.get() @ (s.get()[..., None] * vh.get()), a, dtype, 10)
    assert close(s.get(), np.linalg.svd(a, compute_uv=False), dtype, 10)
    uf, sf, vhf = LA.svd(A)
    assert uf.shape == shape[:-2] + (m, m) and vhf.shape == shape[:-2] + (n, n)
    assert close(LA.svdvals(A).get(), np.linalg.svd(a, compute_uv=False), dtype, 10)
    assert close(LA.pinv(A).get(), np.linalg.pinv(a), dtype, 1e3)
    assert np.array_equal(LA.matrix_rank(A).get(), np.linalg.matrix_rank(a))


def test_strided_input(device):
    a = _mat((8, 8), np.float64)
    A = hnp.asarray(a)
    assert close(LA.inv(A.T).get(), np.linalg.inv(a.T), np.float64, 1e3)
    assert close(LA.det(A[::2, ::2]).get(), np.linalg.det(a[::2, ::2]), np.float64, 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_norms_trace_cross_power(device, dtype):
    a = _mat((2, 4, 3), dtype)
    A = hnp.asarray(a)
    for ord_ in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        assert close(LA.matrix_norm(A, ord=ord_).get(), np.linalg.norm(a, ord_, axis=(-2, -1)),
                     dtype, 10), ord_
    assert LA.matrix_norm(A, keepdims=True).shape == (2, 1, 1)
    for ord_ in (2, 1, np.inf, -np.inf, 0, 3, 0.5):
        assert close(LA.vector_norm(A, ord=ord_).get(), np.linalg.norm(a.ravel(), ord_),
                     dtype, 10), ord_
    assert close(LA.vector_norm(A, axis=(0, 2)).get(), np.sqrt((np.abs(a) ** 2).sum((0, 2))),
                 dtype, 10)
    sq = _mat((3, 4, 4), dtype)
    assert close(LA.trace(hnp.asarray(sq)).get(), np.trace(sq, axis1=-2, axis2=-1), dtype, 10)
    assert close(LA.trace(hnp.asarray(sq), offset=1).get(),
                 np.trace(sq, offset=1, axis1=-2, axis2=-1), dtype, 10)
    assert close(LA.diagonal(hnp.asarray(sq), offset=-2).get(),
                 np.diagonal(sq, offset=-2, axis1=-2, axis2=-1), dtype)
    for p in (0, 1, 2, 5, -1, -3):
        assert close(LA.matrix_power(hnp.asarray(sq), p).get(),
                     np.linalg.matrix_power(sq, p), dtype, 1e4), p
    x, y = _mat((5, 3), dtype), _mat((5, 3), dtype)
    assert close(LA.cross(hnp.asarray(x), hnp.asarray(y)).get(), np.cross(x, y), dtype)
    assert close(LA.cross(hnp.asarray(x.T), hnp.asarray(y.T), axis=0).get(),
                 np.cross(x.T, y.T, axis=0), dtype)


def test_singular_and_bad_input(device):
    sing = hnp.asarray(np.ones((3, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        LA.inv(sing)
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        LA.solve(sing, hnp.ones((3,)))
    assert float(LA.det(sing).get()) == 0.0
    sign, logdet = LA.slogdet(sing)
    assert float(sign.get()) == 0.0 and float(logdet.get()) == -np.inf
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        LA.cholesky(hnp.asarray(-np.eye(3)))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        LA.inv(hnp.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        LA.det(hnp.ones((3,)))
    with pytest.raises(ValueError, match=r"\(3, 3\).*\(4,\)"):
        LA.solve(hnp.asarray(np.eye(3)), hnp.ones((4,)))
    with pytest.raises(ValueError, match="mode"):
        LA.qr(hnp.ones((2, 2)), mode="r")
    with pytest.raises(TypeError, match="unsupported"):
        LA.inv(hnp.ones((2, 2), dtype=hnp.float16))
    with pytest.raises(ValueError, match="3 elements"):
        LA.cross(hnp.ones((2, 4)), hnp.ones((2, 4)))
    with pytest.raises(TypeError, match="integer"):
        LA.matrix_power(hnp.asarray(np.eye(2)), 1.5)
    with pytest.raises(ValueError, match="ord"):
        LA.matrix_norm(hnp.ones((2, 2)), ord="x")
    # nothing was corrupted: the input still holds its values
    assert np.array_equal(sing.get(), np.ones((3, 3)))
