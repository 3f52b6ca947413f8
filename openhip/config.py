"""Every environment variable openhip reads, documented in one place.

All are read when asked for (never at import time), so tests and users can change them between
calls.

=========================  =================================================================
variable                   meaning
=========================  =================================================================
OPENHIP_PLATFORM           ``cpu`` | ``nvidia`` | ``amd`` | ``auto`` (default ``auto``: amd,
                           then nvidia, then cpu)
OPENHIP_CACHE_DIR          the on-disk compile cache (default ``$XDG_CACHE_HOME/openhip`` or
                           ``~/.cache/openhip``)
OPENHIP_DISABLE_CACHE      ``1``: compile without the disk cache (the in-memory layer stays);
                           openhip.numpy then starts no background (speculative) builds
OPENHIP_COMPILE_TIMEOUT    seconds one run of a host compiler may take (CPU platform: kernels,
                           the runtime library, the precompiled header) before it is killed
                           and a CompileError says so (default 300; ``0``: no limit)
OPENHIP_COMPILE_MEMORY     address space one run of a host compiler may use, in bytes or with
                           a ``k``/``m``/``g`` suffix (default: half the physical memory, at
                           least 2 GiB and at most 8 GiB; ``0``: no limit)
OPENHIP_CPU_THREADS        worker threads of the CPU platform (default: all cores)
OPENHIP_CPU_STACK_SIZE     bytes of stack per fiber (a GPU thread of a synchronising kernel)
                           on the CPU platform (default 64 KiB)
OPENHIP_CPU_PCH            ``0``: no precompiled hip_runtime.h for the CPU platform (GCC)
OPENHIP_CPU_REGIONS        ``0``: run every synchronising kernel as fibers; by default kernels
                           whose barriers are provably reached by all threads are split at
                           them into loops over the block's threads (much faster)
OPENHIP_FUSION             ``0``: openhip.numpy runs every elementwise operation as its own
                           kernel; by default chains of them (``a * x + y``) run as one
                           (``openhip/numpy/_fusion.py``)
OPENHIP_PREFETCH           ``0``: openhip.numpy builds a kernel group only when a program
                           needs it; by default, on a compile-cache miss, the groups a program
                           usually needs next build on background threads
                           (``openhip/numpy/_prefetch.py``); never with
                           ``OPENHIP_DISABLE_CACHE=1``
OPENHIP_POOL_LIMIT         bytes the memory pool of each device may hold: bytes, a size with
                           a suffix (``512M``, ``4G``) or a percentage of the device's memory
                           (``50%``); unset or ``0``: no limit (``openhip/runtime/pool.py``)
OPENHIP_PROFILE_DIR        set by ``openhip prof`` for the processes it runs: each one that
                           imports openhip records itself into a part there
                           (``openhip/tools/profiler/session.py``)
OPENHIP_PROFILE_BUFFER     records kept per process under ``openhip prof`` (``--buffer``)
CXX                        the C++ compiler of the CPU platform (default g++, then clang++)
ROCM_PATH                  where to look for libamdhip64 first (amd platform)
HIP_VISIBLE_DEVICES        device indices the amd platform exposes
CUDA_VISIBLE_DEVICES       device indices the nvidia platform exposes
OPENHIP_CCL_TRANSPORT      ``shm`` | ``mpi`` | ``auto`` (ccl)
OPENHIP_CCL_TIMEOUT        seconds a collective waits for a peer before raising CclError
                           (default 300)
OPENHIP_CCL_CHECK          ``1``: check counts, dtypes and ops agree across ranks
OPENHIP_CCL_UID            the communicator id ``openhip launch`` hands its ranks
OPENHIP_CCL_SHM_SLOT, OPENHIP_CCL_SHM_SMALL, OPENHIP_CCL_ALGO, OPENHIP_CCL_CMA,
OPENHIP_CCL_CMA_MIN, OPENHIP_CCL_CMA_DATA_MIN, OPENHIP_CCL_CMA_CHUNK, OPENHIP_CCL_SPIN_US,
OPENHIP_CCL_YIELD_US, OPENHIP_CCL_RSAG_NT, OPENHIP_CCL_ZERO_COPY, OPENHIP_CCL_ZC_MIN
                           tuning knobs of the shared-memory engine, documented in
                           ``openhip/ccl/settings.py`` (not needed normally)
=========================  =================================================================
"""

