"""A pooled block handed out again while work queued before its return still reads it: moving
the CPU platform's red zone (a host write) must wait for that work, or the queued kernel reads
canary bytes instead of its data (a reduction's partials turned to garbage this way)."""

from __future__ import annotations

import numpy as np

import openhip as hip
from openhip.runtime import pool

SRC = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void fill(unsigned char* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = (unsigned char)(i * 7 + 1);
}
// Spins a while, then copies: still reading p when the host hands p's block out again.
extern "C" __global__ void slow_copy(const unsigned char* p, unsigned char* q, int n,
                                     long long spin) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  volatile long long s = 0;
  for (long long k = 0; k < spin; ++k) s = s + k;
  if (i < n) q[i] = p[i];
}
"""


def test_reuse_with_a_smaller_request_waits_for_queued_readers(device):
    mod = hip.Module(SRC)
    fill, slow_copy = mod.get_function("fill"), mod.get_function("slow_copy")
    n = 480  # the 512-byte size class, like the 16-byte request below
    stream = hip.Stream()
    with stream:
        p = pool.allocate(n, device, stream)
        q = hip.malloc(n)
        fill((2,), (256,), (p, n))
        slow_copy((1,), (256,), (p, q, n, 20_000_000 if device.platform == "cpu" else 1))
        slow_copy((2,), (256,), (p, q, n, 0))
        p_ptr = p.ptr
        p.free()  # returned while the copies are queued
        r = pool.allocate(16, device, stream)  # the same size class: p's block, resized
        assert int(r.ptr) == int(p_ptr)
        stream.synchronize()
        got = np.empty(n, np.uint8)
        hip.memcpy_dtoh(got, q)
        expected = ((np.arange(n) * 7 + 1) % 256).astype(np.uint8)
        assert np.array_equal(got, expected)
        r.free()
        q.free()
