"""The amd platform: unavailability reasons (no device, no library, WSL2), the attribute table,
and (on a machine with an AMD GPU) the runtime path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from openhip import platforms
from openhip.errors import PlatformUnavailable
from openhip.platforms.amd import platform as amd_platform
from openhip.platforms.amd.platform import ATTR, fp_support, kernel_driver_state


@pytest.fixture
def fresh_platforms():
    platforms.reset()
    yield
    platforms.reset()


def test_no_device_reason(fresh_platforms):
    from openhip.platforms.amd import PLATFORM

    try:
        PLATFORM()
    except PlatformUnavailable as exc:
        assert exc.platform == "amd"
        # either the library is missing, or it is there and reports no device
        assert "libamdhip64" in exc.reason or "hipErrorNoDevice" in exc.reason or \
            "hipGetDeviceCount" in exc.reason
    else:
        pytest.skip("an AMD GPU is present")


def test_auto_falls_back_past_amd(fresh_platforms, monkeypatch):
    monkeypatch.setenv("OPENHIP_PLATFORM", "auto")
    status = platforms.platform_status()
    assert set(status) == {"amd", "nvidia", "cpu"}
    if status["amd"] is None:
        pytest.skip("an AMD GPU is present")
    assert status["amd"]
    if status["nvidia"] is not None and status["cpu"] is not None:
        pytest.skip(f"no platform starts here yet (cpu: {status['cpu']})")
    chosen = platforms.active_platforms()
    assert chosen[0].name != "amd"
    if status["nvidia"] is not None:
        assert chosen[0].name == "cpu"


def test_wsl2_is_recognised(monkeypatch):
    real = os.path.exists
    monkeypatch.setattr(amd_platform.os.path, "exists",
                        lambda p: p == "/dev/dxg" or (p != "/dev/kfd" and real(p)))
    reason = kernel_driver_state()
    assert reason and "WSL2" in reason and "/dev/dxg" in reason


def test_missing_kfd_is_explained(monkeypatch):
    monkeypatch.setattr(amd_platform.os.path, "exists", lambda p: False)
    assert "/dev/kfd" in kernel_driver_state()


def test_fp_flags_by_arch():
    assert fp_support("gfx90a:sramecc+:xnack-") == (True, True, False)
    assert fp_support("gfx942") == (True, True, True)
    assert fp_support("gfx1030") == (True, False, False)
    assert fp_support("gfx1100") == (True, True, False)


@pytest.mark.skipif(not (os.path.exists("/usr/include/hip/hip_runtime_api.h")
                         and shutil.which("g++")), reason="needs the HIP headers and g++")
def test_attribute_values_match_the_installed_header(tmp_path):
    names = {
        "clock_rate": "hipDeviceAttributeClockRate",
        "l2_cache_size": "hipDeviceAttributeL2CacheSize",
        "cc_major": "hipDeviceAttributeComputeCapabilityMajor",
        "max_block_dim_x": "hipDeviceAttributeMaxBlockDimX",
        "max_block_dim_y": "hipDeviceAttributeMaxBlockDimY",
        "max_block_dim_z": "hipDeviceAttributeMaxBlockDimZ",
        "max_grid_dim_x": "hipDeviceAttributeMaxGridDimX",
        "max_grid_dim_y": "hipDeviceAttributeMaxGridDimY",
        "max_grid_dim_z": "hipDeviceAttributeMaxGridDimZ",
        "max_threads_per_block": "hipDeviceAttributeMaxThreadsPerBlock",
        "memory_bus_width": "hipDeviceAttributeMemoryBusWidth",
        "memory_clock_rate": "hipDeviceAttributeMemoryClockRate",
        "cc_minor": "hipDeviceAttributeComputeCapabilityMinor",
        "multiprocessor_count": "hipDeviceAttributeMultiprocessorCount",
        "pci_bus_id": "hipDeviceAttributePciBusId",
        "pci_device_id": "hipDeviceAttributePciDeviceId",
        "pci_domain_id": "hipDeviceAttributePciDomainID",
        "max_shared_memory_per_block": "hipDeviceAttributeMaxSharedMemoryPerBlock",
        "warp_size": "hipDeviceAttributeWarpSize",
    }
    assert set(names) == set(ATTR)
    body = "".join(f'printf("{k} %d\\n", (int){v});' for k, v in names.items())
    src = tmp_path / "a.cpp"
    src.write_text("#include <hip/hip_runtime_api.h>\n#include <cstdio>\nint main(){" + body + "}")
    exe = tmp_path / "a"
    build = subprocess.run(["g++", "-D__HIP_PLATFORM_AMD__", str(src), "-o", str(exe)],
                           capture_output=True, text=True)
    if build.returncode != 0:
        pytest.skip(f"cannot build against the HIP header: {build.stderr[:200]}")
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    values = dict(line.split() for line in out.splitlines())
    assert {k: int(v) for k, v in values.items()} == ATTR


@pytest.mark.skipif("not __import__('openhip.platforms', fromlist=['x']).try_platform('amd')",
                    reason="needs an AMD GPU (ROCm with /dev/kfd)")
def test_saxpy_on_the_gpu():
    import numpy as np

    import openhip

    dev = next(d for d in openhip.devices() if d.platform == "amd")
    src = ('extern "C" __global__ void saxpy(int n, float a, const float* x, float* y)'
           '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }')
    with dev:
        mod = openhip.Module(src)
        x = openhip.asarray(np.arange(1000, dtype=np.float32))
        y = openhip.asarray(np.ones(1000, dtype=np.float32))
        mod.get_function("saxpy")((4,), (256,), (1000, 2.0, x, y))
        np.testing.assert_array_equal(y.get(), 2 * np.arange(1000, dtype=np.float32) + 1)


def test_import_is_lazy():
    code = ("import sys, ctypes, openhip.platforms.amd as a; "
            "import openhip.platforms.amd.lib as l; assert l._loaded is None")
    subprocess.run([sys.executable, "-c", code], check=True)
