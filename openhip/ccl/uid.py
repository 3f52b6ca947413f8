"""Unique ids: the bytes every rank of a communicator shares (NCCL semantics, 128 bytes)."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

from .types import CclArgumentError

MAGIC = b"OHCCLUID"
SIZE = 128


@dataclass(frozen=True)
class UniqueId:
    """A parsed id: a random token (names the shm segments) and the creating host."""

    token: str   # hex; also the prefix of every shm segment of the job
    host: str
    suffix: str = ""  # derived communicators (split) append to it

    def to_bytes(self) -> bytes:
        body = MAGIC + bytes.fromhex(self.token) + self.host.encode()[:63].ljust(64, b"\0")
        body += self.suffix.encode()[: SIZE - len(body)]
        return body.ljust(SIZE, b"\0")

    def derive(self, tag: str) -> UniqueId:
        return UniqueId(self.token, self.host, self.suffix + tag)

    @property
    def segment(self) -> str:
        """The POSIX shm name of this communicator."""
        return f"/ohccl-{self.token}{self.suffix}"


def get_unique_id() -> bytes:
    """A new id to share with every rank (``ncclGetUniqueId``)."""
    return UniqueId(os.urandom(16).hex(), socket.gethostname()).to_bytes()


def parse(uid: bytes | bytearray | str) -> UniqueId:
    """Parse an id given as bytes or as its hex string (as ``openhip launch`` passes it)."""
    if isinstance(uid, str):
        try:
            uid = bytes.fromhex(uid)
        except ValueError:
            raise CclArgumentError("the unique id string is not hex") from None
    uid = bytes(uid)
    if len(uid) != SIZE or not uid.startswith(MAGIC):
        raise CclArgumentError("not an openhip.ccl unique id (use ccl.get_unique_id())")
    token = uid[8:24].hex()
    host = uid[24:88].rstrip(b"\0").decode()
    suffix = uid[88:].rstrip(b"\0").decode()
    return UniqueId(token, host, suffix)