from __future__ import annotations

import os
from pathlib import Path

PLATFORM_NAMES = ("cpu", "nvidia", "amd")
#: the order ``auto`` tries the platforms in.
AUTO_ORDER = ("amd", "nvidia", "cpu")


def platform_choice() -> str:
    """The platform asked for by ``OPENHIP_PLATFORM`` (``auto`` when unset)."""
    value = os.environ.get("OPENHIP_PLATFORM", "auto").strip().lower() or "auto"
    if value not in PLATFORM_NAMES + ("auto",):
        raise ValueError(
            f"OPENHIP_PLATFORM={value!r} is not one of cpu, nvidia, amd, auto"
        )
    return value


def cache_dir() -> Path:
    """Directory of the on-disk compile cache."""
    explicit = os.environ.get("OPENHIP_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "openhip"


def cache_disabled() -> bool:
    """True when ``OPENHIP_DISABLE_CACHE`` asks to skip the disk cache."""
    return os.environ.get("OPENHIP_DISABLE_CACHE", "").strip().lower() in ("1", "true", "yes")


#: the default of ``OPENHIP_COMPILE_TIMEOUT`` (seconds).
DEFAULT_COMPILE_TIMEOUT = 300.0


def compile_timeout() -> float | None:
    """Seconds a host compiler run may take (``OPENHIP_COMPILE_TIMEOUT``); None: no limit."""
    value = os.environ.get("OPENHIP_COMPILE_TIMEOUT", "").strip()
    if not value:
        return DEFAULT_COMPILE_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"OPENHIP_COMPILE_TIMEOUT={value!r} must be a number of seconds") \
            from None
    if seconds < 0 or seconds != seconds:
        raise ValueError(f"OPENHIP_COMPILE_TIMEOUT={value!r} must be >= 0 (0: no limit)")
    return seconds or None


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0


def compile_memory() -> int | None:
    """Bytes of address space a host compiler run may use (``OPENHIP_COMPILE_MEMORY``); None:
    no limit."""
    value = os.environ.get("OPENHIP_COMPILE_MEMORY", "").strip().lower()
    if not value:
        gib = 1 << 30
        return max(2 * gib, min(8 * gib, _physical_memory() // 2))
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}.get(value[-1], 1)
    number = value[:-1] if value[-1] in "kmgt" else value
    try:
        size = int(float(number) * scale)
    except ValueError:
        raise ValueError(f"OPENHIP_COMPILE_MEMORY={value!r} must be bytes, or a number with "
                         "k, m or g") from None
    if size < 0:
        raise ValueError(f"OPENHIP_COMPILE_MEMORY={value!r} must be >= 0 (0: no limit)")
    if 0 < size < 64 << 20:
        raise ValueError(f"OPENHIP_COMPILE_MEMORY={value!r}: at least 64m (a compiler needs "
                         "that much to start)")
    return size or None


def cpu_threads() -> int:
    """Worker threads for the CPU platform."""
    value = os.environ.get("OPENHIP_CPU_THREADS")
    if value:
        n = int(value)
        if n < 1:
            raise ValueError(f"OPENHIP_CPU_THREADS={value!r} must be a positive integer")
        return n
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cpu_regions() -> bool:
    """Whether the CPU platform splits synchronising kernels at their barriers."""
    value = os.environ.get("OPENHIP_CPU_REGIONS", "1").strip().lower()
    return value not in ("0", "no", "off", "false")


def cxx() -> str | None:
    """The C++ compiler asked for by ``CXX`` (None: let the CPU platform pick g++ or clang++)."""
    return os.environ.get("CXX") or None


def visible_devices(variable: str) -> list[int] | None:
    """Parse ``HIP_VISIBLE_DEVICES``/``CUDA_VISIBLE_DEVICES``; None when unset."""
    value = os.environ.get(variable)
    if value is None:
        return None
    out: list[int] = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            out.append(int(part))
        except ValueError:
            break  # CUDA stops at the first entry it cannot parse
    return out
