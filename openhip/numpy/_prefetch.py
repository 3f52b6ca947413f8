"""Background builds of kernel groups a program is likely to need next (a cold cache only).

A first use of openhip.numpy with an empty compile cache spends its time in the host
compiler, one group build after another, while the machine's other cores idle. When a build
misses the cache (:meth:`openhip.numpy._kernels.Family.module`), the family's *hints* name
the groups that usually follow (after ``arange`` of a dtype: that dtype's arithmetic; after
arithmetic: comparisons, ``exp``/``log``/``sqrt``, ``where``/``maximum``), and this module
builds them on background threads while Python goes on, so that they are ready (or under
way) when the program reaches them.

- Only a build that would compile is started: a group already in the compile cache (memory
  or disk) is skipped without being read, so a warm program never starts a background build
  and pays no CPU for this module beyond one cache lookup per group's first use.
- At most ``os.cpu_count()`` compilers run at once, counting the foreground's own build (a
  background build starts only while fewer are running), on at most :data:`MAX_WORKERS`
  threads.
- A group that the program asks for while it is still queued is taken back and built in the
  foreground; one under way is waited for; a background build that failed raises its error
  at that point of use, once (the next use builds again, as a failed build is never cached).
- A forked child starts with no background build (its parent's end there, unbuilt).
- At exit, queued builds are dropped and the interpreter waits for the ones under way (a
  compiler is never left running, nor its temporary directory behind).
- ``OPENHIP_PREFETCH=0`` turns it off (read at each hint), and so does
  ``OPENHIP_DISABLE_CACHE=1``: without the disk cache every group a program uses compiles
  anyway and nothing built is kept, so a guess would only spend CPU on groups the program
  may never reach.
"""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

from ..config import cache_disabled

__all__ = ["Job", "MAX_WORKERS", "enabled", "submit", "foreground", "wait_idle"]

MAX_WORKERS = 4

_cond = threading.Condition()
_queue: deque[Job] = deque()
_workers: list[threading.Thread] = []
_active = 0  # compilers running now: background builds and foreground builds
_running = 0  # background builds under way
_unfinished: weakref.WeakSet[Job] = weakref.WeakSet()  # queued or running
_capacity = max(1, min(os.cpu_count() or 1, MAX_WORKERS))


def enabled() -> bool:
    """Whether hints start background builds: ``OPENHIP_PREFETCH`` (default on), and never
    with ``OPENHIP_DISABLE_CACHE`` set (no disk cache: no speculative builds)."""
    if os.environ.get("OPENHIP_PREFETCH", "1").strip() == "0":
        return False
    return not cache_disabled()


class Job:
    """One background build: ``build()`` returns a module (or None: nothing was built, the
    group was in the cache) or raises; the state moves queued -> running -> done, or
    queued -> taken (by the foreground, which then builds it itself)."""

    __slots__ = ("build", "state", "result", "error", "_done", "__weakref__")

    def __init__(self, build: Callable[[], Any]) -> None:
        self.build = build
        self.state = "queued"
        self.result: Any = None
        self.error: BaseException | None = None
        self._done = threading.Event()
        _unfinished.add(self)

    def take(self) -> bool:
        """Claim a queued job for the foreground (True), or False when it has started."""
        with _cond:
            if self.state != "queued":
                return False
            self.state = "taken"
            try:
                _queue.remove(self)
            except ValueError:
                pass
            return True

    def wait(self) -> Any:
        """The module built in the background (None: build it yourself); raises the build's
        error."""
        self._done.wait()
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        return self.result


def submit(job: Job) -> None:
    """Queue ``job``; a worker starts it when a compiler slot is free."""
    with _cond:
        _queue.append(job)
        if len(_workers) < _capacity:
            t = threading.Thread(target=_worker, name=f"openhip-prefetch-{len(_workers)}",
                                 daemon=True)
            _workers.append(t)
            t.start()
        _cond.notify_all()


class foreground:
    """``with foreground():`` around a foreground build: it holds one compiler slot (never
    waiting for one: the program's own build goes first)."""

    def __enter__(self) -> None:
        global _active
        with _cond:
            _active += 1

    def __exit__(self, *exc: object) -> None:
        global _active
        with _cond:
            _active -= 1
            _cond.notify_all()


def wait_idle(timeout: float | None = None) -> bool:
    """Wait until no background build is queued or running (tests); False on timeout."""
    with _cond:
        return _cond.wait_for(lambda: not _queue and not _running, timeout)


@atexit.register
def _at_exit() -> None:
    with _cond:
        while _queue:
            job = _queue.popleft()
            job.state = "done"  # nothing built: a (late) use builds it itself
            _unfinished.discard(job)
            job._done.set()
        _cond.wait_for(lambda: not _running, 60.0)


def _after_fork_in_child() -> None:
    """A forked child has none of the workers: its queued and running jobs end with nothing
    built (a use builds in the foreground), on fresh locks."""
    global _cond, _active, _running
    _cond = threading.Condition()
    _queue.clear()
    _workers.clear()
    _active = _running = 0
    for job in list(_unfinished):
        job.state = "done"
        job.result = job.error = None
        job._done = threading.Event()
        job._done.set()
    _unfinished.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _startable() -> bool:
    return bool(_queue) and _active < _capacity


def _worker() -> None:
    global _active, _running
    while True:
        with _cond:
            _cond.wait_for(_startable)
            job = _queue.popleft()
            job.state = "running"
            _active += 1
            _running += 1
        try:
            job.result = job.build()
        except BaseException as exc:  # reported at the point of use (Job.wait)
            job.error = exc
        finally:
            with _cond:
                job.state = "done"
                _active -= 1
                _running -= 1
                _unfinished.discard(job)
                _cond.notify_all()
            job._done.set()
