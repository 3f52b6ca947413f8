"""Data types and the Array API type promotion rules (result_type, can_cast, finfo, iinfo,
isdtype) against the standard's table and numpy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import openhip.numpy as hnp

INT = [hnp.int8, hnp.int16, hnp.int32, hnp.int64]
UINT = [hnp.uint8, hnp.uint16, hnp.uint32, hnp.uint64]
FLT = [hnp.float32, hnp.float64]
CPX = [hnp.complex64, hnp.complex128]


def test_same_kind_promotion_table():
    for a, b in itertools.product(INT, INT):
        assert hnp.result_type(a, b) == max(a, b, key=lambda d: d.itemsize)
    for a, b in itertools.product(UINT, UINT):
        assert hnp.result_type(a, b) == max(a, b, key=lambda d: d.itemsize)
    # mixed signedness: the next larger signed integer
    assert hnp.result_type(hnp.uint8, hnp.int8) == hnp.int16
    assert hnp.result_type(hnp.uint16, hnp.int8) == hnp.int32
    assert hnp.result_type(hnp.uint32, hnp.int32) == hnp.int64
    assert hnp.result_type(hnp.float32, hnp.float64) == hnp.float64
    assert hnp.result_type(hnp.float32, hnp.complex64) == hnp.complex64
    assert hnp.result_type(hnp.float64, hnp.complex64) == hnp.complex128
    assert hnp.result_type(hnp.bool, hnp.bool) == hnp.bool
    assert hnp.result_type(hnp.float16, hnp.bfloat16) == hnp.float32
    assert hnp.result_type(hnp.bfloat16, hnp.int8) == hnp.bfloat16


def test_python_scalars_are_weak():
    x = hnp.asarray(np.ones(2, np.float32))
    assert hnp.result_type(x, 1) == hnp.float32
    assert hnp.result_type(x, 1.0) == hnp.float32
    assert hnp.result_type(x, 1j) == hnp.complex64
    i = hnp.asarray(np.ones(2, np.int8))
    assert hnp.result_type(i, 1) == hnp.int8
    assert hnp.result_type(hnp.asarray([True]), True) == hnp.bool
    with pytest.raises(TypeError):
        hnp.result_type(1, 2.0)


def test_can_cast_and_isdtype():
    assert hnp.can_cast(hnp.int8, hnp.int16)
    assert not hnp.can_cast(hnp.int16, hnp.int8)
    assert not hnp.can_cast(hnp.float64, hnp.float32)
    assert hnp.can_cast(hnp.uint8, hnp.int16) and not hnp.can_cast(hnp.int8, hnp.uint64)
    assert not hnp.can_cast(hnp.complex64, hnp.float64)
    assert hnp.isdtype(hnp.int8, "signed integer")
    assert hnp.isdtype(hnp.uint8, ("integral", "bool"))
    assert not hnp.isdtype(hnp.float32, "integral")
    assert hnp.isdtype(hnp.complex64, "complex floating")
    assert hnp.isdtype(hnp.float64, hnp.float64)
    with pytest.raises(ValueError):
        hnp.isdtype(hnp.float32, "floaty")
    with pytest.raises(TypeError):
        hnp.asarray(np.array(["a"]))


@pytest.mark.parametrize("dt", FLT + CPX + [hnp.float16, hnp.bfloat16])
def test_finfo(dt):
    f = hnp.finfo(dt)
    real = {hnp.complex64: np.float32, hnp.complex128: np.float64}.get(dt, dt)
    import ml_dtypes

    ref = ml_dtypes.finfo(real) if dt == hnp.bfloat16 else np.finfo(real)
    assert f.bits == ref.bits and f.eps == float(ref.eps) and f.max == float(ref.max)
    assert f.dtype == np.dtype(real)


@pytest.mark.parametrize("dt", INT + UINT)
def test_iinfo(dt):
    i = hnp.iinfo(dt)
    assert (i.min, i.max, i.bits) == (np.iinfo(dt).min, np.iinfo(dt).max, np.iinfo(dt).bits)
    with pytest.raises(ValueError):
        hnp.finfo(dt)
    with pytest.raises(ValueError):
        hnp.iinfo(hnp.float32)
