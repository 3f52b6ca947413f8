"""Issue #14 item 5: a kernel that writes a little past (or before) a device buffer is reported
as a HipError naming the kernel, the buffer and how far it wrote — not as a glibc abort at some
later, unrelated free.

CPU platform only: allocations carry red zones (platforms/cpu/src/redzone.h) checked when a
launch completes and when a buffer is freed; large ones end at PROT_NONE guard pages. GPU
platforms have no red zones (their drivers report what faults), so these tests skip there.
Every overrun runs in a subprocess with a timeout: without the red zones the failure mode is a
heap-corruption abort or a segfault.
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import openhip as hip

KERNELS = Path(__file__).with_name("redzone_kernels.hip")

PRELUDE = """
import ctypes, gc, os, sys, warnings
import numpy as np
import openhip as hip
hip.set_device(next(d.id for d in hip.devices() if d.platform == "cpu"))
mod = hip.Module(open(os.environ["REDZONE_KERNELS"]).read())

def report(fn):
    try:
        fn()
    except hip.HipError as exc:
        print("HIPERROR", exc.status, "|", exc)
    else:
        print("NOERROR")
    sys.stdout.flush()
"""


def run_child(body: str, timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ, REDZONE_KERNELS=str(KERNELS), OPENHIP_PLATFORM="cpu")
    code = PRELUDE + textwrap.dedent(body)
    try:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child hung (> {timeout} s): {exc.stdout!r} {exc.stderr!r}")


def lines(proc: subprocess.CompletedProcess, tag: str) -> list[str]:
    return [line for line in proc.stdout.splitlines() if line.startswith(tag)]


def results(proc: subprocess.CompletedProcess) -> list[str]:
    """The child's report() lines, in order."""
    return [line for line in proc.stdout.splitlines() if line.startswith(("HIPERROR",
                                                                          "NOERROR"))]


@pytest.fixture
def cpu(device):
    if device.platform != "cpu":
        pytest.skip("red zones are a CPU-platform feature (GPU drivers report their own faults)")
    return device


