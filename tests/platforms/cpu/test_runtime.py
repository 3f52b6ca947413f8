"""The host runtime library: streams, events, copies, memory, sticky errors."""

from __future__ import annotations

import ctypes
import time

import numpy as np
import pytest
from cpu_helpers import build, pack, ptr

from openhip.errors import HipError

SLOW = """
// Spins for `us` microseconds and until the host sets *release (at most 60 s), then writes
// `value`: the host decides when it ends, so "still running" holds however late it looks.
__global__ void slow_write(int* out, int value, long long us, volatile int* release) {
  long long start = wall_clock64();
  while ((wall_clock64() - start < us * 1000 || *release == 0) &&
         wall_clock64() - start < 60000000000LL) { }
  out[0] = value;
}
__global__ void copy_one(const int* in, int* out) { out[0] = in[0]; }
"""


@pytest.fixture(scope="module")
def slow(cpu):
    _, module, fn = build(cpu, SLOW)
    return module, fn


def test_wall_clock_is_nanoseconds(cpu, dev):
    # the SLOW kernel relies on it; if wall_clock64 ticks differently, adjust SLOW
    _, _, fn = build(cpu, "__global__ void k(long long* o) { o[0] = wall_clock64(); }")
    d = dev.empty(8)
    cpu.launch(0, fn("k"), (1, 1, 1), (1, 1, 1), 0, None, pack(ptr(d)))
    a = dev.get(d, 1, np.int64)[0]
    time.sleep(0.05)
    cpu.launch(0, fn("k"), (1, 1, 1), (1, 1, 1), 0, None, pack(ptr(d)))
    b = dev.get(d, 1, np.int64)[0]
    assert 3e7 < b - a < 5e9


def test_streams_are_asynchronous_and_in_order(cpu, dev, slow):
    _, fn = slow
    s = cpu.stream_create(0)
    release = np.zeros(1, np.int32)  # host memory the kernel reads
    try:
        d, h = dev.empty(4), np.zeros(1, np.int32)
        cpu.launch(0, fn("slow_write"), (1, 1, 1), (1, 1, 1), 0, s,
                   pack(ptr(d), ctypes.c_int(42), ctypes.c_longlong(1000),
                        ptr(release.ctypes.data)))
        assert cpu.stream_query(0, s) is False  # still running: launch did not wait
        cpu.copy_dtoh(0, h.ctypes.data, d, 4, s)  # ordered after the kernel
        release[0] = 1
        cpu.stream_synchronize(0, s)
        assert h[0] == 42 and cpu.stream_query(0, s) is True
    finally:
        release[0] = 1
        cpu.stream_destroy(0, s)


def test_events_time_and_order_across_streams(cpu, dev, slow):
    _, fn = slow
    s1, s2 = cpu.stream_create(0), cpu.stream_create(0)
    e0, e1 = cpu.event_create(0), cpu.event_create(0)
    release = np.zeros(1, np.int32)
    try:
        src, dst = dev.put(np.zeros(1, np.int32)), dev.put(np.full(1, -1, np.int32))
        cpu.event_record(0, e0, s1)
        cpu.launch(0, fn("slow_write"), (1, 1, 1), (1, 1, 1), 0, s1,
                   pack(ptr(src), ctypes.c_int(7), ctypes.c_longlong(100_000),
                        ptr(release.ctypes.data)))
        cpu.event_record(0, e1, s1)
        cpu.stream_wait_event(0, s2, e1)  # s2's copy must see the slow kernel's write
        cpu.launch(0, fn("copy_one"), (1, 1, 1), (1, 1, 1), 0, s2, pack(ptr(src), ptr(dst)))
        assert cpu.event_query(0, e1) is False
        release[0] = 1
        cpu.stream_synchronize(0, s2)
        assert dev.get(dst, 1, np.int32)[0] == 7
        cpu.event_synchronize(0, e1)
        assert cpu.event_query(0, e1) is True
        assert 80 <= cpu.event_elapsed_ms(0, e0, e1) < 60_000
    finally:
        release[0] = 1
        for e in (e0, e1):
            cpu.event_destroy(0, e)
        for s in (s1, s2):
            cpu.stream_destroy(0, s)


def test_elapsed_needs_recorded_events(cpu):
    a, b = cpu.event_create(0), cpu.event_create(0)
    try:
        assert cpu.event_query(0, a) is True  # never recorded: nothing pending
        with pytest.raises(HipError) as info:
            cpu.event_elapsed_ms(0, a, b)
        assert info.value.status == "hipErrorInvalidHandle"
    finally:
        cpu.event_destroy(0, a)
        cpu.event_destroy(0, b)


def test_async_copies_and_memset_on_a_stream(cpu, dev):
    s = cpu.stream_create(0)
    try:
        host = np.arange(1000, dtype=np.int32)
        out = np.zeros_like(host)
        a, b = dev.empty(host.nbytes), dev.empty(host.nbytes)
        cpu.copy_htod(0, a, host.ctypes.data, host.nbytes, s)
        cpu.copy_dtod(0, b, a, host.nbytes, s)
        cpu.memset(0, b, 0xFF, 400, s)
        cpu.copy_dtoh(0, out.ctypes.data, b, host.nbytes, s)
        cpu.stream_synchronize(0, s)
        np.testing.assert_array_equal(out[:100], -1)
        np.testing.assert_array_equal(out[100:], host[100:])
    finally:
        cpu.stream_destroy(0, s)


