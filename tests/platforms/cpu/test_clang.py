"""The CPU platform with Clang as the host compiler (CXX=clang++): the language conformance
suite and the barrier-splitting tests, run again in a child pytest with Clang.

Skipped, with the reason, where no clang++ is installed (CI installs Debian's clang)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[2]


def _clang() -> str | None:
    for name in ("clang++", "clang++-19", "clang++-18", "clang++-17", "clang++-16", "clang++-15",
                 "clang++-14"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.timeout(900)
def test_conformance_suite_with_clang(tmp_path):
    clang = _clang()
    if clang is None:
        pytest.skip("no clang++ on PATH (apt-get install clang)")
    if os.environ.get("OPENHIP_IN_CLANG_PASS"):
        pytest.skip("already inside the clang pass")
    env = dict(os.environ, CXX=clang, OPENHIP_CACHE_DIR=str(tmp_path / "cache"),
               OPENHIP_PLATFORM="cpu", OPENHIP_IN_CLANG_PASS="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
         str(TESTS / "conformance"), str(TESTS / "platforms" / "cpu" / "test_regions.py"),
         str(TESTS / "platforms" / "cpu" / "test_engine.py")],
        env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert " passed" in proc.stdout
