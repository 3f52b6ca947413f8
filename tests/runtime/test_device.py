"""Devices, properties, the current device, platform selection."""

import pickle
import subprocess
import sys

import pytest

import openhip as hip

FIELDS = ("name", "arch", "warp_size", "max_threads_per_block", "max_block_dim", "max_grid_dim",
          "shared_mem_per_block", "multiprocessor_count", "total_memory", "supports_fp16",
          "supports_bf16", "supports_fp8")


def test_properties(device):
    props = device.properties
    for field in FIELDS:
        assert getattr(props, field) is not None, field
    assert device.platform in ("cpu", "nvidia", "amd") and props.platform == device.platform
    assert props.warp_size in (32, 64)
    assert props.max_threads_per_block >= 256
    assert len(props.max_block_dim) == 3 and len(props.max_grid_dim) == 3
    assert props.total_memory > 0 and props.multiprocessor_count >= 1
    assert isinstance(props.as_dict(), dict)


def test_current_device_and_context_manager(device):
    assert hip.get_device() is device
    other = hip.devices()[0]
    with other:
        assert hip.get_device() is other
    assert hip.get_device() is device


def test_set_device_and_bad_ordinal():
    devs = hip.devices()
    assert hip.Device(0) is devs[0] and hip.device_count() == len(devs)
    assert hip.set_device(0) is devs[0]
    with pytest.raises(hip.HipError) as err:
        hip.Device(len(devs))
    assert err.value.status == "hipErrorInvalidDevice"
    with pytest.raises(TypeError):
        hip.Device("0")


def test_device_pickles():
    assert pickle.loads(pickle.dumps(hip.Device(0))) is hip.Device(0)


def test_hip_error_carries_status_and_pickles():
    err = hip.HipError("hipErrorInvalidConfiguration", "block too big", routine="launch")
    again = pickle.loads(pickle.dumps(err))
    assert again.status == "hipErrorInvalidConfiguration" and again.code == 9
    assert again.routine == "launch" and "block too big" in str(again)
    assert hip.HipError(2).status == "hipErrorOutOfMemory"


def run_python(code, **env):
    import os

    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full_env, timeout=120)


def test_cpu_platform_selected_by_name():
    r = run_python("import openhip as h; print(h.devices()[0].platform)", OPENHIP_PLATFORM="cpu")
    assert r.returncode == 0 and r.stdout.strip() == "cpu", r.stderr


def test_bad_platform_variable_is_a_clear_error():
    r = run_python("import openhip as h; h.devices()", OPENHIP_PLATFORM="tpu")
    assert r.returncode != 0 and "OPENHIP_PLATFORM" in r.stderr


@pytest.mark.parametrize("name", ["nvidia", "amd"])
def test_unavailable_gpu_platform_by_name_raises_with_reason(name):
    from openhip import platforms

    if platforms.try_platform(name) is not None:
        pytest.skip(f"{name} is available here")
    r = run_python("import openhip as h\ntry:\n h.devices()\nexcept h.HipError as e:\n"
                   " print(e.status); print(e)", OPENHIP_PLATFORM=name)
    assert r.returncode == 0, r.stderr
    status, message = r.stdout.strip().split("\n", 1)
    assert status == "hipErrorNoDevice" and name in message


def test_info_command_lists_every_platform():
    r = subprocess.run([sys.executable, "-m", "openhip", "info"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    for name in ("[cpu]", "[nvidia]", "[amd]", "compile cache:"):
        assert name in r.stdout
    r = subprocess.run([sys.executable, "-m", "openhip", "info", "--json"], capture_output=True,
                       text=True, timeout=120)
    import json

    data = json.loads(r.stdout)
    assert data["platforms"]["cpu"]["available"] is True
