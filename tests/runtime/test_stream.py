"""Streams and events: ordering within a stream, across streams, timing."""

import numpy as np
import pytest

import openhip as hip

KERNELS = r'''
#include <hip/hip_runtime.h>
extern "C" __global__ void add_one(int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += 1;
}
extern "C" __global__ void spin_then_set(int* v, int n, long long iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    volatile long long k = 0;
    for (long long j = 0; j < iters; ++j) k += j;
    if (i < n) v[i] = 10 + (int)(k & 0);
}
'''


@pytest.fixture
def mod(device):
    return hip.Module(KERNELS)


def test_in_order_on_one_stream(device, mod):
    s = hip.Stream()
    n = 4096
    v = hip.zeros(n, np.int32)
    k = mod.get_function("add_one")
    for _ in range(50):
        k((n + 255) // 256, 256, (v, n), stream=s)
    out = np.empty(n, np.int32)
    v.get(stream=s, out=out)
    s.synchronize()
    assert (out == 50).all() and s.query()


def test_events_order_work_across_streams(device, mod):
    s1, s2 = hip.Stream(), hip.Stream()
    n = 1024
    v = hip.zeros(n, np.int32)
    mod.get_function("spin_then_set")(n // 256, 256, (v, n, 200_000), stream=s1)
    e = hip.Event().record(s1)
    s2.wait_event(e)
    mod.get_function("add_one")(n // 256, 256, (v, n), stream=s2)
    s2.synchronize()
    assert e.query()
    assert (v.get() == 11).all()


def test_elapsed_time(device, mod):
    start, end = hip.Event(), hip.Event()
    n = 1 << 16
    v = hip.zeros(n, np.int32)
    start.record()
    mod.get_function("spin_then_set")(n // 256, 256, (v, n, 20_000))
    end.record()
    end.synchronize()
    ms = hip.Event.elapsed_time(start, end)
    assert 0 < ms < 60_000
    with pytest.raises(hip.HipError):
        hip.Event.elapsed_time(hip.Event(), end)


def test_stream_context_manager(device, mod):
    s = hip.Stream()
    v = hip.zeros(256, np.int32)
    with s:
        mod.get_function("add_one")(1, 256, (v, 256))
    s.synchronize()
    assert (v.get() == 1).all()
    with pytest.raises(TypeError):
        mod.get_function("add_one")(1, 256, (v, 256), stream="s")