def test_vector_add_past_a_4k_buffer_names_kernel_buffer_and_distance(cpu):
    """The issue's case: 256 bytes past a 4 KiB buffer. Reported at the next synchronize, the
    canary repaired, the process healthy afterwards (frees and new work raise nothing)."""
    proc = run_child("""
        k = mod.get_function("vectorAdd")
        n = 1024                                   # 4 KiB of floats
        a = hip.asarray(np.arange(n + 64, dtype=np.float32))
        b = hip.asarray(np.ones(n + 64, np.float32))
        c = hip.zeros(n, np.float32)
        print("C", hex(c.data.ptr))
        k((n + 64 + 255) // 256, 256, (a, b, c, n + 64))   # numElements 64 floats too many
        report(hip.synchronize)
        want = np.arange(n, dtype=np.float32) + 1
        print("VALUES", bool(np.array_equal(c.get(), want)))
        report(hip.synchronize)                    # reported once
        with warnings.catch_warnings():
            warnings.simplefilter("error")         # the free finds the zone repaired
            report(c.data.mem.free)
            del a, b, c
            gc.collect()
        d = hip.zeros(4096, np.float32)
        k(16, 256, (d, d, d, 4096))                # a correct launch afterwards
        report(hip.synchronize)
        print("DONE")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    errors = results(proc)
    assert len(errors) == 4, proc.stdout
    first = errors[0]
    address = lines(proc, "C ")[0].split()[1]
    assert first.startswith("HIPERROR hipErrorIllegalAddress"), first
    assert "kernel 'vectorAdd'" in first and "argument 2" in first, first
    assert f"buffer {address} (4096 bytes)" in first, first
    assert "256 bytes past its end" in first, first
    assert errors[1:] == ["NOERROR"] * 3, proc.stdout
    assert lines(proc, "VALUES") == ["VALUES True"]
    assert "DONE" in proc.stdout


@pytest.mark.parametrize("kernel,args,past", [
    # grid-stride loop told 3 floats too many: 12 bytes
    ("fill_strided", "(x, 7.0, n + 3)", 12),
    # one store 50 floats past the end (inside the 336-byte zone of a 1200-byte buffer; a
    # store beyond a small buffer's zone is not seen): its last byte is 4 * 51 past
    ("store_at", "(x, n + 50, 7.0)", 204),
    # block sums written one block too far (a barrier kernel)
    ("block_sum", "(src, x, 256 * n, 1)", 4),
    # a warp-shuffle kernel (fibers) off by one
    ("warp_sum", "(src, x, 1)", 4),
])
def test_overrun_in_every_execution_mode(cpu, kernel, args, past):
    grid = {"fill_strided": "4", "store_at": "1", "block_sum": "n", "warp_sum": "n"}[kernel]
    block = {"fill_strided": "64", "store_at": "1", "block_sum": "256", "warp_sum": "32"}[kernel]
    proc = run_child(f"""
        n = 300
        x = hip.zeros(n, np.float32)
        src = hip.asarray(np.ones(256 * n, np.float32))
        mod.get_function("{kernel}")({grid}, {block}, {args})
        report(hip.synchronize)
        report(x.data.mem.free)
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = results(proc)
    assert len(out) == 2, proc.stdout
    assert out[0].startswith("HIPERROR hipErrorIllegalAddress"), out[0]
    assert f"kernel '{kernel}'" in out[0] and f"{past} bytes past its end" in out[0], out[0]
    assert out[1] == "NOERROR"


def test_write_before_the_start_and_on_a_stream(cpu):
    """An underrun is reported too; the error belongs to the stream the kernel ran on."""
    proc = run_child("""
        k = mod.get_function("store_at")
        x = hip.zeros(64, np.float32)
        s = hip.Stream()
        k(1, 1, (x, -8, 1.0), stream=s)           # 32 bytes before the start
        report(s.synchronize)
        report(hip.synchronize)
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = results(proc)
    assert out[0].startswith("HIPERROR hipErrorIllegalAddress"), proc.stdout
    assert "kernel 'store_at'" in out[0] and "32 bytes before its start" in out[0], out[0]
    assert out[1] == "NOERROR"


def test_pointer_into_the_middle_of_a_buffer(cpu):
    """A kernel given an interior pointer (base + offset) that runs off the end is caught: the
    check finds the allocation holding the pointer, not only exact base addresses."""
    proc = run_child("""
        class At:                                  # any object with an int .ptr
            def __init__(self, ptr): self.ptr = ptr
        x = hip.zeros(1000, np.float32)
        mod.get_function("fill_strided")(4, 64, (At(x.data.ptr + 400), 2.0, 901))
        report(hip.synchronize)
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = lines(proc, "HIPERROR")
    assert out and "hipErrorIllegalAddress" in out[0] and "4 bytes past its end" in out[0], \
        proc.stdout


def test_large_buffer_tail_zone_and_guard_pages(cpu):
    """A buffer of 4 MiB and more: a store inside the page after its last byte is reported as a
    red-zone overrun; one further on reaches the guard page and faults (hipErrorIllegalAddress
    where the fault handler is installed, else the child dies of SIGSEGV): never silent."""
    tail = run_child("""
        nbytes = (4 << 20) + 100
        buf = hip.malloc(nbytes)
        print("ALIGNED", buf.ptr % (2 << 20) == 0)
        mod.get_function("store_at")(1, 1, (buf, (nbytes + 200) // 4, 1.0))
        report(hip.synchronize)
    """)
    assert tail.returncode == 0, tail.stderr[-3000:]
    assert lines(tail, "ALIGNED") == ["ALIGNED True"]  # 2 MiB aligned, as before red zones
    out = lines(tail, "HIPERROR")
    assert out and "hipErrorIllegalAddress" in out[0] and "204 bytes past its end" in out[0], \
        tail.stdout
    # A freed mapping is kept for the next allocation of its page count: the new, longer buffer
    # gets its own (shorter) red zone; a store that was past the old end is inside the new one.
    reuse = run_child("""
        store = mod.get_function("store_at")
        first = hip.malloc((4 << 20) + 100)
        p = first.ptr
        first.free()
        second = hip.malloc((4 << 20) + 4000)
        print("REUSED", second.ptr == p)
        store(1, 1, (second, ((4 << 20) + 200) // 4, 1.0))    # inside the new buffer
        report(hip.synchronize)
        store(1, 1, (second, ((4 << 20) + 4040) // 4, 1.0))   # 44 bytes past its end
        report(hip.synchronize)
        report(second.free)
    """)
    assert reuse.returncode == 0, reuse.stderr[-3000:]
    assert lines(reuse, "REUSED") == ["REUSED True"], reuse.stdout
    out = results(reuse)
    assert out[0] == "NOERROR" and out[2] == "NOERROR", reuse.stdout
    assert "hipErrorIllegalAddress" in out[1] and "44 bytes past its end" in out[1], out[1]
    for index in ("(4 << 20) // 4 + 4", "-4"):  # 16 bytes past the end / 16 before the start
        guard = run_child(f"""
            buf = hip.malloc(4 << 20)
            mod.get_function("store_at")(1, 1, (buf, {index}, 1.0))
            report(hip.synchronize)
            print("SURVIVED")
        """)
        faulted = guard.returncode == -signal.SIGSEGV
        reported = any("hipErrorIllegalAddress" in line for line in lines(guard, "HIPERROR"))
        assert faulted or reported, (index, guard.returncode, guard.stdout, guard.stderr[-2000:])
        assert "NOERROR" not in guard.stdout


def test_host_write_past_the_end_is_found_at_free(cpu):
    """Not by a kernel (here: ctypes from the host): found when the buffer is freed — a HipError
    from an explicit free, a RuntimeWarning from the garbage collector. Writes stay inside the
    red zone, so this runs in-process."""
    x = hip.zeros(100, np.float32)
    ctypes.memset(x.data.ptr + x.nbytes, 0x55, 8)
    with pytest.raises(hip.HipError) as info:
        x.data.mem.free()
    assert info.value.status == "hipErrorIllegalAddress"
    assert "(400 bytes)" in str(info.value) and "8 bytes past its end" in str(info.value)
    assert "found when it was freed" in str(info.value)
    y = hip.zeros(100, np.float32)
    ctypes.memset(y.data.ptr - 4, 0x55, 4)
    with pytest.warns(RuntimeWarning, match="4 bytes before its start"):
        del y
        gc.collect()


@pytest.mark.parametrize("nbytes", [1, 3, 255, 256, 257, 4095, 4096, 4097, 65537,
                                    (4 << 20) - 4, 4 << 20, (4 << 20) + 4, (8 << 20) + 12])
def test_writing_exactly_the_whole_buffer_is_clean(cpu, nbytes):
    """No false reports: kernels and memsets that fill every byte of buffers of every size
    class (odd, 256-byte multiples, around the 4 MiB switch to guard pages) leave no error and
    the data right."""
    n = nbytes // 4
    x = hip.malloc(nbytes)
    hip.memset(x, 0xFF)
    mod = hip.Module(KERNELS.read_text())
    if n:
        mod.get_function("fill_strided")(8, 64, (x, 3.5, n))
        mod.get_function("fill_strided")(1, 1, (x, 3.5, 0))  # nothing to do
        mod.get_function("fill_strided")(1, 1, (None, 0.0, 0))  # a null pointer
    hip.synchronize()
    out = np.empty(nbytes, np.uint8)
    hip.memcpy_dtoh(out, x)
    want = np.full(nbytes, 0xFF, np.uint8)
    want[: n * 4] = np.frombuffer(np.full(n, 3.5, np.float32).tobytes(), np.uint8)
    np.testing.assert_array_equal(out, want)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.free()


def test_native_free_refuses_unknown_and_freed_pointers(cpu):
    """The allocation table guards free(): a second free of the same address (or an address
    that was never allocated) is refused with hipErrorInvalidValue instead of reaching glibc
    (which aborts the process). In a subprocess: the failure mode is that abort."""
    proc = run_child("""
        lib = hip.get_device()._platform._lib()
        buf = hip.malloc(4096)
        p = buf.ptr
        print("LIVE", lib.ohcpu_redzone_check(p, None, 0))
        print("FIRST", lib.ohcpu_free_checked(p, None, 0))
        print("SECOND", lib.ohcpu_free_checked(p, None, 0))
        print("CHECK", lib.ohcpu_redzone_check(p, None, 0))
        msg = ctypes.create_string_buffer(256)
        print("STRAY", lib.ohcpu_free_checked(p + 16, msg, 256), msg.value.decode())
        buf._ptr = None                            # already released by hand above
        print("DONE")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "LIVE 0" in out and "FIRST 0" in out and "SECOND 1" in out and "CHECK 1" in out
    assert "STRAY 1" in out and "not a live device allocation" in out and "DONE" in out


def test_threads_streams_allocations_and_overruns_at_once(cpu):
    """Four host threads, each with its own stream and buffers (small and large, sizes drawn at
    random), allocate, launch and overrun concurrently, free together, then allocate again
    (large mappings reused across threads) and repeat: every deliberate overrun is reported
    once, on its own stream, with its own distance; nothing else is.

    The frees happen between the launch phases: a free deferred while other streams are busy
    makes the next malloc poll every stream (Device._idle), and that poll takes a stream's
    pending error away from its own synchronize (a runtime issue outside the red zones)."""
    proc = run_child("""
        import threading
        fill = mod.get_function("fill_strided")
        outcomes = []
        lock = threading.Lock()
        phase = threading.Barrier(4)

        def worker(seed):
            rng = np.random.default_rng(seed)
            s = hip.Stream()
            got = []
            for rnd in range(3):
                kept = []
                for step in range(20):
                    n = int(rng.choice([17, 1000, 4096, (1 << 20) + 3, (2 << 20) + 1]))
                    x = hip.malloc(4 * n)
                    extra = int(rng.integers(1, 8)) if step % 5 == 3 else 0
                    fill(8, 64, (x, float(step), n + extra), stream=s)
                    try:
                        s.synchronize()
                        got.append((extra, "ok", n))
                    except hip.HipError as exc:
                        got.append((extra, str(exc), n))
                    kept.append(x)
                phase.wait()
                for x in kept:
                    x.free()
                phase.wait()
            with lock:
                outcomes.extend(got)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        bad = [(e, r, n) for e, r, n in outcomes
               if (e == 0) != (r == "ok") or (e and f"{4 * e} bytes past its end" not in r)]
        print("RUNS", len(outcomes), "OVERRUNS", sum(1 for e, _, _ in outcomes if e))
        print("BAD", bad[:3], len(bad))
        report(hip.synchronize)
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "RUNS 240 OVERRUNS 48" in proc.stdout, proc.stdout
    assert "BAD [] 0" in proc.stdout, proc.stdout
    assert results(proc) == ["NOERROR"], proc.stdout
