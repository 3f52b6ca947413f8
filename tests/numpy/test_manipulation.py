"""Manipulation functions against numpy (views and copies through the strided copy kernel),
with numpy's errors for bad axes and shapes."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp

A = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4)


@pytest.fixture
def x(device):
    return hnp.asarray(A, device=device)


def eq(got, want):
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.get(), want)


def test_views(x):
    eq(hnp.reshape(x, (4, 6)), A.reshape(4, 6))
    eq(hnp.reshape(x, (-1, 2)), A.reshape(-1, 2))
    eq(hnp.reshape(x.mT, (-1,)), np.swapaxes(A, -1, -2).reshape(-1))  # a copy
    eq(hnp.permute_dims(x, (2, 0, 1)), A.transpose(2, 0, 1))
    eq(hnp.expand_dims(x, axis=-1), A[..., None])
    eq(hnp.expand_dims(x, axis=(0, 2)), np.expand_dims(A, (0, 2)))
    eq(hnp.squeeze(hnp.expand_dims(x, axis=1), axis=1), A)
    eq(hnp.flip(x), np.flip(A))
    eq(hnp.flip(x, axis=(0, 2)), np.flip(A, (0, 2)))
    eq(hnp.moveaxis(x, 0, -1), np.moveaxis(A, 0, -1))
    eq(hnp.broadcast_to(x[:, :1], (2, 3, 4)), np.broadcast_to(A[:, :1], (2, 3, 4)))
    for u, w in zip(hnp.unstack(x, axis=1), np.moveaxis(A, 1, 0), strict=True):
        eq(u, w)
    b1, b2 = hnp.broadcast_arrays(x, hnp.asarray(np.arange(4, dtype=np.int32)))
    eq(b2, np.broadcast_to(np.arange(4), A.shape).astype(np.int32))
    with pytest.raises(ValueError):
        hnp.reshape(x.mT, (-1,), copy=False)


def test_copies(x):
    eq(hnp.concat([x, x], axis=1), np.concatenate([A, A], axis=1))
    eq(hnp.concat([x, x[:, :, ::-1]], axis=-1), np.concatenate([A, A[:, :, ::-1]], axis=-1))
    eq(hnp.concat([x, x], axis=None), np.concatenate([A, A], axis=None))
    f = hnp.asarray(A.astype(np.float32), device=x.device)
    eq(hnp.concat([x, f]), np.concatenate([A, A.astype(np.float32)]))  # promoted
    eq(hnp.stack([x, x], axis=2), np.stack([A, A], axis=2))
    for shift, axis in [(1, None), (-2, 1), ((1, 2), (0, 2)), (5, 2)]:
        eq(hnp.roll(x, shift, axis=axis), np.roll(A, shift, axis=axis))
    eq(hnp.tile(x, (2, 1, 3)), np.tile(A, (2, 1, 3)))
    eq(hnp.tile(x[0, 0], (2, 2)), np.tile(A[0, 0], (2, 2)))
    eq(hnp.repeat(x, 2, axis=1), np.repeat(A, 2, axis=1))
    eq(hnp.repeat(x, 3), np.repeat(A, 3))
    r = hnp.asarray(np.array([1, 0, 2]), device=x.device)
    eq(hnp.repeat(x, r, axis=1), np.repeat(A, [1, 0, 2], axis=1))


def test_errors(x):
    with pytest.raises(np.exceptions.AxisError):
        hnp.expand_dims(x, axis=5)
    with pytest.raises(np.exceptions.AxisError):
        hnp.flip(x, axis=3)
    with pytest.raises(ValueError, match="squeeze"):
        hnp.squeeze(x, axis=0)
    with pytest.raises(ValueError):
        hnp.concat([x, x[:, :2, :3]], axis=0)
    with pytest.raises(ValueError):
        hnp.stack([x, x[0]])
    with pytest.raises(ValueError, match="cannot reshape"):
        hnp.reshape(x, (5, 5))
    with pytest.raises(ValueError):
        hnp.broadcast_to(x, (3, 3, 4))
    with pytest.raises(ValueError):
        hnp.permute_dims(x, (0, 0, 1))
