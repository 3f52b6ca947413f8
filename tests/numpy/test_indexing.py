"""Indexing against numpy: basic (views, host-checked bounds), integer-array and boolean
advanced indexing (gather/scatter kernels, out-of-bounds reported by the kernel with nothing
written), take and take_along_axis."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp

A = np.arange(3 * 4 * 5, dtype=np.float64).reshape(3, 4, 5)

KEYS = [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (None, 1), (slice(1, None, 2),),
        (slice(None, None, -1), slice(1, 3), None), (Ellipsis, None), (2, Ellipsis, 3),
        ([0, 2],), ([0, 2], [1, 3]), (slice(None), [3, 0, 0]), ([[0], [2]], slice(None), [1, 4]),
        (1, [0, 1], [2, 3]), ([-1, 0],), (Ellipsis, [-5, 4])]


@pytest.mark.parametrize("key", KEYS, ids=[str(k) for k in KEYS])
def test_getitem(device, key):
    x = hnp.asarray(A, device=device)
    want = A[key]
    got = x[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.get(), want)


def test_boolean_masks(device):
    x = hnp.asarray(A, device=device)
    np.testing.assert_array_equal(x[x > 30].get(), A[A > 30])
    m2 = A[:, :, 0] > 20
    np.testing.assert_array_equal(x[hnp.asarray(m2, device=device)].get(), A[m2])
    m1 = np.array([True, False, True, True])
    np.testing.assert_array_equal(x[:, hnp.asarray(m1, device=device)].get(), A[:, m1])
    np.testing.assert_array_equal(x[x > 1e9].get(), A[A > 1e9])
    assert x[True].shape == (1, 3, 4, 5) and x[False].shape == (0, 3, 4, 5)


def test_setitem(device):
    a = A.copy()
    x = hnp.asarray(a, device=device)
    for key, value in [((0, 1), 7.0), ((slice(None), 2), np.arange(5.0)), ((Ellipsis, 0), -1.0),
                       (([0, 2], [1, 3]), np.array([[100.0], [200.0]])[0]),
                       ((slice(None), [0, 3]), 5.0)]:
        a[key] = value
        x[key] = hnp.asarray(value, device=device) if isinstance(value, np.ndarray) else value
        np.testing.assert_array_equal(x.get(), a)
    a[a > 50] = 0
    x[x > 50] = 0
    np.testing.assert_array_equal(x.get(), a)
    i = hnp.asarray(np.zeros(3, np.int32), device=device)
    i[1] = 5
    assert i.get().tolist() == [0, 5, 0]
    with pytest.raises(TypeError):
        i[0] = 1.5


def test_out_of_bounds(device):
    x = hnp.asarray(A, device=device)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
        x[3]
    with pytest.raises(IndexError, match="axis 1"):
        x[0, -5]
    with pytest.raises(IndexError):
        x[0, 0, 0, 0]
    bad = hnp.asarray(np.array([0, 7]), device=device)
    with pytest.raises(IndexError, match="out of bounds"):
        x[bad]
    before = x.get()
    with pytest.raises(IndexError):
        x[:, bad] = 1.0  # reported by the kernel: nothing written out of bounds
    row = x[:, 0].get()
    np.testing.assert_array_equal(row[:, 0], before[:, 0, 0] * 0 + 1.0)  # in-bounds index 0
    np.testing.assert_array_equal(x[:, 1:].get(), before[:, 1:])
    with pytest.raises(IndexError):
        x[hnp.asarray(np.ones(3, bool), device=device)[None]]  # mask shape mismatch
    with pytest.raises(IndexError):
        x[1.5]


def test_take(device):
    x = hnp.asarray(A, device=device)
    idx = np.array([3, 0, -1, 2])
    for axis in (0, 1, 2, -1):
        i = idx[np.abs(idx) < A.shape[axis]] if axis in (0,) else idx
        got = hnp.take(x, hnp.asarray(i, device=device), axis=axis)
        np.testing.assert_array_equal(got.get(), np.take(A, i, axis=axis))
    flat = hnp.asarray(A.reshape(-1), device=device)
    np.testing.assert_array_equal(hnp.take(flat, hnp.asarray([5, 1], device=device)).get(),
                                  A.reshape(-1)[[5, 1]])
    with pytest.raises(IndexError):
        hnp.take(flat, hnp.asarray([60], device=device))
    with pytest.raises(ValueError):
        hnp.take(x, hnp.asarray([0], device=device))  # axis required for n-d


def test_take_along_axis(device):
    a = np.random.default_rng(1).normal(size=(4, 6))
    x = hnp.asarray(a, device=device)
    for axis in (0, 1, -1):
        order = np.argsort(a, axis=axis)
        got = hnp.take_along_axis(x, hnp.asarray(order, device=device), axis=axis)
        np.testing.assert_array_equal(got.get(), np.take_along_axis(a, order, axis=axis))
    i = np.array([[0], [5], [2], [1]])
    np.testing.assert_array_equal(
        hnp.take_along_axis(x, hnp.asarray(i, device=device), axis=1).get(),
        np.take_along_axis(a, i, axis=1))
