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


# ---- exports and deferred frees (issue #14 item 9) ----------------------------------------------

def test_free_waits_for_every_export(device):
    """Two exports: the memory stays until the second is released; the count is exact."""
    import gc

    x = hip.asarray(np.arange(256, dtype=np.int64))
    buf = x.data.mem
    caps = [x.__dlpack__(), x.__dlpack__(max_version=(1, 0))]
    assert buf.exports == 2 and not buf.release_pending
    buf.free()
    assert buf.freed and buf.release_pending
    del caps[0]
    gc.collect()
    assert buf.exports == 1 and buf.release_pending
    del caps[0]
    gc.collect()
    assert buf.exports == 0 and not buf.release_pending


def test_exports_of_empty_and_imported_arrays(device):
    """Zero-size arrays export and free like others; freeing an imported (not owned) buffer
    never touches the producer's memory."""
    e = hip.zeros(0, np.float32)
    cap = e.__dlpack__()
    e.data.mem.free()
    del cap
    host = np.arange(10, dtype=np.float32)
    if device.platform == "cpu":
        y = hip.from_dlpack(host)
        y.data.mem.free()
        assert y.data.mem.freed
        np.testing.assert_array_equal(host, np.arange(10, dtype=np.float32))
        v = np.asarray(hip.zeros(0, np.float32))
        assert v.shape == (0,)


def test_deferred_free_composes_with_queued_work(device):
    """free() with a kernel still queued and an export alive: the memory goes only after both
    the kernel has run and the export is released; the kernel's result is intact."""
    import gc

    k = hip.Module(r"""
    #include <hip/hip_runtime.h>
    extern "C" __global__ void inc(float* x, int n, int rounds) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) for (int r = 0; r < rounds; ++r) x[i] += 1.0f;
    }
    """).get_function("inc")
    n = 1 << 16
    x = hip.zeros(n, np.float32)
    export = np.from_dlpack(x) if device.platform == "cpu" else x.__dlpack__()
    k(n // 256, 256, (x, n, 50))
    buf = x.data.mem
    buf.free()
    assert buf.release_pending
    if device.platform == "cpu":
        hip.synchronize()
        assert (export == 50).all()
    del export, x
    gc.collect()
    hip.synchronize()
    assert buf.exports == 0 and not buf.release_pending


def test_exports_released_from_other_threads(device):
    """Exports die on whatever thread drops them (torch and numpy deleters run anywhere)."""
    import gc
    import threading

    if device.platform != "cpu":
        pytest.skip("numpy views of device memory exist on the CPU platform only")
    bufs = []
    views = []
    for i in range(40):
        x = hip.asarray(np.full(1000, i, np.float32))
        views.append(np.from_dlpack(x))
        bufs.append(x.data.mem)
        x.data.mem.free()
        del x
    assert all(b.release_pending for b in bufs)

    def drop(part):
        for v in part:
            assert float(v[0]) == float(v[-1])
        part.clear()

    threads = [threading.Thread(target=drop, args=(views[i::4],)) for i in range(4)]
    views = None
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    gc.collect()
    assert not any(t.is_alive() for t in threads)
    assert all(b.exports == 0 and not b.release_pending for b in bufs)
