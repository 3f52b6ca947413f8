"""The compile cache shared by every platform: in memory, then on disk.

The key covers the source, the options, the name expressions, the file name, the platform, the
arch, the compiler's identity (name, version, openhip's headers, the host ISA for the CPU) and
openhip's version. Files the source included (``CompiledProgram.metadata["dependencies"]``) are
recorded with their SHA-256 and re-checked on every hit, so editing an included header rebuilds.

Entries are written to a temporary file and ``os.replace``d into place, so readers never see half
an entry and two processes compiling the same kernel at once both succeed. A failed build raises
and is never cached.

Trust (``trust.py``): the cache directory is used only when it is the user's own and no one else
can write to it; every entry ends with an HMAC-SHA256 of its name and contents under the user's
secret key, checked before anything in it is parsed. A planted, swapped, corrupt or truncated
entry is a miss: it is removed and rebuilt, never loaded. A refused, read-only, full or otherwise
unusable cache directory means compiling without the disk cache, with one warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .. import config
from ..errors import CompileError
from ..platforms.base import CompiledProgram
from . import trust

__all__ = ["Toolchain", "cached_compile", "cache_key", "cache_info", "clear_memory_cache",
           "CacheInfo", "is_cached"]

_MAGIC = b"OHC2"
_HEADER = struct.Struct("<4sII")  # magic, header length, reserved; then header, binary, MAC
_MAC_BYTES = 32
_memory: dict[str, tuple[CompiledProgram, tuple]] = {}
_lock = threading.Lock()
_warned_dirs = trust.warned  # cache directories already warned about (one warning each)


class Toolchain(Protocol):
    """What the cache needs of a compiler: a Platform, or a GPU toolchain used without one."""

    def compile(self, source: str, *, arch: str, options: Sequence[str] = (),
                name_expressions: Sequence[str] = (),
                filename: str = "kernel.hip") -> CompiledProgram: ...

    def compiler_identity(self) -> str: ...


def _openhip_version() -> str:
    from .. import __version__

    return __version__


def cache_key(source: str, *, platform: str, arch: str, options: Sequence[str],
              name_expressions: Sequence[str], filename: str, identity: str) -> str:
    """The SHA-256 key of one compilation."""
    blob = json.dumps({
        "source": source, "platform": platform, "arch": arch, "options": list(options),
        "name_expressions": list(name_expressions), "filename": filename,
        "compiler": identity, "openhip": _openhip_version(), "format": 1,
    }, sort_keys=True).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _dep_stamp(paths: Sequence[str]) -> tuple:
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((p, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((p, None, None))
    return tuple(out)


def _entry_path(root: Path, platform: str, key: str) -> Path:
    return root / platform / key[:2] / f"{key}.ohc"


def _label(platform: str, key: str) -> str:
    return f"entry {platform}/{key}"


def _serialise(program: CompiledProgram, deps: list[tuple[str, str | None]],
               root: trust.TrustedDir, label: str) -> bytes:
    header = json.dumps({
        "platform": program.platform, "arch": program.arch, "kernels": program.kernels,
        "globals": program.globals, "metadata": program.metadata, "log": program.log,
        "dependencies": deps, "binary_size": len(program.binary),
    }).encode("utf-8")
    body = _HEADER.pack(_MAGIC, len(header), 0) + header + program.binary
    return body + root.mac(label, body)


def _deserialise(data: bytes, root: trust.TrustedDir,
                 label: str) -> tuple[CompiledProgram, list] | None:
    """The entry in ``data``, or None when it is not one this user's process wrote for
    ``label`` (planted, corrupt, truncated, or of another format)."""
    if len(data) < _HEADER.size + _MAC_BYTES:
        return None
    body, mac = data[:-_MAC_BYTES], data[-_MAC_BYTES:]
    if not root.verify(mac, label, body):
        return None
    magic, hlen, _ = _HEADER.unpack_from(body)
    if magic != _MAGIC or _HEADER.size + hlen > len(body):
        return None
    try:
        header = json.loads(body[_HEADER.size:_HEADER.size + hlen])
        binary = body[_HEADER.size + hlen:]
        if len(binary) != header["binary_size"]:
            return None
        program = CompiledProgram(binary=binary, platform=header["platform"],
                                  arch=header["arch"], kernels=header["kernels"],
                                  globals=header["globals"], metadata=header["metadata"],
                                  log=header.get("log", ""))
        deps = [(str(p), d) for p, d in header.get("dependencies", [])]
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # a MAC-valid entry of an older layout: rebuilt
    return program, deps


def _warn_unusable(root: Path, exc: OSError) -> None:
    trust.warn_once(root, f"compile cache directory {root} is not usable ({exc}); "
                    "compiling without the disk cache", stacklevel=4)


def _read_disk(path: Path, root: trust.TrustedDir,
               label: str) -> tuple[CompiledProgram, list] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None  # absent, a symbolic link, unreadable: a miss
    try:
        with os.fdopen(fd, "rb") as f:
            data = f.read()
    except OSError:
        data = b""
    entry = _deserialise(data, root, label)
    if entry is None:
        try:
            path.unlink()  # planted or corrupt: remove so it is rebuilt
        except OSError:
            pass
        return None
    program, deps = entry
    for dep_path, digest in deps:
        if _file_digest(dep_path) != digest:
            return None  # an included file changed
    return entry


def _write_disk(path: Path, program: CompiledProgram, deps: list, root: trust.TrustedDir,
                label: str) -> None:
    try:
        directory = root.subdir(*path.relative_to(root.path).parent.parts)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".ohc")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_serialise(program, deps, root, label))
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as exc:  # read-only, full (ENOSPC), not a directory...
        _warn_unusable(root.path, exc)


def check_source(source: object, *, platform: str = "", filename: str = "kernel.hip") -> str:
    """``source`` when it is text a compiler can read: TypeError for a non-str, CompileError
    (with the line and column) for a string that has no UTF-8 form (a lone surrogate)."""
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as exc:
        line = source.count("\n", 0, exc.start) + 1
        column = exc.start - (source.rfind("\n", 0, exc.start) + 1) + 1
        char = ord(source[exc.start])
        raise CompileError(
            f"{filename}:{line}:{column}: error: the source holds a lone surrogate "
            f"(U+{char:04X}), which is not a character and has no UTF-8 form; was it decoded "
            "with errors='surrogateescape'? Decode the file as UTF-8 (or fix the string)",
            source.encode("utf-8", "replace").decode("utf-8"), platform=platform,
            name=filename) from None
    return source


def _key(toolchain: Toolchain, source: str, platform: str, arch: str, options: tuple[str, ...],
         name_expressions: tuple[str, ...], filename: str) -> str:
    """The cache key of one compile (cached_compile and is_cached look up the same one)."""
    return cache_key(source, platform=platform, arch=arch, options=options,
                     name_expressions=name_expressions, filename=filename,
                     identity=toolchain.compiler_identity())


def is_cached(toolchain: Toolchain, source: str, *, platform: str, arch: str,
              options: Sequence[str] = (), name_expressions: Sequence[str] = (),
              filename: str = "kernel.hip") -> bool:
    """Whether :func:`cached_compile` with these arguments would find an entry (in memory, or
    a file on disk) instead of compiling: a cheap look (the key and one ``stat``), which does
    not read or verify the entry (a corrupt one is still found and rebuilt at its use)."""
    key = _key(toolchain, source, platform, arch, tuple(options), tuple(name_expressions),
               filename)
    with _lock:
        if key in _memory:
            return True
    root = None if config.cache_disabled() else trust.cache_root()
    return root is not None and _entry_path(root.path, platform, key).is_file()


def cached_compile(toolchain: Toolchain, source: str, *, platform: str, arch: str,
                   options: Sequence[str] = (), name_expressions: Sequence[str] = (),
                   filename: str = "kernel.hip",
                   build: Callable[[], CompiledProgram] | None = None) -> CompiledProgram:
    """Compile through the cache: memory, then disk, then ``toolchain.compile``.

    ``build`` overrides how a miss is compiled (default: ``toolchain.compile`` with the same
    arguments). Exceptions from the build propagate and nothing is cached.
    """
    check_source(source, platform=platform, filename=filename)
    options = tuple(options)
    name_expressions = tuple(name_expressions)
    key = _key(toolchain, source, platform, arch, options, name_expressions, filename)
    with _lock:
        hit = _memory.get(key)
    if hit is not None:
        program, stamp = hit
        if not stamp or _dep_stamp([p for p, *_ in stamp]) == stamp:
            return program
    root = None if config.cache_disabled() else trust.cache_root()
    label = _label(platform, key)
    if root is not None:
        path = _entry_path(root.path, platform, key)
        entry = _read_disk(path, root, label)
        if entry is not None:
            program, deps = entry
            with _lock:
                _memory[key] = (program, _dep_stamp([p for p, _ in deps]))
            return program
    if build is None:
        def build() -> CompiledProgram:
            return toolchain.compile(source, arch=arch, options=options,
                                     name_expressions=name_expressions, filename=filename)
    program = build()
    _add_signatures(program, source)
    dep_paths = [str(p) for p in program.metadata.get("dependencies", [])]
    deps = [(p, _file_digest(p)) for p in dep_paths]
    if root is not None:
        _write_disk(path, program, deps, root, label)
    with _lock:
        _memory[key] = (program, _dep_stamp(dep_paths))
    return program


def _add_signatures(program: CompiledProgram, source: str) -> None:
    """Records each kernel's parameters (template arguments substituted) and the source's
    typedefs in the program's metadata, so that a warm cache hit needs no source scan."""
    if "signatures" in program.metadata:
        return
    from .scan import kernel_params, scan

    try:
        result = scan(source)
    except Exception:  # noqa: BLE001 - the runtime scans again when it needs to
        return
    signatures = {}
    for expr in program.kernels:
        found = kernel_params(result, expr)
        if found is not None:
            signatures[expr] = [[p.name, p.type] for p in found[1]]
    program.metadata["signatures"] = signatures
    program.metadata["typedefs"] = dict(result.typedefs)


def clear_memory_cache() -> None:
    """Drop the in-memory layer (the disk cache stays)."""
    with _lock:
        _memory.clear()


@dataclass(frozen=True)
class CacheInfo:
    """Where the disk cache is, how many entries it holds and their total size."""

    path: Path
    entries: int
    bytes: int
    enabled: bool


def cache_info() -> CacheInfo:
    """Location, entry count and size of the disk cache."""
    root = config.cache_dir()
    entries = total = 0
    if root.is_dir():
        for dirpath, _, files in os.walk(root):
            for name in files:
                if name.endswith(".ohc") and not name.startswith(".tmp-"):
                    entries += 1
                    try:
                        total += os.path.getsize(os.path.join(dirpath, name))
                    except OSError:
                        pass
    return CacheInfo(path=root, entries=entries, bytes=total, enabled=not config.cache_disabled())
