"""hipify maps CUDA's <cooperative_groups/reduce.h> and <cooperative_groups/scan.h> to HIP's
<hip/cooperative_groups/hip_reduce.h> and <hip/cooperative_groups/hip_scan.h> (as newer HIPIFY
does); the translated kernel compiles and runs on every openhip platform, which ship those
headers."""

from __future__ import annotations

import numpy as np
import pytest

import openhip as hip
from openhip.hipify import hipify

CUDA = r"""
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void tile_ops(const int* in, int* out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = cg::inclusive_scan(tile, in[i]) + (cg::reduce(tile, in[i], cg::plus<int>()) << 16);
}
"""


def _hip_source() -> str:
    return hipify(CUDA, filename="tile_ops.cu").text


def test_headers_are_mapped():
    text = _hip_source()
    assert "#include <hip/cooperative_groups/hip_reduce.h>" in text
    assert "#include <hip/cooperative_groups/hip_scan.h>" in text
    assert "cooperative_groups/reduce.h>" not in text.replace("hip/cooperative_groups/hip_reduce.h", "")


def test_translated_kernel_runs(device):
    m = hip.Module(_hip_source(), name="tile_ops.hip")
    v = np.random.default_rng(1).integers(0, 100, 128).astype(np.int32)
    got = hip.zeros(128, np.int32)
    m.get_function("tile_ops")(2, 64, (hip.asarray(v), got))
    seg = v.reshape(-1, 32)
    want = np.cumsum(seg, axis=1) + (seg.sum(axis=1, keepdims=True) << 16)
    np.testing.assert_array_equal(got.get(), want.reshape(-1))


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_90"), ("amd", "gfx90a")])
def test_translated_kernel_compiles_for_gpus(gpu_toolchain, platform, arch):
    tool = gpu_toolchain(platform)
    if platform == "nvidia":
        from openhip.platforms.nvidia.cuda_headers import find_cg_headers

        if find_cg_headers() is None:
            pytest.skip("no CUDA <cooperative_groups.h> + libcu++ here (pip install "
                        "'openhip[nvidia]' or a CUDA toolkit)")
    program = tool.compile(_hip_source(), arch=arch, filename="tile_ops.hip",
                           name_expressions=["tile_ops"])
    assert program.binary[:4] == b"\x7fELF"
    assert "tile_ops" in program.kernels
