"""Qualifiers (kernels: qualifiers.hip) and barrier edge cases (deadlock_divergent_barrier.hip:
exited threads never block a barrier everywhere; on the CPU platform a barrier no block can pass
is a launch error, never a hang)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_files import load_kernel as load

import openhip as hip


def test_qualifiers(device):
    mod = load("qualifiers")
    mod.get_global("managed_scale").set(np.array([3], np.int32))
    n = 500
    x = np.arange(n, dtype=np.int32) - 250
    out = hip.zeros(n, np.int32)
    mod.get_function("combine")((n + 255) // 256, 256, (hip.asarray(x), out, n))
    np.testing.assert_array_equal(out.get(), (2 * x + 1) ** 2 * 3)


def test_exited_threads_do_not_block_a_barrier(device):
    mod = load("deadlock_divergent_barrier")
    out = hip.zeros(32, np.int32)
    mod.get_function("early_exit_ok")(1, 32, (out,))
    np.testing.assert_array_equal(out.get(), [7] * 8 + [0] * 24)


@pytest.mark.parametrize("kernel", ["divergent_barrier", "warp_waits_for_barrier"])
def test_deadlock_is_a_launch_error_on_cpu(device, kernel):
    if device.platform != "cpu":
        pytest.skip("undefined behaviour on a GPU (it may hang)")
    mod = load("deadlock_divergent_barrier")
    out = hip.zeros(64, np.int32)
    mod.get_function(kernel)(2, 32, (out,))
    with pytest.raises(hip.HipError) as info:
        hip.synchronize()
    assert info.value.status == "hipErrorLaunchFailure"
    assert "deadlock" in str(info.value) and kernel in str(info.value)
    hip.synchronize()  # reported once
