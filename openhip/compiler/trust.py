"""Whether openhip may load what it finds in its cache directory, and the digests that prove it.

Everything in the compile cache ends up as code in the process (entries and the CPU runtime
library are dlopened, the precompiled header is compiled into every kernel), so the cache is
trusted exactly as far as the user's own files are:

* The cache directory must be a real directory (not a symbolic link) owned by the user and not
  writable by group or others; every directory above it must be owned by the user or root and
  not writable by group or others unless it is sticky (``/tmp``). Directories openhip creates
  are made ``0700``. A directory that fails the check is refused with one warning, and the work
  goes on without it (as CPython's ``__pycache__`` and ccache reason about shared directories).
* Every artifact carries an HMAC-SHA256 made with a per-user secret key, ``.openhip-key`` at the
  root of the cache (32 random bytes, created ``0600`` with ``O_EXCL``, checked for owner and mode
  on every open). A file planted by someone else, a swapped file or a damaged one has no valid
  MAC: it is a miss and is rebuilt, never loaded. The MAC also covers the artifact's name, so a
  valid artifact moved to another name is refused too.
* When no cache directory can be used, a private directory is made with ``mkdtemp`` (never a
  predictable name) for the process's lifetime; its key lives only in memory.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import os
import shutil
import stat
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

from .. import config

__all__ = ["KEY_NAME", "TrustedDir", "UntrustedDirectory", "cache_root", "check_directory",
           "install_verified", "is_verified", "make_private_dirs", "private_dir", "read_artifact",
           "write_artifact", "warn_once"]

#: the file at the root of the cache that holds the per-user MAC key.
KEY_NAME = ".openhip-key"
_KEY_BYTES = 32
_lock = threading.Lock()
_keys: dict[tuple[str, int, int], bytes] = {}
_private: TrustedDir | None = None
#: cache roots already warned about in this process (one warning per directory).
warned: set[str] = set()


class UntrustedDirectory(OSError):
    """A cache directory that other users could write to (or that is not the user's)."""


@dataclass(frozen=True)
class TrustedDir:
    """A directory whose contents openhip may load, with the key that signs them."""

    path: Path
    key: bytes = b""

    def mac(self, label: str, *parts: bytes) -> bytes:
        """HMAC-SHA256 of ``parts``, bound to ``label`` (the artifact's name in the cache)."""
        h = hmac.new(self.key, label.encode("utf-8") + b"\0", hashlib.sha256)
        for part in parts:
            h.update(part)
        return h.digest()

    def verify(self, mac: bytes, label: str, *parts: bytes) -> bool:
        """Whether ``mac`` is this directory's MAC of ``parts`` under ``label``."""
        return hmac.compare_digest(mac, self.mac(label, *parts))

    def subdir(self, *parts: str) -> Path:
        """``path/parts...``, created ``0700`` where missing (OSError when it cannot be)."""
        target = self.path.joinpath(*parts)
        make_private_dirs(target)
        return target


def warn_once(root: Path | str, message: str, stacklevel: int = 3) -> None:
    """One RuntimeWarning per cache directory per process."""
    key = str(root)
    with _lock:
        if key in warned:
            return
        warned.add(key)
    warnings.warn(f"openhip: {message}", RuntimeWarning, stacklevel=stacklevel)


def make_private_dirs(path: Path) -> None:
    """Create ``path`` and every missing directory above it with mode ``0700``."""
    missing: list[Path] = []
    p = path
    while not os.path.lexists(p):
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            continue
        os.chmod(d, 0o700)  # mkdir's mode is masked by the umask, never widened; make it exact


def read_artifact(path: Path) -> bytes | None:
    """The bytes of the regular file ``path`` (a symbolic link is not followed), or None when it
    is absent, not a regular file or unreadable: a miss either way."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        regular = False
    if not regular:
        os.close(fd)
        return None
    try:
        with os.fdopen(fd, "rb") as f:  # one read into a buffer of the file's size
            return f.read()
    except OSError:
        return None


def write_artifact(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a ``0600`` temporary file in the same directory,
    then ``os.replace``); OSError (ENOSPC, EROFS...) with nothing left behind."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def is_verified(directory: Path, name: str, place: TrustedDir, label: str) -> bool:
    """Whether ``directory/name`` exists with a ``name.mac`` next to it that is ``place``'s MAC
    of its bytes under ``label`` (a library that is loaded by path, not from bytes)."""
    data = read_artifact(directory / name)
    mac = read_artifact(directory / f"{name}.mac")
    return data is not None and mac is not None and place.verify(mac, label, data)


def install_verified(directory: Path, name: str, data: bytes, place: TrustedDir,
                     label: str) -> Path:
    """Write ``data`` as ``directory/name`` with its MAC next to it (the MAC first: a reader in
    between sees a mismatch and rebuilds); OSError when it cannot be written."""
    write_artifact(directory / f"{name}.mac", place.mac(label, data))
    write_artifact(directory / name, data)
    return directory / name


def _describe_mode(mode: int) -> str:
    who = [w for w, bit in (("group", stat.S_IWGRP), ("others", stat.S_IWOTH)) if mode & bit]
    return f"writable by {' and '.join(who)} (mode {stat.S_IMODE(mode):04o})"


def check_directory(path: Path) -> os.stat_result:
    """The ``lstat`` of ``path`` when openhip may trust it; UntrustedDirectory says why not.

    ``path`` itself: a directory (not a symbolic link), owned by this user, not writable by
    group or others. Each directory above it (symbolic links resolved): owned by this user or
    root, and not writable by group or others unless sticky."""
    uid = os.getuid()
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise UntrustedDirectory(f"{path} is a symbolic link")
    if not stat.S_ISDIR(st.st_mode):
        raise UntrustedDirectory(f"{path} is not a directory")
    if st.st_uid != uid:
        raise UntrustedDirectory(f"{path} is owned by uid {st.st_uid}, not by this user "
                                 f"(uid {uid})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UntrustedDirectory(f"{path} is {_describe_mode(st.st_mode)}")
    parent = Path(os.path.realpath(path.parent))
    for p in (parent, *parent.parents):
        pst = os.stat(p)
        if pst.st_uid not in (uid, 0):
            raise UntrustedDirectory(f"{path}: the directory above it, {p}, is owned by uid "
                                     f"{pst.st_uid}")
        if pst.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not pst.st_mode & stat.S_ISVTX:
            raise UntrustedDirectory(f"{path}: the directory above it, {p}, is "
                                     f"{_describe_mode(pst.st_mode)} and not sticky")
    return st


def _read_key_file(path: Path) -> bytes | None:
    """The key in ``path`` when it is this user's private regular file of the right size."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError:  # a symbolic link (ELOOP) or unreadable: replaced below
        return b""
    try:
        st = os.fstat(fd)
        if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid()
                or st.st_mode & 0o077 or st.st_size != _KEY_BYTES):
            return b""
        data = os.read(fd, _KEY_BYTES + 1)
        return data if len(data) == _KEY_BYTES else b""
    finally:
        os.close(fd)


