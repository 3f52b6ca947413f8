"""malloc/free, copies in every direction, memset, and their misuse."""

import numpy as np
import pytest

import openhip as hip


def test_roundtrip_htod_dtoh_dtod(device):
    host = np.arange(1000, dtype=np.float32)
    a = hip.malloc(host.nbytes)
    b = hip.malloc(host.nbytes)
    hip.memcpy_htod(a, host)
    hip.memcpy_dtod(b, a)
    out = np.empty_like(host)
    hip.memcpy_dtoh(out, b)
    np.testing.assert_array_equal(out, host)


def test_partial_copy_and_memset(device):
    buf = hip.malloc(64)
    hip.memset(buf, 0xAB)
    out = np.zeros(64, np.uint8)
    hip.memcpy_dtoh(out, buf)
    assert (out == 0xAB).all()
    hip.memset(buf, 0, nbytes=16)
    hip.memcpy_dtoh(out, buf)
    assert (out[:16] == 0).all() and (out[16:] == 0xAB).all()
    small = np.zeros(8, np.uint8)
    hip.memcpy_dtoh(small, buf, nbytes=8)
    assert (small == 0).all()


def test_async_copies_on_a_stream(device):
    s = hip.Stream()
    host = np.random.default_rng(0).random(1 << 16).astype(np.float64)
    d = hip.malloc(host.nbytes)
    hip.memcpy_htod_async(d, host, s)
    out = np.zeros_like(host)
    hip.memcpy_dtoh_async(out, d, s)
    s.synchronize()
    np.testing.assert_array_equal(out, host)


def test_freed_buffer_is_an_error_not_a_crash(device):
    buf = hip.malloc(16)
    buf.free()
    with pytest.raises(hip.HipError) as err:
        hip.memcpy_htod(buf, np.zeros(16, np.uint8))
    assert err.value.status == "hipErrorInvalidDevicePointer"
    with pytest.raises(hip.HipError):
        hip.memset(buf, 1)
    buf.free()  # freeing twice is harmless


def test_size_mismatch_and_bad_host_buffers(device):
    buf = hip.malloc(16)
    with pytest.raises(ValueError):
        hip.memcpy_htod(buf, np.zeros(8, np.uint8))
    with pytest.raises(ValueError):
        hip.memcpy_dtoh(np.zeros(32, np.uint8), buf)
    with pytest.raises(ValueError):
        hip.memcpy_htod(buf, np.zeros(32, np.uint8), nbytes=17)
    with pytest.raises(ValueError):
        hip.memcpy_htod(buf, np.zeros((4, 8), np.uint8)[:, ::2])  # not contiguous
    ro = np.zeros(16, np.uint8)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        hip.memcpy_dtoh(ro, buf)
    with pytest.raises(TypeError):
        hip.memcpy_htod(buf, 12345)
    with pytest.raises(TypeError):
        hip.memcpy_htod(np.zeros(16, np.uint8), np.zeros(16, np.uint8))
    with pytest.raises(ValueError):
        hip.memset(buf, 256)


def test_out_of_memory_is_a_hip_error(device):
    with pytest.raises(hip.HipError) as err:
        hip.malloc(device.properties.total_memory * 4)
    assert err.value.status == "hipErrorOutOfMemory"
    with pytest.raises(hip.HipError):
        hip.malloc(-1)
    assert hip.malloc(0).nbytes == 0


def test_many_allocations_are_released(device):
    for _ in range(200):
        b = hip.malloc(1 << 20)
        del b
    hip.synchronize()


def test_collector_freeing_buffers_during_synchronize_does_not_deadlock(device):
    """Buffers in reference cycles are freed by the garbage collector at arbitrary moments,
    including inside the runtime's own bookkeeping (a re-entrant free once deadlocked)."""
    import gc

    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    try:
        streams = [hip.Stream() for _ in range(3)]
        for _ in range(300):
            cycle = [hip.malloc(64)]
            cycle.append(cycle)
            del cycle
            streams[0].synchronize()
            hip.synchronize()
    finally:
        gc.set_threshold(*old)
    gc.collect()
    hip.synchronize()
