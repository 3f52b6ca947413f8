"""``openhip launch``: torchrun variables, exit codes, a failing rank takes the job down,
signals forwarded; the same script under mpiexec and under torchrun."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import RANKS, _env, have_mpi, launch, mpiexec_path, mpirun

pytestmark = pytest.mark.timeout(90)


def test_variables_and_transport(tmp_path):
    rc, results, err = launch(tmp_path, 3, "info")
    assert rc == 0, err
    ports = set()
    for r, d in enumerate(results):
        assert d["rank"] == r and d["size"] == 3 and d["sum"] == 3 and d["transport"] == "shm"
        env = d["env"]
        assert env["RANK"] == str(r) and env["LOCAL_RANK"] == str(r)
        assert env["WORLD_SIZE"] == "3" and env["LOCAL_WORLD_SIZE"] == "3"
        assert env["MASTER_ADDR"] == "127.0.0.1"
        ports.add(env["MASTER_PORT"])
    assert len(ports) == 1


def test_failing_rank_takes_job_down_with_its_code(tmp_path):
    rc, results, err = launch(tmp_path, 3, "exit_code", "7")
    assert rc == 7
    assert "rank 1 exited with 7" in err
    # the others sleep 60 s, then write their results: stopped, they wrote nothing (a bound on
    # the elapsed time instead would count the ranks' start-up, slow on a loaded machine)
    assert results[0] == {"missing": "rank 0"} and results[2] == {"missing": "rank 2"}, results


def test_signal_forwarded(tmp_path):
    script = tmp_path / "sleepy.py"
    script.write_text(
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(int(os.environ['RANK']) + 20))\n"
        f"open(os.path.join({str(tmp_path)!r}, 'up' + os.environ['RANK']), 'w').close()\n"
        "time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-m", "openhip", "launch", "-n", "2", str(script)],
                         env=_env(None))
    deadline = time.monotonic() + 30
    while not all((tmp_path / f"up{r}").exists() for r in range(2)):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=30) == 21  # the worst rank's code


def test_same_script_under_mpiexec(tmp_path):
    if have_mpi():
        pytest.skip(have_mpi())
    rc, results, err = mpirun(tmp_path, 2, "info")
    assert rc == 0, err[-2000:]
    assert [d["rank"] for d in results] == [0, 1]
    assert all(d["sum"] == 1 and d["transport"] == "shm" for d in results)


def test_same_script_under_torchrun_variables(tmp_path):
    """RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT only (no OPENHIP_CCL_UID), as torchrun sets."""
    from openhip.ccl.launcher import free_port

    port = str(free_port())
    procs = []
    for r in range(2):
        env = _env({"RANK": str(r), "WORLD_SIZE": "2", "LOCAL_RANK": str(r),
                    "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port})
        env.pop("OPENHIP_CCL_UID", None)
        procs.append(subprocess.Popen([sys.executable, str(RANKS), "info", str(tmp_path)],
                                      env=env))
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    for r in range(2):
        d = json.loads((tmp_path / f"rank{r}.json").read_text())
        assert d["rank"] == r and d["sum"] == 1


def test_under_real_torchrun(tmp_path):
    pytest.importorskip("torch", reason="torch is not installed")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
           str(RANKS), "info", str(tmp_path)]
    env = _env(None)
    env.pop("OPENHIP_CCL_UID", None)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=80)
    assert p.returncode == 0, p.stderr[-3000:]
    for r in range(2):
        d = json.loads((tmp_path / f"rank{r}.json").read_text())
        assert d["rank"] == r and d["sum"] == 1


def test_single_process_world():
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "OPENHIP_CCL_UID", "PMI_RANK")}
    code = ("from openhip import ccl; import numpy as np; c = ccl.init_from_env(); "
            "x = np.ones(3); c.all_reduce(x); print(c.rank, c.size, x.sum())")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.stdout.split() == ["0", "1", "3.0"], p.stderr


@pytest.mark.parametrize("how", ["launch", "mpiexec-shm", "mpiexec-mpi"])
def test_example_script(how):
    from pathlib import Path

    example = str(Path(__file__).parents[2] / "examples" / "ccl_allreduce.py")
    env = _env(None)
    if how == "launch":
        cmd = [sys.executable, "-m", "openhip", "launch", "-n", "2", example]
    else:
        if have_mpi():
            pytest.skip(have_mpi())
        cmd = [mpiexec_path(), "-n", "2", sys.executable, example]
        env["OPENHIP_CCL_TRANSPORT"] = how.split("-")[1]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"over {how.split('-')[-1] if how != 'launch' else 'shm'}: sum=3" in p.stdout
