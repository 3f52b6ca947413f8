"""Files for the command line: finding sources in trees, reading them safely, writing results.

Sources are read as bytes and decoded as UTF-8 (or the encoding given) with Python's
``surrogateescape`` handler: a byte that is not valid in the encoding (a Windows-1252 apostrophe,
0x92, in a comment) becomes a lone surrogate that no CUDA name contains, is never translated, and
is written back as the same byte. So any bytes go in, the tokens are translated and every other
byte comes out unchanged, as with hipify-clang. Binary files (a NUL byte) give a clear
:class:`~openhip.hipify.HipifyError`; line endings are kept as they are. Results are written
through a temporary file and ``os.replace``, so a failure never leaves half a file behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .result import HipifyError

#: Suffixes translated when a directory is given.
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cxx", ".cc", ".c", ".h", ".hpp", ".inl")
BACKUP_SUFFIX = ".prehip"


def discover(
    paths: Iterable[str | os.PathLike[str]],
    exclude_dirs: Iterable[str] = (),
    exclude_files: Iterable[str] = (),
) -> list[tuple[Path, Path]]:
    """``(file, root)`` pairs: files as given, and the sources under each directory, sorted.

    ``root`` is the directory a file's output path is made relative to (``--output-dir``).
    Missing paths are returned too, so that reading them reports the error.
    """
    skip_dirs = {Path(d).resolve() for d in exclude_dirs}
    skip_files = {Path(f).resolve() for f in exclude_files}
    found: list[tuple[Path, Path]] = []
    for given in map(Path, paths):
        if given.is_dir():
            for dirpath, dirnames, filenames in os.walk(given):
                here = Path(dirpath)
                dirnames[:] = sorted(d for d in dirnames if (here / d).resolve() not in skip_dirs)
                for name in sorted(filenames):
                    path = here / name
                    if path.suffix in SOURCE_SUFFIXES and path.resolve() not in skip_files:
                        found.append((path, given))
        elif given.resolve() not in skip_files and given.resolve().parent not in skip_dirs:
            found.append((given, given.parent))
    return found


#: The error handler that maps undecodable bytes to lone surrogates and back.
ERRORS = "surrogateescape"


def decode(data: bytes, encoding: str = "utf-8", path: str = "<bytes>") -> str:
    """Source bytes as text; bytes invalid in ``encoding`` are kept (as lone surrogates)."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise HipifyError(f"binary file (NUL byte at offset {nul}); not a source file", path)
    try:
        return data.decode(encoding, ERRORS)
    except LookupError:
        raise HipifyError(f"unknown encoding {encoding!r}", path) from None
    except UnicodeDecodeError as exc:  # a codec without surrogateescape support (utf-16 ...)
        raise HipifyError(f"not valid {encoding} at offset {exc.start}", path) from None


def encode(text: str, encoding: str = "utf-8") -> bytes:
    """The bytes of a translation: the bytes :func:`decode` kept come back unchanged."""
    try:
        return text.encode(encoding, ERRORS)
    except UnicodeEncodeError:  # a real surrogate code point from the Python API
        return text.encode(encoding, "surrogatepass" if encoding.lower().startswith("utf") else "replace")


def read_source(path: Path, encoding: str = "utf-8") -> str:
    """The text of a source file (any bytes; see :func:`decode`); :class:`HipifyError` for a
    file that cannot be read or holds binary data."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise HipifyError(exc.strerror or str(exc), str(path)) from None
    return decode(data, encoding, str(path))


def write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(encode(text, encoding))
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def backup(path: Path) -> Path:
    """Copy ``path`` to ``path.prehip`` unless that backup already exists; return the backup."""
    target = path.with_name(path.name + BACKUP_SUFFIX)
    if not target.exists():
        data = path.read_bytes()
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    return target
