"""Issue #14 item 6: every fiber stack has its own guard page (as large as the stack), so a deep
recursion or a large frame in one GPU thread fails the launch with a HipError naming the thread
instead of silently writing into its neighbour's stack."""

from __future__ import annotations

import numpy as np
from reliability_child import result, run_child


def descend(depth: int, salt: int) -> int:
    """What the kernel's descend() returns (its recursion, in Python)."""
    total = 0
    for d in range(depth, 0, -1):
        total += d & 1
    return total + (0 ^ salt)


def test_deep_recursion_in_one_fiber_is_a_hip_error():
    proc = run_child("""
        k = module().get_function("recurse")
        out = hip.zeros(128, np.int32)
        k(1, 128, (out, 1_000_000, 37))     # ~300 MB of frames on a 64 KiB stack
        report_error(hip.synchronize)
    """, env={"OPENHIP_CPU_REGIONS": "0"})
    status, text = result(proc)["error"]
    assert status == "hipErrorLaunchFailure"
    assert "recurse" in text and "thread (37,0,0)" in text and "stack overflow" in text
    assert "OPENHIP_CPU_STACK_SIZE" in text


def test_recursion_that_fits_is_correct_and_neighbours_intact():
    # 100 levels fit; every thread's value kept across the barriers must be intact
    proc = run_child("""
        k = module().get_function("recurse")
        out = hip.zeros(256, np.int32)
        k(1, 256, (out, 100, 200))
        hip.synchronize()
        report(out=out.get().tolist())
    """, env={"OPENHIP_CPU_REGIONS": "0"})
    out = np.array(result(proc)["out"])
    t = np.arange(256)
    want = (255 - t) + t * 3 + 1
    want[200] += descend(100, 200)
    np.testing.assert_array_equal(out, want)


def test_bigger_stacks_make_the_same_recursion_fit():
    # about 1000 levels overflow 64 KiB stacks; 4 MiB stacks hold them
    body = """
        k = module().get_function("recurse")
        out = hip.zeros(64, np.int32)
        k(2, 32, (out, 3000, 5))
        try:
            hip.synchronize()
            report(error=None, out=out.get().tolist())
        except hip.HipError as e:
            report(error=str(e), out=None)
    """
    small = result(run_child(body, env={"OPENHIP_CPU_REGIONS": "0"}))
    assert small["error"] is not None and "stack overflow" in small["error"]
    big = result(run_child(body, env={"OPENHIP_CPU_REGIONS": "0",
                                      "OPENHIP_CPU_STACK_SIZE": "4m"}))
    assert big["error"] is None, big["error"]
    out = np.array(big["out"]).reshape(2, 32)
    t = np.arange(32)
    want = (31 - t) + t * 3 + 1
    want[5] += descend(3000, 5)
    np.testing.assert_array_equal(out, np.stack([want, want]))


def test_overflow_then_reset_then_every_block_right():
    # an overflow on one worker, then the device works again after reset_device()
    proc = run_child("""
        k = module().get_function("recurse")
        out = hip.zeros(8 * 64, np.int32)
        k(8, 64, (out, 1_000_000, 3))
        err = None
        try:
            hip.synchronize()
        except hip.HipError as e:
            err = e.status
        hip.reset_device()
        k(8, 64, (out, 10, 3))
        hip.synchronize()
        report(err=err, out=out.get().tolist())
    """, env={"OPENHIP_CPU_REGIONS": "0", "OPENHIP_CPU_THREADS": "3"})
    r = result(proc)
    assert r["err"] == "hipErrorLaunchFailure"
    t = np.arange(64)
    want = (63 - t) + t * 3 + 1
    want[3] += descend(10, 3)
    np.testing.assert_array_equal(np.array(r["out"]).reshape(8, 64), np.tile(want, (8, 1)))
