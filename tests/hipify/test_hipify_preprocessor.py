"""--skip-excluded-preprocessor-conditional-blocks / --default-preprocessor and --amap."""

from __future__ import annotations

import pytest

from openhip.hipify import translate
from openhip.hipify.lexer import tokenize
from openhip.hipify.preprocessor import inactive_ranges

SRC = (
    "#include <hip/hip_runtime.h>\n"
    "#define USE_NEW 1\n"
    "#if USE_NEW && !defined(LEGACY)\n"
    "cudaMalloc(&a, n);\n"
    "#else\n"
    "cudaMallocHost(&a, n);\n"
    "#endif\n"
    "#ifdef FEATURE\n"
    "cudaFree(a);\n"
    "#endif\n"
)


def test_all_branches_translated_by_default():
    out = translate(SRC)
    assert "hipMalloc(&a, n);" in out and "hipHostMalloc(&a, n" in out and "hipFree(a);" in out


def test_inactive_branches_skipped():
    out = translate(SRC, skip_excluded_preprocessor_blocks=True)
    assert "hipMalloc(&a, n);" in out
    assert "cudaMallocHost(&a, n);" in out
    assert "cudaFree(a);" in out


def test_defines_enable_branches():
    out = translate(SRC, skip_excluded_preprocessor_blocks=True, defines={"FEATURE": "1", "LEGACY": "1"})
    assert "cudaMalloc(&a, n);" in out and "hipHostMalloc(&a, n" in out and "hipFree(a);" in out


def test_amap_overrides_skipping():
    out = translate(SRC, skip_excluded_preprocessor_blocks=True, amap=True)
    assert "cudaFree" not in out and "cudaMallocHost" not in out


@pytest.mark.parametrize(
    "condition, active",
    [
        ("0", False), ("1", True), ("2 > 1 && 3 >= 3", True), ("(1 + 2) * 3 == 9", True),
        ("defined(__CUDACC__)", True), ("defined UNKNOWN", False), ("UNKNOWN", False),
        ("!UNKNOWN || 0", True), ("1 ? 0 : 1", False), ("0x10 == 16", True), ("1 << 4 == 16", True),
        ("SOME_FUNC(1)", True), ("1 / 0", True), ("VAL == 3", True), ("10 % 4 != 2", False),
    ],
)
def test_condition_evaluation(condition, active):
    text = f"#define VAL 3\n#if {condition}\nx\n#endif\n"
    tokens = tokenize(text)
    skipped = "".join(t.text for a, b in inactive_ranges(tokens, {}) for t in tokens[a:b])
    assert ("x" in skipped) == (not active)


def test_elif_else_and_nesting():
    text = "#if 0\na\n#elif 1\nb\n#else\nc\n#endif\n#ifndef X\n#if 0\nd\n#endif\ne\n#endif\n"
    tokens = tokenize(text)
    skipped = "".join(t.text for a, b in inactive_ranges(tokens, {}) for t in tokens[a:b])
    assert "a" in skipped and "c" in skipped and "d" in skipped
    assert "b" not in skipped and "e" not in skipped