def test_errors_stay_on_their_stream(cpu, dev):
    _, _, fn = build(cpu, "__global__ void boom(int* o) { __trap(); }\n"
                          "__global__ void ok(int* o) { o[0] = 5; }")
    s1, s2 = cpu.stream_create(0), cpu.stream_create(0)
    try:
        d = dev.empty(4)
        cpu.launch(0, fn("boom"), (4, 1, 1), (8, 1, 1), 0, s1, pack(ptr(d)))
        cpu.launch(0, fn("ok"), (1, 1, 1), (1, 1, 1), 0, s2, pack(ptr(d)))
        cpu.stream_synchronize(0, s2)  # unaffected
        with pytest.raises(HipError) as info:
            cpu.stream_synchronize(0, s1)
        assert info.value.status == "hipErrorLaunchFailure" and "boom" in str(info.value)
        cpu.stream_synchronize(0, s1)  # reported once
    finally:
        cpu.stream_destroy(0, s1)
        cpu.stream_destroy(0, s2)


def test_device_synchronize_reports_kernel_errors(cpu, dev):
    _, _, fn = build(cpu, "__global__ void boom(int* o) { __trap(); }")
    cpu.launch(0, fn("boom"), (1, 1, 1), (1, 1, 1), 0, None, pack(ptr(dev.empty(4))))
    with pytest.raises(HipError) as info:
        cpu.device_synchronize(0)
    assert info.value.status == "hipErrorLaunchFailure"


def test_out_of_memory_is_an_error(cpu):
    total = cpu.device_properties()[0].total_memory
    with pytest.raises(HipError) as info:
        cpu.malloc(0, total * 4)
    assert info.value.status == "hipErrorOutOfMemory"


def test_malloc_alignment(cpu):
    ptrs = [cpu.malloc(0, n) for n in (1, 3, 1000, 1 << 20)]
    try:
        assert all(p % 256 == 0 for p in ptrs)
    finally:
        for p in ptrs:
            cpu.free(0, p)


def test_destroyed_stream_is_invalid(cpu):
    s = cpu.stream_create(0)
    cpu.stream_destroy(0, s)
    with pytest.raises(HipError) as info:
        cpu.stream_destroy(0, s)
    assert info.value.status == "hipErrorInvalidHandle"


def test_parallel_blocks_all_run(cpu, dev):
    src = "__global__ void k(int* o) { atomicAdd(o + blockIdx.x % 7, (int)threadIdx.x); }"
    _, _, fn = build(cpu, src)
    d = dev.put(np.zeros(7, np.int32))
    cpu.launch(0, fn("k"), (7000, 1, 1), (64, 1, 1), 0, None, pack(ptr(d)))
    np.testing.assert_array_equal(dev.get(d, 7, np.int32), [1000 * (63 * 64 // 2)] * 7)


def test_unload_keeps_pending_errors(cpu, dev):
    _, module, fn = build(cpu, "__global__ void boom(int* o) { __trap(); }")
    cpu.launch(0, fn("boom"), (1, 1, 1), (1, 1, 1), 0, None, pack(ptr(dev.empty(4))))
    cpu.unload_module(0, module)
    with pytest.raises(HipError):
        cpu.stream_synchronize(0, None)


def test_fork_child_gets_fresh_workers(cpu, dev):
    import os

    _, _, fn = build(cpu, "__global__ void k(int* o) { o[blockIdx.x] = blockIdx.x + 1; }")
    d = dev.empty(4 * 64)
    cpu.launch(0, fn("k"), (64, 1, 1), (1, 1, 1), 0, None, pack(ptr(d)))
    cpu.stream_synchronize(0, None)
    pid = os.fork()
    if pid == 0:  # child: launch again on fresh worker threads
        code = 1
        try:
            cpu.memset(0, d, 0, 4 * 64, None)
            cpu.launch(0, fn("k"), (64, 1, 1), (1, 1, 1), 0, None, pack(ptr(d)))
            cpu.stream_synchronize(0, None)
            out = np.zeros(64, np.int32)
            cpu.copy_dtoh(0, out.ctypes.data, d, out.nbytes, None)
            code = 0 if (out == np.arange(1, 65)).all() else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_many_streams_with_fiber_kernels(cpu, dev):
    # Every stream thread runs blocks with its own fiber stacks; destroyed streams give them back.
    src = "__global__ void k(int* o) { __shared__ int s[64]; s[threadIdx.x] = threadIdx.x;" \
          " __syncthreads(); o[threadIdx.x] = s[63 - threadIdx.x]; }"
    _, _, fn = build(cpu, src)
    d = dev.empty(4 * 64)
    for _ in range(3):
        streams = [cpu.stream_create(0) for _ in range(8)]
        for s in streams:
            cpu.launch(0, fn("k"), (4, 1, 1), (64, 1, 1), 0, s, pack(ptr(d)))
        for s in streams:
            cpu.stream_destroy(0, s)
    np.testing.assert_array_equal(dev.get(d, 64, np.int32), np.arange(64)[::-1])


def test_destroyed_stream_handle_is_an_error_not_a_use_after_free(cpu, dev):
    s = cpu.stream_create(0)
    cpu.stream_synchronize(0, s)
    cpu.stream_destroy(0, s)
    for call in (lambda: cpu.stream_query(0, s), lambda: cpu.stream_synchronize(0, s),
                 lambda: cpu.stream_destroy(0, s), lambda: cpu.memset(0, dev.empty(4), 0, 4, s)):
        with pytest.raises(HipError) as info:
            call()
        assert info.value.status == "hipErrorInvalidHandle"
        assert "not a live stream" in str(info.value)
    # handles are never reused: a new stream does not answer to the old handle
    t = cpu.stream_create(0)
    try:
        assert t != s
        with pytest.raises(HipError):
            cpu.stream_query(0, s)
    finally:
        cpu.stream_destroy(0, t)


def test_default_stream_cannot_be_destroyed(cpu):
    with pytest.raises(HipError) as info:
        cpu.stream_destroy(0, None)
    assert info.value.status == "hipErrorInvalidHandle"
