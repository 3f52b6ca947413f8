"""The cuBLAS, rocBLAS, cuSOLVER and rocSOLVER bindings (openhip/numpy/_vendor) against numpy, with or
without a GPU.

A fake library (fake_cuda_libs.cpp, compiled here) exports the cuBLAS/cuSOLVER C ABI with
their column-major semantics on host memory; ``_vendor._testing.fake_libraries`` routes the CPU
platform's matmul and linalg through the bindings with it. So the row-major -> column-major
mapping, ops, leading dimensions, batch strides, workspaces, devInfo -> LinAlgError and the
stream each call runs on are checked on every shape class; the fake's call counters prove the
binding (not OpenBLAS) computed each result. The fake also exports rocBLAS's gemms and
rocSOLVER's routines (the ``fake-rocm-cpu`` route: ``get("cusolver", ...)`` is rocSOLVER there,
as on amd). Where an nvidia device and NVIDIA's wheels (or an amd device and
rocBLAS + rocSOLVER) are present the same tests run on the real libraries (the ``nvidia`` / ``amd`` routes).
"""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import openhip
import openhip.numpy as hnp
from openhip.numpy import _vendor
from openhip.numpy._vendor import _testing

RNG = np.random.default_rng(12)
SRC = Path(__file__).with_name("fake_cuda_libs.cpp")


#: route -> (the platform it runs on, the vendor libraries it routes)
ROUTES = {"fake-cpu": ("cpu", ("cublas", "cusolver")),
          "fake-rocm-cpu": ("cpu", ("rocblas", "rocsolver")),
          "nvidia": ("nvidia", ("cublas", "cusolver")), "amd": ("amd", ("rocblas", "rocsolver"))}


@pytest.fixture(scope="module", params=list(ROUTES))
def route(request, tmp_path_factory):
    """The fake library on the CPU platform (as cuBLAS + cuSOLVER, or as rocBLAS + rocSOLVER),
    or the real libraries on an nvidia / amd device."""
    platform, names = ROUTES[request.param]
    devs = {}
    for d in openhip.devices():
        devs.setdefault(d.platform, d)
    if platform not in devs:
        pytest.skip(f"no {platform} device")
    if platform != "cpu":
        for name in names:
            if _vendor.get(name, platform) is None:
                pytest.skip(_vendor.why_missing(name, platform))
        r = _testing.Route(devs[platform])
        r.names = names
        with devs[platform]:
            yield r
        return
    if shutil.which("g++") is None:
        pytest.skip("the fake library needs g++")
    path = _testing.build_fake(SRC, tmp_path_factory.mktemp("fake_cuda"))
    with _testing.fake_libraries(path, names), devs["cpu"]:
        r = _testing.Route(devs["cpu"], ctypes.CDLL(str(path)))
        r.names = names
        yield r


def _counter(route, i):
    """The fake's counter of a gemm (0) or a 16-bit gemm (1) of the route's BLAS."""
    return i + 5 if "rocblas" in route.names else i


def _needs_solver(route):
    if "cusolver" not in route.names and "rocsolver" not in route.names:
        pytest.skip("this route has no solver library")


def _solver_calls(route):
    """The fake's count of the route's solver calls (cuSOLVER's 4, rocSOLVER's 7)."""
    return 7 if "rocsolver" in route.names else 4


def _data(shape, dtype):
    dt = np.dtype(dtype)
    x = RNG.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dt)


def _tol(dtype):
    dt = np.dtype(dtype)
    if dt in (np.float16, ml_dtypes.bfloat16):
        return 3e-2
    return 1e-4 if dt in (np.float32, np.complex64) else 1e-11


def _ref(a, b):
    if a.dtype in (np.float16, ml_dtypes.bfloat16):
        return (a.astype(np.float32) @ b.astype(np.float32)).astype(a.dtype)
    return a @ b


