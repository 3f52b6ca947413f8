"""``openhip.profile``: profiling sessions, user ranges and markers.

::

    with openhip.profile("trace.json"):          # writes trace.json and trace.html
        with openhip.profile.range("step"):      # a user range (roctxRangePush / nvtxRangePush)
            k(grid, block, args)
        openhip.profile.mark("checkpoint")       # a marker (roctxMark / nvtxMarkA)

``openhip.profile`` is a :class:`Profile` object: calling it makes a :class:`Session` (a context
manager; ``start()``/``stop()`` as well), and it carries ``range``, ``mark``, ``push_range`` and
``pop_range``. Ranges and marks cost a function call and a test while no session runs; the
runtime's hooks exist only while one does (see :mod:`.hooks`). One session at a time per
process. Stopping waits for the recorded device work (to read its events' times).

NVTX / roctx: CUDA code translated by hipify keeps ``nvtxRangePushA``/``nvtxRangePop``/
``nvtxMarkA`` C++ calls to itself; from Python the same names are ``profile.push_range(name)``,
``profile.pop_range()`` and ``profile.mark(name)`` (aliases ``nvtxRangePushA``,
``nvtxRangePop``, ``nvtxMarkA``, ``roctxRangePushA``, ``roctxRangePop``, ``roctxMarkA``).
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import trace_event
from .recorder import DEFAULT_CAPACITY, Recorder

_perf = time.perf_counter_ns
_active_lock = threading.Lock()
_local = threading.local()


def output_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """(trace JSON, HTML timeline) for ``-o path``: ``trace`` and ``trace.json`` both give
    ``trace.json`` and ``trace.html``."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        return p, p.with_suffix(".html")
    if p.suffix.lower() == ".html":
        return p.with_suffix(".json"), p
    return p.with_name(p.name + ".json"), p.with_name(p.name + ".html")


def check_writable(path: Path) -> None:
    """OSError (with the path and why) unless ``path`` can be written; nothing is left behind."""
    if path.is_dir():
        raise IsADirectoryError(f"cannot write the trace to {path}: it is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise FileNotFoundError(f"cannot write the trace to {path}: the directory {parent} "
                                "does not exist")
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        raise PermissionError(f"cannot write the trace to {path}: {exc.strerror}") from None
    if not existed:
        path.unlink()


class Session:
    """One profiling session: records while active; :meth:`stop` writes the outputs.

    ``path``: the trace (``x``/``x.json`` -> ``x.json`` and, with ``html=True``, ``x.html``);
    None keeps the results in memory only (:attr:`trace`, :attr:`records`). ``buffer``: the
    most records kept (a ring: past it the oldest go, with a warning). ``stats=True`` prints the
    per-kernel and per-copy tables to stderr at the end. ``timing="events"`` times device work
    with events around it on every platform (what GPU platforms do; by default the CPU platform
    uses its stream threads' own stamps, which cost the host far less).
    """

    def __init__(self, path: str | os.PathLike | None = None, *, html: bool = True,
                 stats: bool = False, buffer: int = DEFAULT_CAPACITY, part: bool = False,
                 rank: int | None = None, timing: str = "auto") -> None:
        self.json_path: Path | None = None
        self.html_path: Path | None = None
        if path is not None:
            if part:
                self.json_path = Path(path)
            else:
                self.json_path, html_path = output_paths(path)
                self.html_path = html_path if html else None
            for p in (self.json_path, self.html_path):
                if p is not None:
                    check_writable(p)
        if not isinstance(buffer, int) or isinstance(buffer, bool) or buffer < 1:
            raise ValueError(f"buffer must be an int >= 1 (records), not {buffer!r}")
        if timing not in ("auto", "events"):
            raise ValueError(f"timing must be 'auto' or 'events', not {timing!r}")
        self.buffer = buffer
        self.timing = timing
        self.stats = stats
        self.part = part
        self.rank = rank
        self.records: list[dict[str, Any]] | None = None
        self.trace: dict[str, Any] | None = None
        self._rec: Recorder | None = None
        self._hooks: Any = None
        self._stopped = False

    @property
    def active(self) -> bool:
        return self._rec is not None

    def start(self) -> Session:
        """Install the hooks and start recording. RuntimeError if a session already runs."""
        from .hooks import Hooks

        global _current
        with _active_lock:
            if _current is not None:
                raise RuntimeError("an openhip profiling session is already running in this "
                                   "process (one at a time)")
            if self._stopped or self._rec is not None:
                raise RuntimeError("a Session starts once; make a new one")
            rec = Recorder(self.buffer, self.timing)
            hooks = Hooks(rec)
            hooks.install()
            self._rec, self._hooks = rec, hooks
            _current = self
        return self

    def stop(self) -> dict[str, Any] | None:
        """Stop recording, wait for the recorded device work, build the trace and write the
        outputs. Returns the trace (None if the session never started)."""
        global _current
        with _active_lock:
            rec, hooks = self._rec, self._hooks
            if rec is None:
                return self.trace
            hooks.remove()
            self._rec = self._hooks = None
            self._stopped = True
            if _current is self:
                _current = None
        self.records = rec.finish()
        part = trace_event.build_part(self.records, threads=rec.threads,
                                      streams=rec.stream_labels(), dropped=rec.dropped,
                                      capacity=rec.capacity, rank=self.rank,
                                      t_start=rec.t_start, t_stop=rec.t_stop)
        if self.part:
            self.trace = part
        else:
            self.trace = trace_event.merge([part])
        if self.json_path is not None:
            trace_event.write(self.trace, self.json_path)
        if self.html_path is not None:
            from .html_timeline import write_html

            write_html(self.trace, self.html_path)
        if rec.dropped:
            import sys

            print(f"openhip profiler: {rec.dropped} records were dropped (buffer of "
                  f"{rec.capacity}); the trace holds the latest", file=sys.stderr)
        if self.stats:
            import sys

            from .stats import format_stats

            print(format_stats(self.trace), file=sys.stderr)
        return self.trace

    def __enter__(self) -> Session:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _record(self, record: tuple) -> None:
        rec = self._rec
        if rec is not None:
            rec.add(record)
            tid = record[4]
            if tid not in rec.threads:
                rec.thread_name(tid)


