"""Whether memcheck mode is on, and the compile flags of a checked kernel module."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["ENV", "INCLUDE_DIR", "HEADER", "TOOL_ENV", "TOOLS", "enabled", "compile_flags",
           "flags_digest", "tool"]

#: the environment variable that turns memcheck mode on (``openhip memcheck`` sets it)
ENV = "OPENHIP_MEMCHECK"
#: ``racecheck``: shared-memory hazards are tracked instead (``openhip memcheck --tool racecheck``);
#: ``initcheck``: reads of device memory never written
TOOL_ENV = "OPENHIP_MEMCHECK_TOOL"
TOOLS = ("memcheck", "racecheck", "initcheck")  # (the runtime's tool numbers)
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
HEADER = INCLUDE_DIR / "openhip_memcheck.h"


def enabled() -> bool:
    """True when ``OPENHIP_MEMCHECK`` is set to something other than ``0``/empty."""
    return os.environ.get(ENV, "").strip() not in ("", "0")


def tool() -> str:
    """The checking tool of this process: ``memcheck`` (default) or ``racecheck``."""
    name = os.environ.get(TOOL_ENV, "").strip() or "memcheck"
    if name not in TOOLS:
        raise ValueError(f"{TOOL_ENV}={name!r}: the tools are {', '.join(TOOLS)}")
    return name


def compile_flags(shadow_offset: int) -> list[str]:
    """The flags added to a CPU kernel compile in memcheck mode, for the runtime's shadow at
    ``shadow_offset`` (``ohcpu_memcheck_enable``). ``-g`` gives the reports their file:line;
    the header defines the report functions the instrumentation calls. Local arrays get red
    zones (``asan-stack=1``; the engine's fiber frames that never return are not instrumented,
    and a failure's abandoned frames are unpoisoned, so they leave no stale red zones). Null
    accesses are seen by the shadow of the first 64 KiB (no ``-fsanitize=null`` test per
    access); misaligned ones by ``-fsanitize=alignment``."""
    if shadow_offset <= 0:
        raise ValueError("memcheck needs the runtime's shadow offset")
    off = f"0x{shadow_offset:x}"
    return ["-g", "-fsanitize=kernel-address", f"-fasan-shadow-offset={off}",
            "--param", "asan-stack=1", "--param", "asan-globals=1",
            "--param", "asan-instrumentation-with-call-threshold=1000000",
            "--param", "asan-use-after-return=0",
            "-fsanitize=alignment", "-fsanitize-recover=alignment",
            f"-DOPENHIP_MEMCHECK_SHADOW={off}ull",
            # racecheck: -O0, where GCC instruments every access (optimised, it leaves out
            # the check of a store to an address a load just checked: invisible writes)
            *(["-DOPENHIP_RACECHECK=1", "-O0"] if tool() == "racecheck" else []),
            *(["-DOPENHIP_INITCHECK=1"] if tool() == "initcheck" else []),
            "-include", str(HEADER)]


def flags_digest(flags: list[str]) -> str:
    """A digest of the checked-mode flags and the header's text (the compile cache's key)."""
    h = hashlib.sha256("\0".join(flags).encode())
    h.update(HEADER.read_bytes())
    return h.hexdigest()[:16]
