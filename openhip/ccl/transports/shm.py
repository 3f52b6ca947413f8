"""The shared-memory transport: every rank on one machine maps one segment.

The C++ engine (``openhip/ccl/engine``) does all the work; this module only opens the segment,
waits for every rank, and turns engine errors into CclError. The segment's name is unlinked as
soon as every rank has mapped it, so nothing is left in /dev/shm after a normal exit, an abort
or a killed rank (the launcher also removes leftovers of ranks killed before that point).
"""

from __future__ import annotations

from openhip.errors import CclError

from .. import settings
from ..engine import load
from ..faults import engine_error
from ..uid import UniqueId
from .base import Transport

P2P_CHUNKS = 4


class ShmTransport(Transport):
    """Collectives through the shm engine."""

    name = "shm"

    def __init__(self, uid: UniqueId, rank: int, size: int, timeout: float) -> None:
        self.rank, self.size, self.uid, self.timeout = rank, size, uid, timeout
        self._engine = load()
        slot = settings.shm_slot()
        chunk = 256 << 10 if size <= 8 else 64 << 10
        try:
            self._cap = self._engine.open(uid.segment, rank, size, slot, P2P_CHUNKS, chunk, timeout)
        except (OSError, RuntimeError, ValueError) as exc:
            raise CclError(f"cannot open the shared-memory segment: {exc}", rank) from exc
        code, missing = self._engine.wait_attached(self._cap, uid.segment, settings.cma(),
                                                   settings.zero_copy())
        if code:
            self._cap = None
            raise engine_error((code, missing, rank, 0, 0), rank, "init", timeout)
        self.slot = slot
        #: large all-reduces read the peers' memory directly (cross memory attach)
        self.cma = bool(self._engine.uses_cma(self._cap))
        #: collectives over ccl.empty() arrays read and write the peers' arrays directly
        self.zero_copy = bool(self._engine.uses_zero_copy(self._cap))

    def zero_copy_stats(self) -> tuple[int, int]:
        """(collectives run zero-copy so far, peers' shared arrays mapped now)."""
        return self._engine.zero_copy_stats(self._cap) if self._cap is not None else (0, 0)

    def coll(self, kind, send, recv, count, dtype, op, root, desc, what):
        res = self._engine.coll(self._cap, kind, send, recv, count, dtype, op, root, desc, 0)
        if res:
            raise engine_error(res, self.rank, what, self.timeout)

    def p2p(self, ops, what):
        res = self._engine.p2p(self._cap, ops)
        if res:
            raise engine_error(res, self.rank, what, self.timeout)

    def split(self, color, key, members, tag):
        if color is None:
            return None
        return ShmTransport(self.uid.derive(tag), members.index(self.rank), len(members),
                            self.timeout)

    def abort(self) -> None:
        if self._cap is not None:
            self._engine.abort(self._cap)

    def close(self) -> None:
        self._cap = None  # the capsule unmaps the segment

    def set_timeout(self, seconds: float) -> None:
        self.timeout = seconds
        if self._cap is not None:
            self._engine.set_timeout(self._cap, seconds)