def _check(a_np, b_np, a_dev, b_dev, route, counter=0):
    counter = _counter(route, counter)
    before = route.calls(counter)
    got = hnp.matmul(a_dev, b_dev).get()
    want = _ref(a_np, b_np)
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = max(1.0, float(np.abs(want.astype(np.complex128)).max(initial=0)))
    np.testing.assert_allclose(got.astype(np.complex128), want.astype(np.complex128),
                               atol=_tol(a_np.dtype) * scale, rtol=_tol(a_np.dtype))
    if want.size and a_np.shape[-1]:
        assert route.called_since(before, counter), "the vendor binding was not called"


SHAPES = [((5, 5), (5, 5)), ((7, 3), (3, 2)), ((2, 9), (9, 6)), ((1, 8), (8, 5)),
          ((6, 4), (4, 1)), ((4, 3, 5), (4, 5, 2)), ((2, 1, 3, 4), (5, 4, 6)),
          ((3, 4), (2, 4, 3)), ((6,), (6, 2)), ((3, 6), (6,)), ((6,), (6,)), ((3, 0), (0, 4)),
          ((0, 3), (3, 2)), ((2, 3, 4), (4, 0))]


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_matmul_shapes(route, shapes, dtype):
    a, b = _data(shapes[0], dtype), _data(shapes[1], dtype)
    _check(a, b, hnp.asarray(a), hnp.asarray(b), route)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.float16, ml_dtypes.bfloat16],
                         ids=lambda d: np.dtype(d).name)
def test_matmul_dtypes(route, dtype):
    a, b = _data((3, 6, 5), dtype), _data((3, 5, 4), dtype)
    counter = 1 if np.dtype(dtype).itemsize == 2 else 0  # GemmStridedBatchedEx
    _check(a, b, hnp.asarray(a), hnp.asarray(b), route, counter)


@pytest.mark.parametrize("case", ["a_T", "b_T", "both_T", "row_slice", "col_step", "batch_T",
                                  "neg_step", "batch_step", "batch_reversed"])
def test_matmul_strided_views(route, case):
    a_full, b_full = _data((4, 9, 8), np.float64), _data((4, 8, 7), np.float64)
    a_dev, b_dev = hnp.asarray(a_full), hnp.asarray(b_full)
    if case == "a_T":  # unit row stride: op T
        a_np, a_v = a_full.mT[:, :7, :], a_dev.mT[:, :7, :]
        b_np = _data((4, 9, 5), np.float64)
        b_v = hnp.asarray(b_np)
    elif case == "b_T":
        a_np, a_v = a_full, a_dev
        b_np, b_v = np.swapaxes(a_full, -1, -2)[:, :, :4], a_dev.mT[:, :, :4]
    elif case == "both_T":
        a_np, a_v = b_full.mT, b_dev.mT
        b_np, b_v = a_full.mT, a_dev.mT
    elif case == "row_slice":
        a_np, a_v = a_full[:, 2:7, :], a_dev[:, 2:7, :]
        b_np, b_v = b_full[:, :, 1:5], b_dev[:, :, 1:5]
    elif case == "col_step":  # inner stride 2: the binding copies
        a_np, a_v = a_full[:, :, ::2], a_dev[:, :, ::2]
        b_np, b_v = b_full[:, ::2, :], b_dev[:, ::2, :]
    elif case == "batch_T":  # batch axis not outermost in memory
        x = _data((9, 4, 8), np.float64)
        a_np, a_v = np.moveaxis(x, 1, 0), hnp.moveaxis(hnp.asarray(x), 1, 0)
        b_np, b_v = b_full, b_dev
    elif case == "neg_step":
        a_np, a_v = a_full[:, ::-1, :], a_dev[:, ::-1, :]
        b_np, b_v = b_full, b_dev
    elif case == "batch_step":
        a_np, a_v = a_full[::2], a_dev[::2]
        b_np, b_v = b_full[::2], b_dev[::2]
    else:
        a_np, a_v = a_full[::-1], a_dev[::-1]
        b_np, b_v = b_full, b_dev
    _check(a_np, b_np, a_v, b_v, route)


