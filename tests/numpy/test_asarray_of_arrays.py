"""asarray of (nested) sequences holding openhip arrays, as array-api-tests' helpers build
them: values against numpy's, the result dtype by the standard's promotion (Python scalars
weak), and bad input (ragged, out-of-range ints, copy=False, objects an array cannot hold)."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp


def test_zero_d_arrays_keep_their_dtype(device):
    for dt in (hnp.float32, hnp.int8, hnp.uint16, hnp.complex64, hnp.bool, hnp.float16):
        vals = np.array([1, 0, 1], dtype=dt)
        xs = [hnp.asarray(v, device=device) for v in vals]
        got = hnp.asarray(xs, device=device)
        assert got.dtype == dt and got.shape == (3,)
        np.testing.assert_array_equal(got.get(), vals)


def test_nested_and_tuples(device):
    a = hnp.asarray(1.5, dtype=hnp.float32, device=device)
    b = hnp.asarray(-2.0, dtype=hnp.float32, device=device)
    got = hnp.asarray(((a, b), [b, a], (a, a)), device=device)
    assert got.dtype == hnp.float32 and got.shape == (3, 2)
    np.testing.assert_array_equal(got.get(), np.array([[1.5, -2], [-2, 1.5], [1.5, 1.5]],
                                                      np.float32))


def test_python_scalars_are_weak(device):
    f32 = hnp.asarray(0.25, dtype=hnp.float32, device=device)
    i8 = hnp.asarray(-3, dtype=hnp.int8, device=device)
    assert hnp.asarray([f32, 2.0], device=device).dtype == hnp.float32
    assert hnp.asarray([f32, 2], device=device).dtype == hnp.float32
    assert hnp.asarray([i8, 5, True], device=device).dtype == hnp.int8
    assert hnp.asarray([i8, 0.5], device=device).dtype == hnp.float64
    assert hnp.asarray([f32, 1j], device=device).dtype == hnp.complex64
    b = hnp.asarray(True, device=device)
    assert hnp.asarray([b, 7], device=device).dtype == hnp.int64
    got = hnp.asarray([i8, 5, True], device=device).get()
    np.testing.assert_array_equal(got, np.array([-3, 5, 1], np.int8))


def test_arrays_promote_together(device):
    i8 = hnp.asarray(4, dtype=hnp.int8, device=device)
    i32 = hnp.asarray(-70000, dtype=hnp.int32, device=device)
    f32 = hnp.asarray(0.5, dtype=hnp.float32, device=device)
    got = hnp.asarray([i8, i32], device=device)
    assert got.dtype == hnp.int32
    np.testing.assert_array_equal(got.get(), [4, -70000])
    assert hnp.asarray([i8, f32], device=device).dtype == hnp.float32
    assert hnp.asarray([f32, np.float64(1.0)], device=device).dtype == hnp.float64


def test_rows_strided_and_explicit_dtype(device):
    m = hnp.asarray(np.arange(12, dtype=np.float64).reshape(3, 4), device=device)
    got = hnp.asarray([m[0, ::2], m[2, 1::2]], device=device)
    np.testing.assert_array_equal(got.get(), [[0, 2], [9, 11]])
    got = hnp.asarray([m[1, 0], m[2, 3]], dtype=hnp.int16, device=device)
    assert got.dtype == hnp.int16
    np.testing.assert_array_equal(got.get(), [4, 11])


def test_after_queued_work(device):
    # the values read are those of the kernels queued before asarray
    x = hnp.ones(1000, dtype=hnp.float32, device=device)
    y = x * 3 + 1
    got = hnp.asarray([y[0], y[999], hnp.sum(y)], device=device)
    np.testing.assert_array_equal(got.get(), np.array([4, 4, 4000], np.float32))


def test_bad_input(device):
    i8 = hnp.asarray(1, dtype=hnp.int8, device=device)
    with pytest.raises(OverflowError, match="300"):
        hnp.asarray([i8, 300], device=device)
    with pytest.raises(OverflowError):
        hnp.asarray([i8, 1000], dtype=hnp.uint8, device=device)
    with pytest.raises(ValueError):
        hnp.asarray([hnp.asarray([1, 2], device=device), hnp.asarray([1], device=device)],
                    device=device)
    with pytest.raises(ValueError, match="copy=False"):
        hnp.asarray([i8, i8], copy=False, device=device)
    with pytest.raises(TypeError):
        hnp.asarray([i8, "a"], device=device)
