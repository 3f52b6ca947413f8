"""``kill -9`` of ``openhip launch`` takes its ranks with it (issue #14 item 11c): each rank has
SIGKILL as its parent-death signal. The ranks record their pids; whatever the outcome, every
process the test started is killed at the end, so a failure leaves nothing running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import _env

from openhip.ccl.launcher import parent_death_hook

pytestmark = [pytest.mark.timeout(90),
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="PR_SET_PDEATHSIG is Linux's")]


def _alive(pid: int) -> bool:
    """Running (a zombie nobody reaped yet counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _wait_for(paths: list[Path], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not all(p.exists() and p.read_text().strip() for p in paths):
        assert time.monotonic() < deadline, "the ranks did not start"
        time.sleep(0.05)


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


# A rank that ignores SIGTERM and SIGHUP (only SIGKILL can end it), and one blocked in a
# collective that its peer never joins.
SCRIPTS = {
    "sleeping": (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
        "open(os.path.join(sys.argv[1], 'pid' + os.environ['RANK']), 'w').write(str(os.getpid()))\n"
        "time.sleep(120)\n"),
    "in_a_collective": (
        "import os, sys, time\n"
        "import numpy as np\n"
        "from openhip import ccl\n"
        "comm = ccl.init_from_env()\n"
        "open(os.path.join(sys.argv[1], 'pid' + os.environ['RANK']), 'w').write(str(os.getpid()))\n"
        "if comm.rank == 0:\n"
        "    comm.all_reduce(np.ones(1024, np.float32))\n"
        "time.sleep(120)\n"),
}


@pytest.mark.parametrize("kind", sorted(SCRIPTS))
def test_kill_9_of_the_launcher_ends_every_rank(tmp_path, kind):
    script = tmp_path / "rank.py"
    script.write_text(SCRIPTS[kind])
    launcher = subprocess.Popen([sys.executable, "-m", "openhip", "launch", "-n", "2",
                                 str(script), str(tmp_path)],
                                env=_env({"OPENHIP_CCL_TIMEOUT": "100"}))
    pids: list[int] = []
    try:
        files = [tmp_path / f"pid{r}" for r in range(2)]
        _wait_for(files, 60)
        pids = [int(f.read_text()) for f in files]
        assert all(_alive(p) for p in pids)
        launcher.send_signal(signal.SIGKILL)
        launcher.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [p for p in pids if _alive(p)], "ranks outlived their launcher"
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
        _kill_all(pids)


def test_a_child_whose_launcher_already_died_exits(tmp_path):
    """The race: the launcher dies between fork and prctl. The hook sees the new parent."""
    code = (
        "import os, subprocess, sys, time\n"
        "from openhip.ccl.launcher import parent_death_hook\n"
        "arm = parent_death_hook()\n"
        "launcher = os.getpid()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    deadline = time.monotonic() + 20\n"
        "    while os.getppid() == launcher and time.monotonic() < deadline:\n"
        "        time.sleep(0.01)  # the 'launcher' (our parent) exits (no fixed sleep: load)\n"
        "    arm()\n"
        "    os.write(1, b'survived\\n')\n"
        "    os._exit(0)\n"
        "print(pid, flush=True)\n"
        "os._exit(0)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=30, env=_env(None))
    child = int(proc.stdout.split()[0])
    try:
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child)
        assert "survived" not in proc.stdout
    finally:
        _kill_all([child])


def test_the_hook_exists_on_linux():
    assert callable(parent_death_hook())
