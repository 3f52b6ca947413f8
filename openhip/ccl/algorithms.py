"""Algorithm choice of the shm engine, by message size.

* ``direct`` (small messages): every rank copies its whole buffer into its shared slot, one
  barrier, then every rank reduces all slots itself: one synchronisation per call, which is
  what sets the small-message latency.
* ``cma`` (largest messages, default from 32 MiB): rsag without the staging copies: each rank
  reads the peers' slices straight from their memory with process_vm_readv (cross memory
  attach, as MPICH and Open MPI do for large messages), so the only copies left are the
  unavoidable ones; ranks claim chunks from a shared counter, so a rank that is off its core
  leaves its share to the others. Used when every rank may read every other (checked at init;
  the engine falls back to rsag otherwise, on every rank alike). Below 32 MiB the buffers
  still live largely in the caches, where rsag's user-space copies through cache-sized
  windows beat the two system calls and page pinning per chunk: measured on 2 ranks, rsag
  moves 8-11 GB/s at 4-8 MiB against 5.5-7 for cma; from 32 MiB both are bound by memory
  (about 6 GB/s) and cma holds up better on a loaded machine.
* the data-moving collectives (broadcast, gathers, scatter, all_to_all) and reduce /
  reduce_scatter stream through the shared slots, and from 16 MiB read the peers' memory
  directly as well.
* ``rsag`` (large messages): reduce-scatter then all-gather, the shared-memory form of the ring
  algorithm's two phases. Each window of the buffer is cut into one slice per rank; rank r
  reduces slice r reading the peers' slots directly (no ring hops: on shared memory every
  rank reaches every slot), then everybody copies the reduced slices. Each rank moves
  (n-1)/n of the data in and out, the windows are cache-sized and the copies pipeline.

* ``zero copy`` (shared arrays, from OPENHIP_CCL_ZC_MIN = 1 MiB): when every buffer the peers
  touch comes from ``ccl.empty`` on every rank, the engine maps the peers' arrays and the
  collective reads and writes them directly: all-reduce has each rank reduce its share of
  every rank's send array straight into every rank's recv array (chunks claimed from the
  share's counter, so an early rank helps a late one); the others copy once, from the peer's
  array. Whether every rank's buffers are shared is only known after one barrier in which the
  ranks publish them, so collectives from that size always begin with it (the direct-read
  algorithms then skip their own first barrier); everybody decides from the same published
  data, so the choice stays alike on every rank.

Every rank must choose alike, so the choice depends only on the size and on settings (and,
for zero copy, on what every rank published); the chosen algorithm is part of the call's
descriptor, so ranks that disagree get a clear error.
"""

from __future__ import annotations

from . import settings
from .transports.base import ALL_REDUCE_CMA, ALL_REDUCE_DIRECT, ALL_REDUCE_RSAG

_cache: tuple[str, int, int, int, int] | None = None


def refresh() -> None:
    """Re-read OPENHIP_CCL_ALGO / _SHM_SMALL / _SHM_SLOT / _CMA_MIN / _CMA_DATA_MIN."""
    global _cache
    _cache = (settings.algo(), settings.shm_small(), settings.shm_slot(), settings.cma_min(),
              settings.cma_data_min())


def all_reduce_kind(nbytes: int, nranks: int) -> int:
    """ALL_REDUCE_DIRECT, ALL_REDUCE_RSAG or ALL_REDUCE_CMA for a message of ``nbytes``."""
    if _cache is None:
        refresh()
    algo, small, slot, cma_min, _ = _cache  # type: ignore[misc]
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
    algo, _, _, _, cma_data_min = _cache  # type: ignore[misc]
    # measured here: for these the direct reads win from about 16 MiB
    if algo == "cma" or (algo == "auto" and nbytes >= cma_data_min):
        return kind | CMA_FLAG
    return kind
