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


WARM_CHILD = r'''
import sys, numpy as np, openhip as hip
from openhip.platforms.cpu import platform as cpu_platform
if sys.argv[1] == "warm":
    def refuse(*a, **k):
        raise AssertionError("compiled although the disk cache holds the kernel")
    cpu_platform.CpuPlatform.compile = refuse
src = """#include <hip/hip_runtime.h>
extern "C" __global__ void fill(int* p, int v) { p[threadIdx.x] = v; }
"""
out = hip.zeros(8, np.int32)
hip.Module(src).get_function("fill")(1, 8, (out, 5))
assert (out.get() == 5).all()
if sys.argv[1] == "warm":  # the kernel's signature came from the cache entry: no source scan
    assert "tree_sitter" not in sys.modules, "the source was parsed on a warm hit"
print("ok")
'''


def test_real_kernel_served_from_disk_in_a_new_process(isolated_cache):
    import os
    import subprocess
    import sys

    env = dict(os.environ, OPENHIP_CACHE_DIR=str(isolated_cache), OPENHIP_PLATFORM="cpu")
    for mode in ("cold", "warm"):
        r = subprocess.run([sys.executable, "-c", WARM_CHILD, mode], env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
