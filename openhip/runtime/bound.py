"""Bound launches: a kernel launch checked, converted and packed once, then launched again as
often as needed for the cost of the platform call alone.

::

    k = mod.get_function("scale")
    b = k.bind(grid, block, (x, 2.0, n))   # checked and packed now (same errors as k(...))
    b()                                    # the same launch as k(grid, block, (x, 2.0, n))
    b.set_arg("alpha", 3.0)                # patch one argument (converted as k(...) would)
    seq = LaunchSequence([b, other])       # replayed in order: seq()

The packed bytes hold the arguments' device addresses as they were when bound (a bound launch
keeps the arrays it was given alive). While the profiler is on (it wraps ``Function.__call__``),
bound launches go through the wrapper, so they are recorded as plain launches are. A :class:`LaunchSequence` is the host-side form of a
captured graph: the same launches, in order, on every platform (on the CPU platform each is one
native call that copies the packed bytes into the stream's queue).
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..platforms.base import PackedArgs
from .stream import Stream, _stream_stack, resolve_stream

if TYPE_CHECKING:
    from .module import Function

__all__ = ["BoundLaunch", "LaunchSequence"]


class BoundLaunch:
    """One launch of ``function`` with its configuration and arguments fixed (made by
    :meth:`openhip.Function.bind`). Call it to launch; :meth:`set_arg` changes one argument."""

    __slots__ = ("function", "grid", "block", "shared_mem", "stream", "_launch", "_index",
                 "_handle", "_packed", "_buffer", "_keep", "_names")

    def __init__(self, function: Function, grid: tuple[int, int, int],
                 block: tuple[int, int, int], shared_mem: int, stream: Stream | None,
                 args: Sequence[Any]) -> None:
        self.function = function
        self.grid, self.block, self.shared_mem, self.stream = grid, block, shared_mem, stream
        platform = function._platform
        self._launch = platform.launch
        self._index, self._handle = function._index, function._handle
        packer = function._packer
        with function._pack_lock:  # the packer's buffer is shared by the function's launches
            src = packer.pack(args)
            size = ctypes.sizeof(src.buffer)
            self._buffer = (ctypes.c_char * size)()
            ctypes.memmove(self._buffer, src.buffer, size)
        self._packed = PackedArgs(self._buffer, src.offsets, src.sizes)
        self._keep = list(args)
        self._names = {s.name: i for i, s in enumerate(packer.specs) if s.name}

    def __call__(self) -> None:
        """Launch (on the bound stream; else the thread's current stream, as a plain launch).
        While a tool wraps the plain launch (``openhip prof``), it goes through the wrapper."""
        cls = type(self.function)
        if cls.__call__ is not cls._unwrapped_call:
            self.function(self.grid, self.block, self._keep, shared_mem=self.shared_mem,
                          stream=self.stream)
            return
        stream = self.stream
        if stream is None and not _stream_stack():
            handle = None
        else:
            handle = resolve_stream(stream, self.function.module.device)._handle
        self._launch(self._index, self._handle, self.grid, self.block, self.shared_mem, handle,
                     self._packed)

    def set_arg(self, which: int | str, value: Any) -> None:
        """Replace argument ``which`` (its index, or the parameter's name) by ``value``,
        converted to the parameter's type (TypeError as a plain launch gives for a bad one)."""
        if isinstance(which, str):
            if which not in self._names:
                raise KeyError(f"{self.function.name} has no parameter named {which!r} "
                               f"(parameters: {sorted(self._names)})")
            index = self._names[which]
        elif isinstance(which, int) and not isinstance(which, bool):
            index = which
            if not 0 <= index < len(self._keep):
                raise IndexError(f"{self.function.name} takes {len(self._keep)} argument(s); "
                                 f"there is no argument {which}")
        else:
            raise TypeError(f"argument index must be an int or a parameter name, not "
                            f"{type(which).__name__}")
        self.function._packer.write_one(self._buffer, index, value)
        self._keep[index] = value

    @property
    def args(self) -> tuple[Any, ...]:
        """The arguments as given (after any :meth:`set_arg`)."""
        return tuple(self._keep)

    def __repr__(self) -> str:
        return (f"<openhip.BoundLaunch {self.function.name} grid={self.grid} "
                f"block={self.block}>")


class LaunchSequence:
    """Bound launches replayed in order by one call (the host-side form of a captured graph:
    the same launches on every platform)."""

    __slots__ = ("_launches",)

    def __init__(self, launches: Iterable[BoundLaunch] = ()) -> None:
        self._launches: list[BoundLaunch] = []
        for b in launches:
            self.append(b)

    def append(self, launch: BoundLaunch) -> None:
        """Add ``launch`` at the end."""
        if not isinstance(launch, BoundLaunch):
            raise TypeError(f"a LaunchSequence holds BoundLaunch objects (Function.bind), not "
                            f"{type(launch).__name__}")
        self._launches.append(launch)

    def __len__(self) -> int:
        return len(self._launches)

    def __iter__(self):
        return iter(self._launches)

    def __getitem__(self, i: int) -> BoundLaunch:
        return self._launches[i]

    def __call__(self) -> None:
        """Launch every launch in order."""
        for b in self._launches:
            b()

    def __repr__(self) -> str:
        return f"<openhip.LaunchSequence of {len(self._launches)} launches>"
