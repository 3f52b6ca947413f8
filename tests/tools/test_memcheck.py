"""Issue #15, memcheck on the CPU platform: each buggy kernel of memcheck_kernels.hip gives the
exact compute-sanitizer-shaped report (kind, size, the user's file:line, thread, block, the
address against the nearest allocation); the fixed twins give none and compute what numpy
computes; bad command lines of ``openhip memcheck`` are clear errors.

Every checked run is a child process with a timeout (unchecked, these kernels corrupt memory or
crash). CPU platform with GCC only (the checked mode is GCC's -fsanitize=kernel-address)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KERNELS = Path(__file__).with_name("memcheck_kernels.hip")

PRELUDE = """
import os, sys
import numpy as np
import openhip as hip
from openhip.runtime.memory import DeviceBuffer
mod = hip.Module(open(os.environ["MEMCHECK_KERNELS"]).read(), name="memcheck_kernels.hip")
x = hip.asarray(np.arange(100, dtype=np.float32))
y = hip.zeros(100, np.float32)
w = hip.asarray(np.arange(128, dtype=np.float32))

def report(fn):
    try:
        fn()
        hip.synchronize()
    except hip.HipError as exc:
        print("HIPERROR", exc.status, "|", str(exc).replace("\\n", " ## "))
    else:
        print("NOERROR")
    sys.stdout.flush()
