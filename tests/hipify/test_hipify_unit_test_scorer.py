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
