"""``openhip ccl-bench``: a short run prints the table with a correctness column; formulas."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import _env

pytestmark = pytest.mark.timeout(120)


def test_bus_factors():
    from openhip.ccl.bench import bus_factor, sizes

    assert bus_factor("all_reduce", 2) == 1.0
    assert bus_factor("all_reduce", 4) == 1.5
    assert bus_factor("all_gather", 4) == 0.75
    assert bus_factor("broadcast", 8) == 1.0
    assert sizes(4096, 65536, 4) == [4096, 16384, 65536]


def test_short_run(tmp_path):
    out = tmp_path / "rows.json"
    cmd = [sys.executable, "-m", "openhip", "ccl-bench", "-n", "2", "-b", "4K", "-e", "64K",
           "-f", "16", "--repeats", "1", "--target", "0.002", "--compare", "mpich",
           "--json", str(out)]
    p = subprocess.run(cmd, env=_env(None), capture_output=True, text=True, timeout=100)
    assert p.returncode == 0, p.stdout + p.stderr
    for coll in ("all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter",
                 "all_to_all", "gather", "scatter", "sendrecv"):
        assert f"## {coll}" in p.stdout
    rows = json.loads(out.read_text())
    assert {r["size"] for r in rows} == {4096, 65536}
    assert all(r["wrong"] == 0 and r["busbw"] > 0 for r in rows)


def test_shared_buffers_run(tmp_path):
    """--shared adds openhip over ccl.empty buffers (zero-copy from 1 MiB) for every collective,
    each with its correctness check, and a markdown table comparing both with MPICH."""
    out, md = tmp_path / "rows.json", tmp_path / "table.md"
    cmd = [sys.executable, "-m", "openhip", "ccl-bench", "-n", "2", "-b", "64K", "-e", "1M",
           "-f", "16", "--repeats", "1", "--target", "0.002", "--compare", "mpich", "--shared",
           "--json", str(out), "--markdown", str(md)]
    p = subprocess.run(cmd, env=_env(None), capture_output=True, text=True, timeout=100)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = json.loads(out.read_text())
    shared = [r for r in rows if r["impl"] == "openhip-shared"]
    assert {(r["coll"], r["size"]) for r in shared} == {
        (c, s) for c in ("all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter",
                         "all_to_all", "gather", "scatter", "sendrecv") for s in (65536, 1 << 20)}
    assert all(r["wrong"] == 0 and r["busbw"] > 0 for r in rows)
    text = md.read_text()
    assert "openhip-shared busbw (GB/s) of every collective" in text
    if any(r["impl"] == "mpich" for r in rows):
        assert "openhip-shared / MPICH busbw" in text
