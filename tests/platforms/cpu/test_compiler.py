"""The compiler driver: flags, options, diagnostics, footer, metadata, dependencies."""

from __future__ import annotations

import os

import numpy as np
import pytest
from cpu_helpers import build, pack, ptr

from openhip.errors import CompileError, PlatformUnavailable
from openhip.platforms.cpu import compiler as cc

SAXPY = """
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""


def compile_(cpu, source, **kw):
    return cpu.compile(source, arch=cpu.default_arch(0), **kw)


def test_error_lines_and_file_name_match_the_source(cpu):
    src = "#include <hip/hip_runtime.h>\n\n__global__ void k(int* p) {\n  p[0] = q;\n}\n"
    with pytest.raises(CompileError) as info:
        compile_(cpu, src, filename="my_kernels.hip")
    err = info.value
    assert "my_kernels.hip:4:" in err.log
    assert err.platform == "cpu" and err.name == "my_kernels.hip" and err.source == src
    assert "openhip-cc-" not in err.log  # no temporary paths


def test_extern_shared_rewrite_keeps_line_numbers(cpu):
    src = "__global__ void k(int* p) {\n  extern __shared__ int s[];\n  s[0] = 1;\n  p[0] = r;\n}\n"
    with pytest.raises(CompileError) as info:
        compile_(cpu, src)
    assert "kernel.hip:4:" in info.value.log


def test_header_is_force_included_and_warnings_go_to_the_log(cpu):
    program = compile_(cpu, "__global__ void k(int* p) { int unused = 3; p[0] = 1; }",
                       options=("-Wall",))
    assert "unused" in program.log
    assert program.kernels == {"k": "openhip_kernel_0"}


def test_user_options(cpu, dev, tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "value.h").write_text("#define VALUE (BASE + 2)\n")
    src = '#include "value.h"\n__global__ void k(int* p) { p[0] = VALUE; }\n'
    program, _, fn = build(cpu, src, options=("-DBASE=40", "-I", str(tmp_path / "inc"),
                                              "-std=c++20", "--gpu-architecture=sm_90",
                                              "-lineinfo", "-O2"))
    d = dev.empty(4)
    cpu.launch(0, fn("k"), (1, 1, 1), (1, 1, 1), 0, None, pack(ptr(d)))
    assert dev.get(d, 1, np.int32)[0] == 42
    assert program.metadata["dependencies"] == [str(tmp_path / "inc" / "value.h")]
    assert "-std=c++20" in program.metadata["flags"]


@pytest.mark.parametrize("option", ["-o/tmp/x", "-fplugin=evil.so", "-std=c++14", "@file",
                                    "-include", "-Ofast", "--random"])
def test_refused_options(cpu, option):
    with pytest.raises(ValueError):
        compile_(cpu, SAXPY, options=(option,))


def test_name_expressions(cpu):
    src = "template <typename T, int N> __global__ void k(T* p) { p[threadIdx.x] = N; }\n"
    program = compile_(cpu, src, name_expressions=("k<float, 3>", "k<int,4>"))
    assert set(program.kernels) == {"k<float, 3>", "k<int,4>"}
    assert program.metadata["kernels"]["k<float, 3>"]["param_sizes"] == [8]
    with pytest.raises(CompileError) as info:
        compile_(cpu, src, name_expressions=("nothere<int>",))
    assert "nothere" in info.value.log
    with pytest.raises(CompileError):  # an instantiation that does not compile
        compile_(cpu, src, name_expressions=("k<undefined_type, 1>",))


def test_namespaced_kernels_and_globals(cpu):
    src = """
    namespace a { __global__ void k(int* p) { p[0] = 1; } }
    namespace b { __global__ void k(int* p) { p[0] = 2; } __device__ int g; }
    __constant__ float c[3];
    """
    program = compile_(cpu, src)
    assert set(program.kernels) >= {"a::k", "b::k"}
    assert "k" not in program.kernels  # ambiguous short name
    assert set(program.globals) == {"b::g", "c"}


def test_globals_have_address_and_size(cpu):
    program = compile_(cpu, "__constant__ double c[5];\n__device__ int g;\n"
                            "__global__ void k(int* p) { p[0] = g + (int)c[0]; }\n")
    module = cpu.load_module(0, program)
    address, size = cpu.get_global(0, module, program.globals["c"])
    assert size == 40 and address % 8 == 0
    assert cpu.get_global(0, module, program.globals["g"])[1] == 4


def test_loop_mode_vectorises(cpu):
    if cpu.compiler.is_clang:
        pytest.skip("-fopt-info is GCC's")
    program = compile_(cpu, SAXPY, options=("-fopt-info-vec-optimized",))
    assert "loop vectorized" in program.log
    assert program.metadata["kernels"]["saxpy"]["mode"] == "loop"


def test_compiler_identity_and_arch(cpu):
    ident = cpu.compiler_identity()
    assert cpu.compiler.version in ident and "include" in ident
    arch = cpu.default_arch(0)
    assert arch == cc.host_arch() and arch.count("-") == 1
    with pytest.raises(ValueError):
        cpu.compile(SAXPY, arch="x86_64-0123456789")
    assert cpu.compile(SAXPY, arch="x86-64-v2").kernels  # a portable -march works


def test_missing_compiler_makes_the_platform_unavailable(monkeypatch):
    from openhip.platforms.cpu import PLATFORM

    monkeypatch.setenv("CXX", "/nonexistent/c++")
    with pytest.raises(PlatformUnavailable) as info:
        PLATFORM()
    assert "CXX" in info.value.reason


def test_cxx_selects_the_compiler(monkeypatch):
    from openhip.platforms.cpu import PLATFORM

    monkeypatch.setenv("CXX", "g++")
    assert os.path.basename(PLATFORM().compiler.path) == "g++"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_is_not_stuck_behind_a_pch_build_of_its_parent():
    # prebuild_pch builds the precompiled header on a thread of its own; a fork while that
    # thread holds the PCH lock must not leave the child's first compile waiting forever
    held = cc._pch_lock
    held.acquire()
    try:
        pid = os.fork()
        if pid == 0:  # the child: its lock is free
            os._exit(0 if cc._pch_lock.acquire(timeout=5) else 3)
        _, status = os.waitpid(pid, 0)
    finally:
        held.release()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
