"""Every conformance kernel (tests/kernels/*.hip) compiles for NVIDIA (sm_90, sm_80, with NVRTC
from PyPI) and AMD (gfx90a, gfx1030, with the installed ROCm's hiprtc) without a GPU; plus
``openhip.compile`` and ``openhip cc`` for the GPU platforms. Skips where a toolchain is absent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

KERNELS = sorted((Path(__file__).parents[1] / "kernels").glob("*.hip"))
TARGETS = [("nvidia", "sm_90"), ("nvidia", "sm_80"), ("amd", "gfx90a"), ("amd", "gfx1030")]


def name_expressions(source: str) -> list[str]:
    """The ``// openhip: name_expressions = a<int>, b<float, 4>`` list of a kernel file's first
    line (split at top-level commas)."""
    first = source.splitlines()[0] if source else ""
    marker = "openhip: name_expressions"
    if marker not in first:
        return []
    text = first.split(marker, 1)[1].split("=", 1)[1].strip()
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "<(["
        depth -= ch in ">)]"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def test_name_expression_line_parsing():
    src = "// openhip: name_expressions = f<int>, g<float, 4>, h<pair<int, int>>\n"
    assert name_expressions(src) == ["f<int>", "g<float, 4>", "h<pair<int, int>>"]
    assert name_expressions("// nothing\n") == []


@pytest.mark.parametrize("platform,arch", TARGETS, ids=[f"{p}-{a}" for p, a in TARGETS])
@pytest.mark.parametrize("path", KERNELS or [pytest.param(None, marks=pytest.mark.skip(
    reason="no conformance kernels in tests/kernels yet"))],
    ids=[p.name for p in KERNELS] or ["none"])
def test_conformance_kernel_compiles(gpu_toolchain, path, platform, arch):
    tool = gpu_toolchain(platform)
    source = path.read_text()
    exprs = name_expressions(source)
    program = tool.compile(source, arch=arch, name_expressions=exprs, filename=path.name)
    assert program.binary[:4] == b"\x7fELF"
    for expr in exprs:
        assert expr in program.kernels, f"{expr} not resolved: {sorted(program.kernels)}"
    assert program.kernels, "no kernel in the binary"


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_90"), ("amd", "gfx90a")])
def test_openhip_compile_without_a_device(gpu_toolchain, platform, arch, isolated_cache):
    gpu_toolchain(platform)
    import openhip

    src = ('extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n')
    binary = openhip.compile(src, platform=platform, arch=arch)
    assert binary[:4] == b"\x7fELF"
    assert openhip.compile(src, platform=platform, arch=arch) == binary  # cached


def _cc(*args, cwd):
    return subprocess.run([sys.executable, "-m", "openhip", "cc", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_cc_amd_code_object(gpu_toolchain, tmp_path, isolated_cache):
    gpu_toolchain("amd")
    (tmp_path / "k.hip").write_text(
        "#include <hip/hip_runtime.h>\ntemplate <typename T> __global__ void scale(T* x, T a)"
        " { x[threadIdx.x] *= a + T(VALUE); }\n")
    proc = _cc("--platform", "amd", "--arch", "gfx90a", "k.hip", "-o", "k.co", "-D", "VALUE=1",
               "--name-expression", "scale<float>", "--symbols", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["kernels"]["scale<float>"] == "_Z5scaleIfEvPT_S0_"
    assert (tmp_path / "k.co").read_bytes()[:4] == b"\x7fELF"


def test_cc_nvidia_cubin_and_ptx(gpu_toolchain, tmp_path, isolated_cache):
    gpu_toolchain("nvidia")
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "v.h").write_text("#define VALUE 3\n")
    (tmp_path / "k.hip").write_text('#include "v.h"\nextern "C" __global__ void k(int* a)'
                                    " { a[0] = VALUE; }\n")
    proc = _cc("--platform", "nvidia", "--arch", "sm_90", "-I", "inc", "k.hip", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.cubin").read_bytes()[:4] == b"\x7fELF"
    proc = _cc("--platform", "nvidia", "--arch", "sm_90", "--ptx", "-I", "inc", "k.hip",
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ".entry k" in (tmp_path / "k.ptx").read_text()


def test_cc_errors(gpu_toolchain, tmp_path, isolated_cache):
    gpu_toolchain("amd")
    (tmp_path / "bad.hip").write_text("__global__ void k() {\n  nope();\n}\n")
    proc = _cc("--platform", "amd", "--arch", "gfx1030", "bad.hip", cwd=tmp_path)
    assert proc.returncode == 1
    assert "bad.hip:2:" in proc.stderr
    proc = _cc("--platform", "amd", "--arch", "gfx942", "bad.hip", cwd=tmp_path)
    assert proc.returncode == 2 and "gfx942" in proc.stderr  # refused, not aborted
    proc = _cc("--platform", "amd", "--arch", "gfx90a", "missing.hip", cwd=tmp_path)
    assert proc.returncode == 2


C_HEADERS_KERNEL = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cstddef>
#include <climits>
#include <cfloat>
#include <cmath>
#include <cassert>
#include <stdint.h>
#include <math.h>
extern "C" __global__ void c_headers(int* a, float* f, int64_t* q) {
    printf("thread %d\n", (int)threadIdx.x);
    memcpy(a, a + 1, sizeof(int));
    memset(a + 2, 0, sizeof(int));
    int* p = (int*)malloc(16);
    free(p);
    q[0] = INT64_MAX + INT_MIN;
    f[0] = FLT_EPSILON + sqrtf(f[1]) + (float)M_PI;
    assert(a[0] >= 0);
    if (a[3] < 0) abort();
}
"""


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_90"), ("amd", "gfx90a")])
def test_c_headers_kernels_include(gpu_toolchain, platform, arch):
    """The C headers kernels commonly include resolve under NVRTC (which ships none) and under
    hiprtc (whose host headers clash with HIP's pre-included ones)."""
    tool = gpu_toolchain(platform)
    assert "c_headers" in tool.compile(C_HEADERS_KERNEL, arch=arch).kernels


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_80"), ("amd", "gfx1030")])
def test_user_headers_are_cache_dependencies(gpu_toolchain, platform, arch, tmp_path, isolated_cache):
    """Editing a header the kernel includes through -I rebuilds it (the cache re-checks the
    dependencies the toolchain lists)."""
    gpu_toolchain(platform)
    import openhip

    (tmp_path / "inc").mkdir()
    header = tmp_path / "inc" / "value.h"
    header.write_text('#include "more.h"\n#define VALUE 1\n')
    (tmp_path / "inc" / "more.h").write_text("#define MORE 2\n")
    src = ('#include "value.h"\nextern "C" __global__ void k(int* a) { a[0] = VALUE + MORE; }\n')
    opts = [f"-I{tmp_path / 'inc'}"]
    program = openhip.compile_program(src, platform=platform, arch=arch, options=opts)
    assert sorted(program.metadata["dependencies"]) == sorted(
        [str(header), str(tmp_path / "inc" / "more.h")])
    first = program.binary
    header.write_text('#include "more.h"\n#define VALUE 12345\n')
    assert openhip.compile(src, platform=platform, arch=arch, options=opts) != first
