"""Handles of asynchronous operations and the per-communicator worker thread that runs them."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable


class Work:
    """The handle of an operation started with ``async_op=True`` (or inside ``ccl.group()``)."""

    __slots__ = ("_done", "_error", "_lock", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self._done = False
        self._error: BaseException | None = None
        self._lock = threading.Lock()  # held until the operation finishes (cheaper than Event)
        self._lock.acquire()

    def is_completed(self) -> bool:
        """True once the operation finished (successfully or not)."""
        return self._done

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the operation finished; re-raise its error. False if ``timeout`` passed."""
        if not self._done:
            if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
                return False
            self._lock.release()
        if self._error is not None:
            raise self._error
        return True

    def _finish(self, error: BaseException | None = None) -> None:
        if self._done:
            return
        self._error = error
        self._done = True
        self._lock.release()

    def __repr__(self) -> str:
        state = "done" if self.is_completed() else "pending"
        return f"<ccl.Work {self.what} {state}>"


class Worker:
    """One daemon thread per communicator: runs its async operations in submission order."""

    def __init__(self, name: str) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[], None], work: Work) -> None:
        self._queue.put((fn, work))

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the queued operations, then end the thread (waits up to ``timeout`` s)."""
        self._queue.put(None)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, work = item
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiter
                work._finish(exc)
            else:
                work._finish()
