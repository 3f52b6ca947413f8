"""__trap(), abort() and a failed device assert() fail the launch with HipError and leave the
process (and the device) usable (tests/kernels/device_trap.hip)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import KERNELS

import openhip as hip


@pytest.mark.parametrize("which", [1, 2, 3], ids=["trap", "abort", "assert"])
def test_trap_fails_launch_not_process(device, which):
    if device.platform != "cpu":
        pytest.skip("a GPU trap leaves the context unusable; checked on the CPU platform")
    mod = hip.Module((KERNELS / "device_trap.hip").read_text(), name="device_trap.hip")
    k = mod.get_function("maybe_trap")
    out = hip.zeros(64, np.int32)
    with pytest.raises(hip.HipError):
        k(1, 64, (out, which))
        hip.synchronize()
    out2 = hip.zeros(64, np.int32)
    k(1, 64, (out2, 0))
    hip.synchronize()
    np.testing.assert_array_equal(out2.get(), np.arange(64))
