"""``#include`` lines: renaming CUDA headers, dropping the ones HIP has no counterpart for, and
placing ``#include <hip/hip_runtime.h>`` once where a file needs it.

The rules follow hipify-clang: a CUDA header is replaced by its HIP (or roc*) header, keeping
``<>`` or ``""``; a second main header of the same library (``cuda.h`` after ``cuda_runtime.h``,
``cublas_v2.h`` after ``cublas.h``) and headers without a HIP counterpart are removed (the rest
of the line stays, so line numbers do not move); a header flagged unsupported is kept and
reported. When no include produced ``hip/hip_runtime.h`` and the file does not already include
it, it is added, as hipify-clang adds it, after the include guard's ``#ifndef`` line (clang's
controlling macro: an ``#ifndef`` whose ``#endif`` closes the file) or after ``#pragma once``,
whichever comes first, else before the first unconditional ``#include``, else at the top.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .lexer import IDENT, INCLUDE, Token
from .maps import Entry
from .preprocessor import directive_starts, directive_words

RUNTIME_HEADER = "hip/hip_runtime.h"
_INCLUDE_RE = re.compile(r'(#[ \t]*\w+[ \t]*)([<"])(.*)[>"]\Z', re.DOTALL)
_MAIN_KEYS = {
    "CUDA_Driver_API": "runtime", "CUDA_Runtime_API": "runtime", "CUBLAS": "blas", "CURAND": "rand",
    "CUDNN": "dnn", "CUFFT": "fft", "cuComplex": "complex", "CUSPARSE": "sparse",
    "CUSOLVER": "solver",
}


def split_include(text: str) -> tuple[str, str, bool]:
    """``#include <a/b.h>`` -> (``#include ``, ``a/b.h``, angled)."""
    m = _INCLUDE_RE.match(text)
    if not m:
        return text, "", False
    return m.group(1), m.group(3), m.group(2) == "<"


@dataclass
class IncludeState:
    """Which main headers a file has already got (hipify-clang's ``inserted*Header`` flags)."""

    inserted: set[str] = field(default_factory=set)

    def exclude(self, entry: Entry, target: str) -> bool:
        """True when this include must be removed (a duplicate, or no HIP counterpart)."""
        conv, lib = entry.conv, entry.library
        if conv == "CONV_INCLUDE_CUDA_MAIN_H":
            key = _MAIN_KEYS.get(lib)
            if key == "rand" and target.endswith("hiprand_kernel.h"):
                key = "rand_kernel"
            if key is None:
                return False
            if key in self.inserted:
                return True
            self.inserted.add(key)
            return False
        if conv == "CONV_INCLUDE_CUDA_MAIN_V2_H":
            key = {"CUBLAS": "blas", "CUSPARSE": "sparse"}.get(lib)
            if key is None:
                return False
            if key + "_v2" in self.inserted:
                return True
            self.inserted.add(key + "_v2")
            return key in self.inserted
        if not target:
            return True
        if lib == "CURAND" and target.endswith("hiprand_kernel.h"):
            if "rand_kernel" in self.inserted:
                return True
            self.inserted.add("rand_kernel")
        return False


def includes_runtime(tokens: Sequence[Token]) -> bool:
    """True when the file already includes ``hip/hip_runtime.h``."""
    return any(t.kind == INCLUDE and split_include(t.text)[1] == RUNTIME_HEADER for t in tokens)


def includes_header(tokens: Sequence[Token], header: str) -> bool:
    """True when the file includes ``header`` (exact name)."""
    return any(t.kind == INCLUDE and split_include(t.text)[1] == header for t in tokens)


def runtime_insertion(tokens: Sequence[Token], text: str) -> tuple[int, str]:
    """Where to add ``#include <hip/hip_runtime.h>`` and the exact text to add there."""
    newline = "\r\n" if "\r\n" in text[:4096] else "\n"
    line = f"#include <{RUNTIME_HEADER}>{newline}"
    starts = directive_starts(tokens)
    depth = 0
    first_include = -1
    guard = ""
    guard_end = pragma_end = -1  # token index of the NEWLINE after "#ifndef GUARD" / "#pragma once"
    guard_closed = False
    for k, start in enumerate(starts):
        if tokens[start].kind == INCLUDE:
            if depth == 0 and first_include < 0:
                first_include = start
            continue
        words, end = directive_words(tokens, start)
        name = words[0].text if words and words[0].kind == IDENT else ""
        if name in ("if", "ifdef", "ifndef"):
            if k == 0 and name == "ifndef" and len(words) == 2 and _only_blank(tokens, 0, start):
                guard = words[1].text
                guard_end = end
            depth += 1
        elif name == "endif":
            depth -= 1
            if guard and depth == 0:
                # A real guard closes with the file's last directive, followed by nothing.
                guard_closed = k == len(starts) - 1 and _only_blank(tokens, end, len(tokens))
                if not guard_closed:
                    guard = ""
        elif name == "pragma" and len(words) >= 2 and words[1].text == "once" and pragma_end < 0:
            pragma_end = end
    candidates = [i for i in (guard_end if guard and guard_closed else -1, pragma_end) if i >= 0]
    if candidates:
        end = min(candidates)
        if end < len(tokens):  # the NEWLINE ending the directive
            return tokens[end].end, line
        return len(text), newline + line.rstrip("\r\n")
    bom = 1 if text.startswith("\ufeff") else 0  # keep a byte-order mark first
    if first_include >= 0:
        offset = tokens[first_include].start
        return max(text.rfind("\n", 0, offset) + 1, bom), line
    return bom, line


def _only_blank(tokens: Sequence[Token], start: int, stop: int) -> bool:
    return all(t.kind in ("ws", "nl", "comment") for t in tokens[start:stop])
