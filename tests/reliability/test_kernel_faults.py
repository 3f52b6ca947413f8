"""Issue #14 item 4: a fault in kernel code (SIGSEGV/SIGBUS, SIGFPE, SIGILL on the CPU platform)
fails the launch with a HipError naming the kernel, the block, the thread and the address; the
process survives; the device stays failed (as a GPU context) until hip.reset_device().

Every test runs in a child process: without the handler, the failure mode is the process dying.
"""

from __future__ import annotations

import re
import signal

import pytest
from reliability_child import result, run_child


def test_wild_write_is_an_illegal_address_and_the_device_stays_failed():
    proc = run_child("""
        m = module()
        k = m.get_function("vector_add_wild")
        n = 4096
        a = np.random.rand(n).astype(np.float32)
        b = np.random.rand(n).astype(np.float32)
        da, db, dc = hip.asarray(a), hip.asarray(b), hip.zeros(n, np.float32)
        k((n + 255) // 256, 256, (da, db, dc, n, 1234, 0x10))
        out = {}
        try:
            hip.synchronize()
        except hip.HipError as e:
            out["first"] = [e.status, str(e)]
        # the device is failed now: launches, copies and synchronisations say so
        for what, call in [("launch", lambda: k(16, 256, (da, db, dc, n, -1, 0))),
                           ("get", lambda: dc.get()),
                           ("sync", hip.synchronize)]:
            try:
                call()
                out[what] = None
            except hip.HipError as e:
                out[what] = [e.status, str(e)]
        hip.reset_device()
        dc2 = hip.zeros(n, np.float32)
        k((n + 255) // 256, 256, (da, db, dc2, n, -1, 0))
        hip.synchronize()
        out["after_reset_ok"] = bool(np.allclose(dc2.get(), a + b))
        report(**out)
    """)
    r = result(proc)
    status, text = r["first"]
    assert status == "hipErrorIllegalAddress"
    # thread 1234 of 256-thread blocks: block 4, thread 210
    assert "kernel 'vector_add_wild'" in text and "block (4,0,0)" in text
    assert "thread (210,0,0)" in text and "0x10" in text
    for what in ("launch", "get", "sync"):
        assert r[what] is not None, what
        assert r[what][0] == "hipErrorIllegalAddress"
        assert "failed state" in r[what][1] and "vector_add_wild" in r[what][1]
    assert r["after_reset_ok"]


def test_out_of_bounds_read_size_t_index():
    proc = run_child("""
        k = module().get_function("gather_oob")
        n = 100000
        x = hip.asarray(np.arange(n, dtype=np.float32))
        y = hip.zeros(n, np.float32)
        k((n + 127) // 128, 128, (x, y, n, 77777))
        report_error(hip.synchronize)
    """)
    status, text = result(proc)["error"]
    assert status == "hipErrorIllegalAddress"
    assert "gather_oob" in text and f"block ({77777 // 128},0,0)" in text
    assert f"thread ({77777 % 128},0,0)" in text


def test_integer_division_by_zero_fails_the_launch():
    proc = run_child("""
        k = module().get_function("divide")
        n = 1000
        num = np.arange(n, dtype=np.int32) + 7
        den = np.ones(n, np.int32)
        den[613] = 0
        out = hip.zeros(n, np.int32)
        s = hip.Stream()
        k(8, 128, (hip.asarray(num), hip.asarray(den), out, n), stream=s)
        report_error(s.synchronize)
    """)
    status, text = result(proc)["error"]
    assert status == "hipErrorLaunchFailure"
    assert "divide" in text and "division by zero" in text
    assert "block (4,0,0)" in text and "thread (101,0,0)" in text


def test_illegal_instruction_fails_the_launch():
    proc = run_child("""
        k = module().get_function("illegal")
        out = hip.zeros(512, np.int32)
        k(2, 256, (out, 300))
        report_error(hip.synchronize)
    """)
    status, text = result(proc)["error"]
    assert status in ("hipErrorLaunchFailure", "hipErrorIllegalAddress")
    assert "illegal" in text and "block (1,0,0)" in text


