"""Issue #14 item 7: waits are interruptible and the interpreter can exit while kernels run.

Ctrl-C (SIGINT) during ``Stream.synchronize()`` / ``hip.synchronize()`` raises KeyboardInterrupt
(within one wait slice, 0.1 s); the work is cancelled (a running launch stops at its next block
boundary) and the stream is marked failed until ``hip.reset_device()``. Interpreter exit cancels
outstanding work, even a kernel that never reaches a block boundary. Each test runs in a child
process, since the failure mode is a hang (the child is killed after its timeout)."""

from __future__ import annotations

import numpy as np
from reliability_child import result, run_child

# SIGINT to this process from another thread after `delay` s; t0 is when it was sent.
INTERRUPTER = """
# a child started from a background job inherits SIGINT ignored: Python then installs no handler
signal.signal(signal.SIGINT, signal.default_int_handler)
sent = []
def interrupt_after(delay):
    def fire():
        time.sleep(delay)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=fire, daemon=True).start()
def wait_started(buf, timeout=60):
    # until the kernel wrote to buf (read through a host view of device memory, CPU platform):
    # a fixed delay before the interrupt may end before a loaded machine ran any of it
    view = np.asarray(buf)
    deadline = time.monotonic() + timeout
    while not view.any() and time.monotonic() < deadline:
        time.sleep(0.005)
"""


def test_ctrl_c_interrupts_stream_synchronize_and_cancels_the_launch():
    proc = run_child(setup=INTERRUPTER, body="""
        k = module().get_function("spin_blocks")
        s = hip.Stream()
        nblocks = 20000
        done = hip.zeros(nblocks, np.int32)
        k(nblocks, 1, (done, 20_000), stream=s)   # 20 ms a block: ~200 s on 2 threads
        wait_started(done)                        # a block has run
        interrupt_after(0.3)
        try:
            s.synchronize()
            report(interrupted=False)
            sys.exit(0)
        except KeyboardInterrupt:
            latency = time.monotonic() - sent[0]
        out = {"interrupted": True, "latency_s": latency}
        try:
            s.synchronize()   # the launch stopped at a block boundary: returns, failed
            out["after"] = None
        except hip.HipError as e:
            out["after"] = [e.status, str(e)]
        out["blocks_run"] = int(done.get().sum())
        try:
            k(1, 1, (done, 0), stream=s)
            out["relaunch"] = None
        except hip.HipError as e:
            out["relaunch"] = str(e)
        hip.reset_device()
        again = hip.zeros(8, np.int32)
        k(8, 1, (again, 1), stream=s)
        s.synchronize()
        out["after_reset"] = again.get().tolist()
        report(**out)
    """, timeout=90)
    r = result(proc)
    print("KeyboardInterrupt latency:", r["latency_s"], "s")  # informational (0.1 s slices)
    assert r["interrupted"]
    status, text = r["after"]
    assert status == "hipErrorLaunchFailure" and "KeyboardInterrupt" in text
    assert 0 < r["blocks_run"] < 20000
    assert r["relaunch"] is not None and "cancelled" in r["relaunch"]
    assert r["after_reset"] == [1] * 8


def test_ctrl_c_interrupts_device_synchronize():
    proc = run_child(setup=INTERRUPTER, body="""
        k = module().get_function("spin_blocks")
        done = hip.zeros(20000, np.int32)
        k(20000, 1, (done, 20_000))               # the default stream
        wait_started(done)
        interrupt_after(0.3)
        try:
            hip.synchronize()
            report(interrupted=False)
            sys.exit(0)
        except KeyboardInterrupt:
            pass
        errors = []
        for _ in range(2):
            try:
                hip.synchronize()
                errors.append(None)
            except hip.HipError as e:
                errors.append(e.status)
        report(interrupted=True, errors=errors, blocks=int(done.get().sum()))
    """, timeout=90)
    r = result(proc)
    assert r["interrupted"]
    # the cancellation is reported once; the stream is idle afterwards
    assert r["errors"] == ["hipErrorLaunchFailure", None]
    assert 0 < r["blocks"] < 20000


def test_interpreter_exits_while_a_long_launch_runs():
    proc = run_child("""
        k = module().get_function("spin_blocks")
        s = hip.Stream()
        done = hip.zeros(20000, np.int32)
        k(20000, 1, (done, 20_000), stream=s)
        k(20000, 1, (done, 20_000))
        time.sleep(0.2)
        report(exiting=True)
    """, timeout=60)
    assert result(proc)["exiting"]


def test_interpreter_exits_while_a_kernel_never_returns():
    # spin_forever never reaches a block boundary: its worker is left to the process's exit;
    # Ctrl-C still returns, reset_device() says the kernel still runs
    proc = run_child(setup=INTERRUPTER, body="""
        m = module()
        k = m.get_function("spin_forever")
        flag = hip.zeros(1, np.int32)
        started = hip.zeros(1, np.int32)
        s = hip.Stream()
        k(1, 1, (flag, started), stream=s)
        wait_started(started)                     # cancelled before it ran, it would not run
        interrupt_after(0.3)
        try:
            s.synchronize()
        except KeyboardInterrupt:
            pass
        try:
            hip.reset_device()
            reset = None
        except hip.HipError as e:
            reset = e.status
        report(reset=reset)
        del m, k, s   # module unload and stream destruction must not wait for it either
    """, timeout=60)
    assert result(proc)["reset"] == "hipErrorNotReady"


def test_event_synchronize_is_interruptible():
    proc = run_child(setup=INTERRUPTER, body="""
        k = module().get_function("spin_blocks")
        done = hip.zeros(20000, np.int32)
        s = hip.Stream()
        k(20000, 1, (done, 20_000), stream=s)
        e = s.record()
        interrupt_after(0.3)
        try:
            e.synchronize()
            report(interrupted=False)
        except KeyboardInterrupt:
            report(interrupted=True)
    """, timeout=60)
    assert result(proc)["interrupted"]


def test_normal_waits_still_return_results():
    # the sliced waits change nothing for work that finishes: many short waits, right answers
    proc = run_child("""
        k = module().get_function("saxpy")
        n = 10000
        x = np.random.rand(n).astype(np.float32)
        y = np.random.rand(n).astype(np.float32)
        dx, dy, do = hip.asarray(x), hip.asarray(y), hip.zeros(n, np.float32)
        s = hip.Stream()
        ok = True
        for i in range(200):
            k((n + 255) // 256, 256, (float(i), dx, dy, do, n), stream=s)
            s.synchronize()
            ok &= bool(np.allclose(do.get(), i * x + y))
        report(ok=ok)
    """)
    assert result(proc)["ok"]


def test_expected_output_helper_shape():
    # guards the INTERRUPTER snippet itself: it must be valid Python
    compile(INTERRUPTER, "<interrupter>", "exec")
    assert np.int32(1) == 1
