"""The launch layouts of openhip.numpy's elementwise kernels against numpy: the contiguous
flat kernels (un0/bi0/tri0) with inline scalars in every position, bool operands, a launch
split into pieces (FLAT_CHUNK made small), the row layout (un3/bi3/tri3: a row vector
broadcast, row slices, casts) and the layouts the row layout must not take (column
broadcasts, transposes, strided rows); flat creation kernels (fill, arange) split likewise."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp
from openhip.numpy import _elementwise as ew
from openhip.numpy import _kernels


def _layouts_used(monkeypatch) -> list[str]:
    """Record the variants (group.dtype.layout) that the elementwise family builds or reuses."""
    seen: list[str] = []
    orig = ew.FAMILY.kernel

    def kernel(variant, exprs, expr, device):
        seen.append(expr)
        return orig(variant, exprs, expr, device)

    monkeypatch.setattr(ew.FAMILY, "kernel", kernel)
    monkeypatch.setattr(ew, "_PLANS", {})
    return seen


@pytest.mark.parametrize("dtype", ["float32", "int16", "complex64"])
def test_flat_kernels_with_scalars_in_each_position(device, dtype):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(1000) * 10).astype(dtype)
    b = (rng.standard_normal(1000) * 10).astype(dtype)
    x, y = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    s = 3
    np.testing.assert_array_equal((x + y).get(), a + b)
    np.testing.assert_array_equal((s - x).get(), (s - a).astype(dtype))
    np.testing.assert_array_equal((x * s).get(), (a * s).astype(dtype))
    np.testing.assert_array_equal((-x).get(), -a)
    if dtype != "complex64":
        np.testing.assert_array_equal((x < y).get(), a < b)
        np.testing.assert_array_equal((x >= s).get(), a >= s)
        m = a > 0
        mh = hnp.asarray(m, device=device)
        np.testing.assert_array_equal(hnp.where(mh, x, y).get(), np.where(m, a, b))
        np.testing.assert_array_equal(hnp.where(mh, x, s).get(), np.where(m, a, s).astype(dtype))
        np.testing.assert_array_equal(hnp.where(mh, s, y).get(), np.where(m, s, b).astype(dtype))
        np.testing.assert_array_equal(hnp.where(mh, 1, 2).get(),
                                      np.where(m, 1, 2).astype(np.int64))
        np.testing.assert_array_equal(hnp.clip(x, -2, 4).get(), np.clip(a, -2, 4))
        np.testing.assert_array_equal(hnp.clip(x, y, None).get(), np.maximum(a, b))


def test_bool_operands(device):
    rng = np.random.default_rng(2)
    p, q = rng.random(777) < 0.5, rng.random(777) < 0.3
    x, y = hnp.asarray(p, device=device), hnp.asarray(q, device=device)
    np.testing.assert_array_equal(hnp.logical_and(x, y).get(), p & q)
    np.testing.assert_array_equal(hnp.logical_xor(x, y).get(), p ^ q)
    np.testing.assert_array_equal(hnp.logical_not(x).get(), ~p)
    np.testing.assert_array_equal((x == y).get(), p == q)
    np.testing.assert_array_equal(x.astype(hnp.float32).get(), p.astype(np.float32))
    np.testing.assert_array_equal(hnp.where(x, y, False).get(), np.where(p, q, False))


def test_a_flat_launch_split_into_pieces(device, monkeypatch):
    monkeypatch.setattr(_kernels, "FLAT_CHUNK", 1000)
    monkeypatch.setattr(ew, "_PLANS", {})
    rng = np.random.default_rng(3)
    a = rng.standard_normal(4567).astype(np.float32)
    b = rng.standard_normal(4567).astype(np.float32)
    m = a > b
    x, y, mh = (hnp.asarray(v, device=device) for v in (a, b, m))
    np.testing.assert_array_equal((x + y).get(), a + b)
    np.testing.assert_array_equal((2.0 * x).get(), 2.0 * a)
    np.testing.assert_array_equal((x - 1.5).get(), a - np.float32(1.5))
    np.testing.assert_array_equal((x < y).get(), a < b)
    np.testing.assert_array_equal(hnp.where(mh, x, 0.0).get(), np.where(m, a, np.float32(0)))
    np.testing.assert_array_equal(x.astype(hnp.float64).get(), a.astype(np.float64))
    np.testing.assert_array_equal(hnp.exp(x).get().shape, (4567,))
    np.testing.assert_array_equal(hnp.full(4567, 7, dtype=hnp.int16).get(),
                                  np.full(4567, 7, np.int16))
    np.testing.assert_array_equal(hnp.arange(4567, dtype=hnp.int64).get(), np.arange(4567))
    np.testing.assert_allclose(hnp.arange(0.5, 2000.0, 0.25, dtype=hnp.float64).get(),
                               np.arange(0.5, 2000.0, 0.25), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "bool"])
def test_row_layout(device, dtype, monkeypatch):
    seen = _layouts_used(monkeypatch)
    rng = np.random.default_rng(4)
    m = (rng.standard_normal((37, 300)) * 5).astype(dtype)
    row = (rng.standard_normal(300) * 5).astype(dtype)
    x, r = hnp.asarray(m, device=device), hnp.asarray(row, device=device)
    if dtype == "bool":
        np.testing.assert_array_equal((x == r).get(), m == row)
        np.testing.assert_array_equal(hnp.logical_or(x, r).get(), m | row)
    else:
        np.testing.assert_array_equal((x + r).get(), m + row)
        np.testing.assert_array_equal((r - x).get(), row - m)
        np.testing.assert_array_equal((x[:, 7:200] * r[7:200]).get(), m[:, 7:200] * row[7:200])
        np.testing.assert_array_equal((x[3:30, 2:] * 2).get(), (m[3:30, 2:] * 2).astype(dtype))
        np.testing.assert_array_equal((x[::2] > r).get(), m[::2] > row)
        np.testing.assert_array_equal(hnp.maximum(x[1:], r).get(), np.maximum(m[1:], row))
        cond = m > row
        np.testing.assert_array_equal(hnp.where(hnp.asarray(cond, device=device), x, r).get(),
                                      np.where(cond, m, row))
        np.testing.assert_array_equal(hnp.clip(x, r, 3).get(), np.clip(m, row, 3).astype(dtype))
    to = "float32" if dtype == "float64" else "float64"
    np.testing.assert_array_equal(hnp.astype(x[:, 10:], to).get(), m[:, 10:].astype(to))
    assert any(e.startswith(("bi3<", "tri3<")) for e in seen), seen
    assert any(e.startswith("un3<") for e in seen), seen


def test_layouts_the_row_layout_must_not_take(device, monkeypatch):
    seen = _layouts_used(monkeypatch)
    rng = np.random.default_rng(6)
    m = rng.standard_normal((40, 50)).astype(np.float32)
    col = rng.standard_normal((40, 1)).astype(np.float32)
    x, c = hnp.asarray(m, device=device), hnp.asarray(col, device=device)
    np.testing.assert_array_equal((x + c).get(), m + col)  # column broadcast: inner stride 0
    np.testing.assert_array_equal((x.T + 1).get(), m.T + 1)  # transposed
    np.testing.assert_array_equal((x[:, ::2] - x[:, 1::2]).get(), m[:, ::2] - m[:, 1::2])
    t = rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    ht = hnp.asarray(t, device=device)
    np.testing.assert_array_equal((ht[:, ::2, :, ::3] * 2).get(), t[:, ::2, :, ::3] * 2)
    np.testing.assert_array_equal((hnp.permute_dims(ht, (2, 0, 3, 1)) * 2).get(),
                                  np.transpose(t, (2, 0, 3, 1)) * 2)  # n-D: layout 1
    assert not any(e.startswith(("un3<", "bi3<", "tri3<")) for e in seen), seen
    assert any(e.endswith(", 2>") for e in seen) and any(e.endswith(", 1>") for e in seen), seen
