"""Helpers of the ccl tests: start N ranks of ranks.py and collect what each rank wrote."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
RANKS = HERE / "ranks.py"

_spec = importlib.util.spec_from_file_location("ccl_ranks", RANKS)
ranks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ranks)


def _env(extra: dict | None) -> dict:
    env = dict(os.environ)
    env.setdefault("OPENHIP_CCL_TIMEOUT", "30")
    root = str(HERE.parent.parent)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra or {})
    return env


def collect(outdir: Path, n: int) -> list[dict]:
    out = []
    for r in range(n):
        path = outdir / f"rank{r}.json"
        out.append(json.loads(path.read_text()) if path.exists() else {"missing": f"rank {r}"})
    return out


def launch(tmp: Path, n: int, scenario: str, *args: str, env: dict | None = None,
           timeout: float = 120) -> tuple[int, list[dict], str]:
    """Run ranks.py through ``python -m openhip launch -n N``."""
    tmp.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "openhip", "launch", "-n", str(n), "--grace", "2", str(RANKS),
           scenario, str(tmp), *args]
    p = subprocess.run(cmd, env=_env(env), capture_output=True, text=True, timeout=timeout)
    return p.returncode, collect(tmp, n), p.stderr


def spawn(tmp: Path, n: int, scenario: str, *args: str, env: dict | None = None,
          timeout: float = 60) -> tuple[list[int], list[dict]]:
    """Start the ranks directly (no launcher taking the job down) with a shared id."""
    from openhip.ccl import get_unique_id

    tmp.mkdir(parents=True, exist_ok=True)
    uid = get_unique_id().hex()
    procs = [subprocess.Popen([sys.executable, str(RANKS), scenario, str(tmp), *args],
                              env=_env({"OPENHIP_CCL_UID": uid, "RANK": str(r),
                                        "WORLD_SIZE": str(n), **(env or {})}))
             for r in range(n)]
    codes = []
    for p in procs:
        try:
            codes.append(p.wait(timeout=timeout))
        except subprocess.TimeoutExpired:
            p.kill()
            codes.append(p.wait())
    return codes, collect(tmp, n)


def mpiexec_path() -> str | None:
    here = Path(sys.executable).with_name("mpiexec")
    return str(here) if here.exists() else shutil.which("mpiexec")


def have_mpi() -> str | None:
    """None when mpi4py + an mpiexec are usable, else the reason to skip."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (pip install 'openhip[mpi]')"
    if mpiexec_path() is None:
        return "no mpiexec (pip install mpich)"
    return None


def mpirun(tmp: Path, n: int, scenario: str, *args: str, env: dict | None = None,
           timeout: float = 120) -> tuple[int, list[dict], str]:
    tmp.mkdir(parents=True, exist_ok=True)
    cmd = [mpiexec_path(), "-n", str(n), sys.executable, str(RANKS), scenario, str(tmp), *args]
    p = subprocess.run(cmd, env=_env(env), capture_output=True, text=True, timeout=timeout)
    return p.returncode, collect(tmp, n), p.stderr


def case_params(configs: dict[str, bool]) -> list:
    """pytest params (config, case id) for every case of ranks.cases(subset) per config
    (``configs``: config name -> subset)."""
    return [pytest.param(config, ranks.case_id(case), id=f"{config}-{ranks.case_id(case)}")
            for config, subset in configs.items() for case in ranks.cases(subset)]


def all_ok(results: list[dict]) -> None:
    """Every rank reported something, and every case it reported is "ok"."""
    assert all(results), f"a rank reported nothing: {results}"
    bad = {f"rank{r}:{k}": v for r, d in enumerate(results) for k, v in d.items() if v != "ok"}
    assert not bad, bad


@pytest.fixture(scope="session", autouse=True)
def _engine_built():
    """Build the shm engine once before rank processes race to do it."""
    from openhip.ccl.engine import load

    load()
