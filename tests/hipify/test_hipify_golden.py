"""Whole programs: each golden source translates to its reviewed expected file, and again to
itself (idempotence)."""

from __future__ import annotations

import pytest
from hipify_golden_cases import CASES, GOLDEN, VARIANTS, expected_path

from openhip.hipify import hipify, translate

PAIRS = [(source, variant) for source, variants in CASES.items() for variant in variants]


@pytest.mark.parametrize("source, variant", PAIRS, ids=[f"{s}:{v}" for s, v in PAIRS])
def test_golden(source, variant):
    text = (GOLDEN / source).read_text()
    out = translate(text, filename=source, **VARIANTS[variant])
    assert out == expected_path(source, variant).read_text()


@pytest.mark.parametrize("source, variant", PAIRS, ids=[f"{s}:{v}" for s, v in PAIRS])
def test_golden_idempotent(source, variant):
    expected = expected_path(source, variant).read_text()
    assert hipify(expected, filename=source, **VARIANTS[variant]).text == expected


def test_plain_cpp_unchanged():
    text = (GOLDEN / "plain.cpp").read_text()
    assert translate(text) == text


def test_every_golden_source_is_listed():
    sources = {p.name for p in GOLDEN.iterdir() if p.suffix in (".cu", ".cuh", ".cpp")}
    assert sources == set(CASES)


def test_readme_sample():
    sample = GOLDEN.parents[2] / "examples" / "hipify_sample"
    out = translate((sample / "saxpy.cu").read_text(), hip_kernel_execution_syntax=True)
    assert out == (sample / "saxpy.hip").read_text()