_current: Session | None = None


def _stack() -> list[tuple[str, int]]:
    s = getattr(_local, "ranges", None)
    if s is None:
        s = _local.ranges = []
    return s


class Profile:
    """The ``openhip.profile`` namespace: ``profile(path)`` makes a :class:`Session`;
    ``profile.range(name)``, ``profile.mark(name)``, ``profile.push_range(name)`` /
    ``profile.pop_range()`` annotate the timeline of the running session (and do nothing
    without one)."""

    Session = Session

    def __call__(self, path: str | os.PathLike | None = None, *, html: bool = True,
                 stats: bool = False, buffer: int = DEFAULT_CAPACITY,
                 timing: str = "auto") -> Session:
        return Session(path, html=html, stats=stats, buffer=buffer, timing=timing)

    @property
    def active(self) -> bool:
        """True while a session records in this process."""
        return _current is not None

    @property
    def current(self) -> Session | None:
        return _current

    @contextmanager
    def range(self, name: str) -> Iterator[None]:
        """A named range on the calling thread's lane (nests)."""
        if not isinstance(name, str):
            raise TypeError(f"a range name is a str, not {type(name).__name__}")
        t0 = _perf()
        try:
            yield
        finally:
            session = _current
            if session is not None:
                session._record(("range", name, t0, _perf(), threading.get_ident(), None, {},
                                 None, None, None))

    def mark(self, name: str, **details: Any) -> None:
        """A marker (an instant event) on the calling thread's lane."""
        if not isinstance(name, str):
            raise TypeError(f"a marker name is a str, not {type(name).__name__}")
        session = _current
        if session is not None:
            t = _perf()
            session._record(("mark", name, t, t, threading.get_ident(), None, details, None,
                             None, None))

    def push_range(self, name: str) -> int:
        """Open a range (``nvtxRangePushA``); returns the nesting depth before it."""
        if not isinstance(name, str):
            raise TypeError(f"a range name is a str, not {type(name).__name__}")
        stack = _stack()
        stack.append((name, _perf()))
        return len(stack) - 1

    def pop_range(self) -> int:
        """Close the innermost range of this thread (``nvtxRangePop``); returns the depth it
        had, or -1 when no range was open (as NVTX does)."""
        stack = _stack()
        if not stack:
            return -1
        name, t0 = stack.pop()
        session = _current
        if session is not None:
            session._record(("range", name, t0, _perf(), threading.get_ident(), None, {},
                             None, None, None))
        return len(stack)

    nvtxRangePushA = roctxRangePushA = push_range
    nvtxRangePop = roctxRangePop = pop_range
    nvtxMarkA = roctxMarkA = mark

    def __repr__(self) -> str:
        state = "recording" if _current is not None else "off"
        return f"<openhip.profile ({state})>"


profile = Profile()

#: set by ``openhip prof`` for the processes it runs: the directory their parts go to
ENV_PARTS = "OPENHIP_PROFILE_DIR"
ENV_BUFFER = "OPENHIP_PROFILE_BUFFER"


def autostart() -> Session | None:
    """Start a session writing this process's part into ``$OPENHIP_PROFILE_DIR`` (what
    ``openhip prof`` sets); the part is written at exit, also after an uncaught exception, and
    on SIGTERM/SIGHUP (then the signal's default action follows). Lost on SIGKILL or a crash
    of the interpreter itself (a segfault)."""
    directory = os.environ.get(ENV_PARTS)
    if not directory or _current is not None:
        return None
    rank_text = os.environ.get("RANK")
    rank = int(rank_text) if rank_text and rank_text.isdigit() else None
    name = f"part-{rank if rank is not None else 'x'}-{os.getpid()}.json"
    text = os.environ.get(ENV_BUFFER, "").strip()
    try:
        buffer = int(text) if text else DEFAULT_CAPACITY
    except ValueError:
        raise ValueError(f"{ENV_BUFFER}={text!r} is not a number of records") from None
    session = Session(Path(directory) / name, part=True, buffer=buffer, rank=rank)
    session.start()
    pid = os.getpid()

    def finish() -> None:
        if os.getpid() == pid:  # not in a forked child that inherited the session
            session.stop()

    atexit.register(finish)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            if signal.getsignal(sig) is signal.SIG_DFL:
                signal.signal(sig, _on_signal(finish))
        except (ValueError, OSError):  # not the main thread
            pass
    return session


def _on_signal(finish: Any) -> Any:
    def handler(signum: int, frame: Any) -> None:
        try:
            finish()
        finally:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    return handler
