"""bench/hipify_unit_tests.py: its FileCheck subset, RUN-line parsing and version gates, on
small inputs with known answers (HIPIFY's own tests cannot be fetched in CI)."""

from __future__ import annotations

import importlib.util
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
