"""bench/hipify_unit_tests.py: its FileCheck subset, RUN-line parsing and version gates, on
small inputs with known answers (HIPIFY's own tests cannot be fetched in CI)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "bench" / "hipify_unit_tests.py"
_spec = importlib.util.spec_from_file_location("hipify_unit_tests", _PATH)
scorer = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = scorer  # dataclasses look their module up
_spec.loader.exec_module(scorer)  # type: ignore[union-attr]


def run_checks(output: str, source: str) -> tuple[int, list[str]]:
    _, checks = scorer.parse_test(source)
    return scorer.FileCheck(scorer.strip_comments(output)).run(checks)


def test_check_order_next_same_not():
    src = ("// CHECK: a(1);\n// CHECK-NEXT: b(2);\n// CHECK-SAME: tail\n"
           "// CHECK-NOT: bad\n// CHECK: c;\n")
    assert run_checks("a(1);\nb(2); tail\nc;\n", src) == (5, [])
    found, failures = run_checks("a(1);\nx\nb(2); tail\nbad\nc;\n", src)
    assert found == 3 and failures[0].startswith("line 2: CHECK-NEXT not found")
    assert any("CHECK-NOT matched" in f for f in failures)
    # order: a CHECK before an earlier match is not found
    assert run_checks("c;\na(1);\n", "// CHECK: a(1);\n// CHECK: c;\n")[0] == 1


def test_whitespace_regex_and_variables():
    src = "// CHECK: hipMalloc( &p,   n );\n// CHECK: int {{[a-z]+}}_[[N:[0-9]+]];\n// CHECK: use_[[N]]\n"
    assert run_checks("hipMalloc(\t&p, n );\nint abc_42;\nuse_42\n", src) == (3, [])
    assert run_checks("hipMalloc( &p, n );\nint abc_42;\nuse_43\n", src)[0] == 2


def test_comments_cut_and_prefix_boundaries():
    # run_test.sh cuts '//...' from the output: a CHECK cannot match its own comment line
    src = "// CHECK: hipFree(p);\n// DO-NOT-CHECK: never\ncudaFree(p);\n"
    assert run_checks("// CHECK: hipFree(p);\ncudaFree(p);\n", src)[0] == 0
    assert run_checks("// x\nhipFree(p);\n", src) == (1, [])
    assert len(scorer.parse_test(src)[1]) == 1


def test_run_options():
    words = scorer.parse_test('// RUN: %run_test hipify "%s" "%t" %hipify_args 2 --roc --miopen '
                              '%clang_args -D__X -std=c++17\n// CHECK: x\n')[0]
    assert scorer.run_options(words) == (["--roc", "--miopen"], ["-D__X", "-std=c++17"])
    old = scorer.parse_test('// RUN: %run_test hipify "%s" "%t" --skip-excluded-preprocessor-'
                            'conditional-blocks %hipify_args %clang_args\n')[0]
    opts, _ = scorer.run_options(old)
    assert opts == ["--skip-excluded-preprocessor-conditional-blocks"]


@pytest.mark.parametrize(("name", "version"), [
    ("runtime_functions_12000.cu", None), ("cusparse2rocsparse_10010_12000.cu", 10010),
    ("driver_functions_before_13000.cu", None), ("x_before_12000.cu", 11990),
    ("runtime_functions_12080.cu", 12080), ("cusparselt2hipsparselt_0100_0510.cu", None),
    ("cub_01_LLVM_8.cu", None),
])
def test_version_gates(name, version):
    assert scorer.cuda_version_for(Path(name)) == version


def test_score_file_end_to_end(tmp_path):
    (tmp_path / "t.cu").write_bytes(
        b'// RUN: %run_test hipify "%s" "%t" %hipify_args 1 --roc %clang_args\n'
        b"// caf\xe9: bytes that are not UTF-8\n"
        b"// CHECK: rocblas_handle h;\ncublasHandle_t h;\n// CHECK: wrong;\n")
    score = scorer.score_file(tmp_path / "t.cu", tmp_path)
    assert (score.checks, score.found, score.passed) == (2, 1, False)
    assert "wrong" in score.first_failure
    (tmp_path / "u.cu").write_text('// RUN: %run_test hipify "%s" "%t" %hipify_args 1 --bogus %clang_args\n'
                                   "// CHECK: x\n")
    bad = scorer.score_file(tmp_path / "u.cu", tmp_path)
    assert not bad.passed and "--bogus" in bad.error


def test_run_options_without_count():
    words = scorer.parse_test('// RUN: %run_test hipify "%s" "%t" %hipify_args --local-headers %clang_args -DX\n')[0]
    assert scorer.run_options(words) == (["--local-headers"], ["-DX"])
    # the line ends before %clang_args (it is on the next, comment, line)
    words = scorer.parse_test('// RUN: %run_test hipify "%s" "%t" %hipify_args --local-headers-recursive\n'
                              "// %clang_args\n")[0]
    assert scorer.run_options(words) == (["--local-headers-recursive"], [])


def _local_tree(root: Path, option: str) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "t.cu").write_text(f'// RUN: %run_test hipify "%s" "%t" %hipify_args {option} %clang_args\n'
                               '// CHECK: #include "h.h"\n#include "h.h"\n#include <angled.h>\n')
    (root / "h.h").write_text('#include "sub/g.h"\n// CHECK: hipFree(0);\nvoid f() { cudaFree(0); }\n')
    (root / "sub" / "g.h").write_text("// CHECK: hipMalloc(p, 4);\nvoid g(void **p) { cudaMalloc(p, 4); }\n")
    (root / "angled.h").write_text("void a() { cudaFree(0); }\n")
    return root


@pytest.mark.parametrize(("option", "outputs"), [("--local-headers", ["h.h"]),
                                                 ("--local-headers-recursive", ["h.h", "sub/g.h"])])
def test_local_header_outputs_scored(tmp_path, option, outputs):
    root = _local_tree(tmp_path / "t", option)
    score = scorer.score_file(root / "t.cu", root)
    assert score.passed and score.headers_passed
    assert [h.path for h in score.headers] == outputs and all(h.found == h.checks == 1 for h in score.headers)
    assert not list(root.rglob("*.hip"))  # the run used a copy of the folder
    assert [p.name for p in scorer.expected_headers(root / "t.cu", True)] == ["h.h", "g.h"]


def test_local_header_output_failures_are_found(tmp_path):
    root = _local_tree(tmp_path / "t", "--local-headers")
    (root / "h.h").write_text("// CHECK: hipMemset(\nvoid f() { cudaFree(0); }\n")
    score = scorer.score_file(root / "t.cu", root)
    assert score.passed and not score.headers_passed
    assert score.headers[0].found == 0 and "hipMemset(" in score.headers[0].failures[0]
    # an output for a file that is no local header (an angled include) is reported as stray
    tree = tmp_path / "copy"
    shutil.copytree(root, tree)
    (tree / "angled.h.hip").write_text("")
    result = scorer.FileScore("t.cu")
    scorer.score_headers(tree, tree / "t.cu", False, result)
    assert result.stray == ["angled.h.hip"] and not result.headers_passed


def test_compilation_database_test(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "inc.h").write_text("#define K 4\n")
    (tmp_path / "cd.cu").write_text(
        '// RUN: %run_test hipify "%s" "%t" %hipify_args 1 --hip-kernel-execution-syntax %clang_args\n'
        '#include "inc.h"\n#ifdef FROM_DB\n// CHECK: hipFree(0);\nvoid f() { cudaFree(0); }\n#endif\n'
        "// CHECK: hipLaunchKernelGGL(k, dim3(1), dim3(K), 0, 0);\nvoid g() { k<<<1, K>>>(); }\n")
    (tmp_path / "compile_commands.json.in").write_text(
        '[{"directory": "<test dir>", "command": "hipify-clang \\"<CUDA dir>\\" -I./include -DFROM_DB", '
        '"file": "cd.cu"}]\n')
    score = scorer.score_file(tmp_path / "cd.cu", tmp_path)
    assert score.passed and score.found == 2
    assert not (tmp_path / "compile_commands.json").exists()  # written in the copy only


@pytest.mark.parametrize("path,runs", [
    ("headers/headers_test_09.cu", False),            # lit: CUDA >= 12 runs headers_test_09_12000.cu
    ("headers/headers_test_09_12000.cu", True),
    ("libraries/cuBLAS/cublas_0_based_indexing.cu", False),
    ("libraries/cuBLAS/cublas_0_based_indexing_v2.cu", True),
    ("synthetic/libraries/cusparse2rocsparse_before_12000.cu", False),
    ("synthetic/libraries/cusparse2rocsparse_12000.cu", True),
    ("libraries/cuSPARSE/cuSPARSE_12.cu", False),     # lit: CUDA > 10
])
def test_lit_cuda12_excludes(path, runs):
    assert scorer.lit_runs_with_cuda12(path) is runs


# --- the CUDA version, HIPIFY's lit.cfg, the --tool runner and the release fetch ----------------

_fetch_spec = importlib.util.spec_from_file_location("fetch_hipify_release", _PATH.with_name("fetch_hipify_release.py"))
fetch = importlib.util.module_from_spec(_fetch_spec)
sys.modules[_fetch_spec.name] = fetch
_fetch_spec.loader.exec_module(fetch)  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "value"), [("12.9.1", 12090), ("12.9", 12090), ("12090", 12090),
                                             ("13.0", 13000), ("11.8.0", 11080), ("12060", 12060)])
def test_parse_cuda_version(text, value):
    assert scorer.parse_cuda_version(text) == value


@pytest.mark.parametrize("text", ["12,9", "twelve", "1.2.3.4", "12.", "0.9", ""])
def test_parse_cuda_version_refuses(text):
    with pytest.raises(ValueError, match="not a CUDA version"):
        scorer.parse_cuda_version(text)


def test_version_gates_follow_the_cuda_version():
    gated = Path("synthetic/runtime_functions_12080.cu")
    assert scorer.cuda_version_for(gated) == 12080  # 12.6 is below its range: scored at 12.8
    assert scorer.cuda_version_for(gated, 12090) is None  # 12.9.1 runs it as it is
    assert scorer.cuda_version_for(Path("x_before_12090.cu"), 12090) == 12080
    assert scorer.cuda_version_for(Path("x_12000_13000.cu"), 13000) == 12000


#: A small lit.cfg written like HIPIFY's: nested and chained ``if``s on the CUDA version, the
#: library roots, sys.platform, and statements that do not touch the excludes (left alone).
_LIT_CFG = """\
import os
import sys
lit_config.load_config(config, site_cfg)
config.excludes = ['cmdparser.hpp']
config.excludes.append('inc.h')
if not config.cuda_dnn_root or config.cuda_dnn_root == "OFF":
    config.excludes.append('cudnn2miopen.cu')
    print("WARN: cuDNN tests are excluded")
