"""What ``openhip prof`` and ``openhip memcheck`` share: checking the command they are given and
running it as a child with its signals forwarded and its exit status passed through."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

__all__ = ["resolve_command", "run_child"]


def resolve_command(argv: list[str], tool: str, verb: str) -> list[str] | str:
    """The command ``openhip TOOL`` runs (a ``.py`` file through this Python, ``openhip`` as
    ``python -m openhip``), or what is wrong with it; ``verb`` names the tool's action."""
    cmd = list(argv)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        return f"no command to {verb} (e.g. openhip {tool} python script.py)"
    head = cmd[0]
    if head.endswith(".py"):
        cmd = [sys.executable, *cmd]
    elif head == "openhip":
        cmd = [sys.executable, "-m", "openhip", *cmd[1:]]
    elif os.sep not in head and shutil.which(head) is None:
        return f"command not found: {head}"
    elif os.sep in head and not os.access(head, os.X_OK):
        return f"command not found or not executable: {head}"
    script = _script_of(cmd)
    if script is not None and not Path(script).is_file():
        return f"the script {script} does not exist"
    return cmd


def _script_of(cmd: list[str]) -> str | None:
    """The Python script a command runs, where one can be told (python X.py, openhip launch
    ... X.py); None for python -c / -m and other programs."""
    name = Path(cmd[0]).name
    args = cmd[1:]
    if len(cmd) > 2 and cmd[1:3] == ["-m", "openhip"]:
        if len(cmd) > 3 and cmd[3] == "launch":
            rest = cmd[4:]
            if "-m" in rest or "--no-python" in rest:
                return None
            return next((a for a in rest if a.endswith(".py")), None)
        return None
    if not name.startswith("python"):
        return None
    for a in args:
        if a in ("-c", "-m"):
            return None
        if a.startswith("-"):
            continue
        return a
    return None


def run_child(cmd: list[str], env: dict[str, str], tool: str) -> int:
    """Run ``cmd``; SIGTERM/SIGHUP go on to it, SIGINT reaches it directly; its exit status
    (128 + N for a signal) is returned."""
    try:
        child = subprocess.Popen(cmd, env=env)
    except OSError as exc:
        print(f"openhip {tool}: error: cannot run {cmd[0]}: {exc.strerror}", file=sys.stderr)
        return 127

    def forward(signum: int, frame: object) -> None:
        try:
            child.send_signal(signum)
        except OSError:
            pass

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        while True:
            try:
                rc = child.wait()
                break
            except KeyboardInterrupt:  # the child got the SIGINT too: wait for its part
                continue
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return rc if rc >= 0 else 128 - rc
