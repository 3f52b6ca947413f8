"""`openhip hipify --local-headers[-recursive]`: the quoted headers a source includes are
translated to HEADER.hip (hipify-clang's naming), found as the compiler finds them; and the HIP
runtime header that every .cu file gets (nvcc's implicit cuda_runtime.h)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from openhip.cli.hipify import run
from openhip.hipify import hipify
from openhip.hipify.local_headers import local_headers, quoted_includes, resolve

MAIN = """\
#include <cuda_runtime.h>
#include "a.h"
#include "sub/b.h" /* a block comment after the include */
#include <sys_style.h>
#include "cuda_runtime.h"
// #include "commented.h"
const char *s = "#include \\"in_string.h\\"";
#include "a.h"
__global__ void k(float *x) { x[threadIdx.x] = 0; }
int main() { float *d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); return 0; }
"""
A_H = """\
#ifndef A_H
#define A_H
#include "c.h"
inline void a_sync() { cudaDeviceSynchronize(); }
#endif
"""
B_H = "#pragma once\ninline cudaError_t b_free(void *p) { return cudaFree(p); }\n"
C_H = "#ifndef C_H\n#define C_H\ninline void c_reset() { cudaDeviceReset(); }\n#endif\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "main.cu").write_text(MAIN)
    (root / "a.h").write_text(A_H)
    (root / "sub" / "b.h").write_text(B_H)
    (root / "c.h").write_text(C_H)
    (root / "sys_style.h").write_text("inline void s() { cudaDeviceSynchronize(); }\n")
    (root / "cuda_runtime.h").write_text("// a local file named like CUDA's header\n")
    (root / "commented.h").write_text("int cudaMalloc;\n")
    (root / "in_string.h").write_text("int cudaFree;\n")
    return root


def hip_outputs(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.hip"))


def test_direct_headers_translated_beside_them(tree, tmp_path, capsys):
    out = tmp_path / "main.hip"
    assert run([str(tree / "main.cu"), "-o", str(out), "--local-headers"]) == 0
    # the quoted includes only: not <sys_style.h>, not CUDA's "cuda_runtime.h", not the ones in a
    # comment or a string, not c.h (included by a.h: only with --local-headers-recursive)
    assert hip_outputs(tree) == ["a.h.hip", "sub/b.h.hip"]
    assert (tree / "a.h.hip").read_text() == (
        "#ifndef A_H\n#include <hip/hip_runtime.h>\n#define A_H\n#include \"c.h\"\n"
        "inline void a_sync() { hipDeviceSynchronize(); }\n#endif\n")
    assert (tree / "sub" / "b.h.hip").read_text() == (
        "#pragma once\n#include <hip/hip_runtime.h>\ninline hipError_t b_free(void *p) { return hipFree(p); }\n")
    main = out.read_text()
    assert '#include "a.h"\n#include "sub/b.h"' in main and "hipMalloc(&d, 4)" in main
    assert (tree / "a.h").read_text() == A_H  # the inputs are untouched
    assert capsys.readouterr().err == ""


def test_recursive_follows_the_headers_includes(tree, tmp_path):
    assert run([str(tree / "main.cu"), "-o", str(tmp_path / "m.hip"), "--local-headers-recursive"]) == 0
    assert hip_outputs(tree) == ["a.h.hip", "c.h.hip", "sub/b.h.hip"]
    assert "hipDeviceReset();" in (tree / "c.h.hip").read_text()


def test_without_the_option_no_header_is_written(tree, tmp_path):
    assert run([str(tree / "main.cu"), "-o", str(tmp_path / "m.hip")]) == 0
    assert hip_outputs(tree) == []


def test_cycles_and_diamonds_terminate(tmp_path):
    # x.h -> y.h -> x.h and both -> z.h; a hang is the failure mode, so run in a subprocess
    (tmp_path / "m.cu").write_text('#include "x.h"\n#include "y.h"\n')
    (tmp_path / "x.h").write_text('#pragma once\n#include "y.h"\n#include "z.h"\nvoid x() { cudaFree(0); }\n')
    (tmp_path / "y.h").write_text('#pragma once\n#include "x.h"\n#include "z.h"\nvoid y() { cudaFree(0); }\n')
    (tmp_path / "z.h").write_text('#pragma once\nvoid z() { cudaFree(0); }\n')
    code = f"from openhip.cli.hipify import run; raise SystemExit(run({[str(tmp_path / 'm.cu'), '-o', str(tmp_path / 'm.hip'), '--local-headers-recursive', '--print-stats']!r}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert hip_outputs(tmp_path) == ["m.hip", "x.h.hip", "y.h.hip", "z.h.hip"]
    # each header translated once: one statistics block per file, then the total
    for name in ("x.h", "y.h", "z.h"):
        assert result.stderr.count(f"{name}' statistics") == 1
    assert "GLOBAL" in result.stderr


def test_include_dirs_and_normalised_paths(tmp_path):
    proj, inc = tmp_path / "proj", tmp_path / "inc"
    (proj / "d").mkdir(parents=True)
    inc.mkdir()
    (proj / "m.cu").write_text('#include "d/./../d/h1.h"\n#include "h2.h"\n#include "h3.h"\n')
    (proj / "d" / "h1.h").write_text("void f() { cudaFree(0); }\n")
    (inc / "h2.h").write_text("void g() { cudaFree(0); }\n")
    (inc / "h3.h").write_text("void h() { cudaFree(0); }\n")
    (proj / "h3.h").write_text("void h_local() { cudaFree(0); }\n")  # the includer's folder comes first
    assert run([str(proj / "m.cu"), "-o", str(tmp_path / "m.hip"), "--local-headers", "-I", str(inc)]) == 0
    assert hip_outputs(tmp_path) == ["inc/h2.h.hip", "m.hip", "proj/d/h1.h.hip", "proj/h3.h.hip"]
    (tmp_path / "inc" / "h2.h.hip").unlink()
    # -I after '--' (compiler options) is searched too
    assert run([str(proj / "m.cu"), "-o", str(tmp_path / "m.hip"), "--local-headers", "--", f"-I{inc}"]) == 0
    assert (inc / "h2.h.hip").read_text() == "#include <hip/hip_runtime.h>\nvoid g() { hipFree(0); }\n"


def test_missing_header_is_a_warning_with_the_line(tmp_path, capsys):
    (tmp_path / "m.cu").write_text('#include <cuda.h>\n\n#include "nowhere.h"\nvoid f() { cudaFree(0); }\n')
    assert run([str(tmp_path / "m.cu"), "-o", str(tmp_path / "m.hip"), "--local-headers"]) == 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'm.cu'}:3: warning: local header \"nowhere.h\" not found" in err
    assert "hipFree(0);" in (tmp_path / "m.hip").read_text()
    assert run([str(tmp_path / "m.cu"), "-o", str(tmp_path / "m.hip"), "--local-headers", "--quiet-warnings"]) == 0
    assert capsys.readouterr().err == ""


def test_bad_header_fails_the_run_but_not_the_rest(tmp_path, capsys):
    (tmp_path / "m.cu").write_text('#include "bin.h"\n#include "good.h"\nvoid f() { cudaFree(0); }\n')
    (tmp_path / "bin.h").write_bytes(b"\x7fELF\x00\x01")
    (tmp_path / "good.h").write_text("void g() { cudaFree(0); }\n")
    assert run([str(tmp_path / "m.cu"), "-o", str(tmp_path / "m.hip"), "--local-headers"]) == 1
    assert "bin.h: binary file" in capsys.readouterr().err
    assert hip_outputs(tmp_path) == ["good.h.hip", "m.hip"]


def test_output_dir_keeps_the_layout(tree, tmp_path, capsys):
    out = tmp_path / "out"
    assert run([str(tree / "main.cu"), "--output-dir", str(out), "--local-headers-recursive"]) == 0
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        "a.h", "c.h", "main.cu", "sub/b.h"]  # the translated tree compiles as it stands
    assert "hipFree(p)" in (out / "sub" / "b.h").read_text()
    assert hip_outputs(tree) == []


def test_inplace_translates_the_headers_in_place(tree):
    assert run([str(tree / "main.cu"), "--inplace", "--local-headers"]) == 0
    assert "hipDeviceSynchronize();" in (tree / "a.h").read_text()
    assert (tree / "a.h.prehip").read_text() == A_H
    assert hip_outputs(tree) == []
    assert "cudaDeviceReset" in (tree / "c.h").read_text()  # not included by main.cu itself


def test_examine_writes_nothing_and_counts_the_headers(tree, capsys):
    assert run([str(tree / "main.cu"), "--examine", "--local-headers"]) == 0
    err = capsys.readouterr().err
    assert hip_outputs(tree) == [] and "a.h" in err and "GLOBAL" in err


def test_header_shared_by_inputs_and_header_given_as_input(tree, tmp_path, capsys):
    (tree / "second.cu").write_text('#include "a.h"\nvoid g() { cudaFree(0); }\n')
    out = tmp_path / "out"
    # a directory: a.h, c.h and sub/b.h are inputs themselves, and are translated once
    assert run([str(tree), "--output-dir", str(out), "--local-headers-recursive", "--print-stats"]) == 0
    err = capsys.readouterr().err
    for name in ("a.h", "b.h", "c.h"):
        assert err.count(f"{name}' statistics") == 1, name
    assert hip_outputs(tree) == []
    assert "hipDeviceSynchronize();" in (out / "a.h").read_text()


def test_runtime_header_in_every_cu_file(tmp_path, capsys):
    (tmp_path / "plain.cu").write_text('#include "d.h"\nint main() { return 0; }\n')
    (tmp_path / "plain.cpp").write_text('#include "d.h"\nint main() { return 0; }\n')
    (tmp_path / "guard.cuh").write_text("#ifndef G\n#define G\nint f();\n#endif\n")
    (tmp_path / "has.cu").write_text("#include <cuda_runtime.h>\nint main() { return 0; }\n")
    for name, expected in [
        ("plain.cu", '#include <hip/hip_runtime.h>\n#include "d.h"\nint main() { return 0; }\n'),
        ("plain.cpp", '#include "d.h"\nint main() { return 0; }\n'),
        ("guard.cuh", "#ifndef G\n#include <hip/hip_runtime.h>\n#define G\nint f();\n#endif\n"),
        ("has.cu", "#include <hip/hip_runtime.h>\nint main() { return 0; }\n"),
    ]:
        assert run([str(tmp_path / name)]) == 0
        assert capsys.readouterr().out == expected, name
    assert run([str(tmp_path / "plain.cu"), "--no-implicit-runtime-header"]) == 0
    assert capsys.readouterr().out == '#include "d.h"\nint main() { return 0; }\n'
    # the library keeps its default (kernel sources from Python get no include added)
    assert hipify("int main() { return 0; }\n", filename="x.cu").text == "int main() { return 0; }\n"
    with pytest.raises(ValueError, match="runtime_header"):
        hipify("", runtime_header="sometimes")


def test_library_functions(tmp_path):
    text = textwrap.dedent("""\
        #include "a.h" // comment
        /* #include "in_comment.h" */
          #  include "spaced.h"
        #include <angled.h>
        #if 0
        #include "dead.h"
        #endif
    """)
    assert quoted_includes(text) == [("a.h", 1), ("spaced.h", 3), ("dead.h", 6)]
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "y.h").write_text("")
    assert resolve("x/../x/./y.h", tmp_path / "m.cu", []) == (tmp_path / "x" / "y.h").resolve()
    assert resolve("y.h", tmp_path / "m.cu", [tmp_path / "x"]) == (tmp_path / "x" / "y.h").resolve()
    assert resolve("nope.h", tmp_path / "m.cu", [tmp_path / "x"]) is None
    (tmp_path / "m.cu").write_text('#include "x/y.h"\n#include "cufft.h"\n#include "gone.h"\n')
    found = local_headers(tmp_path / "m.cu", (tmp_path / "m.cu").read_text(),
                          is_cuda_header=lambda name: name == "cufft.h")
    assert [h.spelled for h in found.headers] == ["x/y.h"] and found.headers[0].line == 1
    assert [(m.spelled, m.line) for m in found.missing] == [("gone.h", 3)]


def test_inactive_branches_not_followed_with_default_preprocessor(tmp_path):
    (tmp_path / "m.cu").write_text('#ifdef USE_X\n#include "x.h"\n#else\n#include "y.h"\n#endif\n')
    (tmp_path / "x.h").write_text("void x() { cudaFree(0); }\n")
    (tmp_path / "y.h").write_text("void y() { cudaFree(0); }\n")
    args = [str(tmp_path / "m.cu"), "-o", str(tmp_path / "m.hip"), "--local-headers"]
    assert run(args + ["--default-preprocessor"]) == 0
    assert hip_outputs(tmp_path) == ["m.hip", "y.h.hip"]
    assert run(args + ["--default-preprocessor", "-DUSE_X"]) == 0
    assert hip_outputs(tmp_path) == ["m.hip", "x.h.hip", "y.h.hip"]
