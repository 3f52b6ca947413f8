"""Device functions HIPIFY calls unsupported that openhip's platforms provide (issue #10 item 6):
hipify keeps them without a warning. The list (tools/hipify_provided.txt) is what the generator's
probe finds declared by every platform's headers; here the probe runs again on each toolchain
this machine has, and a hipified kernel that uses the class runs (the CPU platform where there
is no GPU) and compiles for AMD."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from openhip.hipify import _maps, hipify, maps

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_hipify_maps",
                                                  ROOT / "tools" / "gen_hipify_maps.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_hipify_maps", module)
    spec.loader.exec_module(module)
    return module


GEN = _generator()
TABLES = GEN.DEFAULT_TABLES  #: HIPIFY rocm-7.0.2's tables, in the repository
PROVIDED = GEN.read_provided()


def test_the_issues_examples_are_not_reported_unsupported():
    """Issue #16's examples: HIPIFY rocm-7.0.2 maps the warp shuffles, bf16 and half2 functions
    itself; the rest (umin ...) are in the probed class."""
    assert {"umin", "umax", "llmin", "ullmax"} <= PROVIDED
    table = maps.tables().renames
    for name in ("__shfl_down_sync", "__shfl_up_sync", "__shfl_sync", "__shfl_xor_sync",
                 "__float2bfloat16", "make_half2", "umin", "ullmax"):
        assert table[name].hip == name
        assert not table[name].flags & (maps.UNSUPPORTED | maps.HIP_UNSUPPORTED), name
    assert "mulhi" not in PROVIDED and "__vadd2" not in PROVIDED  # the CPU platform lacks them


def test_generated_flags_follow_the_list():
    table = maps.tables().renames
    marked = {n for n, e in table.items() if e.flags & maps.OPENHIP_PROVIDED}
    assert marked == PROVIDED
    for name in PROVIDED:
        entry = table[name]
        assert entry.hip == name and entry.kind == maps.KIND_DEVICE_FUNCTION
        assert not entry.flags & (maps.UNSUPPORTED | maps.HIP_UNSUPPORTED)
    assert _maps.FLAGS[-1] == "OPENHIP_PROVIDED"
    assert table["mulhi"].flags & maps.UNSUPPORTED  # HIPIFY's fact kept where it holds


def test_every_provided_name_is_one_hipify_called_unsupported():
    assert PROVIDED <= set(GEN.unsupported_device_functions(TABLES))


@pytest.mark.parametrize("name", sorted(PROVIDED))
def test_provided_names_are_kept_without_a_warning(name):
    r = hipify(f"__global__ void k(float* x) {{ x[0] = {name}(x[1], x[2]); }}\n",
               filename="p.cu")
    assert not [w for w in r.warnings if name in w.message], r.warnings
    assert f"{name}(x[1], x[2])" in r.text


def test_names_the_platforms_lack_still_warn():
    r = hipify("__global__ void k(int* x) { x[0] = mulhi(x[1], x[2]) + __vadd2(x[3], x[4]); }\n",
               filename="m.cu")
    messages = [str(w) for w in r.warnings]
    assert "m.cu:1:36: warning: 'mulhi' is unsupported in 'HIP'." in messages
    assert any("'__vadd2' is unsupported in 'HIP'." in m for m in messages)


@pytest.mark.parametrize("platform", GEN.PROBE_PLATFORMS)
def test_each_platform_declares_every_provided_name(platform):
    """The probe on this machine's toolchain: every listed name is declared; with all three
    toolchains present the list is exactly what they all declare (the class is complete)."""
    names = GEN.unsupported_device_functions(TABLES)
    try:
        declared = GEN.probe(platform, names)
    except RuntimeError as exc:
        pytest.skip(f"{platform}: {exc}")
    assert PROVIDED <= declared, sorted(PROVIDED - declared)
    assert declared < set(names)  # the probe can tell a missing name (mulhi on every platform)


def test_the_list_is_the_intersection_when_every_toolchain_is_here():
    names = GEN.unsupported_device_functions(TABLES)
    found = set(names)
    for platform in GEN.PROBE_PLATFORMS:
        try:
            found &= GEN.probe(platform, names)
        except RuntimeError as exc:
            pytest.skip(f"{platform}: {exc}")
    assert found == PROVIDED


def test_probe_reports_an_unexpected_diagnostic():
    with pytest.raises(RuntimeError, match="unexpected diagnostic"):
        GEN._undeclared("probe.cpp:999:3: error: 'x' was not declared in this scope", {5: "x"})


CUDA_KERNEL = r"""
#include <cuda_runtime.h>
#include <cuda_bf16.h>
__global__ void uses(const unsigned* a, const unsigned* b, unsigned* lo, float* sums,
                     float* bf, float* cached) {
    int i = threadIdx.x;
    lo[i] = umin(a[i], b[i]) + umax(a[i], b[i]) * 0u + (unsigned)(ullmin(a[i], 7ull) * 0ull);
    float v = (float)a[i];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (i == 0) sums[0] = v;
    float up = __shfl_up_sync(0xffffffffu, (float)i, 1);
    sums[1 + i] = up;
    bf[i] = __bfloat162float(__float2bfloat16((float)a[i] + 0.5f));
    __stcg(cached + i, __ldcv(sums + 1 + i) * 2.0f);
}
"""


def test_a_hipified_kernel_using_them_runs(isolated_cache):
    """On the default device (the CPU platform here), against numpy."""
    import openhip as hip

    r = hipify(CUDA_KERNEL, filename="uses.cu")
    assert not r.warnings, [str(w) for w in r.warnings]
    rng = np.random.default_rng(3)
    a = rng.integers(0, 1000, 32).astype(np.uint32)
    b = rng.integers(0, 1000, 32).astype(np.uint32)
    bufs = [hip.asarray(a), hip.asarray(b), hip.zeros(32, np.uint32), hip.zeros(33, np.float32),
            hip.zeros(32, np.float32), hip.zeros(32, np.float32)]
    k = hip.Module(CUDA_KERNEL, language="cuda").get_function("uses")
    k(1, 32, tuple(bufs))
    lo, sums, bf, cached = (x.get() for x in bufs[2:])
    np.testing.assert_array_equal(lo, np.minimum(a, b))
    assert sums[0] == a.astype(np.float64).sum()
    up = np.arange(32, dtype=np.float32)
    up[1:] = up[:-1]  # lane 0 keeps its own value
    np.testing.assert_array_equal(sums[1:], up)
    bf_ref = (a.astype(np.float32) + 0.5).view(np.uint32)
    bf_ref = ((bf_ref + 0x7FFF + ((bf_ref >> 16) & 1)) & 0xFFFF0000).view(np.float32)
    np.testing.assert_array_equal(bf, bf_ref)
    np.testing.assert_array_equal(cached, up * 2)


def test_the_same_kernel_compiles_for_amd():
    sys.path.insert(0, str(ROOT / "tests" / "platforms" / "nvidia"))
    from gpu_helpers import hiprtc_toolchain

    tool = hiprtc_toolchain()
    text = hipify(CUDA_KERNEL, filename="uses.cu").text
    assert tool.compile(text, arch="gfx90a", name_expressions=["uses"]).kernels["uses"]
