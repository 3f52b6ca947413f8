"""openhip memcheck (issue #15): checked kernel memory accesses on the CPU platform.

``openhip memcheck python script.py`` or ``OPENHIP_MEMCHECK=1``: kernel modules are compiled
with GCC's address-sanitizer instrumentation in its self-hosted form (``-fsanitize=
kernel-address``: an inline shadow-byte check before every load and store, no libasan, nothing
preloaded), plus ``-fsanitize=alignment`` where a cast can misalign. The CPU runtime maps the
shadow and marks what is not addressable: the red zones of every device allocation, a pooled block's bytes past the request,
freed blocks (kept in a 256 MiB quarantine), blocks a pooled array gave back to the memory
pool's cache, a worker's dynamic shared memory past the launch's size, the first 64 KiB (null);
the module marks the red zones GCC puts after ``__device__`` variables and around local arrays.
The first bad access stops the launch with HipError ``hipErrorIllegalAddress`` and a report in
compute-sanitizer's shape (:mod:`.report`): the kind and size of the access, the user's
file:line and function, the thread and block, the address against the nearest allocation.
Runtime copies and memsets are checked against the allocations too. ``--leak-check full``
lists the device allocations never freed at exit (:mod:`.leaks`).

Tools (``OPENHIP_MEMCHECK_TOOL``, ``openhip memcheck --tool``): ``memcheck``; ``racecheck``
(shared memory, dynamic and static, tracked per barrier interval: two threads of a block on
one word, one writing, is a hazard); ``initcheck`` (a kernel's read of device memory never written).

Static ``__shared__`` arrays (thread-local storage on the CPU) are page-aligned in checked
mode, each followed by a 32-byte guard, and the guards and the padding after each array are
poisoned (their places come from the module's TLS symbols, :mod:`.tls`).

Modules that cannot make a misaligned access (no pointer cast or packed type in their source,
:func:`.flags.needs_alignment_checks`) are built without the alignment checks, which cost GCC
every loop optimisation around them; a misaligned pointer can then only come in as an
argument, and each launch checks the kernel's pointer arguments of known types
(:func:`.flags.pointer_alignments`) instead: a misaligned one stops the launch before it runs.
(Not seen there: a misaligned pointer the kernel loads from memory.)
"""

from .flags import ENV, compile_flags, enabled, flags_digest
from .leaks import at_start
from .report import MARK, RACE_MARK, format_report, remember_image

__all__ = ["ENV", "MARK", "RACE_MARK", "at_start", "compile_flags", "enabled", "flags_digest",
           "format_report", "remember_image"]
