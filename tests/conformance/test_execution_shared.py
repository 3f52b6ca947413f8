"""Static and dynamic shared memory with __syncthreads and its _count/_and/_or forms
(kernels: shared_static.hip, shared_dynamic.hip, syncthreads_count_and_or.hip)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import load_kernel as load

import openhip as hip

#: the CPU runs these kernels split at their barriers and, again, as fibers
ALSO_AS_FIBERS = True


@pytest.mark.parametrize("n", [1, 255, 256, 100_000])
def test_block_sum(device, n):
    mod = load("shared_static")
    x = np.random.default_rng(n).random(n, dtype=np.float32)
    nb = (n + 255) // 256
    out = hip.zeros(nb, np.float32)
    mod.get_function("block_sum")(nb, 256, (hip.asarray(x), out, n))
    padded = np.zeros(nb * 256, np.float32)
    padded[:n] = x
    np.testing.assert_allclose(out.get(), padded.reshape(nb, 256).sum(axis=1), rtol=1e-5)


@pytest.mark.parametrize("block", [1, 32, 100, 1024])
def test_shared_in_device_function(device, block):
    mod = load("shared_static")
    x = np.arange(3 * block, dtype=np.int32)
    out = hip.zeros(3 * block, np.int32)
    mod.get_function("block_reverse")(3, block, (hip.asarray(x), out))
    np.testing.assert_array_equal(out.get(), x.reshape(3, block)[:, ::-1].ravel())


@pytest.mark.parametrize("block", [1, 64, 1000])
def test_dynamic_shared_namespace_scope(device, block):
    mod = load("shared_dynamic")
    x = np.arange(4 * block, dtype=np.int32) * 3
    out = hip.zeros(4 * block, np.int32)
    mod.get_function("reverse_ns")(4, block, (hip.asarray(x), out), shared_mem=4 * block)
    np.testing.assert_array_equal(out.get(), x.reshape(4, block)[:, ::-1].ravel())


def test_dynamic_shared_two_views(device):
    mod = load("shared_dynamic")
    block = 128
    x = np.random.default_rng(0).random(2 * block, dtype=np.float32)
    out = hip.zeros(2 * block, np.float32)
    counts = hip.zeros(2 * block, np.int32)
    mod.get_function("two_views")(2, block, (hip.asarray(x), out, counts), shared_mem=8 * block)
    t = np.arange(block)
    np.testing.assert_array_equal(out.get(), x.reshape(2, block)[:, (t + 1) % block].ravel())
    np.testing.assert_array_equal(counts.get(), np.tile(((t + 2) % block) * 2, 2))


@pytest.mark.parametrize("expr,dtype", [("rotate<float>", np.float32),
                                        ("rotate<double>", np.float64)])
def test_dynamic_shared_template(device, expr, dtype):
    mod = load("shared_dynamic")
    block, shift = 96, 5
    x = np.arange(3 * block).astype(dtype) * 0.5
    out = hip.zeros(3 * block, dtype)
    mod.get_function(expr)(3, block, (hip.asarray(x), out, shift),
                           shared_mem=block * np.dtype(dtype).itemsize)
    t = np.arange(block)
    np.testing.assert_array_equal(out.get(), x.reshape(3, block)[:, (t + shift) % block].ravel())


@pytest.mark.parametrize("block", [1, 31, 256])
def test_syncthreads_count_and_or(device, block):
    mod = load("syncthreads_count_and_or")
    nb = 4
    rng = np.random.default_rng(block)
    pred = (rng.random((nb, block)) < 0.5).astype(np.int32)
    pred[1] = 1  # a block where all are true
    pred[2] = 0  # a block where none is
    pred[3] *= 7  # nonzero values other than 1 count as true
    count, all_, any_ = (hip.zeros(nb * block, np.int32) for _ in range(3))
    mod.get_function("votes")(nb, block, (hip.asarray(pred.ravel()), count, all_, any_))
    truth = pred != 0
    np.testing.assert_array_equal(count.get().reshape(nb, block),
                                  np.repeat(truth.sum(1, keepdims=True), block, 1))
    np.testing.assert_array_equal(all_.get().reshape(nb, block),
                                  np.repeat(truth.all(1, keepdims=True), block, 1))
    np.testing.assert_array_equal(any_.get().reshape(nb, block),
                                  np.repeat(truth.any(1, keepdims=True), block, 1))