"""


def run_child(body: str, *, checked: bool = True, timeout: float = 240,
              extra_env: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, MEMCHECK_KERNELS=str(KERNELS), OPENHIP_PLATFORM="cpu",
               OPENHIP_MEMCHECK="1" if checked else "0", **(extra_env or {}))
    try:
        return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)],
                              capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child hung (> {timeout} s): {exc.stdout!r} {exc.stderr!r}")


def bad_line(kernel: str) -> int:
    for n, line in enumerate(KERNELS.read_text().splitlines(), 1):
        if line.rstrip().endswith(f"// BAD: {kernel}"):
            return n
    raise AssertionError(kernel)


@pytest.fixture
def cpu(device):
    if device.platform != "cpu":
        pytest.skip("memcheck is a CPU-platform feature (GPUs have compute-sanitizer)")
    if device._platform.compiler.is_clang:
        pytest.skip("memcheck mode needs GCC (-fsanitize=kernel-address with GCC's ABI)")
    return device


# case -> (launch, first line, thread and block, the address line as a regex)
CASES = {
    "off_by_one": ("mod.get_function('off_by_one')(4, 32, (x, y, 100))",
                   "Invalid __global__ write of size 4 bytes (out of bounds)",
                   "thread (4,0,0) in block (3,0,0)",
                   r"Address 0x[0-9a-f]+ is 0 bytes after the end of the nearest allocation at "
                   r"0x[0-9a-f]+ of size 400 bytes"),
    "negative_index": ("mod.get_function('negative_index')(4, 32, (x, y, 100))",
                       "Invalid __global__ read of size 4 bytes (out of bounds)",
                       "thread (0,0,0) in block (0,0,0)",
                       r"Address 0x[0-9a-f]+ is 4 bytes before the start of the nearest "
                       r"allocation at 0x[0-9a-f]+ of size 400 bytes"),
    "shared_overrun": ("mod.get_function('shared_overrun')(1, 64, (x, y), shared_mem=256)",
                       "Invalid __shared__ write of size 4 bytes (out of bounds)",
                       "thread (63,0,0) in block (0,0,0)",
                       r"Address 0x[0-9a-f]+ is past the dynamic shared memory of the launch"),
    "static_overrun": ("mod.get_function('static_overrun')(1, 64, (w, y))",
                       "Invalid __shared__ write of size 4 bytes (out of bounds)",
                       "thread (63,0,0) in block (0,0,0)",
                       r"Address 0x[0-9a-f]+ is past a static __shared__ array \(out of "
                       r"bounds\)"),
    "static_page_overrun": ("mod.get_function('static_page_overrun')(1, 64, (w, y))",
                            "Invalid __shared__ write of size 4 bytes (out of bounds)",
                            "thread (63,0,0) in block (0,0,0)",
                            r"Address 0x[0-9a-f]+ is past a static __shared__ array \(out of "
                            r"bounds\)"),
    "memcpy_overrun": ("mod.get_function('memcpy_overrun')(1, 128, (x, y, 100))",
                       "Invalid __global__ read of size 8 bytes (out of bounds)",
                       "thread (99,0,0) in block (0,0,0)",
                       r"Address 0x[0-9a-f]+ is 396 bytes inside the 400-byte allocation"),
    "shared_overrun_loop": ("mod.get_function('shared_overrun_loop')(1, 64, (x, y), "
                            "shared_mem=256)",
                            "Invalid __shared__ write of size 4 bytes (out of bounds)",
                            "thread (32,0,0) in block (0,0,0)",
                            r"Address 0x[0-9a-f]+ is past the dynamic shared memory of the "
                            r"launch"),
    "read_buffer": ("b = hip.malloc(400); alias = DeviceBuffer(b.ptr, 400, b.device, "
                    "owner=False); b.free(); report(lambda: mod.get_function('read_buffer')"
                    "(1, 32, (alias, y, 100)))",
                    "Invalid __global__ read of size 4 bytes (use after free)",
                    "thread (0,0,0) in block (0,0,0)",
                    r"Address (0x[0-9a-f]+) is 0 bytes inside a 400-byte allocation at \1 that "
                    r"was freed \(use after free\)"),
    "misaligned_vector": ("mod.get_function('misaligned_vector')(1, 32, (x, y, 100))",
                          "Invalid __global__ read of 'const struct HIP_vector_type' "
                          "(misaligned address, 16-byte alignment required)",
                          "thread (0,0,0) in block (0,0,0)",
                          r"Address 0x[0-9a-f]+ is 4 bytes inside the 400-byte allocation"),
    "reduce_overrun": ("mod.get_function('reduce_overrun')(1, 64, (w, y), shared_mem=256)",
                       "Invalid __shared__ read of size 4 bytes (out of bounds)",
                       "thread (32,0,0) in block (0,0,0)",
                       r"Address 0x[0-9a-f]+ is past the dynamic shared memory of the launch"),
    "write_through": ("mod.get_function('write_through')(1, 32, (None, 8))",
                      "Invalid __global__ write of size 4 bytes (null pointer)",
                      "thread (0,0,0) in block (0,0,0)",
                      r"Address 0x0 is null \(null pointer\)"),
    "local_array": ("mod.get_function('local_array')(4, 32, (hip.asarray(np.where(np.arange(100)"
                    " == 37, 4, np.arange(100) % 4).astype(np.int32)), y, 100))",
                    "Invalid __local__ read of size 4 bytes (out of bounds)",
                    "thread (5,0,0) in block (1,0,0)",
                    r"Address 0x[0-9a-f]+ is (past|outside) a local array \(out of bounds\)"),
    "local_write": ("mod.get_function('local_write')(4, 32, (hip.asarray(np.where(np.arange(100)"
                    " == 70, -1, 1).astype(np.int32)), y, 100))",
                    "Invalid __local__ write of size 4 bytes (out of bounds)",
                    "thread (6,0,0) in block (2,0,0)",
                    r"Address 0x[0-9a-f]+ is (before|outside) a local array \(out of bounds\)"),
    "device_array": ("mod.get_function('device_array')(1, 32, (y, 100))",
                     "Invalid __global__ read of size 4 bytes (out of bounds)",
                     "thread (8,0,0) in block (0,0,0)",
                     r"Address 0x[0-9a-f]+ is past a __device__ variable \(out of bounds\)"),
}


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_buggy_kernel_report(cpu, kernel):
    launch, first, who, address = CASES[kernel]
    body = launch if launch.startswith("b = ") else f"report(lambda: {launch})"
    proc = run_child(body + "\nreport(lambda: None)\n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert len(out) == 2, proc.stdout + proc.stderr[-2000:]
    assert out[0].startswith("HIPERROR hipErrorIllegalAddress | "), out[0]
    parts = out[0].split(" | ", 1)[1].split(" ## ")
    assert parts[0].endswith(first), parts
    assert parts[1].strip() == f"at memcheck_kernels.hip:{bad_line(kernel)} in {kernel}", parts
    assert parts[2].strip() == f"by {who} of kernel '{kernel}'", parts
    assert re.fullmatch(address + r".*", parts[3].strip()), parts
    # the device stays failed (as a GPU context after an illegal address) and says why
    assert out[1].startswith("HIPERROR hipErrorIllegalAddress"), out[1]


def test_fiber_mode_names_the_thread(cpu):
    """With the barrier split off (OPENHIP_CPU_REGIONS=0) the shared overrun runs as fibers:
    the same report, the same thread."""
    proc = run_child("report(lambda: mod.get_function('shared_overrun')(1, 64, (x, y), "
                     "shared_mem=256))", extra_env={"OPENHIP_CPU_REGIONS": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("HIPERROR"))
    parts = [p.strip() for p in line.split(" | ", 1)[1].split(" ## ")]
    assert parts[0].endswith("Invalid __shared__ write of size 4 bytes (out of bounds)"), parts
    assert parts[1] == f"at memcheck_kernels.hip:{bad_line('shared_overrun')} in shared_overrun"
    assert parts[2] == "by thread (63,0,0) in block (0,0,0) of kernel 'shared_overrun'", parts


def test_fixed_kernels_run_clean_and_right(cpu):
    proc = run_child("""
        a = np.arange(100, dtype=np.float32)
        report(lambda: mod.get_function('off_by_one_fixed')(4, 32, (x, y, 100)))
        print("R1", np.array_equal(y.get(), a * 2))
        report(lambda: mod.get_function('negative_index_fixed')(4, 32, (x, y, 100)))
        print("R2", np.array_equal(y.get(), a - np.concatenate([[0], a[:-1]])))
        z = hip.zeros(128, np.float32)
        report(lambda: mod.get_function('shared_overrun_fixed')(2, 64, (w, z), shared_mem=256))
        want = np.arange(128, dtype=np.float32).reshape(2, 64)[:, ::-1].ravel()
        print("R3", np.array_equal(z.get(), want))
        report(lambda: mod.get_function('misaligned_vector_fixed')(1, 32, (x, y, 100)))
        print("R4", np.array_equal(y.get()[:25], a.reshape(25, 4).sum(1)))
        report(lambda: mod.get_function('device_array')(1, 32, (y, 8)))
        print("R5", np.array_equal(y.get()[:8], np.arange(1, 9, dtype=np.float32)))
        b = hip.malloc(400); b.free()   # freed, never used: nothing to report
        report(lambda: mod.get_function('read_buffer')(4, 32, (x, y, 100)))
        print("R6", np.array_equal(y.get(), a + 1))
        idx = hip.asarray((np.arange(100) % 4).astype(np.int32))
        report(lambda: mod.get_function('local_array')(4, 32, (idx, y, 100)))
        print("R7", np.array_equal(y.get(), (np.arange(100) % 4 + 1).astype(np.float32)))
        report(lambda: mod.get_function('reduce_overrun_fixed')(2, 64, (w, y), shared_mem=256))
        print("R8", np.array_equal(y.get()[:2], np.arange(128).reshape(2, 64).sum(1)))
        report(lambda: mod.get_function('static_page_fixed')(1, 64, (w, y)))
        print("R9", np.array_equal(y.get()[:64], np.arange(64, dtype=np.float32) + 1))
        c = hip.zeros(100, np.float32)
        report(lambda: mod.get_function('memcpy_overrun')(1, 128, (x, c, 99)))
        print("R10", np.array_equal(c.get(), a))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout.splitlines()
    assert [ln for ln in out if ln.startswith(("HIPERROR", "NOERROR"))] == ["NOERROR"] * 10, \
        proc.stdout
    assert [ln for ln in out if ln.startswith("R")] == [f"R{i} True" for i in range(1, 11)]