def _write_key(root: Path, replace: bool) -> bytes:
    """A new key at ``root/KEY_NAME``: linked into place (the first process to get there wins),
    or, when ``replace``, put over an unusable one."""
    key = os.urandom(_KEY_BYTES)
    tmp = root / f".key-{os.getpid()}-{os.urandom(6).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        try:
            os.write(fd, key)
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(tmp, root / KEY_NAME)
            return key
        try:
            os.link(tmp, root / KEY_NAME)
        except FileExistsError:
            theirs = _read_key_file(root / KEY_NAME)
            if theirs:
                return theirs
            os.replace(tmp, root / KEY_NAME)
        return key
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass


def _root_key(root: Path, st: os.stat_result) -> bytes:
    memo = (str(root), st.st_dev, st.st_ino)
    with _lock:
        key = _keys.get(memo)
    if key is not None:
        return key
    key = _read_key_file(root / KEY_NAME)
    if not key:
        key = _write_key(root, replace=key is not None)
    with _lock:
        _keys[memo] = key
    return key


def cache_root(create: bool = True) -> TrustedDir | None:
    """The compile cache directory (``config.cache_dir()``) with its key, or None — after one
    warning — when it is refused (see the module docstring) or cannot be used."""
    root = Path(os.path.abspath(config.cache_dir()))
    try:
        if create:
            make_private_dirs(root)
        st = check_directory(root)
        return TrustedDir(root, _root_key(root, st))
    except UntrustedDirectory as exc:
        warn_once(root, f"compile cache directory refused: {exc}; a cache that other users can "
                  "write to could run their code in this process, so openhip compiles without "
                  "it (use a private OPENHIP_CACHE_DIR, or chmod 700 it)")
    except OSError as exc:
        warn_once(root, f"compile cache directory {root} is not usable ({exc}); compiling "
                  "without the disk cache")
    return None


def _remove_private(path: Path, pid: int) -> None:
    if os.getpid() == pid:  # not in a forked child that exits normally
        shutil.rmtree(path, ignore_errors=True)


def private_dir() -> TrustedDir:
    """This process's own directory (``mkdtemp``, removed at exit) with an in-memory key: where
    artifacts go when the cache directory cannot be used."""
    global _private
    with _lock:
        if _private is None or not os.path.isdir(_private.path):
            path = Path(tempfile.mkdtemp(prefix=f"openhip-{os.getpid()}-"))
            atexit.register(_remove_private, path, os.getpid())
            _private = TrustedDir(path, os.urandom(_KEY_BYTES))
        return _private
