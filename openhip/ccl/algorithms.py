"""Algorithm choice of the shm engine, by message size.

* ``direct`` (small messages): every rank copies its whole buffer into its shared slot, one
  barrier, then every rank reduces all slots itself: one synchronisation per call, which is
  what sets the small-message latency.
* ``cma`` (largest messages, default from 4 MiB): rsag without the staging copies: each rank
  reads the peers' slices straight from their memory with process_vm_readv (cross memory
  attach, as MPICH and Open MPI do for large messages), so the only copies left are the
  unavoidable ones. Used when every rank may read every other (checked at init; the engine
  falls back to rsag otherwise, on every rank alike).
* the data-moving collectives (broadcast, gathers, scatter, all_to_all) and reduce /
  reduce_scatter stream through the shared slots, and from 16 MiB read the peers' memory
  directly as well.
* ``rsag`` (large messages): reduce-scatter then all-gather, the shared-memory form of the ring
  algorithm's two phases. Each window of the buffer is cut into one slice per rank; rank r
  reduces slice r reading the peers' slots directly (no ring hops: on shared memory every
  rank reaches every slot), then everybody copies the reduced slices. Each rank moves
  (n-1)/n of the data in and out, the windows are cache-sized and the copies pipeline.

Every rank must choose alike, so the choice depends only on the size and on settings; the
chosen algorithm is part of the call's descriptor, so ranks that disagree get a clear error.
"""

from __future__ import annotations

from . import settings
from .transports.base import ALL_REDUCE_CMA, ALL_REDUCE_DIRECT, ALL_REDUCE_RSAG

_cache: tuple[str, int, int, int] | None = None


def refresh() -> None:
    """Re-read OPENHIP_CCL_ALGO / OPENHIP_CCL_SHM_SMALL / OPENHIP_CCL_SHM_SLOT."""
    global _cache
    _cache = (settings.algo(), settings.shm_small(), settings.shm_slot(), settings.cma_min())


def all_reduce_kind(nbytes: int, nranks: int) -> int:
    """ALL_REDUCE_DIRECT or ALL_REDUCE_RSAG for a message of ``nbytes``."""
    if _cache is None:
        refresh()
    algo, small, slot, cma_min = _cache  # type: ignore[misc]
    if algo == "cma" or (algo == "auto" and nbytes >= cma_min):
        return ALL_REDUCE_CMA  # the engine falls back to rsag where CMA is not allowed
    if algo == "rsag" or nbytes > slot:
        return ALL_REDUCE_RSAG
    if algo == "direct" or nbytes <= small:
        return ALL_REDUCE_DIRECT
    return ALL_REDUCE_RSAG


#: added to a collective's kind to read the peers' memory directly (the engine falls back)
CMA_FLAG = 0x100


def data_kind(kind: int, nbytes: int) -> int:
    """``kind`` or ``kind | CMA_FLAG`` for the other collectives (``nbytes``: total buffer)."""
    if _cache is None:
        refresh()
    algo, _, _, cma_min = _cache  # type: ignore[misc]
    # the staged copies stay in cache longer than the reduction's do: measured here, the
    # direct reads win from about 16 MiB (4 x the all-reduce threshold)
    if algo == "cma" or (algo == "auto" and nbytes >= 4 * cma_min):
        return kind | CMA_FLAG
    return kind
