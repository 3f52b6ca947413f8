"""``openhip memcheck [--leak-check full] [--error-exitcode N] COMMAND...``: run a command with
the CPU platform's kernels compiled in memcheck mode (``openhip.tools.memcheck``).

``COMMAND`` is ``python script.py args`` or ``script.py args`` (run with this interpreter).
The command runs with ``OPENHIP_MEMCHECK=1``: every global, shared and local access of its
kernels, and every copy and memset of the runtime, is checked, and the first bad one fails
the launch with HipError ``hipErrorIllegalAddress`` and a compute-sanitizer-shaped report. At the end the reports (each
once) and ``ERROR SUMMARY: N errors`` are printed, as compute-sanitizer prints them; with
``--leak-check full`` the device allocations never freed too. The exit code is the command's,
or ``--error-exitcode`` when it succeeded but errors were found. ``--tool racecheck`` tracks
the kernels' shared memory (dynamic and static) instead: two threads of a block touching the same word
between two barriers, one of them writing, fail the launch (hipErrorLaunchFailure) with both
accesses in the report; ``--tool initcheck`` reports a kernel's read of device memory that no
kernel, copy or memset wrote (8-byte granules: a granule written from its start is tracked
to the byte, one written first in its middle counts as written whole).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from openhip.cli.child import resolve_command, run_child

PREFIX = "========= "


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors: exit 2 with the message
        self.print_usage(sys.stderr)
        print(f"openhip memcheck: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="openhip memcheck",
                description="Run a command with checked kernel memory accesses on the CPU "
                "platform (compute-sanitizer's memcheck); the exit code is the command's.",
                epilog="Example: openhip memcheck --leak-check full python train.py")
    p.add_argument("--tool", default="memcheck",
                   help="memcheck (out-of-bounds, misaligned, null, use after free), "
                   "racecheck (shared-memory hazards between barriers) or initcheck (reads of "
                   "device memory never written)")
    p.add_argument("--leak-check", choices=("full", "no"), default="no",
                   help="full: list the device allocations never freed at exit")
    p.add_argument("--error-exitcode", type=int, default=None,
                   help="exit code when errors were found and the command itself succeeded")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="the command: python script.py ... or script.py ...")
    return p


def _fail(message: str) -> int:
    print(f"openhip memcheck: error: {message}", file=sys.stderr)
    return 2


def _reports(directory: Path) -> list[str]:
    from openhip.tools.memcheck.report import SEPARATOR

    seen: list[str] = []
    for path in sorted(directory.glob("reports-*.txt")):
        for text in path.read_text(encoding="utf-8", errors="replace").split(SEPARATOR):
            text = text.strip("\n")
            if text and text not in seen:
                seen.append(text)
    return seen


def run(argv: list[str]) -> int:
    """Entry point of ``openhip memcheck``; the command's exit code (2 for bad usage)."""
    ns = _parser().parse_args(argv)
    if ns.command and ns.command[0].startswith("-") and ns.command[0] != "--":
        return _fail(f"unknown option {ns.command[0]} (options go before the command; see "
                     "openhip memcheck --help)")
    if ns.tool == "synccheck":
        return _fail("--tool synccheck is not implemented (memcheck, racecheck, initcheck are)")
    if ns.tool not in ("memcheck", "racecheck", "initcheck"):
        return _fail(f"unknown tool {ns.tool!r} (memcheck, racecheck or initcheck)")
    cmd = resolve_command(ns.command, "memcheck", "check")
    if isinstance(cmd, str):
        return _fail(cmd)
    from openhip.tools.memcheck.flags import ENV, TOOL_ENV
    from openhip.tools.memcheck.leaks import LEAK_ENV
    from openhip.tools.memcheck.report import LOG_ENV

    log_dir = tempfile.mkdtemp(prefix="openhip-memcheck-")
    env = dict(os.environ, **{ENV: "1", LOG_ENV: log_dir, "OPENHIP_PLATFORM": "cpu",
                              TOOL_ENV: ns.tool})
    if ns.leak_check == "full":
        env[LEAK_ENV] = "full"
    print(f"{PREFIX}OPENHIP {ns.tool.upper()} (CPU platform)", file=sys.stderr)
    try:
        rc = run_child(cmd, env, "memcheck")
        reports = _reports(Path(log_dir))
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    for text in reports:
        for line in text.splitlines():
            print(PREFIX + line, file=sys.stderr)
        print(PREFIX.rstrip(), file=sys.stderr)
    print(f"{PREFIX}ERROR SUMMARY: {len(reports)} error{'s' if len(reports) != 1 else ''}",
          file=sys.stderr)
    if reports and rc == 0 and ns.error_exitcode is not None:
        return ns.error_exitcode
    return rc
