"""Whether memcheck mode is on, and the compile flags of a checked kernel module."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["ENV", "INCLUDE_DIR", "HEADER", "enabled", "compile_flags", "flags_digest"]

#: the environment variable that turns memcheck mode on (``openhip memcheck`` sets it)
ENV = "OPENHIP_MEMCHECK"
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
HEADER = INCLUDE_DIR / "openhip_memcheck.h"


def enabled() -> bool:
    """True when ``OPENHIP_MEMCHECK`` is set to something other than ``0``/empty."""
    return os.environ.get(ENV, "").strip() not in ("", "0")


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
            f"-DOPENHIP_MEMCHECK_SHADOW={off}ull", "-include", str(HEADER)]


def flags_digest(flags: list[str]) -> str:
    """A digest of the checked-mode flags and the header's text (the compile cache's key)."""
    h = hashlib.sha256("\0".join(flags).encode())
    h.update(HEADER.read_bytes())
    return h.hexdigest()[:16]
