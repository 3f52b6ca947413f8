"""matmul / @ / tensordot / vecdot / outer / matrix_transpose against numpy: every numeric
dtype, batched and broadcast, strided (transposed, sliced) operands, both gemms (the vendor BLAS
and the project's deterministic one), and bad input."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import openhip.numpy as hnp

RNG = np.random.default_rng(7)


def _data(shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        return RNG.integers(0, 7, size=shape).astype(dt)
    x = RNG.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dt)


def _tol(dtype):
    dt = np.dtype(dtype)
    if dt in (np.float16, ml_dtypes.bfloat16):
        return 3e-2
    if dt in (np.float32, np.complex64):
        return 1e-4
    return 1e-11


DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int64, np.uint8,
          np.int8, np.float16, ml_dtypes.bfloat16]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("deterministic", [False, True])
def test_matmul_dtypes_and_batches(device, dtype, deterministic):
    for sa, sb in [((5, 7), (7, 3)), ((2, 3, 9, 4), (4, 5)), ((1, 6, 33), (3, 33, 65)),
                   ((7,), (7, 2)), ((4, 7), (7,)), ((7,), (7,))]:
        a, b = _data(sa, dtype), _data(sb, dtype)
        got = hnp.matmul(hnp.asarray(a), hnp.asarray(b), deterministic=deterministic)
        ref = np.matmul(a.astype(np.float64) if a.dtype.kind == "V" or a.dtype == ml_dtypes.bfloat16 else a,
                        b.astype(np.float64) if b.dtype == ml_dtypes.bfloat16 else b)
        assert got.shape == ref.shape
        assert got.dtype == np.dtype(dtype)
        g = np.asarray(got.get()).astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
        r = np.asarray(ref).astype(g.dtype)
        if np.dtype(dtype).kind in "iu":
            assert np.array_equal(g, r.astype(np.dtype(dtype)).astype(g.dtype))
        else:
            scale = max(1.0, np.abs(r).max())
            assert np.abs(g - r).max() <= _tol(dtype) * scale * max(sa[-1], 1)


@pytest.mark.parametrize("deterministic", [False, True])
def test_matmul_strided_operands(device, deterministic):
    a = _data((40, 30), np.float64)
    b = _data((50, 30), np.float64)
    ha, hb = hnp.asarray(a), hnp.asarray(b)
    cases = [(ha.T[:, ::2], hb[:40:2, ::3], a.T[:, ::2], b[:40:2, ::3]),
             (ha, hb.T, a, b.T),
             (ha[::3, 5:25], hb[1:21, ::2], a[::3, 5:25], b[1:21, ::2])]
    for x, y, rx, ry in cases:
        got = hnp.matmul(x, y, deterministic=deterministic).get()
        assert np.allclose(got, rx @ ry, rtol=1e-12, atol=1e-12)


def test_operator_and_broadcast_batches(device):
    a = _data((3, 1, 4, 5), np.float32)
    b = _data((1, 2, 5, 6), np.float32)
    assert np.allclose((hnp.asarray(a) @ hnp.asarray(b)).get(), a @ b, atol=1e-5)
    assert np.allclose((a @ hnp.asarray(b)).get(), a @ b, atol=1e-5)  # __rmatmul__
    x = hnp.asarray(_data((4, 4), np.float64))
    ref = x.get() @ x.get()
    x @= x
    assert np.allclose(x.get(), ref)


def test_empty_and_zero_inner(device):
    assert hnp.matmul(hnp.zeros((0, 3)), hnp.zeros((3, 4))).shape == (0, 4)
    z = hnp.matmul(hnp.ones((2, 0)), hnp.ones((0, 3)))
    assert z.shape == (2, 3) and not z.get().any()


def test_tensordot_vecdot_outer_transpose(device):
    a, b = _data((3, 4, 5), np.float64), _data((4, 5, 2), np.float64)
    assert np.allclose(hnp.tensordot(hnp.asarray(a), hnp.asarray(b)).get(), np.tensordot(a, b))
    assert np.allclose(hnp.tensordot(hnp.asarray(a), hnp.asarray(b), axes=([1], [0])).get(),
                       np.tensordot(a, b, axes=([1], [0])))
    assert np.allclose(hnp.tensordot(hnp.asarray(a), hnp.asarray(a), axes=0).get(),
                       np.tensordot(a, a, axes=0))
    x, y = _data((6, 3), np.complex128), _data((3,), np.complex128)
    assert np.allclose(hnp.vecdot(hnp.asarray(x), hnp.asarray(y)).get(),
                       np.sum(np.conj(x) * y, axis=-1))
    assert np.allclose(hnp.vecdot(hnp.asarray(x), hnp.asarray(x), axis=0).get(),
                       np.sum(np.conj(x) * x, axis=0))
    v, w = _data((4,), np.float32), _data((5,), np.float32)
    assert np.allclose(hnp.linalg.outer(hnp.asarray(v), hnp.asarray(w)).get(), np.outer(v, w))
    m = _data((2, 3, 4), np.float32)
    assert np.array_equal(hnp.matrix_transpose(hnp.asarray(m)).get(), np.swapaxes(m, -1, -2))


@pytest.mark.parametrize("call,exc,match", [
    (lambda: hnp.matmul(hnp.ones((2, 3)), hnp.ones((4, 2))), ValueError, r"\(2, 3\).*\(4, 2\)"),
    (lambda: hnp.matmul(hnp.ones(()), hnp.ones((3,))), ValueError, "at least 1-dimensional"),
    (lambda: hnp.matmul(hnp.ones((2, 2, 3)), hnp.ones((3, 3, 2))), ValueError, "broadcast"),
    (lambda: hnp.matmul(hnp.ones((2, 2), dtype=hnp.bool), hnp.ones((2, 2), dtype=hnp.bool)),
     TypeError, "bool"),
    (lambda: hnp.tensordot(hnp.ones((2, 3)), hnp.ones((4, 2)), axes=1), ValueError, "mismatch"),
    (lambda: hnp.tensordot(hnp.ones((2, 3)), hnp.ones((3,)), axes=3), ValueError, "larger"),
    (lambda: hnp.vecdot(hnp.ones((2, 3)), hnp.ones((2, 4))), ValueError, "differs"),
    (lambda: hnp.matrix_transpose(hnp.ones((3,))), ValueError, "2-dimensional"),
    (lambda: hnp.linalg.outer(hnp.ones((2, 2)), hnp.ones((2,))), ValueError, "1-dimensional"),
])
def test_bad_input(device, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_backend_table(monkeypatch):
    from openhip.numpy import _vendor
    from openhip.numpy.linalg import _matmul, backend

    assert backend("cpu", np.dtype(np.float32), True) == "openhip"
    assert backend("cpu", np.dtype(np.float16), False) == "openhip"
    assert backend("cpu", np.dtype(np.float64), False) in ("openblas", "openhip")
    assert backend("nvidia", np.dtype(np.float32), True) == "openhip"
    if _vendor.get("cublas", "nvidia") is not None:  # NVIDIA's wheel is installed
        for dt in (np.float32, np.complex128, np.float16, ml_dtypes.bfloat16):
            assert backend("nvidia", np.dtype(dt), False) == "cublas"
        assert backend("nvidia", np.dtype(np.int32), False) == "openhip"
    # without the wheel: one warning naming the library, the own gemm serves
    monkeypatch.setattr(_vendor, "_bindings", {})
    monkeypatch.setattr(_vendor, "_failed", {"cublas": "cublas was not found (test)"})
    monkeypatch.setattr(_matmul, "_said", set())
    with pytest.warns(RuntimeWarning, match="cublas was not found.*own gemm"):
        assert backend("nvidia", np.dtype(np.float32), False) == "openhip"
    with pytest.warns(RuntimeWarning, match="rocBLAS .*(not found|not wired).*own gemm"):
        assert backend("amd", np.dtype(np.float32), False) == "openhip"
