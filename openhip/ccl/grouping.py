"""``ccl.group()``: like ncclGroupStart/ncclGroupEnd, the calls inside progress together.

Calls made inside the block are recorded; at the end of the outermost block every
communicator runs its collectives in call order, then all its sends and receives at once
(so a ring of send/recv cannot deadlock). Each call returns a Work handle, completed at exit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .work import Work

_state = threading.local()
#: open group blocks over all threads: zero lets the hot path skip the thread-local lookup
open_blocks = 0


def active() -> bool:
    return open_blocks > 0 and getattr(_state, "depth", 0) > 0


def record(comm: Any, kind: str, payload: Any, work: Work) -> None:
    """Remember one call: kind 'coll' (payload: a callable) or 'p2p' (payload: an op tuple)."""
    _state.pending.append((comm, kind, payload, work))


@contextmanager
def group() -> Iterator[None]:
    """Group the ccl calls inside the block (nestable; the outermost block runs them)."""
    global open_blocks
    depth = getattr(_state, "depth", 0)
    if depth == 0:
        _state.pending = []
    _state.depth = depth + 1
    open_blocks += 1
    ok = False
    try:
        yield
        ok = True
    finally:
        _state.depth = depth
        open_blocks -= 1
        if depth == 0:
            pending, _state.pending = _state.pending, []
            if ok:
                _run(pending)
            else:
                for _, _, _, work in pending:
                    work._finish(RuntimeError("ccl.group() block raised; call not run"))


def _run(pending: list) -> None:
    comms: dict[int, Any] = {}
    for comm, _, _, _ in pending:
        comms.setdefault(id(comm), comm)
    first_error: BaseException | None = None
    for comm in comms.values():
        mine = [p for p in pending if p[0] is comm]
        colls = [(fn, w) for _, kind, fn, w in mine if kind == "coll"]
        p2ps = [(op, w) for _, kind, op, w in mine if kind == "p2p"]
        try:
            comm._drain()  # async operations started before the group come first
            for fn, work in colls:
                _call(fn, work)
            if p2ps:
                try:
                    comm._run_p2p([op for op, _ in p2ps], "group of send/recv")
                except BaseException as exc:
                    for _, work in p2ps:
                        work._finish(exc)
                    raise
                for _, work in p2ps:
                    work._finish()
        except BaseException as exc:  # noqa: BLE001 - re-raised after every comm ran
            first_error = first_error or exc
    if first_error is not None:
        raise first_error


def _call(fn: Callable[[], None], work: Work) -> None:
    try:
        fn()
    except BaseException as exc:
        work._finish(exc)
        raise
    work._finish()
