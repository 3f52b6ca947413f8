"""The HTML timeline (issue #15) renders in headless Chromium (Debian's ``chromium``): the page's
script runs offline and draws one block per kernel (and per copy, range...) in lanes per
process, host thread and stream. Skipped without chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import openhip as hip
from openhip.tools.profiler.html_timeline import render_html, write_html

KERNELS = Path(__file__).with_name("profiler_kernels.hip")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                "(apt-get install chromium)")


def _dom(page: Path, tmp_path: Path) -> str:
    try:
        proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                               f"--user-data-dir={tmp_path / 'chromium-profile'}",
                               "--dump-dom", page.as_uri()],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("chromium hung on the page")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _blocks(dom: str, cat: str) -> int:
    return len(re.findall(r'<rect class="ev"[^>]*data-cat="' + cat + '"', dom))


def test_timeline_renders_every_kernel(device, tmp_path):
    mod = hip.Module(KERNELS.read_text(), name="profiler_kernels.hip")
    saxpy = mod.get_function("saxpy")
    n = 2048
    x = hip.zeros(n, np.float32)
    s1, s2 = hip.Stream(), hip.Stream()
    with hip.profile(tmp_path / "t") as session:
        with hip.profile.range("two streams"):
            for k in range(7):
                saxpy(n // 256, 256, (float(k), x, x, x, n), stream=s1 if k % 2 else s2)
            s1.synchronize()
            s2.synchronize()
        x.get()
    trace = session.trace
    kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    assert len(kernels) == 7
    dom = _dom(tmp_path / "t.html", tmp_path)
    assert 'data-rendered="yes"' in dom, dom[:2000]
    assert _blocks(dom, "kernel") == 7
    assert _blocks(dom, "range") == 1 and _blocks(dom, "memcpy") == 1
    assert 'data-kernels="7"' in dom
    lanes = re.findall(r'<text class="label lane-label"[^>]*>([^<]*)</text>', dom)
    assert sum("stream" in lane for lane in lanes) >= 3  # s1, s2 and the default stream
    assert any(lane.startswith("host:") for lane in lanes)
    assert '<span data-cat="kernel" data-count="7">' in dom
    assert "http://" not in render_html(trace).replace("http://www.w3.org/2000/svg", "")


def test_timeline_of_a_merged_job_and_hostile_names(tmp_path):
    """Two processes become two process rows; names with markup stay text."""
    events = [{"ph": "M", "name": "process_name", "pid": r, "tid": 0,
               "args": {"name": f"rank {r}"}} for r in (0, 1)]
    events += [{"ph": "M", "name": "thread_name", "pid": r, "tid": 100000,
                "args": {"name": "device 0 default stream"}} for r in (0, 1)]
    events += [{"ph": "X", "cat": "kernel", "name": "</script><b>k</b>", "pid": r,
                "tid": 100000, "ts": 10.0 * i, "dur": 5.0, "args": {}}
               for r in (0, 1) for i in range(3)]
    write_html({"traceEvents": events}, tmp_path / "m.html")
    dom = _dom(tmp_path / "m.html", tmp_path)
    assert 'data-rendered="yes"' in dom
    assert _blocks(dom, "kernel") == 6
    assert dom.count('class="label proc-label"') == 2
    assert "<b>k</b>" not in dom
