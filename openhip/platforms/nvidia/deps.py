"""The user's own header files a GPU compilation read, for the compile cache's dependency check.

NVRTC and hiprtc report no dependencies, so they are found here: every ``#include "x"`` /
``#include <x>`` of the source that resolves in the user's ``-I`` directories (or, for the
quoted form, in the current directory), followed recursively. openhip's own headers are not
listed (the toolchain's identity covers them). Conditional includes are all followed, so the list
may hold a file a build skipped; that only costs a rebuild when it changes. The amd platform uses
this module too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def include_dirs(options: Sequence[str]) -> list[str]:
    """The ``-I`` directories of compiler options (``-Idir``, ``-I dir``, ``--include-path=``)."""
    out: list[str] = []
    it = iter(options)
    for opt in it:
        if opt == "-I":
            nxt = next(it, None)
            if nxt:
                out.append(nxt)
        elif opt.startswith("-I"):
            out.append(opt[2:])
        elif opt.startswith("--include-path="):
            out.append(opt.split("=", 1)[1])
    return [os.path.abspath(d) for d in out]


def user_dependencies(source: str, options: Sequence[str], limit: int = 200) -> list[str]:
    """Absolute paths of the user's headers ``source`` includes, directly or not."""
    dirs = include_dirs(options)
    found: list[str] = []
    pending = [(source, os.getcwd())]
    while pending and len(found) < limit:
        text, here = pending.pop()
        for kind, name in _INCLUDE.findall(text):
            candidates = ([here] if kind == '"' else []) + dirs
            for base in candidates:
                path = os.path.abspath(os.path.join(base, name))
                if os.path.isfile(path):
                    if path not in found:
                        found.append(path)
                        try:
                            with open(path, encoding="utf-8", errors="replace") as f:
                                pending.append((f.read(), os.path.dirname(path)))
                        except OSError:
                            pass
                    break
    return found
