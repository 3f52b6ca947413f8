"""Issue #14 item 2: the CPU platform's compile-option allow-list.

Warning flags pass only as ``-W[no-]name[=value]``; every option that names a file or passes
options to another tool (``-Wl,``, ``-Wp,``, ``-Wa,``, ``=file`` forms) is refused with the
accepted list in the error, and what it would have done (load an ld plugin, write a file) does
not happen. The end-to-end checks run in a subprocess: the failure mode of a passed-on
``-Wl,-plugin`` is foreign code running inside the linker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from openhip.platforms.cpu.compiler import normalize_options

SAXPY = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


@pytest.mark.parametrize("opt", [
    "-Wl,-plugin,evil.so", "-Wl,-Map=/tmp/map", "-Wp,-MD,/tmp/deps", "-Wa,-adhln=/tmp/listing",
    "-Wl,--version-script=/etc/passwd", "-fopt-info-all=/tmp/opt", "-fopt-info=/tmp/opt",
    "-fopt-info-vec-missed=/tmp/x", "-W", "-Wformat=/tmp/x", "-Werror=../x", "-Wframe,x",
    "-ffp-contract=/tmp/x", "-o", "-o/tmp/out.so", "-fplugin=evil.so", "-save-temps",
    "-MD", "-MF/tmp/deps", "-include/etc/passwd", "-Xlinker", "evil.o", "-specs=/tmp/specs",
    "-B/tmp", "--param=max-inline-insns-single=1", "-fdump-tree-all", "-wrapper",
])
def test_refused_options_name_the_accepted_list(opt):
    with pytest.raises(ValueError) as info:
        normalize_options([opt])
    message = str(info.value)
    assert repr(opt) in message
    assert "-W[no-]name" in message and "-D, -U, -I" in message


@pytest.mark.parametrize("opt", [
    "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror", "-Werror=return-type",
    "-Wno-error=unused-variable", "-Wformat=2", "-Wframe-larger-than=4096", "-Wc++17-compat",
    "-w", "-g", "-O2", "-DX=1", "-DMSG=\"a,b/c\"", "-UX", "-ffp-contract=off",
    "-fopt-info", "-fopt-info-vec-optimized", "-fno-fast-math",
])
def test_accepted_options_pass(opt):
    flags, _ = normalize_options([opt])
    assert flags == [opt]


@pytest.mark.parametrize("options", [["-DX=1\n#include </etc/passwd>"], ["-D", "X\r\n#line 1"],
                                     ["-Wall\0"], ["-I", "/tmp\n"]])
def test_line_breaks_in_options_are_refused(options):
    with pytest.raises(ValueError, match="line breaks"):
        normalize_options(options)


def test_split_forms_and_ignored_gpu_options(tmp_path):
    flags, std = normalize_options(["-D", "N=4", "-I", str(tmp_path), "-std=c++20",
                                    "--gpu-architecture=sm_90", "-lineinfo"])
    assert flags == ["-DN=4", f"-I{tmp_path}"] and std == "-std=c++20"
    with pytest.raises(ValueError, match="needs a value"):
        normalize_options(["-D"])
    with pytest.raises(TypeError):
        normalize_options([b"-Wall"])


def test_warning_flags_reach_the_compiler(isolated_cache):
    import openhip as hip

    src = SAXPY.replace("int i =", "int unused_thing = 3; int i =")
    program = hip.compile_program(src, platform="cpu", options=("-Wall",))
    assert "unused_thing" in program.log and "Wunused" in program.log
    with pytest.raises(hip.CompileError, match="unused_thing"):
        hip.compile_program(src, platform="cpu", options=("-Werror=unused-variable",))


CHILD = textwrap.dedent("""
    import os, sys
    import openhip as hip
    opt = sys.argv[1]
    try:
        hip.compile_program(sys.stdin.read(), platform="cpu", options=(opt,))
    except ValueError as exc:
        print("REFUSED", exc)
    else:
        print("ACCEPTED")
""")


def _evil_plugin(tmp_path, marker):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler for the planted plugin")
    src = tmp_path / "evil.c"
    src.write_text(textwrap.dedent(f"""
        #include <stdio.h>
        __attribute__((constructor)) static void evil(void) {{
            FILE* f = fopen("{marker}", "w"); if (f) {{ fputs("ran", f); fclose(f); }}
        }}
        int onload(void* tv) {{ (void)tv; return 0; }}
    """))
    lib = tmp_path / "evil.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True,
                   capture_output=True, timeout=60)
    return lib


@pytest.mark.parametrize("form", ["plugin", "map", "deps", "opt-info"])
def test_nothing_the_refused_option_would_do_happens(tmp_path, form):
    marker = tmp_path / "marker"
    if form == "plugin":
        opt = f"-Wl,-plugin,{_evil_plugin(tmp_path, marker)}"
    else:
        opt = {"map": f"-Wl,-Map={marker}", "deps": f"-Wp,-MD,{marker}",
               "opt-info": f"-fopt-info-all={marker}"}[form]
    env = dict(os.environ, OPENHIP_CACHE_DIR=str(tmp_path / "cache"), OPENHIP_PLATFORM="cpu")
    proc = subprocess.run([sys.executable, "-c", CHILD, opt], input=SAXPY, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("REFUSED"), proc.stdout
    assert not marker.exists()


@pytest.mark.parametrize("platform", ["nvidia", "amd"])
@pytest.mark.parametrize("opt", [
    "-Wl,-plugin,evil.so", "-Xclang", "-fplugin=evil.so", "-fpass-plugin=evil.so",
    "-save-temps", "-o", "-MD", "-MF=/tmp/x", "-ftime-trace=/tmp/x", "--time=/tmp/x",
    "--create-pch=/tmp/x", "--use-pch=/tmp/x", "--pch-dir=/tmp", "-Wp,-MD,/tmp/x",
])
def test_gpu_toolchains_refuse_tool_and_file_options(platform, opt):
    if platform == "nvidia":
        from openhip.platforms.nvidia.toolchain import translate_options
    else:
        from openhip.platforms.amd.toolchain import translate_options
    with pytest.raises(ValueError, match="refused"):
        translate_options([opt])


@pytest.mark.parametrize("platform", ["nvidia", "amd"])
def test_gpu_toolchains_keep_ordinary_options(platform):
    if platform == "nvidia":
        from openhip.platforms.nvidia.toolchain import translate_options
        assert translate_options(["-DX=1", "-Wall", "--std=c++17"]) == ["-DX=1", "--std=c++17"]
    else:
        from openhip.platforms.amd.toolchain import translate_options
        assert translate_options(["-DX=1", "-Wall", "-O3"]) == ["-DX=1", "-Wall", "-O3"]
