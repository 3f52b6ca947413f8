#!/usr/bin/env python3
"""Fetch one released HIPIFY source tree (its ``tests/unit_tests``) for bench/hipify_unit_tests.py.

Downloads HIPIFY's release tarball from Debian's mirror (the ``hipify`` source package's
``.orig`` tarball: HIPIFY rocm-7.0.2 with the ``dfsg`` removals, ``tests/unit_tests/libraries/``
among them), refuses it unless its SHA-256 is the one written here, extracts it with a safe filter
(no absolute paths, no ``..``, no link that points out of the tree, no device or FIFO members: the
whole archive is refused before anything is written) and prints the path of its
``tests/unit_tests`` folder. Python's standard library only.

    python3 bench/fetch_hipify_release.py [--dest DIR] [--tarball FILE]
    python3 bench/hipify_unit_tests.py "$(python3 bench/fetch_hipify_release.py)"

``--tarball`` uses a tarball already downloaded (checked the same way); a tarball already in
``DEST`` with the right digest is not downloaded again.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path, PurePosixPath

#: Debian's copy of HIPIFY's rocm-7.0.2 source (package ``hipify`` 7.0.2+dfsg).
URL = "http://deb.debian.org/debian/pool/main/h/hipify/hipify_7.0.2+dfsg.orig.tar.xz"
#: The only digest accepted for :data:`URL` (617,612 bytes).
SHA256 = "d350941aa667dbf6a680f6cb0298d0e5c4d867e54697f52e551436515e669fc0"
#: The tarball's top folder and the unit tests inside it.
TOP = "HIPIFY-rocm-7.0.2"
UNIT_TESTS = f"{TOP}/tests/unit_tests"
DEFAULT_DEST = Path(tempfile.gettempdir()) / "hipify_release"


class FetchError(Exception):
    """The download failed, its digest is not the expected one, or the archive is unsafe."""


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, as lowercase hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_sha256(path: Path, expected: str = SHA256) -> None:
    """Raise :class:`FetchError` unless ``path``'s SHA-256 is ``expected``."""
    actual = sha256_of(path)
    if actual != expected.lower():
        raise FetchError(f"{path}: sha256 {actual}, expected {expected}: refused")


def download(url: str, dest: Path, timeout: float = 60.0) -> Path:
    """Download ``url`` to the file ``dest`` (through a temporary name: a failed download leaves
    nothing at ``dest``)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, open(part, "wb") as f:
            shutil.copyfileobj(response, f)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise FetchError(f"download of {url} failed: {exc}") from exc
    part.replace(dest)
    return dest


def _inside(root: PurePosixPath, name: str) -> bool:
    """Whether the archive path ``name`` (relative, POSIX) stays inside ``root`` once normalised."""
    parts: list[str] = list(root.parts)
    for part in PurePosixPath(name).parts:
        if part in ("", "."):
            continue
        if part == "..":
            if len(parts) <= len(root.parts):
                return False
            parts.pop()
        else:
            parts.append(part)
    return True


def unsafe_members(archive: tarfile.TarFile) -> list[str]:
    """Every member of ``archive`` a safe extraction refuses, with the reason."""
    bad: list[str] = []
    top = PurePosixPath("/x")  # any absolute anchor: only the relative walk matters
    for member in archive.getmembers():
        name = member.name
        if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":") or "\\" in name:
            bad.append(f"{name}: absolute path")
            continue
        if ".." in PurePosixPath(name).parts or not _inside(top, name):
            bad.append(f"{name}: '..' in the path")
            continue
        if member.issym():
            target = member.linkname
            if target.startswith("/") or not _inside(top, str(PurePosixPath(name).parent / target)):
                bad.append(f"{name}: symbolic link out of the tree ({target})")
        elif member.islnk():
            if member.linkname.startswith("/") or not _inside(top, member.linkname):
                bad.append(f"{name}: hard link out of the tree ({member.linkname})")
        elif not (member.isfile() or member.isdir()):
            bad.append(f"{name}: not a file, folder or link")
    return bad


def safe_extract(tarball: Path, dest: Path) -> None:
    """Extract ``tarball`` into ``dest``; raise :class:`FetchError` (writing nothing) when any
    member is unsafe (see :func:`unsafe_members`)."""
    try:
        with tarfile.open(tarball) as archive:
            bad = unsafe_members(archive)
            if bad:
                raise FetchError(f"{tarball}: unsafe archive, refused: " + "; ".join(bad[:5]))
            dest.mkdir(parents=True, exist_ok=True)
            if hasattr(tarfile, "data_filter"):
                archive.extractall(dest, filter="data")  # the same rules, once more
            else:  # pragma: no cover - Python before 3.11.4
                archive.extractall(dest)
    except tarfile.TarError as exc:
        raise FetchError(f"{tarball}: not a readable tar archive: {exc}") from exc


def fetch(dest: Path = DEFAULT_DEST, tarball: Path | None = None, url: str = URL,
          sha256: str = SHA256) -> Path:
    """Make sure ``dest`` holds the verified, extracted release; return its unit_tests folder.

    ``tarball`` is a local copy to use instead of downloading (it is verified all the same)."""
    if tarball is None:
        tarball = dest / os.path.basename(url)
        if not (tarball.is_file() and sha256_of(tarball) == sha256):
            download(url, tarball)
    verify_sha256(tarball, sha256)
    unit_tests = dest / UNIT_TESTS
    if not unit_tests.is_dir():
        safe_extract(tarball, dest)
    if not unit_tests.is_dir():
        raise FetchError(f"{tarball}: no {UNIT_TESTS} in the archive")
    return unit_tests


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: print the unit_tests path (errors on stderr, exit status 1)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST,
                        help=f"folder to download and extract into (default {DEFAULT_DEST})")
    parser.add_argument("--tarball", type=Path, help="a local copy of the tarball to use instead")
    args = parser.parse_args(argv)
    try:
        print(fetch(args.dest, args.tarball))
    except FetchError as exc:
        print(f"fetch_hipify_release: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
