"""FileCheck-style expectations: sources under checks/ carry ``// CHECK:`` lines (what an output
line must contain, in order), ``// CHECK-NEXT:`` (on the line right after the previous match) and
``// CHECK-NOT:`` lines; ``// OPTIONS:`` gives the options."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from openhip.hipify import hipify

CHECKS = Path(__file__).resolve().parent / "checks"
_DIRECTIVE = re.compile(r"^\s*//\s*(CHECK|CHECK-NEXT|CHECK-NOT|OPTIONS):(.*)$")


def _normalize(text: str) -> str:
    return " ".join(text.split())


def parse(source: str) -> tuple[dict[str, bool], list[tuple[str, str]]]:
    options: dict[str, bool] = {}
    checks: list[tuple[str, str]] = []
    for line in source.splitlines():
        m = _DIRECTIVE.match(line)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2).strip()
        if kind == "OPTIONS":
            options.update({k: bool(int(v)) for k, v in (w.split("=") for w in rest.split())})
        else:
            checks.append((kind, _normalize(rest)))
    return options, checks


def file_check(output: str, checks: list[tuple[str, str]]) -> list[str]:
    """Failures of ``checks`` against ``output`` (directive comment lines are not searched)."""
    lines = [_normalize(line) for line in output.splitlines() if not _DIRECTIVE.match(line)]
    failures: list[str] = []
    pos = 0
    pending_not: list[str] = []
    for kind, pattern in checks:
        if kind == "CHECK-NOT":
            pending_not.append(pattern)
            continue
        window = range(pos, min(pos + 1, len(lines))) if kind == "CHECK-NEXT" else range(pos, len(lines))
        for i in window:
            if pattern in lines[i]:
                for bad in pending_not:
                    if any(bad in line for line in lines[pos:i]):
                        failures.append(f"CHECK-NOT matched: {bad}")
                pending_not = []
                pos = i + 1
                break
        else:
            failures.append(f"{kind} not found: {pattern}")
    for bad in pending_not:
        if any(bad in line for line in lines[pos:]):
            failures.append(f"CHECK-NOT matched: {bad}")
    return failures


SOURCES = sorted(CHECKS.glob("*.cu"))


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_checks(path):
    source = path.read_text()
    options, checks = parse(source)
    assert checks
    result = hipify(source, filename=path.name, **options)
    assert file_check(result.text, checks) == []
    assert hipify(result.text, filename=path.name, **options).text == result.text


def test_expectation_count():
    total = sum(len(parse(p.read_text())[1]) for p in SOURCES)
    assert total >= 80


def test_file_check_reports_failures():
    checks = [("CHECK", "a"), ("CHECK-NOT", "x"), ("CHECK", "b"), ("CHECK", "zzz")]
    assert file_check("a\nx\nb\n", checks) == ["CHECK-NOT matched: x", "CHECK not found: zzz"]
    assert file_check("b\na\n", [("CHECK", "a"), ("CHECK", "b")]) == ["CHECK not found: b"]
    assert file_check("a\nb\n", [("CHECK", "a"), ("CHECK-NEXT", "b")]) == []
    assert file_check("a\nx\nb\n", [("CHECK", "a"), ("CHECK-NEXT", "b")]) == ["CHECK-NEXT not found: b"]