def test_after_a_report_and_a_reset_the_same_stacks_run_clean(cpu):
    """A report leaves the device failed until hip.reset_device(); then correct kernels (loop
    and barrier modes, dynamic shared memory) run clean on the same workers."""
    proc = run_child("""
        good = hip.asarray((np.arange(100) % 4).astype(np.int32))
        report(lambda: mod.get_function('off_by_one')(4, 32, (x, y, 100)))
        hip.reset_device()
        for _ in range(3):
            report(lambda: mod.get_function('local_array')(4, 32, (good, y, 100)))
            report(lambda: mod.get_function('shared_overrun_fixed')(1, 64, (x, y),
                                                                    shared_mem=256))
        print("R", np.array_equal(y.get()[:64], np.arange(64, dtype=np.float32)[::-1]))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert out[0].startswith("HIPERROR hipErrorIllegalAddress") and "__global__" in out[0], out
    assert out[1:] == ["NOERROR"] * 6, proc.stdout
    assert "R True" in proc.stdout


def test_unchecked_mode_is_unchanged(cpu):
    """Without OPENHIP_MEMCHECK the same off-by-one is the red-zone report (after the launch),
    not memcheck's: the checked mode is off unless asked for."""
    proc = run_child("report(lambda: mod.get_function('off_by_one')(4, 32, (x, y, 100)))",
                     checked=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Invalid __global__" not in proc.stdout
    assert "wrote outside device buffer" in proc.stdout, proc.stdout


def _memcheck(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ, MEMCHECK_KERNELS=str(KERNELS))
    return subprocess.run([sys.executable, "-m", "openhip", "memcheck", *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_cli_reports_summary_and_leaks(cpu, tmp_path):
    script = tmp_path / "buggy.py"
    script.write_text(PRELUDE + textwrap.dedent("""
        report(lambda: mod.get_function('off_by_one')(4, 32, (x, y, 100)))
        leaked = hip.malloc(1000)
    """))
    proc = _memcheck("--leak-check", "full", "--error-exitcode", "7", "python", str(script))
    assert proc.returncode == 7, proc.stderr[-3000:]
    err = proc.stderr
    assert f"========= Invalid __global__ write of size 4 bytes (out of bounds)\n" \
           f"=========     at memcheck_kernels.hip:{bad_line('off_by_one')} in off_by_one\n" in err
    assert "========= ERROR SUMMARY: 1 error\n" in err, err
    assert re.search(r"========= Leaked 1000 bytes at 0x[0-9a-f]+", err), err
    assert "========= LEAK SUMMARY:" in err


def test_cli_clean_script(cpu, tmp_path):
    script = tmp_path / "clean.py"
    script.write_text(PRELUDE + "report(lambda: mod.get_function('off_by_one_fixed')"
                      "(4, 32, (x, y, 100)))\n")
    proc = _memcheck("--error-exitcode", "7", str(script))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "NOERROR" in proc.stdout
    assert "========= ERROR SUMMARY: 0 errors" in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--bogus", "x.py"], "unrecognized arguments: --bogus"),
    (["python", "/nonexistent/script.py"], "the script /nonexistent/script.py does not exist"),
    (["/nonexistent/script.py"], "the script /nonexistent/script.py does not exist"),
    ([], "no command to check"),
    (["--tool", "synccheck", "x.py"], "--tool synccheck is not implemented"),
    (["--tool", "nosuch", "x.py"], "unknown tool 'nosuch'"),
    (["--leak-check", "maybe", "x.py"], "invalid choice: 'maybe'"),
])
def test_cli_bad_usage(args, message):
    proc = _memcheck(*args, timeout=60)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr, proc.stderr


def test_format_report_leaves_other_messages_alone():
    from openhip.tools.memcheck.report import format_report

    text = "kernel 'k' block (0,0,0) thread (1,0,0): illegal memory access at address 0x10"
    assert format_report(text, lambda a: "") == text


def test_compile_flags_need_an_offset():
    from openhip.tools.memcheck import compile_flags

    with pytest.raises(ValueError):
        compile_flags(0)
    flags = compile_flags(0x7fff8000)
    assert "-fsanitize=kernel-address" in flags and "-fasan-shadow-offset=0x7fff8000" in flags


CONFORMANCE = ("test_execution_shared.py", "test_execution_globals.py",
               "test_execution_indexing.py", "test_lang_atomics.py")


@pytest.mark.parametrize("tool, files", [
    ("memcheck", CONFORMANCE),
    ("racecheck", ("test_execution_shared.py", "test_lang_cooperative_groups.py")),
    ("initcheck", ("test_execution_shared.py", "test_execution_globals.py")),
])
def test_conformance_suite_runs_clean_under_memcheck(cpu, tool, files):
    """No false positives: conformance files (shared memory static and dynamic, globals and
    constants, 3-D indexing, atomics; under racecheck shared memory and cooperative groups)
    pass with every access checked."""
    root = Path(__file__).resolve().parents[1] / "conformance"
    env = dict(os.environ, OPENHIP_MEMCHECK="1", OPENHIP_PLATFORM="cpu",
               OPENHIP_MEMCHECK_TOOL=tool)
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               *[str(root / f) for f in files]],
                              capture_output=True, text=True, timeout=900, env=env)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the checked conformance run hung: {exc.stdout!r}")
    tail = proc.stdout[-4000:]
    assert proc.returncode == 0, tail + proc.stderr[-2000:]
    assert "Invalid __" not in proc.stdout, tail
    assert re.search(r"\d+ passed", tail), tail


