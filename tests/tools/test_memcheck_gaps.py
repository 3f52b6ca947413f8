"""Issue #15, memcheck's fourth session: what the checked mode now sees and how it is built.

* a module that cannot make a misaligned access (no pointer cast, no packed type) is built
  without UBSan's alignment checks (they kept GCC from moving any store out of a thread loop);
  its bounds are still checked; a module with a cast keeps them;

Each checked run is a child process (the mode is per process); the helpers are
test_memcheck.py's. CPU platform with GCC only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_memcheck import run_child  # noqa: E402


@pytest.fixture
def cpu(device):
    if device.platform != "cpu":
        pytest.skip("memcheck is a CPU-platform feature (GPUs have compute-sanitizer)")
    if device._platform.compiler.is_clang:
        pytest.skip("memcheck mode needs GCC (-fsanitize=kernel-address with GCC's ABI)")
    return device


NO_CAST = '''
#include <hip/hip_runtime.h>
extern "C" __global__ void copy_one_more(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) y[i] = x[i];  // BAD: copy_one_more
}
'''


def test_alignment_checks_only_where_a_cast_can_misalign():
    from openhip.tools.memcheck.flags import ALIGNMENT_FLAGS, for_sources, needs_alignment_checks

    assert needs_alignment_checks(["float4 v = reinterpret_cast<const float4*>(x + 1)[i];"])
    assert needs_alignment_checks(["int* p = (int*)(bytes + 1);", ""])
    assert needs_alignment_checks(["float* p = static_cast<float*>(raw);"])
    assert needs_alignment_checks(["struct __attribute__((packed)) S { char c; int i; };"])
    assert not needs_alignment_checks([NO_CAST, "void f(float*);", "int k = (a * b);"])
    assert not needs_alignment_checks(["int k = static_cast<int>(v);"])
    flags = ["-g", *ALIGNMENT_FLAGS, "-include", "h.h"]
    assert for_sources(flags, [NO_CAST]) == ["-g", "-include", "h.h"]
    assert for_sources(flags, ["(float4*)p;"]) == flags


def test_a_module_without_casts_is_checked_without_alignment_checks(cpu):
    proc = run_child(f"""
        plain = hip.Module({NO_CAST!r}, name="no_cast.hip")
        print("ALIGN", any("alignment" in f for f in plain.program.metadata["flags"]),
              any("alignment" in f for f in mod.program.metadata["flags"]))
        report(lambda: plain.get_function('copy_one_more')(1, 128, (x, y, 99)))
        print("R1", np.array_equal(y.get(), np.arange(100, dtype=np.float32)))
        report(lambda: plain.get_function('copy_one_more')(1, 128, (x, y, 100)))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ALIGN False True" in proc.stdout, proc.stdout
    assert "R1 True" in proc.stdout, proc.stdout
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert out[0] == "NOERROR", out
    parts = [p.strip() for p in out[1].split(" | ", 1)[1].split(" ## ")]
    assert parts[0].endswith("Invalid __global__ read of size 4 bytes (out of bounds)"), parts
    assert parts[1] == "at no_cast.hip:5 in copy_one_more", parts
    assert parts[2] == "by thread (100,0,0) in block (0,0,0) of kernel 'copy_one_more'", parts
