"""``openhip prof`` (issue #15): bad input (clear message, nonzero exit, the script not run),
a scripted run with --stats, the exit code, a crash and a SIGTERM of the script (the trace so
far is written), a 2-rank ``openhip launch`` job merged onto one timeline (pid = rank).
Everything runs in subprocesses with timeouts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KERNELS = Path(__file__).with_name("profiler_kernels.hip")

SCRIPT = """
import os, sys
import numpy as np
import openhip as hip
mod = hip.Module(open({kernels!r}).read(), name="profiler_kernels.hip")
saxpy = mod.get_function("saxpy")
n = 4096
x = hip.asarray(np.arange(n, dtype=np.float32))
out = hip.zeros(n, np.float32)
for a in range({launches}):
    saxpy(n // 256, 256, (float(a), x, x, out, n))
print("RESULT", float(out.get()[1]), flush=True)
{tail}
"""


def _env():
    return dict(os.environ, OPENHIP_PLATFORM="cpu")


def _script(tmp_path: Path, launches: int = 3, tail: str = "", name: str = "s.py") -> Path:
    path = tmp_path / name
    path.write_text(SCRIPT.format(kernels=str(KERNELS), launches=launches,
                                  tail=textwrap.dedent(tail)))
    return path


def _prof(*args: str, timeout: float = 180, cwd: Path | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-m", "openhip", "prof", *args],
                              capture_output=True, text=True, timeout=timeout, env=_env(),
                              cwd=cwd)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"openhip prof hung (> {timeout} s): {exc.stdout!r} {exc.stderr!r}")


def _kernels(trace: dict) -> list[dict]:
    return [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]


def test_bad_input(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "adir.json").mkdir()
    script = tmp_path / "marker.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    cases = [
        (["--frobnicate", "python3", str(script)], "unrecognized arguments: --frobnicate"),
        (["-o", str(tmp_path / "t"), sys.executable, str(tmp_path / "missing.py")],
         "missing.py does not exist"),
        (["-o", str(tmp_path / "no" / "dir" / "t"), sys.executable, str(script)],
         "does not exist"),
        (["-o", str(tmp_path / "adir.json"), sys.executable, str(script)], "is a directory"),
        ([], "no command to profile"),
        (["-o", str(tmp_path / "t"), "no-such-program-xyz"], "command not found"),
        (["--buffer", "0", sys.executable, str(script)], "--buffer must be at least 1"),
        (["--buffer", "many", sys.executable, str(script)], "invalid int value"),
    ]
    for args, message in cases:
        proc = _prof(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert not marker.exists(), f"the script ran for {args}"
    if os.geteuid() != 0:  # root can write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        proc = _prof("-o", str(locked / "t"), sys.executable, str(script))
        assert proc.returncode == 2 and "cannot write the trace" in proc.stderr
        assert not marker.exists()


def test_scripted_run_with_stats(tmp_path):
    script = _script(tmp_path, launches=4, tail="sys.exit(3)")
    proc = _prof("--stats", "-o", str(tmp_path / "run"), sys.executable, str(script),
                 cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr  # the script's exit code
    assert "RESULT 4.0" in proc.stdout  # the last launch: out = 3 * x + x, x[1] = 1
    trace = json.loads((tmp_path / "run.json").read_text())
    assert (tmp_path / "run.html").is_file()
    from openhip.tools.profiler.trace_event import validate

    assert validate(trace) == []
    assert [k["name"] for k in _kernels(trace)] == ["saxpy"] * 4
    lines = proc.stderr.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("Kernel"))
    row = lines[header + 1].split()
    assert row[0] == "saxpy" and row[1] == "4" and float(row[-1]) == 100.0
    assert any(ln.startswith("HtoD") and ln.split()[1] == "1" for ln in lines)
    assert any(ln.startswith("DtoH") and ln.split()[1] == "1" for ln in lines)
    assert "events from 1 process(es)" in proc.stderr


def test_a_crashing_script_still_writes_its_trace(tmp_path):
    script = _script(tmp_path, launches=2, tail="raise RuntimeError('boom')")
    proc = _prof("-o", str(tmp_path / "crash"), sys.executable, str(script))
    assert proc.returncode == 1 and "boom" in proc.stderr
    trace = json.loads((tmp_path / "crash.json").read_text())
    assert [k["name"] for k in _kernels(trace)] == ["saxpy"] * 2


def test_sigterm_of_the_script_still_writes_its_trace(tmp_path):
    script = _script(tmp_path, launches=3, tail="""
        import signal
        os.kill(os.getpid(), signal.SIGTERM)
        print("NOT REACHED")
    """)
    proc = _prof("-o", str(tmp_path / "term"), sys.executable, str(script))
    assert proc.returncode == 128 + 15, proc.stderr
    assert "NOT REACHED" not in proc.stdout
    trace = json.loads((tmp_path / "term.json").read_text())
    assert [k["name"] for k in _kernels(trace)] == ["saxpy"] * 3


CCL_SCRIPT = """
import numpy as np
import openhip as hip
from openhip import ccl
comm = ccl.init_from_env()
mod = hip.Module(open({kernels!r}).read(), name="profiler_kernels.hip")
saxpy = mod.get_function("saxpy")
x = hip.zeros(1024, np.float32)
for _ in range(comm.rank + 1):                 # rank 0: 1 kernel, rank 1: 2
    saxpy(4, 256, (1.0, x, x, x, 1024))
host = np.full(4096, comm.rank + 1, np.float32)
with hip.profile.range("exchange"):
    comm.all_reduce(host)
    comm.all_reduce(host[:16])
    comm.barrier()
assert host[0] == 6.0, host[0]
comm.destroy()
"""


def test_two_rank_launch_job_on_one_timeline(tmp_path):
    script = tmp_path / "ranks.py"
    script.write_text(CCL_SCRIPT.format(kernels=str(KERNELS)))
    proc = _prof("-o", str(tmp_path / "job"), "openhip", "launch", "-n", "2", str(script),
                 timeout=240)
    assert proc.returncode == 0, proc.stderr
    trace = json.loads((tmp_path / "job.json").read_text())
    from openhip.tools.profiler.trace_event import validate

    assert validate(trace) == []
    names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(names) == [0, 1] and names[0].startswith("rank 0")
    for rank in (0, 1):
        mine = [e for e in trace["traceEvents"] if e["pid"] == rank and e["ph"] != "M"]
        ccl_calls = [e for e in mine if e["cat"] == "ccl"]
        assert [e["name"] for e in ccl_calls] == ["all_reduce", "all_reduce", "barrier"]
        assert [e["args"]["bytes"] for e in ccl_calls[:2]] == [4096 * 4, 16 * 4]
        assert all(e["args"]["rank"] == rank and e["args"]["size"] == 2 for e in ccl_calls)
        assert ccl_calls[0]["args"]["algorithm"] and ccl_calls[0]["args"]["transport"]
        assert len([e for e in mine if e["cat"] == "kernel"]) == rank + 1
        (rng,) = [e for e in mine if e["cat"] == "range"]
        assert all(rng["ts"] <= c["ts"] <= rng["ts"] + rng["dur"] for c in ccl_calls)
    # one clock: each rank's all_reduce overlaps the other's (they wait for each other)
    a0, a1 = ([e for e in trace["traceEvents"] if e["pid"] == r and e.get("cat") == "ccl"][0]
              for r in (0, 1))
    assert a0["ts"] <= a1["ts"] + a1["dur"] and a1["ts"] <= a0["ts"] + a0["dur"]
