"""The openhip.numpy array object: attributes, views, host conversions, repr, DLPack, and the
runtime DeviceArray's operators delegating to openhip.numpy."""

from __future__ import annotations

import numpy as np
import pytest

import openhip as hip
import openhip.numpy as hnp


def test_namespace_and_attributes(device):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = hnp.asarray(a, device=device)
    assert isinstance(x, hip.DeviceArray)
    assert x.__array_namespace__() is hnp
    assert hnp.__array_api_version__ == "2024.12"
    assert x.shape == (2, 3, 4) and x.ndim == 3 and x.size == 24
    assert x.dtype == hnp.float32 and x.device is device
    assert x.strides == a.strides
    np.testing.assert_array_equal(x.mT.get(), np.swapaxes(a, -1, -2))
    m = hnp.asarray(a[0], device=device)
    np.testing.assert_array_equal(m.T.get(), a[0].T)
    with pytest.raises(ValueError):
        _ = x.T  # the standard allows .T on 2-D arrays only
    info = hnp.__array_namespace_info__()
    assert device in info.devices()
    assert info.default_dtypes()["real floating"] == hnp.float64
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8",
                                                 "uint16", "uint32", "uint64"}


def test_views_share_memory(device):
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    x = hnp.asarray(a, device=device)
    v = x[1:3, ::2]
    assert v.data.mem is x.data.mem
    v[...] = -1
    a[1:3, ::2] = -1
    np.testing.assert_array_equal(x.get(), a)
    np.testing.assert_array_equal(x[::-1, 1].get(), a[::-1, 1])
    np.testing.assert_array_equal(np.asarray(x[::-1, 1]), a[::-1, 1])


def test_python_scalars(device):
    x = hnp.asarray(np.array(3.5), device=device)
    assert float(x) == 3.5 and int(x) == 3 and bool(x) and complex(x) == 3.5
    i = hnp.asarray(np.array(7, np.int16), device=device)
    assert [0, 1, 2, 3, 4, 5, 6, 7, 8][i] == 7  # __index__
    with pytest.raises(TypeError):
        float(hnp.asarray(np.ones(2), device=device))
    with pytest.raises(ValueError):
        bool(hnp.asarray(np.ones(2), device=device))
    with pytest.raises(TypeError):
        [1, 2][x]  # a float array is not an index


def test_repr_shows_values(device):
    x = hnp.asarray(np.array([1.5, 2.0, 3.0], np.float32), device=device)
    r = repr(x)
    assert "1.5" in r and "float32" in r and r.startswith("array(")
    assert str(hnp.asarray([1, 2, 3], device=device)) == "[1 2 3]"


def test_dlpack_round_trips(device):
    a = np.arange(10, dtype=np.float64)
    x = hnp.asarray(a, device=device)
    if device.platform == "cpu":
        np.testing.assert_array_equal(np.from_dlpack(x), a)
        np.testing.assert_array_equal(np.from_dlpack(x[::2]), a[::2])  # strided: a copy
    y = hnp.from_dlpack(x)
    assert y.data.mem is x.data.mem
    z = hnp.from_dlpack(np.arange(5, dtype=np.int32)) if device.platform == "cpu" else None
    if z is not None:
        np.testing.assert_array_equal(z.get(), np.arange(5))
    torch = pytest.importorskip("torch")
    if device.platform == "cpu":
        t = torch.arange(6, dtype=torch.float32)
        np.testing.assert_array_equal(hnp.from_dlpack(t).get(), np.arange(6, dtype=np.float32))


def test_device_array_operators_delegate(device):
    d = hip.asarray(np.arange(6, dtype=np.float32), device=device)
    e = d + 1  # the issue: x + y failed on a DeviceArray
    assert isinstance(e, hnp.ndarray)
    np.testing.assert_array_equal(e.get(), np.arange(6) + 1)
    np.testing.assert_array_equal((d == d).get(), np.ones(6, bool))  # elementwise, not identity
    np.testing.assert_array_equal((2 * d).get(), 2 * np.arange(6))
    np.testing.assert_array_equal(d[1:4].get(), np.arange(1, 4))
    np.testing.assert_array_equal(d.astype(hnp.int32).get(), np.arange(6))
    assert d.__array_namespace__() is hnp
    f = hip.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=device)
    np.testing.assert_array_equal(f.T.get(), np.arange(6).reshape(2, 3).T)


def test_to_device_and_copy(device):
    x = hnp.asarray(np.arange(4), device=device)
    assert x.to_device(device) is x
    y = hnp.asarray(x, copy=True)
    assert y.data.mem is not x.data.mem
    assert hnp.asarray(x) is x
    with pytest.raises(ValueError):
        hnp.asarray([1, 2], copy=False)  # host data needs a copy


def test_astype_rules(device):
    x = hnp.asarray(np.array([1.7, -2.2, 300.0]), device=device)
    np.testing.assert_array_equal(x.astype(hnp.int32).get(), np.array([1, -2, 300]))
    np.testing.assert_array_equal(hnp.astype(x, hnp.bool).get(), [True, True, True])
    c = hnp.asarray(np.array([1 + 2j]), device=device)
    with pytest.raises(TypeError):
        hnp.astype(c, hnp.float64)  # complex -> real is forbidden by the standard
    assert hnp.astype(x, hnp.float64, copy=False) is x
    np.testing.assert_array_equal(hnp.astype(x[::2], hnp.float32).get(),
                                  np.array([1.7, 300.0], np.float32))


def test_async_on_a_stream(device):
    s = hip.Stream(device=device)
    with s:
        x = hnp.arange(1000, dtype=hnp.float32, device=device)
        y = x * 2 + 1
    s.synchronize()
    np.testing.assert_array_equal(y.get(), np.arange(1000, dtype=np.float32) * 2 + 1)
