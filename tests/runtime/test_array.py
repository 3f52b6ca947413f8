"""DeviceArray: creation, transfers, views, numpy and DLPack interop."""

import ml_dtypes
import numpy as np
import pytest

import openhip as hip

DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.bool_, ml_dtypes.bfloat16,
          ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_roundtrip_every_dtype(device, dtype):
    host = (np.arange(24).reshape(2, 3, 4) % 7).astype(dtype)
    x = hip.asarray(host)
    assert x.shape == (2, 3, 4) and x.dtype == np.dtype(dtype) and x.size == 24
    assert x.nbytes == host.nbytes and x.ndim == 3 and x.device is device
    got = x.get()
    assert got.dtype == host.dtype
    np.testing.assert_array_equal(got.view(np.uint8), host.view(np.uint8))  # bit-exact


def test_constructors(device):
    assert (hip.zeros((3, 5), np.int32).get() == 0).all()
    assert (hip.ones(4, np.float32).get() == 1).all()
    assert (hip.full((2, 2), 7.5, np.float64).get() == 7.5).all()
    e = hip.empty(10, np.uint16)
    assert e.shape == (10,) and e.dtype == np.uint16
    like = hip.empty_like(np.zeros((4, 4), np.float16))
    assert like.shape == (4, 4) and like.dtype == np.float16
    z = hip.zeros_like(hip.ones(3, np.int64))
    assert (z.get() == 0).all()
    assert hip.zeros(0, np.float32).get().shape == (0,)


def test_copy_set_fill_reshape_view(device):
    x = hip.asarray(np.arange(12, dtype=np.float32))
    y = x.copy()
    x.fill(0)
    assert (x.get() == 0).all() and (y.get() == np.arange(12)).all()
    y.set(np.ones(12, np.float32))
    assert (y.get() == 1).all()
    r = y.reshape(3, -1)
    assert r.shape == (3, 4) and r.data.ptr == y.data.ptr
    v = y.view(np.uint32)
    assert (v.get() == np.float32(1).view(np.uint32)).all()
    with pytest.raises(ValueError):
        y.reshape(5, 5)
    with pytest.raises(ValueError):
        y.set(np.ones(11, np.float32))
    with pytest.raises(TypeError):
        y.set(np.ones(12, np.float64))
    with pytest.raises(ValueError):
        y.get(out=np.empty(3, np.float32))


def test_bad_dtypes_and_shapes(device):
    with pytest.raises(TypeError):
        hip.asarray(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        hip.asarray(np.array([object()]))
    with pytest.raises(ValueError):
        hip.empty((-1, 2), np.float32)


def test_numpy_shares_memory_on_cpu(device):
    if device.platform != "cpu":
        pytest.skip("__array_interface__ is a CPU-platform feature")
    x = hip.asarray(np.arange(8, dtype=np.int32))
    view = np.asarray(x)
    view[3] = 100
    assert x.get()[3] == 100
    assert x.__array_interface__["data"][0] == x.data.ptr
    b = hip.asarray(np.ones(4, ml_dtypes.bfloat16))
    assert np.asarray(b).dtype == ml_dtypes.bfloat16


def test_dlpack_roundtrip_with_numpy(device):
    if device.platform != "cpu":
        pytest.skip("numpy imports CPU tensors only")
    x = hip.asarray(np.arange(6, dtype=np.float64).reshape(2, 3))
    n = np.from_dlpack(x)
    assert n.shape == (2, 3) and n.ctypes.data == x.data.ptr
    n[0, 0] = -1
    assert x.get()[0, 0] == -1
    host = np.arange(10, dtype=np.int16)
    y = hip.from_dlpack(host)
    assert y.data.ptr == host.ctypes.data and y.dtype == np.int16
    host[2] = 42
    assert y.get()[2] == 42
    del n, x
    import gc

    gc.collect()
    with pytest.raises(ValueError):
        hip.from_dlpack(np.arange(10, dtype=np.int16)[::2])
    with pytest.raises(TypeError):
        hip.from_dlpack(object())


def test_dlpack_with_torch(device):
    torch = pytest.importorskip("torch")
    if device.platform != "cpu":
        pytest.skip("the CPU build of torch imports CPU tensors only")
    x = hip.asarray(np.arange(5, dtype=np.float32))
    t = torch.from_dlpack(x)
    t[1] = 9
    assert x.get()[1] == 9
    src = torch.arange(4, dtype=torch.int64)
    y = hip.from_dlpack(src)
    src[0] = 7
    assert y.get()[0] == 7
    bt = torch.ones(3, dtype=torch.bfloat16)
    assert hip.from_dlpack(bt).dtype == ml_dtypes.bfloat16
