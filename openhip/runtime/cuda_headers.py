"""CUDA source with its local headers: ``Module(source, language="cuda")`` hipifies the source
and every local header it includes (``#include "util.cuh"``, or ``<...>`` found under a ``-I``
directory), recursively.

Each translated header is written to the compile cache directory (``cuda-headers/``, one stable
path per original file, replaced atomically; only into a cache directory that
``openhip.compiler.trust`` accepts — the user's own, ``0700`` — else into the process's private
directory, so no other user can swap a header between its translation and the compile) and the include line that named it is pointed at
the translated copy (on the same line, so line numbers stay the user's). A last comment line
lists the digest of every translated header, so the compile cache key covers their contents.
System headers (not found under the source's directory, the working directory or a ``-I``
directory) are left to hipify's include mapping.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from ..compiler import trust

__all__ = ["translate_cuda", "include_dirs"]


def include_dirs(options: Sequence[str]) -> list[str]:
    """The ``-I`` directories of compile options (``-Idir``, ``-I dir``, ``--include-path=dir``),
    absolute, in order."""
    out: list[str] = []
    it = iter(options)
    for opt in it:
        if opt == "-I" or opt == "--include-path":
            value = next(it, None)
            if value is not None:
                out.append(os.path.abspath(value))
        elif opt.startswith("--include-path="):
            out.append(os.path.abspath(opt.split("=", 1)[1]))
        elif opt.startswith("-I"):
            out.append(os.path.abspath(opt[2:]))
    return out


class _Translator:
    def __init__(self, idirs: list[str], out_dir: Path) -> None:
        self.idirs = idirs
        self.out_dir = out_dir
        self.done: dict[str, str] = {}      # original realpath -> translated path
        self.digests: dict[str, str] = {}   # original realpath -> digest of the translation

    def _find(self, target: str, angled: bool, includer_dir: str | None) -> str | None:
        if os.path.isabs(target):
            return None  # an absolute path is the user's choice (and may be a system header)
        dirs = [] if angled else [d for d in (includer_dir, os.getcwd()) if d]
        for d in dirs + self.idirs:
            path = os.path.join(d, target)
            if os.path.isfile(path):
                return os.path.realpath(path)
        return None

    def rewrite(self, text: str, includer_dir: str | None) -> str:
        """``text`` (already hipified) with each local include pointed at its translation."""
        from ..hipify.includes import split_include
        from ..hipify.lexer import INCLUDE, tokenize

        parts: list[str] = []
        last = 0
        for tok in tokenize(text):
            if tok.kind != INCLUDE:
                continue
            head, target, angled = split_include(tok.text)
            found = self._find(target, angled, includer_dir) if target else None
            if found is None:
                continue
            translated = self.header(found)
            parts.append(text[last:tok.start])
            parts.append(f'{head}"{translated}"')
            last = tok.end
        parts.append(text[last:])
        return "".join(parts)

    def header(self, original: str) -> str:
        done = self.done.get(original)
        if done is not None:
            return done
        from ..hipify import translate

        key = hashlib.sha256(original.encode()).hexdigest()[:16]
        target = self.out_dir / key / os.path.basename(original)
        self.done[original] = str(target)  # before recursing: include cycles end here
        source = Path(original).read_text(encoding="utf-8", errors="replace")
        text = self.rewrite(translate(source, filename=original), os.path.dirname(original))
        self.digests[original] = hashlib.sha256(text.encode()).hexdigest()[:16]
        data = text.encode("utf-8")
        trust.make_private_dirs(target.parent)
        if trust.read_artifact(target) != data:
            trust.write_artifact(target, data)
        return str(target)


def _headers_dir() -> Path:
    """Where translated headers go: ``cuda-headers/`` of a trusted cache directory, else the
    process's private directory."""
    root = trust.cache_root()
    if root is not None:
        try:
            return root.subdir("cuda-headers")
        except OSError as exc:
            trust.warn_once(root.path, f"compile cache directory {root.path} is not usable "
                            f"({exc}); translated CUDA headers go to a private directory")
    return trust.private_dir().subdir("cuda-headers")


def translate_cuda(source: str, name: str, options: Sequence[str] = ()) -> str:
    """Hipify ``source`` (compiled under the file name ``name``) and its local headers; returns
    the HIP text to compile (see the module docstring)."""
    from ..hipify import translate

    text = translate(source, filename=name)
    includer = os.path.dirname(os.path.abspath(name)) if os.path.dirname(name) else None
    tr = _Translator(include_dirs(options), _headers_dir())
    text = tr.rewrite(text, includer)
    if tr.digests:
        listed = " ".join(f"{os.path.basename(k)}={v}" for k, v in sorted(tr.digests.items()))
        text += ("" if text.endswith("\n") else "\n") + f"// openhip: translated headers {listed}\n"
    return text
