"""``openhip prof [--stats] [-o trace] COMMAND...``: run a command under the profiler.

``COMMAND`` is ``python script.py args``, a ``script.py`` (run with this interpreter), or
``openhip launch -n N script.py`` (every rank is recorded; the trace shows one process per
rank). Each process that imports openhip records itself into a part (``OPENHIP_PROFILE_DIR``)
written when it exits — also after an uncaught exception and on SIGTERM/SIGHUP; a process
killed by SIGKILL or a segfault loses its part (the others are kept). The parts are merged
into ``trace.json`` (Chrome/Perfetto trace events) and ``trace.html`` (a self-contained
timeline); ``--stats`` prints the per-kernel and per-copy tables. The exit code is the
command's. The parts are collected on this machine: ranks started elsewhere (``openhip launch
--hosts``) are not merged.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from openhip.cli.child import resolve_command, run_child
from openhip.tools.profiler.recorder import DEFAULT_CAPACITY


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors: exit 2 with the message
        self.print_usage(sys.stderr)
        print(f"openhip prof: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="openhip prof",
                description="Run a command under the openhip profiler: a Chrome/Perfetto "
                "trace (NAME.json) and a self-contained HTML timeline (NAME.html) of every "
                "process that imports openhip; the exit code is the command's.",
                epilog="Example: openhip prof --stats -o run python train.py --epochs 1. A "
                "process killed by SIGKILL or a segfault loses its part of the trace.")
    p.add_argument("-o", "--output", default="openhip-trace",
                   help="the trace: NAME or NAME.json gives NAME.json and NAME.html "
                   "(default: openhip-trace)")
    p.add_argument("--stats", action="store_true",
                   help="print a table per kernel and per copy kind at the end")
    p.add_argument("--no-html", action="store_true", help="write the JSON trace only")
    p.add_argument("--buffer", type=int, default=DEFAULT_CAPACITY,
                   help=f"records kept per process (a ring: the oldest go past it; default "
                   f"{DEFAULT_CAPACITY})")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="the command: python script.py ..., script.py ..., or "
                   "openhip launch -n N script.py ...")
    return p


def _fail(message: str) -> int:
    print(f"openhip prof: error: {message}", file=sys.stderr)
    return 2


def run(argv: list[str]) -> int:
    """Entry point of ``openhip prof``; returns the command's exit code (2 for bad usage)."""
    ns = _parser().parse_args(argv)
    if ns.command and ns.command[0].startswith("-") and ns.command[0] != "--":
        return _fail(f"unknown option {ns.command[0]} (options go before the command; "
                     "see openhip prof --help)")
    if ns.buffer < 1:
        return _fail("--buffer must be at least 1")
    cmd = resolve_command(ns.command, "prof", "profile")
    if isinstance(cmd, str):
        return _fail(cmd)
    from openhip.tools.profiler import trace_event
    from openhip.tools.profiler.session import ENV_BUFFER, ENV_PARTS, check_writable, output_paths

    json_path, html_path = output_paths(ns.output)
    try:
        check_writable(json_path)
        if not ns.no_html:
            check_writable(html_path)
    except OSError as exc:
        return _fail(str(exc))
    parts_dir = tempfile.mkdtemp(prefix="openhip-prof-")
    env = dict(os.environ, **{ENV_PARTS: parts_dir, ENV_BUFFER: str(ns.buffer)})
    try:
        rc = run_child(cmd, env, "prof")
        parts, broken = _read_parts(Path(parts_dir))
    finally:
        shutil.rmtree(parts_dir, ignore_errors=True)
    for name in broken:
        print(f"openhip prof: warning: the part {name} could not be read (the process was "
              "killed while writing it?)", file=sys.stderr)
    if not parts:
        print("openhip prof: warning: no process recorded anything (did the command import "
              "openhip?)", file=sys.stderr)
    trace = trace_event.merge(parts)
    trace_event.write(trace, json_path)
    written = [str(json_path)]
    if not ns.no_html:
        from openhip.tools.profiler.html_timeline import write_html

        write_html(trace, html_path)
        written.append(str(html_path))
    if ns.stats:
        from openhip.tools.profiler.stats import format_stats

        print(format_stats(trace), file=sys.stderr)
    n = sum(1 for e in trace["traceEvents"] if e["ph"] != "M")
    procs = len(trace["otherData"]["processes"])
    print(f"openhip prof: {n} events from {procs} process(es) -> {', '.join(written)}",
          file=sys.stderr)
    return rc


def _read_parts(directory: Path) -> tuple[list[dict], list[str]]:
    parts, broken = [], []
    for path in sorted(directory.glob("part-*.json")):
        try:
            parts.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            broken.append(path.name)
    parts.sort(key=lambda p: (p.get("otherData", {}).get("rank") is None,
                              p.get("otherData", {}).get("rank") or 0,
                              p.get("otherData", {}).get("pid") or 0))
    return parts, broken
