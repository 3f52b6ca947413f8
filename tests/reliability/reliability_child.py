"""Runs a test body in a fresh Python process with a timeout (the failure modes under test are
crashes and hangs), and reads back the result it prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

KERNELS = Path(__file__).resolve().parent / "fault_kernels.hip"

PRELUDE = f"""
import json, os, signal, sys, threading, time
import numpy as np
import openhip as hip
KERNELS = {str(KERNELS)!r}
def module():
    with open(KERNELS) as f:
        return hip.Module(f.read())
def report(**values):
    print("RESULT " + json.dumps(values), flush=True)
def report_error(wait):
    # call wait() (a synchronize) and report the HipError it raised, as [status, message]
    try:
        wait()
        report(error=None)
    except hip.HipError as e:
        report(error=[e.status, str(e)])
"""


def run_child(body: str, timeout: float = 120, env: dict[str, str] | None = None,
              args: tuple[str, ...] = (), setup: str = "") -> subprocess.CompletedProcess:
    """Runs PRELUDE + setup + body with ``python -c``; raises AssertionError (with the output)
    when it does not finish within ``timeout`` seconds."""
    full_env = dict(os.environ)
    full_env.setdefault("OPENHIP_PLATFORM", "cpu")
    full_env.update(env or {})
    code = PRELUDE + textwrap.dedent(setup) + textwrap.dedent(body)
    try:
        return subprocess.run([sys.executable, *args, "-c", code], capture_output=True,
                              text=True, timeout=timeout, env=full_env)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else exc.stdout
        err = (exc.stderr or b"").decode() if isinstance(exc.stderr, bytes) else exc.stderr
        raise AssertionError(f"the child process hung (> {timeout} s)\nstdout:\n{out}\n"
                             f"stderr:\n{err}") from None


def result(proc: subprocess.CompletedProcess) -> dict:
    """The values the child reported with report(), after checking that it exited cleanly."""
    assert proc.returncode == 0, (f"child exited with {proc.returncode}\nstdout:\n{proc.stdout}"
                                  f"\nstderr:\n{proc.stderr}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"child reported nothing\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return json.loads(lines[-1][len("RESULT "):])
