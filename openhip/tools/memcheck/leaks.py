"""``--leak-check full``: the device allocations never freed, reported when the process exits
(as compute-sanitizer's ``Leaked N bytes at 0x...`` lines and its summary)."""

from __future__ import annotations

import atexit
import ctypes
import os
import sys

__all__ = ["LEAK_ENV", "at_start", "leak_report"]

#: ``full``: report the leaks at exit (``openhip memcheck --leak-check full`` sets it)
LEAK_ENV = "OPENHIP_MEMCHECK_LEAKS"
_MAX = 4096


def leak_report(rt) -> list[tuple[int, int]]:
    """The live device allocations of the runtime ``rt``: (address, bytes), by address.
    Blocks the memory pool caches are freed first (they are not the program's)."""
    try:
        import gc

        from ...runtime.pool import _pools

        gc.collect()  # arrays only unreachable (cycles) are not leaks of the program's
        for pool in list(_pools):
            pool.free_all_blocks()
    except Exception:  # noqa: BLE001 - at exit: report what the runtime holds
        pass
    buf = (ctypes.c_uint64 * (2 * _MAX))()
    n = int(rt.ohcpu_memcheck_live(buf, _MAX))
    return [(int(buf[2 * i]), int(buf[2 * i + 1])) for i in range(min(n, _MAX))]


def _print_leaks(rt) -> None:
    leaks = leak_report(rt)
    out = sys.stderr
    for addr, size in leaks:
        print(f"========= Leaked {size} bytes at 0x{addr:x} (a device allocation never freed)",
              file=out)
    total = sum(s for _, s in leaks)
    print(f"========= LEAK SUMMARY: {total} bytes leaked in {len(leaks)} allocations", file=out)
    out.flush()


def at_start(rt) -> None:
    """Called when the CPU runtime starts in memcheck mode: registers the leak report."""
    if os.environ.get(LEAK_ENV, "") == "full":
        atexit.register(_print_leaks, rt)