else:
    if config.cudnn_version_major >= 9:
        config.excludes.append('cudnn2miopen_before_9000.cu')
if config.cuda_version_major == 12 and config.cuda_version_minor >= 6:
    config.excludes.append('cub_01.cu')
if config.cuda_version_major < 10 or (config.cuda_version_major == 10 and config.cuda_version_minor < 1) or config.cuda_version_major >= 12:
    config.excludes.append('cusparse2rocsparse_10010_12000.cu')
if config.cuda_version_major < 12:
    config.excludes.append('runtime_functions_12000.cu')
elif config.cuda_version_major >= 13:
    config.excludes += ['x_before_13000.cu']
else:
    config.excludes.extend(['headers_test_09.cu', 'tex2dKernel.cpp'])
if config.cuda_version_major < 11 and sys.platform in ['win32']:
    config.excludes.append('win_only.cu')
if (config.cuda_version_major < 12) or (config.cuda_version_major == 12 and config.cuda_version_minor <8):
    config.excludes.append('cudevice2hipdevice_12080.cu')
clang_arguments = "-v"
if config.llvm_version_major > 18:
    clang_arguments += " -Wno-missing-template-arg-list-after-template-kw"
if config.hipify_clang_tests_only and config.hipify_clang_tests_only.upper() != "OFF":
    hipify_path = config.hipify_install_path
