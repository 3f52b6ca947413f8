"""hipify maps CUDA's ``__nv_bfloat16`` types to HIP 6's ``__hip_bfloat16`` ones (as newer HIPIFY
does; the 2024 tables said ``hip_bfloat16``, a class openhip's CPU platform does not have); the
translated kernel compiles and runs on the CPU platform and compiles for the GPU targets."""

from __future__ import annotations

import numpy as np
import pytest

import openhip as hip
from openhip.hipify import hipify

CUDA = r"""
#include <cuda_bf16.h>
__global__ void twice(const float* in, float* out, __nv_bfloat16_raw* raw) {
  int i = threadIdx.x;
  __nv_bfloat16 v = __float2bfloat16(in[i]);
  __nv_bfloat162 p = __halves2bfloat162(v, v);
  out[i] = __bfloat162float(__low2bfloat16(p)) + __bfloat162float(__high2bfloat16(p));
  raw[i] = static_cast<__nv_bfloat16_raw>(v);
}
"""


def _hip_source() -> str:
    return hipify(CUDA, filename="twice.cu").text


def test_types_are_mapped():
    text = _hip_source()
    assert "__nv_bfloat16" not in text
    for name in ("__hip_bfloat16 v", "__hip_bfloat162 p", "__hip_bfloat16_raw* raw"):
        assert name in text


def test_translated_kernel_runs(device):
    m = hip.Module(_hip_source(), name="twice.hip")
    x = np.array([1.0, 2.5, -3.0, 1.0 / 3.0], dtype=np.float32)
    out = hip.zeros(4, np.float32)
    raw = hip.zeros(4, np.uint16)
    m.get_function("twice")(1, 4, (hip.asarray(x), out, raw))
    bits = (x.view(np.uint32) + 0x7FFF + ((x.view(np.uint32) >> 16) & 1)) >> 16  # round to nearest even
    np.testing.assert_array_equal(raw.get(), bits.astype(np.uint16))
    np.testing.assert_array_equal(out.get(), 2 * (bits.astype(np.uint32) << 16).view(np.float32))


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_90"), ("amd", "gfx90a")])
def test_translated_kernel_compiles_for_gpus(gpu_toolchain, platform, arch):
    tool = gpu_toolchain(platform)
    program = tool.compile(_hip_source(), arch=arch, filename="twice.hip", name_expressions=["twice"])
    assert program.binary[:4] == b"\x7fELF"
    assert "twice" in program.kernels