def test_matmul_broadcast_batch_stride_zero(route):
    a = _data((1, 6, 3), np.float32)
    b = _data((5, 3, 4), np.float32)
    _check(np.broadcast_to(a, (5, 6, 3)), b,
           hnp.broadcast_to(hnp.asarray(a), (5, 6, 3)), hnp.asarray(b), route)


def test_matmul_runs_on_the_current_stream(route):
    a, b = _data((4, 4), np.float32), _data((4, 4), np.float32)
    ad, bd = hnp.asarray(a), hnp.asarray(b)
    hnp.matmul(ad, bd)
    assert route.last_stream() in (0, None)  # the default stream
    s = openhip.Stream()
    with s:
        got = hnp.matmul(ad, bd)
    assert route.last_stream() in (s.ptr, None) and s.ptr != 0
    s.synchronize()
    np.testing.assert_allclose(got.get(), a @ b, rtol=1e-5)


def test_deterministic_keeps_the_own_gemm(route):
    a, b = _data((6, 5), np.float32), _data((5, 3), np.float32)
    before = route.calls(_counter(route, 0))
    got = hnp.matmul(hnp.asarray(a), hnp.asarray(b), deterministic=True).get()
    np.testing.assert_allclose(got, a @ b, rtol=1e-5)
    assert route.calls(_counter(route, 0)) == before
    platform = route.device.platform
    blas = "rocblas" if "rocblas" in route.names else "cublas"
    assert hnp.linalg.backend(platform, np.dtype(np.float32), True) == "openhip"
    assert hnp.linalg.backend(platform, np.dtype(np.float32), False) == blas
    assert hnp.linalg.backend(platform, np.dtype(np.float16), False) == blas
    assert hnp.linalg.backend(platform, np.dtype(np.int32), False) == "openhip"


def test_integer_matmul_is_not_sent_to_cublas(route):
    a = RNG.integers(0, 5, (4, 3)).astype(np.int32)
    b = RNG.integers(0, 5, (3, 2)).astype(np.int32)
    c0, c1 = _counter(route, 0), _counter(route, 1)
    before = route.calls(c0) + route.calls(c1)
    np.testing.assert_array_equal(hnp.matmul(hnp.asarray(a), hnp.asarray(b)).get(), a @ b)
    assert route.calls(c0) + route.calls(c1) == before


def test_tensordot_and_at_operator(route):
    a, b = _data((3, 4, 5), np.float64), _data((4, 5, 2), np.float64)
    got = hnp.tensordot(hnp.asarray(a), hnp.asarray(b), axes=2).get()
    np.testing.assert_allclose(got, np.tensordot(a, b, axes=2), rtol=1e-12)
    x, y = _data((3, 3), np.float64), _data((3, 3), np.float64)
    np.testing.assert_allclose((hnp.asarray(x) @ hnp.asarray(y)).get(), x @ y, rtol=1e-12)


def test_mismatched_inner_dimension_still_raises(route):
    with pytest.raises(ValueError, match=r"\(3, 4\) and \(5, 2\)"):
        hnp.matmul(hnp.ones((3, 4)), hnp.ones((5, 2)))


# ---- cuSOLVER / rocSOLVER ----------------------------------------------------------------------------
needs_lapack = pytest.mark.skipif(not _testing.has_lapack(),
                                  reason="the fake's cuSOLVER needs numpy's ILP64 OpenBLAS")
LA_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
LA_TOL = {np.float32: 2e-4, np.float64: 1e-10, np.complex64: 2e-4, np.complex128: 1e-10}


