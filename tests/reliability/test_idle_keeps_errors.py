"""Freeing memory asks whether the device is idle; that question must not take a kernel's error.

Before: ``Device._idle()`` (run by every free on any thread) queried each stream, which took
and discarded the stream's pending error — a red-zone overrun or a fault on a stream vanished
when another thread freed memory before the stream was synchronised."""

from __future__ import annotations

import pytest
from test_redzone import results, run_child


@pytest.fixture
def cpu(device):
    if device.platform != "cpu":
        pytest.skip("red zones are a CPU-platform feature")
    return device


def test_idle_check_leaves_the_streams_error_for_its_sync(cpu):
    proc = run_child("""
        k = mod.get_function("store_at")
        x = hip.zeros(100, np.float32)
        spare = hip.zeros(10, np.float32)
        s = hip.Stream()
        k(1, 1, (x, 100, 1.0), stream=s)          # 4 bytes past the end
        dev = hip.get_device()
        # wait until the kernel has run (its error pending) by asking the question under test
        # again and again: a fixed sleep is not enough on a loaded machine
        import time; deadline = time.monotonic() + 60
        while not dev._idle() and time.monotonic() < deadline:
            time.sleep(0.01)
        print("IDLE", dev._idle())
        spare.data.mem.free()                      # a free on this thread asks the same
        report(s.synchronize)
        report(s.synchronize)
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "IDLE True" in proc.stdout, proc.stdout
    out = results(proc)
    assert out[0].startswith("HIPERROR hipErrorIllegalAddress"), proc.stdout
    assert "kernel 'store_at'" in out[0], out[0]
    assert out[1] == "NOERROR"
