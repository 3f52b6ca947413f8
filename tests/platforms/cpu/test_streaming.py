"""Streaming kernels on the CPU platform (issue #2): huge-page-backed large buffers, and
loop-mode kernels with the usual bounds check, int and size_t indexed, over launches big enough
to be spread over the pool in many chunks, with a partial last block and with 2-D blocks."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest
from cpu_helpers import build, pack, ptr

SAXPY = r"""
__global__ void saxpy_int(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void saxpy_size_t(float a, const float* __restrict__ x, float* __restrict__ y,
                             size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
// 2-D and 3-D blocks: each row (threadIdx.y, threadIdx.z) of a block writes its own slice.
__global__ void rows(const int* __restrict__ x, int* __restrict__ y, size_t n) {
  size_t row = ((size_t)blockIdx.x * blockDim.z + threadIdx.z) * blockDim.y + threadIdx.y;
  size_t i = row * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 3 + (int)(threadIdx.z * 100 + threadIdx.y);
}
"""

HUGE = 2 << 20


def _thp_mode() -> str:
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled", encoding="ascii") as f:
            return re.search(r"\[(\w+)\]", f.read()).group(1)
    except (OSError, AttributeError):
        return "never"


def _vma_flags(address: int) -> set[str]:
    """The VmFlags of the mapping that holds `address` (this process)."""
    inside = False
    with open("/proc/self/smaps", encoding="ascii", errors="replace") as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", line)
            if m:
                inside = int(m.group(1), 16) <= address < int(m.group(2), 16)
            elif inside and line.startswith("VmFlags:"):
                return set(line.split()[1:])
    return set()


@pytest.fixture(scope="module")
def kernels(cpu):
    _, module, fn = build(cpu, SAXPY)
    return fn


def test_large_allocations_are_huge_page_aligned_and_advised(cpu):
    sizes = (HUGE * 2, HUGE * 8 + 12345, 64 << 20)
    ptrs = [cpu.malloc(0, n) for n in sizes]
    small = cpu.malloc(0, 4096)
    try:
        assert all(p % HUGE == 0 for p in ptrs)
        assert small % 256 == 0
        for p, n in zip(ptrs, sizes, strict=True):
            ctypes.memset(p, 1, n)  # writable to the last byte
        if _thp_mode() == "madvise":
            assert all("hg" in _vma_flags(p) for p in ptrs)
    finally:
        for p in ptrs + [small]:
            cpu.free(0, p)


@pytest.mark.parametrize("kernel,ctype", [("saxpy_int", ctypes.c_int),
                                          ("saxpy_size_t", ctypes.c_size_t)])
@pytest.mark.parametrize("n", [1, 255, 256, 257, 1 << 16, (1 << 22) + 77])
def test_saxpy_bounds_check(cpu, dev, kernels, kernel, ctype, n):
    rng = np.random.default_rng(n)
    x = rng.random(n + 300, dtype=np.float32)
    y = rng.random(n + 300, dtype=np.float32)
    dx, dy = dev.put(x), dev.put(y)
    grid = (n + 255) // 256
    for _ in range(2):  # the first launch of a kernel may time its loop forms; both must agree
        cpu.launch(0, kernels(kernel), (grid, 1, 1), (256, 1, 1), 0, None,
                   pack(ctypes.c_float(2.0), ptr(dx), ptr(dy), ctype(n)))
    want = 2.0 * x[:n] + (2.0 * x[:n] + y[:n])  # 2x is exact: numpy rounds as the FMA does
    got = dev.get(dy, n + 300, np.float32)
    np.testing.assert_allclose(got[:n], want, rtol=1e-6)
    np.testing.assert_array_equal(got[n:], y[n:])  # nothing past n is written


@pytest.mark.parametrize("block", [(32, 4, 1), (8, 3, 5), (1, 2, 1), (1024, 1, 1)])
def test_loop_mode_blocks_of_every_shape(cpu, dev, kernels, block):
    bx, by, bz = block
    per_block = bx * by * bz
    n = per_block * 1000 - 7
    x = np.arange(n + 64, dtype=np.int32)
    dx, dy = dev.put(x), dev.put(np.full(n + 64, -1, np.int32))
    grid = (n + per_block - 1) // per_block
    cpu.launch(0, kernels("rows"), (grid, 1, 1), block, 0, None,
               pack(ptr(dx), ptr(dy), ctypes.c_size_t(n)))
    got = dev.get(dy, n + 64, np.int32)
    row = np.arange(n) // bx
    np.testing.assert_array_equal(got[:n], x[:n] * 3 + (row // by % bz) * 100 + row % by)
    assert (got[n:] == -1).all()
