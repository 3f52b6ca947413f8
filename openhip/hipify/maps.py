"""The CUDA -> HIP mapping tables, parsed once from the generated :mod:`openhip.hipify._maps`.

An :class:`Entry` says what one CUDA name becomes (``hip``, or ``roc`` for the roc* libraries),
its statistics category (``conv``), its library and its status flags. :func:`tables` loads the
tables on first use (about 30 ms) and caches them.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

# Flag bits, in the order of ``_maps.FLAGS`` (checked by tests/hipify/test_maps.py).
UNSUPPORTED = 1 << 0
HIP_UNSUPPORTED = 1 << 1
ROC_UNSUPPORTED = 1 << 2
CUDA_DEPRECATED = 1 << 3
CUDA_REMOVED = 1 << 4
HIP_DEPRECATED = 1 << 5
HIP_REMOVED = 1 << 6
HIP_EXPERIMENTAL = 1 << 7
HIP_SUPPORTED_V2_ONLY = 1 << 8
DEPRECATED = 1 << 9
ROC_DEPRECATED = 1 << 10
CUDA_OVERLOADED = 1 << 11
ROC_MIOPEN_ONLY = 1 << 12
REMOVED = 1 << 13
ROC_REMOVED = 1 << 14
#: openhip's own: HIPIFY calls the device function unsupported, every openhip platform has it.
OPENHIP_PROVIDED = 1 << 15

# Kinds, in the order of ``_maps.KINDS``.
KIND_FUNCTION, KIND_TYPE, KIND_ENUM, KIND_DEFINE, KIND_DEVICE_FUNCTION, KIND_DEVICE_TYPE, KIND_INCLUDE = (
    range(7)
)


class Entry(NamedTuple):
    """One row of the map."""

    cuda: str
    hip: str
    roc: str
    conv: str  #: HIPIFY's statistics category, e.g. ``CONV_MEMORY``
    library: str  #: ``CUDA_Runtime_API``, ``CUBLAS``, ...
    flags: int
    kind: int


class Tables(NamedTuple):
    """All tables: identifier renames, include renames, CUDA versions of deprecations/removals."""

    renames: dict[str, Entry]
    includes: dict[str, Entry]
    cuda_versions: dict[str, tuple[str, str]]
    conv_types: tuple[str, ...]
    libraries: tuple[str, ...]


def _parse(lines: tuple[str, ...], conv: tuple[str, ...], libs: tuple[str, ...]) -> dict[str, Entry]:
    table: dict[str, Entry] = {}
    for line in "".join(lines).splitlines():
        cuda, hip, roc, c, lib, flags, kind = line.split("\t")
        table[cuda] = Entry(cuda, hip, roc, conv[int(c)], libs[int(lib)], int(flags), int(kind))
    return table


@functools.lru_cache(maxsize=1)
def tables() -> Tables:
    """Return the parsed tables (cached after the first call)."""
    from . import _maps

    conv, libs = _maps.CONV_TYPES, _maps.LIBRARIES
    versions = {}
    for line in "".join(_maps.CUDA_VERSIONS).splitlines():
        name, dep, rem = line.split("\t")
        versions[name] = (dep, rem)
    return Tables(
        _parse(_maps.RENAMES, conv, libs),
        _parse(_maps.INCLUDES, conv, libs),
        versions,
        conv,
        libs,
    )