"""
_ALWAYS = {"cmdparser.hpp", "inc.h", "cudnn2miopen_before_9000.cu"}


@pytest.mark.parametrize(("cuda", "excluded"), [
    (12090, {"cub_01.cu", "cusparse2rocsparse_10010_12000.cu", "headers_test_09.cu", "tex2dKernel.cpp"}),
    (12060, {"cub_01.cu", "cusparse2rocsparse_10010_12000.cu", "headers_test_09.cu", "tex2dKernel.cpp",
             "cudevice2hipdevice_12080.cu"}),
    (12050, {"cusparse2rocsparse_10010_12000.cu", "headers_test_09.cu", "tex2dKernel.cpp",
             "cudevice2hipdevice_12080.cu"}),
    (13000, {"cusparse2rocsparse_10010_12000.cu", "x_before_13000.cu"}),
    (11080, {"runtime_functions_12000.cu", "cudevice2hipdevice_12080.cu"}),
    (10000, {"runtime_functions_12000.cu", "cudevice2hipdevice_12080.cu", "cusparse2rocsparse_10010_12000.cu"}),
])
def test_lit_excludes_by_cuda_version(cuda, excluded):
    assert scorer.lit_excludes(_LIT_CFG, scorer.LitSettings.for_cuda(cuda)) == _ALWAYS | excluded


def test_lit_excludes_by_libraries_and_platform():
    no_dnn = scorer.LitSettings.for_cuda(12090, cuda_dnn_root="OFF")
    got = scorer.lit_excludes(_LIT_CFG, no_dnn)
    assert "cudnn2miopen.cu" in got and "cudnn2miopen_before_9000.cu" not in got
    cudnn8 = scorer.LitSettings.for_cuda(12090, cudnn_version_major=8)
    assert "cudnn2miopen_before_9000.cu" not in scorer.lit_excludes(_LIT_CFG, cudnn8)
    win = scorer.LitSettings.for_cuda(10000, platform="win32")
    assert "win_only.cu" in scorer.lit_excludes(_LIT_CFG, win)
    # a later ``config.excludes = [...]`` starts the list again
    assert scorer.lit_excludes(_LIT_CFG + "config.excludes = ['only.cu']\n",
                               scorer.LitSettings()) == {"only.cu"}


@pytest.mark.parametrize(("text", "message"), [
    ("if config.unknown_setting > 3:\n    config.excludes.append('a.cu')\n", "cannot evaluate"),
    ("config.excludes.remove('a.cu')\n", "cannot follow"),
    ("if config.cuda_dnn_root > 3:\n    config.excludes.append('a.cu')\n", "not supported"),
    ("if config.cuda_version_major >\n", "does not parse"),
])
def test_lit_excludes_refuses_what_it_cannot_follow(text, message):
    with pytest.raises(scorer.LitConfigError, match=message):
        scorer.lit_excludes(text, scorer.LitSettings())


def _release_tree(root: Path) -> Path:
    """A HIPIFY-like tree: tests/lit.cfg beside tests/unit_tests with two tests."""
    unit = root / "tests" / "unit_tests"
    unit.mkdir(parents=True)
    (root / "tests" / "lit.cfg").write_text(_LIT_CFG)
    (unit / "headers_test_09.cu").write_text(
        '// RUN: %run_test hipify "%s" "%t" %hipify_args 2 --amap --roc %clang_args -D__X\n'
        "// CHECK: hipFree(0);\nvoid f() { cudaFree(0); }\n")
    (unit / "t.cu").write_text('// RUN: %run_test hipify "%s" "%t" %hipify_args 1 --roc %clang_args\n'
                               "// CHECK: hipFree(p);\nvoid g(void *p) { cudaFree(p); }\n")
    return unit


def test_main_reads_lit_cfg_beside_the_tree(tmp_path, capsys):
    unit = _release_tree(tmp_path)
    assert scorer.find_lit_cfg(unit) == tmp_path / "tests" / "lit.cfg"
    assert scorer.main([str(unit), "--cuda-version", "12.9.1"]) == 0
    out = capsys.readouterr().out
    assert "lit.cfg, CUDA 12.9: 1 of the files run (1 left out)" in out
    assert "openhip: files: 2 of 2 pass" in out and "openhip: the 1 files lit runs: 1 pass" in out
    # CUDA 11.8: the lit.cfg's rules exclude neither file
    assert scorer.main([str(unit), "--cuda-version", "11.8"]) == 0
    assert "CUDA 11.8: 2 of the files run (0 left out)" in capsys.readouterr().out
    # no lit.cfg: the built-in CUDA 12 list (headers_test_09.cu is in it)
    (tmp_path / "tests" / "lit.cfg").unlink()
    assert scorer.find_lit_cfg(unit) is None
    assert scorer.main([str(unit)]) == 0
    assert "LIT_EXCLUDED_CUDA12" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        scorer.main([str(unit), "--cuda-version", "12,9"])


_FAKE_TOOL = """\
import pathlib, sys
args = sys.argv[1:]
pathlib.Path(sys.argv[0]).with_name("argv.txt").write_text(" ".join(args))
text = pathlib.Path(args[-1]).read_text()
if "EXIT3" in text:
    sys.stderr.write("fake: cannot translate\\n")
    sys.exit(3)
