"""The small interface every host transport implements (buffers are already validated)."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

#: collective kinds, as the shm engine numbers them
ALL_REDUCE_DIRECT, ALL_REDUCE_RSAG = 1, 2
REDUCE, BROADCAST, ALL_GATHER, GATHER, REDUCE_SCATTER, ALL_TO_ALL, SCATTER, BARRIER = range(3, 11)
#: rsag reading the peers' buffers directly (process_vm_readv); rsag where that is not allowed
ALL_REDUCE_CMA = 11


class Transport(ABC):
    """Moves and reduces host (numpy) buffers among ``size`` ranks."""

    name: str
    rank: int
    size: int

    @abstractmethod
    def coll(self, kind: int, send: np.ndarray | None, recv: np.ndarray | None, count: int,
             dtype: int, op: int, root: int, desc: int, what: str) -> None:
        """Run one collective (``kind`` from this module; counts in elements)."""

    @abstractmethod
    def p2p(self, ops: list[tuple[int, int, np.ndarray]], what: str) -> None:
        """Run sends ``(1, peer, buf)`` and receives ``(0, peer, buf)`` together."""

    @abstractmethod
    def split(self, color: int | None, key: int, members: list[int], tag: str) -> Transport | None:
        """The transport of a sub-communicator (collective over this transport)."""

    @abstractmethod
    def abort(self) -> None:
        """Unblock every waiting call (thread-safe) and poison the transport."""

    @abstractmethod
    def close(self) -> None:
        """Release resources."""

    def set_timeout(self, seconds: float) -> None:  # noqa: B027 - optional hook
        """Change the peer timeout."""
