"""Whole CUDA and HIP programs on the CPU platform: ``openhip run`` and ``openhip hipcc``.

Each program under programs/ prints and checks its own result (written in the style of the CUDA
samples). Every build and run is a subprocess with a timeout: a hang or a crash fails the test
instead of the test run. Builds go through the compile cache, so a second run of the suite
compiles nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
TIMEOUT = 300

pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                                reason="the CPU platform needs a host C++ compiler")


def openhip(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "openhip", *args], capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=cwd, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("name, passed", [
    ("vector_add.cu", "Test PASSED"),          # CUDA, checkCudaErrors, <<<>>>
    ("matmul_events.cu", "Result = PASS"),     # template kernel, __syncthreads, events
    ("streams_overlap.cu", "PASSED (0 errors)"),  # streams, events, callbacks, host functions
    ("managed_symbols.cu", "PASSED (0 errors)"),  # managed memory, symbols, 2-D copies, props
    ("coop_reduce.hip", "Test passed"),        # HIP: cooperative launch + grid.sync()
])
def test_program_runs_and_checks_itself(name, passed):
    proc = openhip("run", str(PROGRAMS / name))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert passed in proc.stdout


def test_cuda_in_a_cpp_file_with_its_kernel_in_a_local_header():
    # -x cu: the .cpp is CUDA (hipified); the kernel, its extern __shared__ array (in a
    # templated helper) and its barrier are in header_kernel.cuh, spliced into the unit
    proc = openhip("run", "-x", "cu", str(PROGRAMS / "header_kernel.cpp"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED (0 errors)" in proc.stdout


def test_several_source_files_with_hipcc(tmp_path):
    exe = tmp_path / "multi"
    proc = openhip("hipcc", str(PROGRAMS / "multi_main.cpp"), str(PROGRAMS / "multi_kernels.hip"),
                   str(PROGRAMS / "multi_helper.cpp"), "-O2", "-o", str(exe))
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "sum 3000.0, PASSED" in run.stdout


def test_objects_then_link(tmp_path):
    for src in ("multi_kernels.hip", "multi_main.cpp", "multi_helper.cpp"):
        proc = openhip("hipcc", "-c", str(PROGRAMS / src), cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    objects = sorted(str(p) for p in tmp_path.glob("*.o"))
    assert len(objects) == 3
    proc = openhip("hipcc", *objects, "-o", "prog", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert run.returncode == 0 and "PASSED" in run.stdout, run.stdout + run.stderr


def test_kernel_fault_is_reported_sticky_and_reset():
    proc = openhip("run", str(PROGRAMS / "errors.hip"), "fault")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED" in proc.stdout
    # the runtime's report names the kernel, the block and the address
    assert "hipErrorIllegalAddress: kernel 'write_through' block" in proc.stderr
    assert "at address" in proc.stderr


def test_error_codes_of_bad_calls():
    proc = openhip("run", str(PROGRAMS / "errors.hip"), "config")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED" in proc.stdout


def test_arguments_and_exit_status_pass_through():
    proc = openhip("run", str(PROGRAMS / "errors.hip"), "exit", "a", "b c", "-x")
    assert proc.returncode == 3
    assert "args: [a] [b c] [-x]" in proc.stdout


def test_crash_reports_the_signal():
    proc = openhip("run", str(PROGRAMS / "errors.hip"), "crash")
    assert proc.returncode == 128 + 11
    assert "terminated by SIGSEGV" in proc.stderr


def test_unsupported_api_is_a_compile_error_naming_it():
    proc = openhip("run", str(PROGRAMS / "unsupported_texture.hip"))
    assert proc.returncode == 1
    assert "hipDestroyTextureObject is not supported by the openhip CPU platform" in proc.stderr


def test_template_arguments_deduced_from_the_launch():
    proc = openhip("run", str(PROGRAMS / "deduced_template.cu"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED (0 errors)" in proc.stdout


@pytest.mark.parametrize("args, message", [
    (["-Wl,-rpath,/tmp", "x.hip"], "-Wl,-rpath,/tmp"),
    (["-Xcompiler", "-fplugin=evil.so", "x.cu"], "is refused"),
    (["--frobnicate", "x.hip"], "'--frobnicate' is not accepted"),
    (["-lfoo;rm", "x.hip"], "a library name"),
    (["prog.txt"], "unknown input type"),
    ([], "usage"),
])
def test_bad_command_lines(args, message):
    proc = openhip("hipcc", *args)
    assert proc.returncode == 2
    assert message in proc.stderr + proc.stdout


def test_vendor_platform_without_its_compiler(tmp_path):
    if shutil.which("hipcc"):
        pytest.skip("hipcc is installed here")
    proc = openhip("hipcc", "--platform", "amd", "x.hip")
    assert proc.returncode == 2
    assert "hipcc is not installed" in proc.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvidia_platform_hands_the_command_to_nvcc(tmp_path):
    out = tmp_path / "va.o"
    proc = openhip("hipcc", "--platform", "nvidia", "-c", str(PROGRAMS / "vector_add.cu"),
                   "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0


def test_missing_source_and_compile_errors_name_the_file(tmp_path):
    proc = openhip("run", str(tmp_path / "missing.cu"))
    assert proc.returncode == 1 and "cannot read the source" in proc.stderr
    bad = tmp_path / "broken.hip"
    bad.write_text("#include <hip/hip_runtime.h>\nint main() {\n  return undeclared_name;\n}\n")
    proc = openhip("run", str(bad))
    assert proc.returncode == 1
    assert "broken.hip:3" in proc.stderr and "undeclared_name" in proc.stderr


def test_run_help():
    proc = openhip("run", "--help")
    assert proc.returncode == 0 and "openhip run" in proc.stdout
    assert os.path.isdir(PROGRAMS)