def _hpd(shape, dtype):
    a = _data(shape, dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


@needs_lapack
@pytest.mark.parametrize("dtype", LA_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 2, 3, 3), (1, 1)], ids=str)
def test_solver_against_numpy(route, dtype, shape):
    _needs_solver(route)
    tol = LA_TOL[dtype]
    a, h = _data(shape, dtype), _hpd(shape, dtype)
    b = _data(shape[:-1] + (2,), dtype)
    ad, hd = hnp.asarray(a), hnp.asarray(h)
    before = route.calls(_solver_calls(route))
    for upper in (False, True):
        np.testing.assert_allclose(hnp.linalg.cholesky(hd, upper=upper).get(),
                                   np.linalg.cholesky(h, upper=upper), rtol=tol, atol=tol)
    np.testing.assert_allclose(hnp.linalg.solve(ad, hnp.asarray(b)).get(),
                               np.linalg.solve(a, b), rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(hnp.linalg.inv(ad).get(), np.linalg.inv(a), rtol=tol * 10,
                               atol=tol * 10)
    np.testing.assert_allclose(hnp.linalg.det(ad).get(), np.linalg.det(a), rtol=tol * 10,
                               atol=tol)
    sign, logabs = hnp.linalg.slogdet(ad)
    ws, wl = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign.get(), ws, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(logabs.get(), wl, rtol=tol * 10, atol=tol * 10)
    w, v = hnp.linalg.eigh(hd)
    w, v = w.get(), v.get()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(h), rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(h @ v, v * w[..., None, :], rtol=tol * 10, atol=tol * 100)
    np.testing.assert_allclose(np.conj(np.swapaxes(v, -1, -2)) @ v,
                               np.broadcast_to(np.eye(shape[-1]), v.shape), atol=tol * 100)
    np.testing.assert_allclose(hnp.linalg.eigvalsh(hd).get(), np.linalg.eigvalsh(h),
                               rtol=tol, atol=tol * 10)
    assert route.called_since(before, _solver_calls(route))


@needs_lapack
def test_solver_vector_broadcast_and_strided(route):
    _needs_solver(route)
    a = _data((3, 4, 4), np.float64)
    b = _data((4,), np.float64)
    np.testing.assert_allclose(hnp.linalg.solve(hnp.asarray(a)[0], hnp.asarray(b)).get(),
                               np.linalg.solve(a[0], b), rtol=1e-10)
    bb = _data((2, 1, 4, 3), np.float64)
    np.testing.assert_allclose(hnp.linalg.solve(hnp.asarray(a), hnp.asarray(bb)).get(),
                               np.linalg.solve(a, bb), rtol=1e-9)
    at = hnp.asarray(a).mT  # a transposed view
    np.testing.assert_allclose(hnp.linalg.inv(at).get(), np.linalg.inv(a.mT), rtol=1e-9)
    x = hnp.asarray(a)
    before = x.get()
    hnp.linalg.cholesky(hnp.asarray(_hpd((4, 4), np.float64)))
    hnp.linalg.inv(x)
    np.testing.assert_array_equal(x.get(), before)  # the operands are not overwritten


@needs_lapack
def test_solver_errors(route):
    _needs_solver(route)
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        hnp.linalg.solve(hnp.asarray(sing), hnp.asarray([1.0, 2.0]))
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        hnp.linalg.inv(hnp.asarray(np.stack([np.eye(2), sing])))
    assert float(hnp.linalg.det(hnp.asarray(sing)).get()) == 0.0
    sign, logabs = hnp.linalg.slogdet(hnp.asarray(sing))
    assert float(sign.get()) == 0.0 and float(logabs.get()) == -np.inf
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        hnp.linalg.cholesky(hnp.asarray(np.array([[1.0, 2.0], [2.0, 1.0]])))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        hnp.linalg.inv(hnp.ones((2, 3)))
    # the empty cases stay on the CPU library's path
    assert hnp.linalg.inv(hnp.ones((0, 0))).shape == (0, 0)


@needs_lapack
def test_solver_runs_on_the_current_stream(route):
    _needs_solver(route)
    s = openhip.Stream()
    h = hnp.asarray(_hpd((3, 3), np.float32))
    with s:
        got = hnp.linalg.cholesky(h)
    assert route.last_stream() in (s.ptr, None)
    s.synchronize()
    np.testing.assert_allclose(got.get(), np.linalg.cholesky(h.get()), rtol=1e-4)


@needs_lapack
@pytest.mark.parametrize("dtype", LA_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(5, 5), (7, 3), (3, 7), (2, 6, 4), (2, 1, 3, 5), (1, 4),
                                   (4, 1)], ids=str)
