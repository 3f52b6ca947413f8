"""Running the host compiler within limits: no stdin, a time limit and a memory limit.

A kernel's source decides what the compiler reads (``#include </dev/zero>``, ``</dev/stdin>``)
and how much it expands (a macro bomb), so every run gets stdin from ``/dev/null``, a time limit
(``OPENHIP_COMPILE_TIMEOUT``; the whole process group is killed when it is reached, the driver's
``cc1plus``/``as``/``ld`` included) and an address-space limit (``OPENHIP_COMPILE_MEMORY``, set
with the shell's ``ulimit -v`` just before ``exec``, so it is inherited by every process of the
driver; ``preexec_fn`` would run Python in a forked child of a threaded process).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from ... import config

__all__ = ["ToolResult", "run_tool", "limit_message"]

# what GCC's and LLVM's tools print when an allocation fails (only on their own lines, never
# in a quoted source line)
_MEMORY_SIGNS = re.compile(r"^(?:\S*(?:cc1\S*|g\+\+|gcc|c\+\+|clang\S*|as|ld|collect2|lto1)"
                           r"(?:\.exe)?: |LLVM ERROR: |virtual memory exhausted)"
                           r".*(?:out of memory|memory exhausted|cannot allocate memory|"
                           r"std::bad_alloc)", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class ToolResult:
    """What a limited run gave: exit status, stdout + stderr, and which limit stopped it
    (``"time"``, ``"memory"`` or ``""``)."""

    returncode: int
    output: str
    limit: str
    timeout: float | None
    memory: int | None


def _limited_command(cmd: Sequence[str], memory: int | None) -> list[str]:
    if memory is None:
        return list(cmd)
    # ``ulimit -v`` takes KiB; when the hard limit is already lower it fails and that stays.
    script = f'ulimit -v {max(1, memory // 1024)} 2>/dev/null; exec "$0" "$@"'
    return ["/bin/sh", "-c", script, *cmd]


def run_tool(cmd: Sequence[str], *, cwd: str | os.PathLike[str] | None = None) -> ToolResult:
    """Run ``cmd`` with stdin from /dev/null, within ``config.compile_timeout()`` seconds and
    ``config.compile_memory()`` bytes of address space."""
    timeout = config.compile_timeout()
    memory = config.compile_memory()
    proc = subprocess.Popen(_limited_command(cmd, memory), cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, _ = proc.communicate()
        return ToolResult(proc.returncode, _text(out), "time", timeout, memory)
    except BaseException:  # KeyboardInterrupt: leave no compiler behind
        _kill_group(proc)
        proc.wait()
        raise
    text = _text(out)
    limit = ""
    if proc.returncode != 0 and memory is not None and _MEMORY_SIGNS.search(text):
        limit = "memory"
    return ToolResult(proc.returncode, text, limit, timeout, memory)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")


def limit_message(result: ToolResult, what: str = "the host compiler") -> str:
    """The first line of the error for a run stopped by a limit ("" when none was hit)."""
    if result.limit == "time":
        return (f"error: {what} was stopped after {result.timeout:g} s: the compile time limit "
                f"(OPENHIP_COMPILE_TIMEOUT={result.timeout:g}) was reached. Does the source "
                "include a device or a pipe (/dev/zero, a FIFO), or expand a macro or template "
                "without bound? Raise OPENHIP_COMPILE_TIMEOUT for a legitimately slow build")
    if result.limit == "memory":
        mib = (result.memory or 0) >> 20
        return (f"error: {what} ran out of memory under the compile memory limit "
                f"(OPENHIP_COMPILE_MEMORY={mib}m of address space). Does the source include "
                "an endless file (/dev/zero) or expand without bound? Raise "
                "OPENHIP_COMPILE_MEMORY for a legitimately large build")
    return ""