sys.stdout.write(text.replace("cudaFree", "rocFree" if "--roc" in args else "hipFree"))
"""


def _fake_tool(tmp_path: Path) -> Path:
    script = tmp_path / "fake_tool"
    script.write_text(f"#!{sys.executable}\n{_FAKE_TOOL}")
    script.chmod(0o755)
    return script


def test_external_tool_gets_the_options_it_has(tmp_path):
    tool = scorer.ExternalTool("fake", _fake_tool(tmp_path))
    unit = _release_tree(tmp_path / "tree")
    score = scorer.score_file(unit / "headers_test_09.cu", unit, tool, 12090)
    # --roc is given, --amap and the clang options are not: the CHECK line wants hipFree
    assert (tmp_path / "argv.txt").read_text() == f"--roc {unit / 'headers_test_09.cu'}"
    assert not score.passed and score.found == 0 and "hipFree(0);" in score.first_failure
    assert score.lines == 3 and score.seconds > 0 and score.cpu_seconds >= 0
    (unit / "k.cu").write_text('// RUN: %run_test hipify "%s" "%t" %hipify_args 3 --hip-kernel-execution-syntax '
                               "--skip-excluded-preprocessor-conditional-blocks --experimental %clang_args\n"
                               "// CHECK: hipFree(q);\ncudaFree(q);\n")
    assert scorer.score_file(unit / "k.cu", unit, tool).passed
    assert (tmp_path / "argv.txt").read_text().split()[:2] == ["--hip-kernel-execution-syntax", "--experimental"]
    (unit / "bad.cu").write_text('// RUN: %run_test hipify "%s" "%t" %clang_args\n// CHECK: x\nEXIT3\n')
    bad = scorer.score_file(unit / "bad.cu", unit, tool)
    assert not bad.passed and "exit status 3" in bad.error


def test_external_tool_has_no_local_headers(tmp_path):
    root = _local_tree(tmp_path / "t", "--local-headers")
    score = scorer.score_file(root / "t.cu", root, scorer.ExternalTool("fake", _fake_tool(tmp_path)))
    assert score.passed and not score.headers_passed  # the main output is checked; no h.h.hip
    assert score.headers[0].failures == ["no output written"]


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not installed")
def test_external_tool_runs_a_perl_script_under_perl(tmp_path):
    script = tmp_path / "hipify-perl"
    script.write_text("#!/usr/bin/env perl\nmy $roc = grep { $_ eq '--roc' } @ARGV;\n"
                      "while (<>) { s/cudaFree/hipFree/g; print; }\n")
    script.chmod(0o644)  # not executable: run as `perl SCRIPT`
    tool = scorer.ExternalTool("hipify-perl", script)
    assert tool.prefix[1:] == [str(script.resolve())]
    assert tool.command(Path("f.cu"), ["--roc", "--amap", "--miopen"])[2:] == ["--roc", "--miopen", "f.cu"]
    assert tool.command(Path("f.cu"), ["-roc", "--use-hip-data-types", "-p=x"])[2:] == ["--roc", "f.cu"]
    unit = _release_tree(tmp_path / "tree")
    assert scorer.score_file(unit / "t.cu", unit, tool).passed


def test_parse_tool_and_two_tools_in_one_run(tmp_path, capsys):
    assert scorer.parse_tool("openhip") is scorer.OPENHIP
    for spec in ("bogus", "hipify-perl=", "=x", "openhip=x"):
        with pytest.raises(ValueError, match="NAME=PATH"):
            scorer.parse_tool(spec)
    with pytest.raises(ValueError, match="no such file"):
        scorer.parse_tool(f"hipify-perl={tmp_path / 'missing'}")
    (tmp_path / "plain.txt").write_text("not a program\n")
    with pytest.raises(ValueError, match="neither"):
        scorer.parse_tool(f"x={tmp_path / 'plain.txt'}")
    unit = _release_tree(tmp_path / "tree")
    assert scorer.main([str(unit), "--tool", "openhip", "--tool", f"fake={_fake_tool(tmp_path)}",
                        "--repeat", "2", "--cuda-version", "12.9.1"]) == 0
    out = capsys.readouterr().out
    assert "openhip: files: 2 of 2 pass" in out and "fake: files: 0 of 2 pass" in out
    assert "median of 2 runs" in out and "fake: failing files" in out
    with pytest.raises(SystemExit):
        scorer.main([str(unit), "--tool", "openhip", "--tool", "openhip"])


def _tar(path: Path, members: list[tuple[str, str, str]]) -> Path:
    """A tar.xz with members (name, kind 'file'|'sym'|'lnk', content or link target)."""
    import io
    import tarfile
    with tarfile.open(path, "w:xz") as archive:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(data.encode())
                archive.addfile(info, io.BytesIO(data.encode()))
            else:
                info.type = tarfile.SYMTYPE if kind == "sym" else tarfile.LNKTYPE
                info.linkname = data
                archive.addfile(info)
    return path


_GOOD = [(fetch.UNIT_TESTS + "/t.cu", "file", "// RUN: x\n"), (fetch.TOP + "/README.md", "file", "hi\n"),
         (fetch.TOP + "/link.md", "sym", "README.md")]


def test_fetch_refuses_a_wrong_digest(tmp_path, monkeypatch):
    tarball = _tar(tmp_path / "release.tar.xz", _GOOD)
    with pytest.raises(fetch.FetchError, match="refused"):
        fetch.verify_sha256(tarball)  # not the release's digest
    with pytest.raises(fetch.FetchError, match="refused"):
        fetch.fetch(tmp_path / "dest", tarball=tarball)
    assert not (tmp_path / "dest").exists()
    # a download whose bytes are not the release's is refused too (no network: download faked)
    def fake_download(url, dest, timeout=60.0):
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(b"something else")
        return dest
    monkeypatch.setattr(fetch, "download", fake_download)
    with pytest.raises(fetch.FetchError, match="refused"):
        fetch.fetch(tmp_path / "dl")
    assert fetch.main(["--dest", str(tmp_path / "dl")]) == 1
    # with the digest given it is the right one: extracted, unit_tests path returned
    unit = fetch.fetch(tmp_path / "ok", tarball=tarball, sha256=fetch.sha256_of(tarball))
    assert unit == tmp_path / "ok" / fetch.UNIT_TESTS and (unit / "t.cu").read_text() == "// RUN: x\n"
    assert (unit.parents[1] / "link.md").read_text() == "hi\n"


@pytest.mark.parametrize(("member", "reason"), [
    (("../x", "file", "out"), "'..'"),
    ((fetch.TOP + "/../../x", "file", "out"), "'..'"),
    (("/tmp/openhip_abs_x", "file", "out"), "absolute"),
    ((fetch.TOP + "/up", "sym", "../../x"), "symbolic link out"),
    ((fetch.TOP + "/abs", "sym", "/etc/passwd"), "symbolic link out"),
    ((fetch.TOP + "/hard", "lnk", "../x"), "hard link out"),
])
def test_safe_extraction_refuses_the_whole_archive(tmp_path, member, reason):
    tarball = _tar(tmp_path / "bad.tar.xz", [*_GOOD, member])
    dest = tmp_path / "dest" / "inner"
    with pytest.raises(fetch.FetchError, match=reason):
        fetch.safe_extract(tarball, dest)
    assert not dest.exists() and not (tmp_path / "dest" / "x").exists() and not (tmp_path / "x").exists()
    assert not Path("/tmp/openhip_abs_x").exists()
    with pytest.raises(fetch.FetchError, match="unsafe"):
        fetch.fetch(tmp_path / "dest2", tarball=tarball, sha256=fetch.sha256_of(tarball))


def test_safe_extraction_refuses_what_is_not_a_tar(tmp_path):
    junk = tmp_path / "junk.tar.xz"
    junk.write_bytes(b"not a tar")
    with pytest.raises(fetch.FetchError, match="not a readable tar"):
        fetch.safe_extract(junk, tmp_path / "dest")