@pytest.mark.parametrize("regions", ["0", "1"])
def test_fault_in_a_synchronising_kernel(regions):
    # as fibers (each thread's coordinates known) and split at the barriers (the block known)
    proc = run_child("""
        k = module().get_function("reverse_wild")
        out = hip.zeros(4 * 128, np.int32)
        k(4, 128, (out, 2 * 128 + 17, 0x8))
        report_error(hip.synchronize)
    """, env={"OPENHIP_CPU_REGIONS": regions})
    status, text = result(proc)["error"]
    assert status == "hipErrorIllegalAddress"
    assert "reverse_wild" in text and "block (2,0,0)" in text and "0x8" in text
    if regions == "0":
        assert "thread (17,0,0)" in text


def test_many_blocks_fault_at_once_on_every_worker():
    # every thread of every block faults: one error, no crash, no hang
    proc = run_child("""
        k = module().get_function("vector_add_wild")
        n = 1 << 16
        d = hip.zeros(n, np.float32)
        errors = []
        for _ in range(5):
            # the fault is sticky (as in CUDA): a launch after it was seen raises it too, so
            # the first error may come from a later launch instead of the synchronize
            try:
                for bad in range(0, n, 4099):
                    k(n // 256, 256, (d, d, d, n, bad, 0x18))
                hip.synchronize()
            except hip.HipError as e:
                errors.append(e.status)
            hip.reset_device()
        report(errors=errors)
    """, env={"OPENHIP_CPU_THREADS": "4"})
    assert result(proc)["errors"] == ["hipErrorIllegalAddress"] * 5


def test_fault_outside_kernels_keeps_its_default_action():
    # Python's faulthandler (enabled first) still reports a segfault of host code and the
    # process dies of SIGSEGV, as without openhip
    proc = run_child("""
        m = module()
        x = hip.zeros(4, np.int32)
        m.get_function("illegal")(1, 4, (x, -1))
        hip.synchronize()
        import ctypes
        print("about to crash", flush=True)
        ctypes.string_at(0x10, 4)
    """, args=("-X", "faulthandler"))
    assert proc.returncode == -signal.SIGSEGV, (proc.returncode, proc.stderr)
    assert "about to crash" in proc.stdout
    assert "Segmentation fault" in proc.stderr


def test_bad_pointer_argument_in_kernel_names_the_address():
    proc = run_child("""
        k = module().get_function("vector_add_wild")
        n = 256
        d = hip.zeros(n, np.float32)
        wild = 0x7ff0_0000_0000  # unmapped user-space address
        k(1, 256, (d, d, d, n, 5, wild))
        try:
            hip.synchronize()
            report(error=str(None))
        except hip.HipError as e:
            report(error=str(e))
    """)
    text = result(proc)["error"]
    assert re.search(r"at address 0x7ff000000000\b", text), text


def test_faulthandler_enabled_after_start_keeps_kernel_faults_recoverable():
    # faulthandler.enable() after the runtime started replaces the fault handler; the next
    # module load puts openhip's first again, chaining to faulthandler for host faults
    proc = run_child("""
        import faulthandler
        x = hip.zeros(256, np.float32)
        m = module()
        faulthandler.enable()
        k = module().get_function("vector_add_wild")
        k(1, 256, (x, x, x, 256, 7, 0x10))
        try:
            hip.synchronize()
            status = None
        except hip.HipError as e:
            status = e.status
        hip.reset_device()
        print("STATUS", status, flush=True)
        import ctypes
        ctypes.string_at(0x10, 4)
    """)
    assert "STATUS hipErrorIllegalAddress" in proc.stdout, (proc.stdout, proc.stderr)
    assert proc.returncode == -signal.SIGSEGV, (proc.returncode, proc.stderr)
    assert "Segmentation fault" in proc.stderr