def test_runtime_copies_and_memsets_are_checked(cpu):
    """A copy or memset whose device range leaves its allocation, or reads freed memory, fails
    before anything is written (hipErrorInvalidValue) with a report; in-range ones run."""
    proc = run_child("""
        b = hip.malloc(400)
        over = DeviceBuffer(b.ptr, 404, b.device, owner=False)
        inner = DeviceBuffer(b.ptr + 8, 392, b.device, owner=False)
        report(lambda: hip.memcpy_htod(over, np.ones(101, np.float32)))
        report(lambda: hip.memcpy_dtoh(np.zeros(101, np.float32), over))
        report(lambda: hip.memset(over, 0, 404))
        src = hip.malloc(404)
        report(lambda: hip.memcpy_dtod(over, src, 404))
        report(lambda: hip.memset(inner, 7, 392))
        host = np.zeros(100, np.uint8)
        report(lambda: hip.memcpy_dtoh(host, inner, 100))
        print("R1", bool((host == 7).all()))
        c = hip.malloc(64); alias = DeviceBuffer(c.ptr, 64, c.device, owner=False); c.free()
        report(lambda: hip.memcpy_dtoh(np.zeros(16, np.float32), alias))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert len(out) == 7, proc.stdout
    end = (r"## +the range starts at (0x[0-9a-f]+) ## +Address 0x[0-9a-f]+ is 0 bytes after the "
           r"end of the nearest allocation at \1 of size 400 bytes")
    for line, op, routine in [(out[0], "write", "hipMemcpy"), (out[1], "read", "hipMemcpy"),
                              (out[2], "write", "hipMemset"), (out[3], "write", "hipMemcpy")]:
        assert re.search(rf"HIPERROR hipErrorInvalidValue \| .*Invalid __global__ {op} of size "
                         rf"404 bytes by {routine} \(out of bounds\) {end}$", line), line
    assert out[4:6] == ["NOERROR", "NOERROR"], out
    assert "R1 True" in proc.stdout
    assert re.search(r"Invalid __global__ read of size 64 bytes by hipMemcpy \(use after free\)"
                     r".* is 0 bytes inside a 64-byte allocation at 0x[0-9a-f]+ that was freed",
                     out[6]), out[6]


def test_use_after_del_of_a_pooled_array(cpu):
    """A pooled array's block goes back to the pool's cache poisoned: a kernel reading it
    through a stale pointer is a use after free; the block handed out again runs clean, a
    smaller request's end is the new end."""
    proc = run_child("""
        import gc
        a = hip.asarray(np.arange(100, dtype=np.float32))
        ptr = a.data.ptr
        stale = DeviceBuffer(ptr, 400, a.data.mem.device, owner=False)
        del a
        gc.collect()
        b = hip.asarray(np.arange(100, dtype=np.float32) * 2)   # the same block, reused
        print("REUSED", b.data.ptr == ptr)
        report(lambda: mod.get_function('read_buffer')(4, 32, (b, y, 100)))
        print("R1", np.array_equal(y.get(), np.arange(100) * 2 + 1))
        del b
        gc.collect()
        report(lambda: mod.get_function('read_buffer')(1, 128, (stale, y, 100)))  # after del
        hip.reset_device()
        c = hip.asarray(np.arange(30, dtype=np.float32))   # a smaller request, same block
        report(lambda: mod.get_function('read_buffer')(4, 32, (c, y, 31)))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert "REUSED True" in proc.stdout and "R1 True" in proc.stdout, proc.stdout
    assert len(out) == 3 and out[0] == "NOERROR", out
    parts = [p.strip() for p in out[1].split(" | ", 1)[1].split(" ## ")]
    assert parts[0].endswith("Invalid __global__ read of size 4 bytes (use after free)"), parts
    assert parts[1] == f"at memcheck_kernels.hip:{bad_line('read_buffer')} in read_buffer"
    assert parts[2] == "by thread (0,0,0) in block (0,0,0) of kernel 'read_buffer'", parts
    assert re.fullmatch(r"Address (0x[0-9a-f]+) is 0 bytes inside a \d+-byte block at \1 that "
                        r"the memory pool holds for reuse: its array was freed \(use after "
                        r"free\)", parts[3]), parts
    assert re.search(r"Invalid __global__ read of size 4 bytes \(out of bounds\).* ## +by "
                     r"thread \(30,0,0\) .* 0 bytes after the end of the nearest allocation at "
                     r"0x[0-9a-f]+ of size 120 bytes", out[2]), out[2]


def marked_line(tag: str, kernel: str) -> int:
    for n, line in enumerate(KERNELS.read_text().splitlines(), 1):
        if line.rstrip().endswith(f"// {tag}: {kernel}"):
            return n
    raise AssertionError((tag, kernel))


RACES = {
    # kernel -> (kind, first access, second access), each (op, thread, marker)
    "race_no_barrier": ("write-after-read", ("Read", "31,0,0", "RACE-B"),
                        ("Write", "32,0,0", "RACE-A")),
    "race_reduce": ("write-after-read", ("Read", "0,0,0", "RACE-A"), ("Write", "1,0,0", "RACE-A")),
    "race_static": ("write-after-read", ("Read", "0,0,0", "RACE-B"), ("Write", "1,0,0", "RACE-A")),
    "race_syncwarp": ("read-after-write", ("Write", "31,0,0", "RACE-A"),
                      ("Read", "63,0,0", "RACE-B")),
}


@pytest.mark.parametrize("kernel", sorted(RACES))
def test_racecheck_reports_both_accesses(cpu, kernel):
    """--tool racecheck: two threads of a block on one shared word with no barrier between,
    one writing: the launch fails (hipErrorLaunchFailure) with both threads and both lines."""
    kind, first, second = RACES[kernel]
    proc = run_child(f"report(lambda: mod.get_function('{kernel}')(1, 64, (w, y), "
                     "shared_mem=256))", extra_env={"OPENHIP_MEMCHECK_TOOL": "racecheck"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR")))
    assert line.startswith("HIPERROR hipErrorLaunchFailure | "), line
    parts = [p.strip() for p in line.split(" | ", 1)[1].split(" ## ")]
    assert re.fullmatch(rf".*Race hazard \({kind}\) on __shared__ memory of size 4 bytes at "
                        rf"0x[0-9a-f]+ in block \(0,0,0\) of kernel '{kernel}'", parts[0]), parts
    for part, (op, thread, tag) in zip(parts[1:3], (first, second), strict=True):
        assert part == (f"{op} access by thread ({thread}) at memcheck_kernels.hip:"
                        f"{marked_line(tag, kernel)} in {kernel}"), parts


def test_racecheck_fixed_kernels_run_clean_and_right(cpu):
    """The same kernels with their barriers (and a barrier-heavy reduction) give no report
    under racecheck, and what numpy computes; global bugs are still memcheck's reports."""
    proc = run_child("""
        a = np.arange(128, dtype=np.float32)
        z = hip.zeros(128, np.float32)
        report(lambda: mod.get_function('race_no_barrier_fixed')(2, 64, (w, z), shared_mem=256))
        print("R1", np.array_equal(z.get(), a.reshape(2, 64)[:, ::-1].ravel()))
        report(lambda: mod.get_function('reduce_overrun_fixed')(2, 64, (w, z), shared_mem=256))
        print("R2", np.array_equal(z.get()[:2], a.reshape(2, 64).sum(1)))
        report(lambda: mod.get_function('shared_overrun_fixed')(2, 64, (w, z), shared_mem=256))
        print("R3", np.array_equal(z.get(), a.reshape(2, 64)[:, ::-1].ravel()))
        report(lambda: mod.get_function('race_static_fixed')(2, 64, (w, z)))
        print("R4", np.array_equal(z.get(), np.roll(a.reshape(2, 64), -1, axis=1).ravel()))
        report(lambda: mod.get_function('race_syncwarp_fixed')(1, 64, (w, z)))
        print("R5", np.array_equal(z.get()[:64], a[:64].reshape(32, 2)[:, ::-1].ravel()))
        report(lambda: mod.get_function('off_by_one')(4, 32, (x, y, 100)))
    """, extra_env={"OPENHIP_MEMCHECK_TOOL": "racecheck"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert out[:5] == ["NOERROR"] * 5, proc.stdout
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("R")] == \
        ["R1 True", "R2 True", "R3 True", "R4 True", "R5 True"]
    assert "Invalid __global__ write of size 4 bytes (out of bounds)" in out[5], out[5]


def test_cli_racecheck(cpu, tmp_path):
    script = tmp_path / "racy.py"
    script.write_text(PRELUDE + textwrap.dedent("""
        report(lambda: mod.get_function('race_no_barrier')(1, 64, (w, y), shared_mem=256))
    """))
    proc = _memcheck("--tool", "racecheck", "--error-exitcode", "5", "python", str(script))
    assert proc.returncode == 5, proc.stderr[-3000:]
    err = proc.stderr
    assert "========= OPENHIP RACECHECK (CPU platform)" in err, err
    assert (f"=========     Write access by thread (32,0,0) at memcheck_kernels.hip:"
            f"{marked_line('RACE-A', 'race_no_barrier')} in race_no_barrier\n") in err, err
    assert "========= ERROR SUMMARY: 1 error\n" in err, err


def test_initcheck_reports_reads_of_memory_never_written(cpu):
    """--tool initcheck: a kernel's read of device memory that no kernel, copy or memset wrote
    is reported (the thread and the line); memory written by a kernel (half of it: the read
    past the written half is the report), a memset or an upload reads clean."""
    proc = run_child("""
        e = hip.empty(100, np.float32)
        report(lambda: mod.get_function('read_buffer')(1, 128, (e, y, 100)))
        hip.reset_device()
        half = hip.empty(100, np.float32)
        report(lambda: mod.get_function('off_by_one_fixed')(1, 128, (x, half, 50)))
        report(lambda: mod.get_function('read_buffer')(1, 128, (half, y, 50)))
        print("R1", np.array_equal(y.get()[:50], np.arange(50) * 2 + 1))
        report(lambda: mod.get_function('read_buffer')(1, 128, (half, y, 100)))
        hip.reset_device()
        m = hip.empty(100, np.float32)
        hip.memset(m, 0, 400)
        report(lambda: mod.get_function('read_buffer')(1, 128, (m, y, 100)))
        report(lambda: mod.get_function('read_buffer')(1, 128, (x, y, 100)))
        print("R2", np.array_equal(y.get(), np.arange(100) + 1))
    """, extra_env={"OPENHIP_MEMCHECK_TOOL": "initcheck"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert len(out) == 6 and [out[i] for i in (1, 2, 4, 5)] == ["NOERROR"] * 4, proc.stdout
    assert "R1 True" in proc.stdout and "R2 True" in proc.stdout, proc.stdout
    for line, thread, offset in [(out[0], "0,0,0", 0), (out[3], "50,0,0", 200)]:
        parts = [p.strip() for p in line.split(" | ", 1)[1].split(" ## ")]
        assert parts[0].endswith("Uninitialized __global__ memory read of size 4 bytes "
                                 "(never written)"), parts
        assert parts[1] == f"at memcheck_kernels.hip:{bad_line('read_buffer')} in read_buffer"
        assert parts[2] == f"by thread ({thread}) in block (0,0,0) of kernel 'read_buffer'"
        assert re.fullmatch(rf"Address 0x[0-9a-f]+ is {offset} bytes inside the 400-byte "
                            r"allocation at 0x[0-9a-f]+", parts[3]), parts


def test_tls_symbols_name_the_static_shared_arrays(tmp_path):
    """The racecheck's view of a module's static __shared__ arrays: function-local
    thread_local symbols outside openhip's namespace, with the engine's tstate as the anchor;
    not an ELF image: nothing."""
    from openhip.tools.memcheck.tls import shared_arrays

    assert shared_arrays(b"not an elf image") == ([], None)
    src = tmp_path / "m.cpp"
    src.write_text("namespace openhip { namespace detail { struct S { long a[3]; };\n"
                   "static thread_local S tstate; long* p() { return tstate.a; } } }\n"
                   "float* k() { static thread_local float tile[64]; return tile; }\n"
                   "namespace openhip { int* q() { static thread_local int own[4]; "
                   "return own; } }\n")
    so = tmp_path / "m.so"
    proc = subprocess.run(["g++", "-shared", "-fPIC", "-O1", "-o", str(so), str(src)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"g++ cannot build a shared object here: {proc.stderr[-500:]}")
    arrays, anchor = shared_arrays(so.read_bytes())
    assert anchor is not None
    assert [size for _, size in arrays] == [256], arrays


def test_cli_initcheck(cpu, tmp_path):
    script = tmp_path / "uninit.py"
    script.write_text(PRELUDE + textwrap.dedent("""
        e = hip.empty(100, np.float32)
        report(lambda: mod.get_function('read_buffer')(1, 128, (e, y, 100)))
    """))
    proc = _memcheck("--tool", "initcheck", "--error-exitcode", "3", "python", str(script))
    assert proc.returncode == 3, proc.stderr[-3000:]
    err = proc.stderr
    assert "========= OPENHIP INITCHECK (CPU platform)" in err, err
    assert ("========= Uninitialized __global__ memory read of size 4 bytes (never written)\n"
            f"=========     at memcheck_kernels.hip:{bad_line('read_buffer')} in read_buffer\n"
            ) in err, err
    assert "========= ERROR SUMMARY: 1 error\n" in err, err