def test_qr_svd_against_numpy(route, dtype, shape):
    _needs_solver(route)
    tol = LA_TOL[dtype] * 10
    a = _data(shape, dtype)
    ad = hnp.asarray(a)
    m, n = shape[-2:]
    k = min(m, n)
    before = route.calls(_solver_calls(route))
    for mode in ("reduced", "complete"):
        q, r = hnp.linalg.qr(ad, mode=mode)
        q, r = q.get(), r.get()
        wq, wr = np.linalg.qr(a, mode=mode)
        assert q.shape == wq.shape and r.shape == wr.shape and q.dtype == wq.dtype
        np.testing.assert_allclose(q @ r, a, rtol=tol, atol=tol)
        np.testing.assert_allclose(np.conj(np.swapaxes(q, -1, -2)) @ q,
                                   np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] +
                                                   (q.shape[-1],) * 2), atol=tol)
        np.testing.assert_allclose(np.triu(r), r)
        np.testing.assert_allclose(np.abs(r), np.abs(wr), rtol=tol, atol=tol)  # up to signs
    for full in (True, False):
        u, s, vh = hnp.linalg.svd(ad, full_matrices=full)
        u, s, vh = u.get(), s.get(), vh.get()
        wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
        assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
        assert s.dtype == ws.dtype and u.dtype == wu.dtype
        np.testing.assert_allclose(s, ws, rtol=tol, atol=tol)
        np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a,
                                   rtol=tol, atol=tol)
        np.testing.assert_allclose(np.conj(np.swapaxes(u, -1, -2)) @ u,
                                   np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] +
                                                   (u.shape[-1],) * 2), atol=tol)
        np.testing.assert_allclose(vh @ np.conj(np.swapaxes(vh, -1, -2)),
                                   np.broadcast_to(np.eye(vh.shape[-2]), vh.shape[:-2] +
                                                   (vh.shape[-2],) * 2), atol=tol)
    np.testing.assert_allclose(hnp.linalg.svdvals(ad).get(), np.linalg.svd(a, compute_uv=False),
                               rtol=tol, atol=tol)
    assert route.called_since(before, _solver_calls(route))


def test_amd_solver_is_rocsolver_and_a_missing_one_is_named(monkeypatch):
    from openhip.numpy._vendor import _loader

    monkeypatch.setattr(_vendor, "_bindings", {})
    monkeypatch.setattr(_vendor, "_failed", {})
    monkeypatch.setattr(_loader, "_SONAMES", {**_loader._SONAMES,
                                              "rocsolver": ("librocsolver-not-there.so.9",)})
    assert _vendor.get("cusolver", "amd") is None
    assert "rocsolver" in _vendor._failed and "cusolver" not in _vendor._failed
    why = _vendor.why_missing("cusolver", "amd")
    assert why.startswith("rocSOLVER was not found") and "ROCm" in why
    assert _vendor.get("rocsolver", "nvidia") is None
    assert "amd platform" in _vendor.why_missing("rocsolver", "nvidia")


@needs_lapack
def test_rocsolver_status_is_a_hip_error(route):
    if "rocsolver" not in route.names or route.fake is None:
        pytest.skip("the fake rocSOLVER's route only")
    sol = _vendor.get("cusolver", "cpu")
    assert type(sol).__name__ == "Rocsolver"
    a = hnp.asarray(np.eye(3))
    with pytest.raises(openhip.HipError, match="rocsolver_dpotrf_strided_batched returned "
                                               "rocblas_status_invalid_size"):
        sol.potrf(a.device, a, -1, 1, 0)
    with pytest.raises(KeyError):  # a fill mode neither lower (0) nor upper (1)
        sol.potrf(a.device, a, 3, 1, 5)
