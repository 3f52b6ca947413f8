"""The README's examples run and check themselves against numpy."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name", ["arrays.py", "saxpy.py", "reduction.py", "histogram.py",
                                  "llm_generate.py"])
def test_example_runs_on_cpu(name):
    env = dict(os.environ, OPENHIP_PLATFORM="cpu")
    r = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    if name == "llm_generate.py":
        assert "bit for bit: True" in r.stdout, r.stdout
    else:
        assert "match" in r.stdout or "numpy" in r.stdout
