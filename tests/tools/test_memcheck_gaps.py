"""Issue #15, memcheck's fourth session: what the checked mode now sees and how it is built.

* a module that cannot make a misaligned access (no pointer cast, no packed type) is built
  without UBSan's alignment checks (they kept GCC from moving any store out of a thread loop);
  its bounds are still checked; a module with a cast keeps them;
* initcheck: a copy to the host of device memory never written, and a block's read of shared
  memory it never wrote, are reported;

Each checked run is a child process (the mode is per process); the helpers are
test_memcheck.py's. CPU platform with GCC only."""

from __future__ import annotations

import re
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


def test_initcheck_reports_a_host_copy_of_memory_never_written(cpu):
    """--tool initcheck: copying to the host device memory that nothing wrote fails before
    anything is copied (hipErrorInvalidValue) with compute-sanitizer's "Host API uninitialized
    memory access" and where the first such byte is; the written half copies clean; a device
    copy carries the never-written state to its destination; a queued copy is checked when it
    runs (after the kernel queued before it wrote its source). (The kernel writing the whole
    of an empty 400-byte array in 4-byte pieces was a false "out of bounds" before: the last
    granule, half written, read as the allocation's end.)"""
    proc = run_child("""
        e = hip.empty(100, np.float32)
        report(lambda: mod.get_function('off_by_one_fixed')(1, 128, (x, e, 50)))
        h = np.full(100, -1, np.float32)
        report(lambda: hip.memcpy_dtoh(h[:50], e, 200))
        print("R1", np.array_equal(h[:50], 2 * np.arange(50)))
        report(lambda: hip.memcpy_dtoh(h, e, 400))
        print("R2", bool((h[50:] == -1).all()))
        d = hip.empty(100, np.float32)
        report(lambda: hip.memcpy_dtod(d, e, 400))
        report(lambda: hip.memcpy_dtoh(h, d, 400))
        s = hip.Stream()
        q = hip.empty(100, np.float32)
        mod.get_function('off_by_one_fixed')(1, 128, (x, q, 100), stream=s)
        report(lambda: (hip.memcpy_dtoh_async(h, q, s), s.synchronize()))
        print("R3", np.array_equal(h, 2 * np.arange(100)))
    """, extra_env={"OPENHIP_MEMCHECK_TOOL": "initcheck"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "R1 True" in proc.stdout and "R2 True" in proc.stdout, proc.stdout
    assert "R3 True" in proc.stdout, proc.stdout
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert len(out) == 6, proc.stdout
    assert [out[i] for i in (0, 1, 3, 5)] == ["NOERROR"] * 4, out
    for line in (out[2], out[4]):
        parts = [p.strip() for p in line.split(" | ", 1)[1].split(" ## ")]
        assert line.startswith("HIPERROR hipErrorInvalidValue"), line
        assert parts[0].endswith("Host API uninitialized memory access: hipMemcpy reads 400 "
                                 "bytes of __global__ memory (never written)"), parts
        assert re.fullmatch(r"the range starts at 0x[0-9a-f]+", parts[1]), parts
        assert re.fullmatch(r"Address 0x[0-9a-f]+ is 200 bytes inside the 400-byte allocation "
                            r"at 0x[0-9a-f]+", parts[2]), parts


SHARED_UNINIT = {
    # kernel -> (launch, thread)
    "shared_uninit": ("mod.get_function('shared_uninit')(1, 64, (w, y), shared_mem=256)",
                      "58,0,0"),
    "static_uninit": ("mod.get_function('static_uninit')(1, 64, (w, y))", "4,0,0"),
}


@pytest.mark.parametrize("kernel", sorted(SHARED_UNINIT))
def test_initcheck_reports_shared_memory_read_before_written(cpu, kernel):
    """--tool initcheck: a block's read of shared memory (dynamic or a static array) that no
    thread of the block wrote is reported with the thread and the line; each block starts
    with its shared memory never written (the same slots written by an earlier block or
    launch do not count); bytes a memcpy wrote count as written (GCC leaves the call
    unchecked: the module's own memcpy marks them)."""
    from test_memcheck import bad_line

    launch, thread = SHARED_UNINIT[kernel]
    proc = run_child(f"""
        report(lambda: mod.get_function('shared_uninit_fixed')(2, 64, (w, y), shared_mem=256))
        t = np.arange(64)
        print("R1", np.array_equal(y.get()[:64], (63 - t + (t + 1) % 64).astype(np.float32)))
        report(lambda: mod.get_function('shared_memcpy')(1, 64, (w, y, 1)))
        print("R2", np.array_equal(y.get()[:64], ((t + 1) % 64).astype(np.float32)))
        report(lambda: {launch})
    """, extra_env={"OPENHIP_MEMCHECK_TOOL": "initcheck"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "R1 True" in proc.stdout and "R2 True" in proc.stdout, proc.stdout
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert out[:2] == ["NOERROR", "NOERROR"], out
    assert out[2].startswith("HIPERROR hipErrorIllegalAddress | "), out
    parts = [p.strip() for p in out[2].split(" | ", 1)[1].split(" ## ")]
    assert parts[0].endswith("Uninitialized __shared__ memory read of size 4 bytes (never "
                             "written)"), parts
    assert parts[1] == f"at memcheck_kernels.hip:{bad_line(kernel)} in {kernel}", parts
    assert parts[2] == f"by thread ({thread}) in block (0,0,0) of kernel '{kernel}'", parts


VOLATILE_SHARED = '''
#include <hip/hip_runtime.h>
#include <type_traits>
extern "C" __global__ void qualified_shared(int* out) {
    volatile __shared__ int flag;
    static volatile __shared__ int tile[64];
    const __shared__ int* alias;
    static_assert(std::is_volatile<decltype(flag)>::value, "flag lost volatile");
    static_assert(std::is_volatile<std::remove_extent<decltype(tile)>::type>::value,
                  "tile lost volatile");
    if (threadIdx.x == 0) { flag = 7; alias = nullptr; }
    tile[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[63 - threadIdx.x] + flag + (alias == nullptr);
}
'''


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "initcheck"])
def test_qualifiers_before_shared_stay_on_the_variable(cpu, tool):
    """Checked mode's __shared__ starts with a guard declaration: a qualifier written before
    it (``volatile __shared__ int flag``) must still qualify the user's variable (it qualified
    the guard: the static_asserts failed to compile), under every tool; results as written."""
    proc = run_child(f"""
        q = hip.Module({VOLATILE_SHARED!r}, name="qualified.hip")
        out = hip.zeros(64, np.int32)
        report(lambda: q.get_function('qualified_shared')(1, 64, (out,)))
        print("OUT", np.array_equal(out.get(), 63 - np.arange(64) + 8))
    """, extra_env={"OPENHIP_MEMCHECK_TOOL": tool})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "NOERROR" in proc.stdout and "OUT True" in proc.stdout, proc.stdout + proc.stderr[-2000:]


def test_pointer_alignment_table():
    from openhip.tools.memcheck.flags import pointer_alignments

    got = pointer_alignments([("x", "const float* __restrict__"), ("n", "int"),
                              ("v", "float4 *"), ("d", "double*"), ("b", "unsigned char*"),
                              ("p", "float**"), ("t", "T*"), ("h", "const __half*"),
                              ("u", "unsigned long long *")])
    assert got == [[0, 4, "x", "const float* __restrict__"], [2, 16, "v", "float4 *"],
                   [3, 8, "d", "double*"], [7, 2, "h", "const __half*"],
                   [8, 8, "u", "unsigned long long *"]]


def test_misaligned_pointer_argument_of_a_module_without_casts(cpu):
    """A module without casts is built without per-access alignment checks; a misaligned
    pointer can then only come in as an argument, and the launch checks each pointer argument
    of a known type against its alignment: a misaligned one stops the launch before anything
    runs (hipErrorIllegalAddress, the argument, its type, the kernel and where it is defined,
    the address against its allocation); aligned ones run; outside memcheck nothing is
    checked (no metadata)."""
    body = f"""
        from openhip.runtime.array import MemoryPointer
        plain = hip.Module({NO_CAST!r}, name="no_cast.hip")
        meta = list(plain.program.metadata["kernels"].values())[0]
        print("META", meta.get("argument_alignment"))
        f = plain.get_function('copy_one_more')
        report(lambda: f(1, 128, (x, y, 99)))
        report(lambda: f(1, 128, (MemoryPointer(x.data.mem, 2), y, 10)))
        report(lambda: f(1, 128, (x, MemoryPointer(y.data.mem, 8), 10)))
        want = np.concatenate([np.arange(2), np.arange(11), np.arange(13, 100)])  # y+8 bytes
        print("Y", np.array_equal(y.get(), want.astype(np.float32)))  # the refused one wrote nothing
    """
    proc = run_child(body)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert ("META [[0, 4, 'x', 'const float*'], [1, 4, 'y', 'float*']]" in proc.stdout), \
        proc.stdout
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert out[0] == "NOERROR" and out[2] == "NOERROR", out
    assert out[1].startswith("HIPERROR hipErrorIllegalAddress"), out
    parts = [p.strip() for p in out[1].split(" | ", 1)[1].split(" ## ")]
    assert parts[0].endswith("Invalid __global__ pointer argument 'x' of type 'const float*' "
                             "(misaligned address, 4-byte alignment required)"), parts
    assert parts[1] == ("passed to kernel 'copy_one_more' (no_cast.hip:3) at launch: nothing "
                        "of the kernel ran"), parts
    assert re.fullmatch(r"Address (0x[0-9a-f]+) is 2 bytes inside the 400-byte allocation at "
                        r"0x[0-9a-f]+", parts[2]), parts
    assert "Y True" in proc.stdout, proc.stdout
    unchecked = run_child(body, checked=False)
    assert unchecked.returncode == 0, unchecked.stderr[-3000:]
    assert "META None" in unchecked.stdout, unchecked.stdout


TEMPLATE_NO_CAST = '''
#include <hip/hip_runtime.h>
template <typename T>
__global__ void twice(const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + x[i];
}
'''


def test_misaligned_pointer_argument_of_a_template_instantiation(cpu):
    """A template kernel's pointer arguments are checked with the instantiation's types: 4
    bytes into a buffer is aligned for twice<float>, misaligned for twice<double>."""
    proc = run_child(f"""
        from openhip.runtime.array import MemoryPointer
        t = hip.Module({TEMPLATE_NO_CAST!r}, name="twice.hip",
                       name_expressions=["twice<float>", "twice<double>"])
        buf = hip.zeros(64, np.float64)
        out = hip.zeros(64, np.float64)
        report(lambda: t.get_function('twice<float>')(1, 32, (MemoryPointer(buf.data.mem, 4),
                                                             out, 8)))
        report(lambda: t.get_function('twice<double>')(1, 32, (MemoryPointer(buf.data.mem, 4),
                                                              out, 8)))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert out[0] == "NOERROR", out
    assert out[1].startswith("HIPERROR hipErrorIllegalAddress"), out
    assert ("pointer argument 'x' of type 'const double*' (misaligned address, 8-byte "
            "alignment required)") in out[1], out
    assert "passed to kernel 'twice<double>' (twice.hip:4)" in out[1], out
