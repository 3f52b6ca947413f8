"""The ccl settings, read from the environment when asked (see openhip/config.py).

OPENHIP_CCL_TRANSPORT (shm|mpi|auto), OPENHIP_CCL_TIMEOUT (seconds, default 300),
OPENHIP_CCL_CHECK (1: check that every rank calls the same collective with the same counts,
dtypes and op; the shm transport always checks this at no cost). Tuning knobs of the shm
engine (not needed normally): OPENHIP_CCL_SHM_SLOT (bytes per rank and step, default 1 MiB),
OPENHIP_CCL_SHM_SMALL (all-reduce bytes up to which the direct algorithm is used),
OPENHIP_CCL_ALGO (auto|direct|rsag|cma), OPENHIP_CCL_CMA (0: never read peers' memory
directly), OPENHIP_CCL_CMA_MIN (all-reduce bytes from which the direct-read algorithm is used,
default 32 MiB), OPENHIP_CCL_CMA_DATA_MIN (the same for the other collectives, default 16 MiB),
OPENHIP_CCL_CMA_CHUNK (bytes per direct-read chunk, default 128 KiB), OPENHIP_CCL_SPIN_US
(fixes how many microseconds a waiting rank busy-polls before it sleeps on a futex; by
default this adapts between 5 and 200 µs, at most 20 when ranks outnumber cores),
OPENHIP_CCL_YIELD_US (microseconds of sched_yield polling between spinning and sleeping;
default 0: on a busy machine a yield hands the core to other processes for a whole slice),
OPENHIP_CCL_RSAG_NT (0|1|auto: how rsag fills the shared slots from 512 KiB up — cached
stores, streaming stores, or by default whichever each rank measures faster per size class;
streaming stores halve the time when handing dirty cache lines between the cores is slow),
OPENHIP_CCL_ZERO_COPY (0: never map the peers' shared arrays, see openhip.ccl.empty),
OPENHIP_CCL_ZC_MIN (message bytes from which a collective looks for shared arrays on every
rank, default 1 MiB: the check costs one barrier).
"""

from __future__ import annotations

import os

from openhip.errors import CclError

DEFAULT_TIMEOUT = 300.0


def _get(name: str) -> str:
    return os.environ.get(name, "").strip()


def transport() -> str:
    value = _get("OPENHIP_CCL_TRANSPORT").lower() or "auto"
    if value not in ("shm", "mpi", "auto"):
        raise CclError(f"OPENHIP_CCL_TRANSPORT={value!r} is not one of shm, mpi, auto")
    return value


def timeout() -> float:
    value = _get("OPENHIP_CCL_TIMEOUT")
    if not value:
        return DEFAULT_TIMEOUT
    try:
        t = float(value)
    except ValueError:
        raise CclError(f"OPENHIP_CCL_TIMEOUT={value!r} is not a number of seconds") from None
    if t <= 0:
        raise CclError(f"OPENHIP_CCL_TIMEOUT={value!r} must be positive")
    return t


def check() -> bool:
    return _get("OPENHIP_CCL_CHECK").lower() in ("1", "true", "yes")


def _int(name: str, default: int) -> int:
    value = _get(name)
    try:
        return int(value) if value else default
    except ValueError:
        raise CclError(f"{name}={value!r} is not an integer") from None


def shm_slot() -> int:
    """Bytes each rank owns per step (two steps are in flight)."""
    return max(4096, _int("OPENHIP_CCL_SHM_SLOT", 1 << 20)) // 4096 * 4096


def shm_small() -> int:
    return _int("OPENHIP_CCL_SHM_SMALL", 64 << 10)


def algo() -> str:
    value = _get("OPENHIP_CCL_ALGO").lower() or "auto"
    if value not in ("auto", "direct", "rsag", "cma"):
        raise CclError(f"OPENHIP_CCL_ALGO={value!r} is not one of auto, direct, rsag, cma")
    return value


def cma() -> bool:
    return _get("OPENHIP_CCL_CMA").lower() not in ("0", "false", "no")


def cma_min() -> int:
    """All-reduce bytes from which the ranks read each other's memory (cross memory attach)."""
    return _int("OPENHIP_CCL_CMA_MIN", 32 << 20)


def cma_data_min() -> int:
    """Buffer bytes from which the other collectives read each other's memory directly."""
    return _int("OPENHIP_CCL_CMA_DATA_MIN", 16 << 20)


def zero_copy() -> bool:
    """May collectives over ccl.empty() arrays map the peers' arrays (OPENHIP_CCL_ZERO_COPY)?"""
    return _get("OPENHIP_CCL_ZERO_COPY").lower() not in ("0", "false", "no")
