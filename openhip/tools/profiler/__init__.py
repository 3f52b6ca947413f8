"""The profiler and tracer (issue #15): ``openhip prof`` and ``openhip.profile``.

Records kernels (grid, block, shared memory, stream, device start/end, the CPU platform's
execution mode), copies and memsets (direction, bytes, bandwidth), pool allocations and frees,
compiles (cache hit or miss, platform, arch, time), synchronisations, ccl collectives and user
ranges/markers; writes Chrome/Perfetto trace-event JSON (:mod:`.trace_event`), a self-contained
HTML timeline (:mod:`.html_timeline`) and per-kernel / per-copy tables (:mod:`.stats`).
"""

from .recorder import DEFAULT_CAPACITY, Recorder
from .session import Profile, Session, autostart, profile

__all__ = ["DEFAULT_CAPACITY", "Profile", "Recorder", "Session", "autostart", "profile"]
