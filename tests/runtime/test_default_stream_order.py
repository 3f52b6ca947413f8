"""Work on the default stream stays in order: a kernel launched with no stream, then an
``_async`` copy or memset given no stream (the CPU platform ran those on the host at once, ahead
of the kernel still queued: openhip.numpy read a reduction's output before it was written)."""

from __future__ import annotations

import numpy as np

import openhip as hip

SRC = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void slow_fill(float* p, int n, long long spin) {
  volatile long long s = 0;
  for (long long k = 0; k < spin; ++k) s = s + k;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = (float)i + 0.5f;
}
"""


def _spin(device) -> int:
    return 5_000_000 if device.platform == "cpu" else 1


def test_async_copy_on_the_default_stream_follows_the_kernel(device):
    fill = hip.Module(SRC).get_function("slow_fill")
    n = 256
    x, y = hip.zeros(n, np.float32), hip.zeros(n, np.float32)
    fill((1,), (256,), (x, n, _spin(device)))
    hip.memcpy_dtod_async(y, x)
    hip.synchronize()
    assert np.array_equal(y.get(), np.arange(n, dtype=np.float32) + 0.5)


def test_async_memset_on_the_default_stream_follows_the_kernel(device):
    fill = hip.Module(SRC).get_function("slow_fill")
    n = 256
    x = hip.zeros(n, np.float32)
    fill((1,), (256,), (x, n, _spin(device)))
    hip.memset_async(x, 0)
    hip.synchronize()
    assert not x.get().any()
