"""hipify maps cuda_fp8.h's types and enum values to HIP's OCP-format names (``__nv_fp8_e4m3`` ->
``__hip_fp8_e4m3``, ``__NV_E4M3`` -> ``__HIP_E4M3``: CUDA's encoding, not the FNUZ formats newer
HIPIFY picks), no longer calling them unsupported, and the conversion functions to HIP's
(``__nv_cvt_float_to_fp8`` -> ``__hip_cvt_float_to_fp8``; every platform declares both spellings).
The translated kernel runs on the CPU platform with CUDA's bits and compiles for the GPU targets."""

from __future__ import annotations

import numpy as np
import pytest

import openhip as hip
from openhip.hipify import hipify

CUDA = r"""
#include <cuda_fp8.h>
__global__ void narrow(const float* in, __nv_fp8_storage_t* sat, __nv_fp8_storage_t* nosat,
                       float* back) {
  int i = threadIdx.x;
  __nv_saturation_t s = __NV_SATFINITE;
  __nv_fp8_interpretation_t t = __NV_E4M3;
  sat[i] = __nv_cvt_float_to_fp8(in[i], s, t);
  nosat[i] = __nv_cvt_float_to_fp8(in[i], __NV_NOSAT, __NV_E4M3);
  __nv_fp8_e4m3 v(in[i]);
  __nv_fp8_e5m2 w(in[i]);
  back[i] = static_cast<float>(v) + 0.0f * static_cast<float>(w);
}
"""


def _translate():
    return hipify(CUDA, filename="narrow.cu")


def test_types_and_values_are_mapped_without_warnings():
    r = _translate()
    assert not r.warnings, r.warnings
    for name in ("__hip_fp8_storage_t* sat", "__hip_saturation_t s = __HIP_SATFINITE",
                 "__hip_fp8_interpretation_t t = __HIP_E4M3", "__HIP_NOSAT, __HIP_E4M3",
                 "__hip_fp8_e4m3 v(", "__hip_fp8_e5m2 w(", "__hip_cvt_float_to_fp8(in[i], s, t)"):
        assert name in r.text
    assert "__nv_" not in r.text and "__NV_" not in r.text and "fnuz" not in r.text.lower()


def test_translated_kernel_runs_with_cudas_encoding(device):
    m = hip.Module(_translate().text, name="narrow.hip")
    x = np.array([1.0, 2.5, -3.0, 448.0, 1000.0, 0.0, -0.5, 0.015625], dtype=np.float32)
    n = len(x)
    sat, nosat, back = hip.zeros(n, np.uint8), hip.zeros(n, np.uint8), hip.zeros(n, np.float32)
    m.get_function("narrow")(1, n, (hip.asarray(x), sat, nosat, back))
    # OCP E4M3 (CUDA's __NV_E4M3): bias 7, max 448 = 0x7E, NaN 0x7F, -0 exists.
    expected = [0x38, 0x42, 0xC4, 0x7E, 0x7E, 0x00, 0xB0, 0x08]
    np.testing.assert_array_equal(sat.get(), np.array(expected, np.uint8))
    np.testing.assert_array_equal(nosat.get()[[0, 1, 2, 3]], np.array(expected[:4], np.uint8))
    assert nosat.get()[4] == 0x7F  # out of range without saturation: NaN
    np.testing.assert_array_equal(back.get(), [1.0, 2.5, -3.0, 448.0, 448.0, 0.0, -0.5, 0.015625])


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_90"), ("amd", "gfx90a")])
def test_translated_kernel_compiles_for_gpus(gpu_toolchain, platform, arch):
    tool = gpu_toolchain(platform)
    program = tool.compile(_translate().text, arch=arch, filename="narrow.hip",
                           name_expressions=["narrow"])
    assert program.binary[:4] == b"\x7fELF"
    assert "narrow" in program.kernels
