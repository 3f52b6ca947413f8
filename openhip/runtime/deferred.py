"""Work that a layer above the runtime keeps back to launch later (openhip.numpy's pending
fused elementwise operations): the layer registers a hook, and the runtime calls
:func:`flush` before a device or stream synchronisation and an event record, so the work
is queued before anyone waits for the queue or marks a point in it."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["flush", "register"]

_hooks: list[Callable[[], None]] = []


def register(hook: Callable[[], None]) -> None:
    """Call ``hook()`` (which must be cheap when it has nothing to do) at every :func:`flush`."""
    if hook not in _hooks:
        _hooks.append(hook)


def flush() -> None:
    """Queue every layer's deferred work now (launches only; nothing waits)."""
    for hook in _hooks:
        hook()
