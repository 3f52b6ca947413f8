"""Fault handling: operation descriptors (for mismatch detection) and engine errors -> CclError."""

from __future__ import annotations

from openhip.errors import CclError

from .types import OP_NAMES, dtype_name

#: collective kinds as they appear in descriptors and messages
KINDS = ("all_reduce", "reduce", "broadcast", "all_gather", "gather", "reduce_scatter",
         "all_to_all", "scatter", "barrier", "split", "send", "recv")
KIND = {name: i for i, name in enumerate(KINDS)}

E_TIMEOUT, E_DEAD, E_ABORT_LOCAL, E_ABORT_REMOTE, E_MISMATCH, E_ATTACH = 1, 2, 3, 4, 5, 6


def describe(kind: int, dtype: int, op: int, root: int, count: int, algo: int = 0) -> int:
    """Pack one call into 64 bits; every rank must produce the same value for the same step."""
    return ((kind & 0xF) << 60 | (dtype & 0xF) << 56 | (op & 0xF) << 52 | (algo & 0xF) << 48
            | (root & 0xFF) << 40 | (count & 0xFFFFFFFFFF))


def explain(desc: int) -> str:
    """Human text of a descriptor: ``all_reduce(count=1024, float32, sum)``."""
    kind = (desc >> 60) & 0xF
    dtype = (desc >> 56) & 0xF
    op = (desc >> 52) & 0xF
    root = (desc >> 40) & 0xFF
    count = desc & 0xFFFFFFFFFF
    name = KINDS[kind] if kind < len(KINDS) else f"op#{kind}"
    if name in ("send", "recv"):  # the engine's p2p descriptors: peer in root, bytes in count
        return f"{name}({'to' if name == 'send' else 'from'} rank {root}, {count} bytes)"
    parts = [f"count={count}"]
    if name not in ("barrier", "split"):
        parts.append(dtype_name(dtype))
    if name in ("all_reduce", "reduce", "reduce_scatter"):
        parts.append(OP_NAMES.get(op, f"op#{op}"))
    if name in ("reduce", "broadcast", "gather", "scatter"):
        parts.append(f"root={root}")
    return f"{name}({', '.join(parts)})"


def engine_error(result: tuple, rank: int, what: str, timeout: float) -> CclError:
    """Turn the shm engine's error tuple (code, peer, detector, mine, theirs) into a CclError."""
    code, peer, detector, mine, theirs = result
    if code == E_TIMEOUT:
        return CclError(f"{what}: rank {peer} did not answer within {timeout:g} s "
                        "(OPENHIP_CCL_TIMEOUT); the communicator is aborted", rank, peer)
    if code == E_DEAD:
        return CclError(f"{what}: rank {peer} died (its process is gone); the communicator is "
                        "aborted", rank, peer)
    if code == E_ABORT_LOCAL:
        return CclError(f"{what}: the communicator was aborted (comm.abort())", rank, None)
    if code == E_ABORT_REMOTE:
        cause = mine
        if cause == E_DEAD:
            text = f"rank {peer} died (noticed by rank {detector})"
        elif cause == E_TIMEOUT:
            text = f"rank {peer} did not answer (rank {detector} timed out waiting for it)"
        elif cause == E_ABORT_LOCAL:
            text = f"rank {detector} aborted the communicator"
        else:
            text = f"rank {detector} reported an error about rank {peer}"
        return CclError(f"{what}: {text}; the communicator is aborted", rank, peer)
    if code == E_MISMATCH:
        p2p = [KINDS[(d >> 60) & 0xF] in ("send", "recv") for d in (mine, theirs)
               if (d >> 60) & 0xF < len(KINDS)]
        if len(p2p) == 2 and all(p2p) and (mine >> 60) == (theirs >> 60):
            kind = ("sends that wait for each other's receive (outside ccl.group(), as in NCCL, "
                    "a send finishes when its receive is posted: pair them in a group)")
        elif len(p2p) == 2 and all(p2p):
            kind = "message size mismatch"
        elif any(p2p):
            kind = "a point-to-point call matched by a collective"
        else:
            kind = "mismatched collective calls"
        return CclError(f"{what}: {kind} with rank {peer}: this rank called {explain(mine)} but "
                        f"rank {peer} called {explain(theirs)}", rank, peer)
    if code == E_ATTACH:
        return CclError(f"{what}: rank {peer} did not join the communicator within {timeout:g} s",
                        rank, peer)
    return CclError(f"{what}: shm engine error {code}", rank, peer)
