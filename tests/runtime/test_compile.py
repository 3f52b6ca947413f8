"""openhip.compile: a binary for a platform and arch, through the cache, no device needed."""

import pytest

import openhip as hip

SRC = r'''
#include <hip/hip_runtime.h>
extern "C" __global__ void fill(int* p, int v) { p[threadIdx.x] = v; }
'''


def test_compile_cpu_returns_a_shared_object(isolated_cache):
    binary = hip.compile(SRC, platform="cpu")
    assert binary[:4] == b"\x7fELF"
    program = hip.compile_program(SRC, platform="cpu")
    assert "fill" in program.kernels and program.platform == "cpu"


def test_compile_errors():
    with pytest.raises(ValueError):
        hip.compile(SRC, platform="tpu")
    with pytest.raises(TypeError):
        hip.compile(b"bytes")
    with pytest.raises(hip.CompileError) as err:
        hip.compile("__global__ void k() { nope(); }", platform="cpu", filename="bad.hip")
    assert "bad.hip:1" in err.value.log
