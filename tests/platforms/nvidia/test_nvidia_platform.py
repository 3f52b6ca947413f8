"""The nvidia platform: choosing it, its error mapping, and (on a machine with an NVIDIA GPU and
driver) the whole runtime path. Without a driver the platform is unavailable with the reason."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import openhip
from openhip import platforms
from openhip.errors import HipError, PlatformUnavailable
from openhip.platforms.nvidia.errors import hip_status_for_cuda
from openhip.platforms.nvidia.platform import fp_support

PLATFORM_SRC = Path(openhip.__file__).parent / "platforms" / "nvidia" / "platform.py"


def _nvidia_or_reason():
    platforms.reset()
    platform = platforms.try_platform("nvidia")
    reason = platforms.platform_status().get("nvidia")
    return platform, reason


@pytest.fixture
def fresh_platforms(monkeypatch):
    platforms.reset()
    yield monkeypatch
    platforms.reset()


def test_unavailable_platform_explains_why(fresh_platforms):
    platform, reason = _nvidia_or_reason()
    if platform is not None:
        pytest.skip("an NVIDIA GPU is present")
    assert reason, "an unavailable platform must say why"
    assert any(word in reason for word in ("driver", "cuda-bindings", "device", "libcuda"))


def test_asking_for_nvidia_by_name_raises_with_the_reason(fresh_platforms):
    platform, reason = _nvidia_or_reason()
    if platform is not None:
        pytest.skip("an NVIDIA GPU is present")
    fresh_platforms.setenv("OPENHIP_PLATFORM", "nvidia")
    platforms.reset()
    with pytest.raises(HipError) as info:
        platforms.active_platforms()
    assert info.value.status == "hipErrorNoDevice"
    assert reason in str(info.value)


def test_constructor_raises_platform_unavailable():
    from openhip.platforms.nvidia import PLATFORM

    try:
        PLATFORM()
    except PlatformUnavailable as exc:
        assert exc.platform == "nvidia" and exc.reason
    else:
        pytest.skip("an NVIDIA GPU is present")


def test_cuda_results_map_to_hip_names():
    assert hip_status_for_cuda(2) == "hipErrorOutOfMemory"
    assert hip_status_for_cuda(100) == "hipErrorNoDevice"
    assert hip_status_for_cuda(700) == "hipErrorIllegalAddress"
    assert hip_status_for_cuda(719) == "hipErrorLaunchFailure"
    assert hip_status_for_cuda(222) == "hipErrorInvalidKernelFile"
    assert hip_status_for_cuda(123456) == "hipErrorUnknown"


def test_check_turns_a_curesult_into_hiperror():
    pytest.importorskip("cuda.bindings")
    from cuda.bindings import driver

    from openhip.platforms.nvidia.errors import check

    with pytest.raises(HipError) as info:
        check(driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc")
    assert info.value.status == "hipErrorOutOfMemory" and info.value.routine == "cuMemAlloc"
    assert "CUDA_ERROR_OUT_OF_MEMORY" in info.value.message


def test_fp_flags_follow_compute_capability():
    assert fp_support(7, 5) == (True, False, False)
    assert fp_support(8, 0) == (True, True, False)
    assert fp_support(8, 9) == (True, True, True)
    assert fp_support(9, 0) == (True, True, True)


def test_every_driver_call_and_enum_the_platform_uses_exists():
    """Without a GPU the driver calls cannot run; check at least that every cuda.bindings name
    platform.py uses exists in the installed bindings."""
    pytest.importorskip("cuda.bindings")
    from cuda.bindings import driver

    tree = ast.parse(PLATFORM_SRC.read_text())
    names, attrs = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("cu"):
            names.add(node.attr)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                node.value.startswith(("CU_DEVICE_ATTRIBUTE_", "CU_FUNC_ATTRIBUTE_")):
            attrs.add(node.value)
    assert names and attrs
    missing = [n for n in names if not hasattr(driver, n)]
    assert not missing, missing
    for a in attrs:
        enum = driver.CUdevice_attribute if a.startswith("CU_DEVICE") else \
            driver.CUfunction_attribute
        assert hasattr(enum, a), a


@pytest.mark.skipif("not __import__('openhip.platforms', fromlist=['x']).try_platform('nvidia')",
                    reason="needs an NVIDIA GPU and driver (the device check runs this)")
def test_saxpy_on_the_gpu():
    platforms.reset()
    nv = platforms.get_platform("nvidia")
    import numpy as np

    props = nv.device_properties()[0]
    assert props.platform == "nvidia" and props.arch.startswith("sm_")
    src = ('extern "C" __global__ void saxpy(int n, float a, const float* x, float* y)'
           '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }')
    dev = next(d for d in openhip.devices() if d.platform == "nvidia")
    with dev:
        mod = openhip.Module(src)
        x = openhip.asarray(np.arange(1000, dtype=np.float32))
        y = openhip.asarray(np.ones(1000, dtype=np.float32))
        mod.get_function("saxpy")((4,), (256,), (1000, 2.0, x, y))
        np.testing.assert_array_equal(y.get(), 2 * np.arange(1000, dtype=np.float32) + 1)
