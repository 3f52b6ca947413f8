"""CUDA names inside string literals and comments (only when asked: both are kept by default).

:func:`rewrite_string` follows hipify-clang's rule for string literals: a name is taken from
each ``cu`` up to the next space, and replaced when the whole of it is a CUDA name (so
``"cudaMalloc failed"`` changes and ``"cudaMalloc: failed"`` does not), except that the name must
start a word, so that translating twice changes nothing.
:func:`rewrite_comment` replaces whole identifiers that map to a different, supported name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .lexer import iter_identifiers
from .maps import KIND_DEVICE_FUNCTION, Entry

#: entry -> (replacement, unsupported, target name)
Target = Callable[[Entry], tuple[str, bool, str]]


def rewrite_string(text: str, renames: Mapping[str, Entry], target: Target) -> tuple[str, list[tuple[str, Entry, bool]]]:
    """The literal with CUDA names replaced, and the names found (name, entry, converted)."""
    body_start = text.find('"') + 1
    body_end = len(text) - 1 if text.endswith('"') and len(text) > body_start else len(text)
    body = text[body_start:body_end]
    found: list[tuple[str, Entry, bool]] = []
    out: list[str] = []
    pos = 0
    begin = body.find("cu")
    while begin >= 0:
        end = body.find(" ", begin + 4)
        name = body[begin:] if end < 0 else body[begin:end]
        # Unlike hipify-clang, the name must start a word ("hipcub" is not "cub" again).
        at_word_start = begin == 0 or not (body[begin - 1].isalnum() or body[begin - 1] == "_")
        entry = renames.get(name) if at_word_start and name != "cub" else None
        if entry is not None:
            replacement, unsupported, _ = target(entry)
            found.append((name, entry, not unsupported))
            if not unsupported:
                out += [body[pos:begin], replacement]
                pos = begin + len(name)
        if end < 0:
            break
        begin = body.find("cu", end + 1)
    if not out:
        return text, found
    return text[:body_start] + "".join(out) + body[pos:] + text[body_end:], found


def rewrite_comment(text: str, renames: Mapping[str, Entry], target: Target) -> str:
    """The comment with CUDA identifiers that have a supported HIP name replaced."""
    out: list[str] = []
    pos = 0
    for name, offset in iter_identifiers(text):
        entry = renames.get(name)
        if entry is None or entry.kind == KIND_DEVICE_FUNCTION or name == "cub":
            continue
        replacement, unsupported, _ = target(entry)
        if unsupported or replacement == name:
            continue
        out += [text[pos:offset], replacement]
        pos = offset + len(name)
    return "".join(out) + text[pos:] if out else text
