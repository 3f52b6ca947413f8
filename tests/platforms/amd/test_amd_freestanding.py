"""hiprtc without compiler resource headers (issue #14 item 12): Debian's ROCm 5.2 hiprtc looks for
clang 15's ``stdarg.h``/``stdbool.h``..., which a fresh machine lacks, so ``<cstdio>`` failed with
"'stdarg.h' file not found". openhip's ``freestanding/`` set is searched after every system
directory: it serves where the resource headers are missing and yields where they exist.
Skips where libamdhip64/hiprtc are not installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from openhip.platforms.amd.toolchain import FREESTANDING_DIR, INCLUDE_DIR

sys.path.insert(0, str(Path(__file__).parents[1] / "nvidia"))
from gpu_helpers import hiprtc_toolchain  # noqa: E402

FREESTANDING = ["stdarg.h", "stdbool.h", "stdalign.h", "iso646.h", "stdnoreturn.h"]

USES_THEM = r"""
#include <hip/hip_runtime.h>
#include <cstdarg>
#include <cstdio>
#include <stdarg.h>
#include <stdbool.h>
#include <stdalign.h>
#include <iso646.h>
#include <stdnoreturn.h>
#include <cwchar>
static_assert(__bool_true_false_are_defined && __alignas_is_defined, "feature macros");
static_assert(sizeof(va_list) == sizeof(__gnuc_va_list), "glibc's va_list");
struct holder { va_list ap; };
extern "C" __global__ void k(int* a, bool* b) {
    bool f = a[0] > 0 and a[1] > 0;
    b[threadIdx.x] = f;
    alignas(16) int v[4] = {1, 2, 3, 4};
    a[threadIdx.x] = v[threadIdx.x % 4] + (int)sizeof(holder);
    printf("%d\n", a[0]);
}
"""


@pytest.fixture(scope="module")
def hiprtc():
    return hiprtc_toolchain()


def _options(hiprtc, *, freestanding: bool, extra: tuple[str, ...] = ()) -> list[str]:
    opts = hiprtc.hiprtc_options(hiprtc.parse_arch("gfx90a"), list(extra))
    return opts if freestanding else [o for o in opts if str(FREESTANDING_DIR) not in o]


def _compiles(hiprtc, source: str, opts: list[str]) -> tuple[bool, str]:
    ok, log, _binary, _lowered = hiprtc._compile_once(source, "probe.hip", opts, [])
    return ok, log


def test_the_set_is_complete_and_comes_last(hiprtc):
    assert sorted(p.name for p in FREESTANDING_DIR.iterdir()) == sorted(FREESTANDING)
    opts = _options(hiprtc, freestanding=True)
    assert opts.count(f"-idirafter{FREESTANDING_DIR}") == 1
    assert opts.index(f"-I{INCLUDE_DIR}") < opts.index(f"-idirafter{FREESTANDING_DIR}")
    for name in FREESTANDING:  # nothing in openhip's first directory shadows them
        assert not (INCLUDE_DIR / name).exists()


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_c_headers_that_need_the_compilers_own_compile(hiprtc, arch):
    assert "k" in hiprtc.compile(USES_THEM, arch=arch).kernels


@pytest.mark.parametrize("header", FREESTANDING)
def test_served_exactly_where_hiprtc_lacks_the_header(hiprtc, header):
    """Without the set, this hiprtc either finds the header (then the set must not be the one
    used) or does not (then the set's copy is the one used)."""
    src = (f"#include <hip/hip_runtime.h>\n#include <{header}>\n"
           "#ifdef OPENHIP_FREESTANDING_HEADERS\nint openhip_marker_seen;\n#endif\n"
           'extern "C" __global__ void k(int* a) { a[0] = 1; }\n')
    has_own, _ = _compiles(hiprtc, src, _options(hiprtc, freestanding=False))
    detect = src.replace("int openhip_marker_seen;", '#error "openhip copy used"')
    ok, log = _compiles(hiprtc, detect, _options(hiprtc, freestanding=True))
    if has_own:
        assert ok, log
    else:
        assert not ok and "openhip copy used" in log, log
        ok, log = _compiles(hiprtc, src, _options(hiprtc, freestanding=True))
        assert ok, log


def _clang_resource_include() -> Path | None:
    clang = shutil.which("clang")
    if not clang:
        return None
    proc = subprocess.run([clang, "-print-resource-dir"], capture_output=True, text=True,
                          timeout=60)
    path = Path(proc.stdout.strip()) / "include"
    return path if (path / "stdarg.h").is_file() else None


def test_the_compilers_resource_headers_win_where_present(hiprtc):
    """Emulate a hiprtc that finds its resource headers: with clang's on the system path the
    freestanding copies are not used and the kernel still compiles."""
    resource = _clang_resource_include()
    if resource is None:
        pytest.skip("no clang resource headers on this machine to stand in for hiprtc's own")
    src = ("#include <hip/hip_runtime.h>\n#include <cstdio>\n#include <stdarg.h>\n"
           "#include <stdbool.h>\n"
           '#ifdef OPENHIP_FREESTANDING_HEADERS\n#error "openhip copy used"\n#endif\n'
           'extern "C" __global__ void k(int* a) { a[0] = 1; }\n')
    ok, log = _compiles(hiprtc, src, _options(hiprtc, freestanding=True,
                                              extra=("-isystem", str(resource))))
    assert ok, log


def test_the_set_is_packaged():
    setuptools = pytest.importorskip("setuptools")
    root = Path(__file__).parents[3]
    packages = setuptools.find_namespace_packages(str(root), include=["openhip*"])
    assert "openhip.platforms.amd.freestanding" in packages
