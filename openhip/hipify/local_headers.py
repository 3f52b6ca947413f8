"""Local headers: the ``#include "name"`` files a source pulls in, found as a compiler finds them.

hipify-clang (``--local-headers``, ``--local-headers-recursive``) translates the project headers
a source includes with quotes, besides the source itself: each such header ``dir/x.h`` gets its
own translation written to ``dir/x.h.hip``; the source keeps ``#include "x.h"`` as written.
Headers included with ``<...>`` are system-style and never translated; neither are the CUDA
headers the maps rename (``"cuda_runtime.h"`` spelled with quotes is still CUDA's header).

:func:`local_headers` lists them for one source: a quoted name is looked up as the compiler does,
first in the directory of the file that includes it, then in the ``-I`` directories in order
(``relative/./sub/../x.h`` normalised); one that is not found is reported, not fatal. With
``recursive`` the headers' own quoted includes are followed too, breadth-first, each header once
(diamonds and cycles are fine). Includes inside ``#if`` branches that ``inactive`` marks as
false (``--skip-excluded-preprocessor-conditional-blocks``) are not followed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .includes import split_include
from .lexer import INCLUDE, tokenize

#: A line that may hold a quoted include (a cheap test before lexing the text).
_CANDIDATE = re.compile(r'^[ \t]*#[ \t]*(?:include|import|include_next)[ \t]*"', re.M)
#: The suffix hipify-clang gives a local header's translation (``x.h`` -> ``x.h.hip``).
OUTPUT_SUFFIX = ".hip"


@dataclass(frozen=True)
class IncludedHeader:
    """One local header: where it is, who includes it first and how it was spelled there."""

    path: Path  # resolved, normalised path
    spelled: str  # the name as written in the #include
    includer: Path  # the file whose #include found it first
    line: int  # that #include's line (1-based)
    depth: int  # 1: included by the source itself; 2: by one of those headers, ...


@dataclass(frozen=True)
class MissingHeader:
    """A quoted include that names no file in the search directories."""

    spelled: str
    includer: Path
    line: int


@dataclass
class LocalHeaders:
    """What :func:`local_headers` found: the headers in discovery order and the missing ones."""

    headers: list[IncludedHeader] = field(default_factory=list)
    missing: list[MissingHeader] = field(default_factory=list)


def quoted_includes(text: str, inactive: Sequence[tuple[int, int]] = ()) -> list[tuple[str, int]]:
    """``(name, line)`` of every ``#include "name"`` in ``text`` (comments and strings do not
    count; token ranges in ``inactive`` are skipped)."""
    found: list[tuple[str, int]] = []
    if not _CANDIDATE.search(text):
        return found  # no line looks like a quoted include: no need to lex
    line = 1
    skip = bytearray()
    tokens = tokenize(text)
    if inactive:
        skip = bytearray(len(tokens))
        for a, b in inactive:
            skip[a:b] = b"\x01" * (b - a)
    for i, tok in enumerate(tokens):
        if tok.kind == INCLUDE and not (skip and skip[i]):
            _, name, angled = split_include(tok.text)
            if name and not angled:
                found.append((name, line))
        line += tok.text.count("\n")
    return found


def resolve(name: str, includer: Path, include_dirs: Iterable[Path]) -> Path | None:
    """The file a quoted ``#include "name"`` in ``includer`` opens, or None: the includer's
    directory first, then ``include_dirs``, as the compiler searches them."""
    candidates = [includer.parent, *include_dirs]
    if os.path.isabs(name):
        candidates = [Path("/")]
    for base in candidates:
        candidate = Path(os.path.normpath(base / name))
        if candidate.is_file():
            return candidate.resolve()
    return None


def local_headers(
    source: Path,
    text: str,
    *,
    include_dirs: Sequence[Path] = (),
    recursive: bool = False,
    is_cuda_header: Callable[[str], bool] = lambda name: False,
    read: Callable[[Path], str] | None = None,
    inactive: Callable[[str], Sequence[tuple[int, int]]] | None = None,
) -> LocalHeaders:
    """The local headers of ``source`` (whose text is ``text``), in the order they are found.

    ``is_cuda_header(name)`` tells which quoted names are CUDA's own headers (left to the
    include renaming, never translated as project files); ``read`` reads a header's text for
    ``recursive`` (default: UTF-8 with surrogate escapes); ``inactive(text)`` gives the token
    ranges of a text's false ``#if`` branches, whose includes are not followed.
    """
    if read is None:
        from .files import read_source

        read = read_source
    result = LocalHeaders()
    main = source.resolve()
    seen: set[Path] = {main}
    queue: list[tuple[Path, str, int]] = [(main, text, 1)]
    while queue:
        includer, body, depth = queue.pop(0)
        ranges = inactive(body) if inactive is not None else ()
        for name, line in quoted_includes(body, ranges):
            if is_cuda_header(name):
                continue
            path = resolve(name, includer, include_dirs)
            if path is None:
                result.missing.append(MissingHeader(name, includer, line))
                continue
            if path in seen:
                continue
            seen.add(path)
            result.headers.append(IncludedHeader(path, name, includer, line, depth))
            if recursive:
                try:
                    queue.append((path, read(path), depth + 1))
                except Exception:  # unreadable: translating it reports the error
                    pass
    return result


def output_path(header: Path) -> Path:
    """Where hipify-clang writes a local header's translation: next to it, ``.hip`` added."""
    return header.with_name(header.name + OUTPUT_SUFFIX)
