"""threadIdx/blockIdx/blockDim/gridDim in 3-D, dim3, warpSize, 2-D indexing (kernels:
tests/kernels/indexing_3d.hip)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import load_kernel as load

import openhip as hip


@pytest.fixture(scope="module")
def mod():
    return load("indexing_3d")


@pytest.mark.parametrize("grid,block", [((1, 1, 1), (1, 1, 1)), ((2, 3, 4), (5, 3, 2)),
                                        ((3, 1, 2), (32, 2, 1)), ((1, 2, 1), (4, 4, 4)),
                                        ((7, 1, 1), (33, 1, 1))])
def test_coordinates(device, mod, grid, block):
    nblocks, nthreads = int(np.prod(grid)), int(np.prod(block))
    out = hip.zeros(6 * nblocks * nthreads, np.uint32)
    mod.get_function("coords")(grid, block, (out,))
    got = out.get().reshape(nblocks, nthreads, 6)
    bz, by, bx = np.meshgrid(*[np.arange(g) for g in grid[::-1]], indexing="ij")
    tz, ty, tx = np.meshgrid(*[np.arange(b) for b in block[::-1]], indexing="ij")
    want = np.zeros((nblocks, nthreads, 6), np.uint32)
    want[:, :, 0] = tx.ravel()[None, :]
    want[:, :, 1] = ty.ravel()[None, :]
    want[:, :, 2] = tz.ravel()[None, :]
    want[:, :, 3] = bx.ravel()[:, None]
    want[:, :, 4] = by.ravel()[:, None]
    want[:, :, 5] = bz.ravel()[:, None]
    np.testing.assert_array_equal(got, want)


def test_dims_and_warp_size(device, mod):
    out = hip.zeros(8, np.uint32)
    mod.get_function("dims")((3, 2, 5), (4, 2, 8), (out,))
    np.testing.assert_array_equal(out.get(), [4, 2, 8, 3, 2, 5, 64, device.properties.warp_size])


@pytest.mark.parametrize("rows,cols", [(1, 1), (37, 91), (256, 64)])
def test_add2d(device, mod, rows, cols):
    rng = np.random.default_rng(rows)
    a = rng.random((rows, cols), dtype=np.float32)
    b = rng.random((rows, cols), dtype=np.float32)
    c = hip.zeros((rows, cols), np.float32)
    block = (16, 8)
    grid = ((cols + 15) // 16, (rows + 7) // 8)
    mod.get_function("add2d")(grid, block, (hip.asarray(a), hip.asarray(b), c, rows, cols))
    np.testing.assert_array_equal(c.get(), a + b)
