"""Build, cache and load the CPU platform's host runtime library (``src/runtime.cpp``).

The library is compiled on first use with the host C++ compiler (under the compile limits of
``limits.py``) in the process's private directory, then installed into the compile cache
directory (``openhip.config.cache_dir()/cpu-runtime``), keyed by a hash of its sources, the
compiler's identity and the flags, written atomically (temp file + ``os.replace``) with an
HMAC-SHA256 of its bytes under the user's key (``openhip.compiler.trust``). A cached library is
loaded only when its MAC verifies: a planted, swapped, corrupt or truncated one is rebuilt, never
loaded. A refused, read-only or full cache directory means loading the private build (one
warning). Loading sets every ctypes prototype once, so a call costs only ctypes' own overhead.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from ... import config
from ...compiler import trust
from ...errors import HipError
from .limits import limit_message, run_tool

__all__ = ["RuntimeLibrary", "SOURCE_DIR", "INCLUDE_DIR", "load_runtime"]

SOURCE_DIR = Path(__file__).resolve().parent / "src"
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-pthread", "-fvisibility=hidden")
#: bytes of each fiber stack (OPENHIP_CPU_STACK_SIZE overrides).
DEFAULT_STACK_SIZE = 64 * 1024
#: dynamic shared memory each worker thread can hand a block (the device limit is lower).
DYN_SHARED_CAPACITY = 64 * 1024 * 1024

_vp = ctypes.c_void_p
_u32 = ctypes.c_uint32
_u64 = ctypes.c_uint64
_int = ctypes.c_int
_char_p = ctypes.c_char_p

_PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "ohcpu_abi_version": (_int, []),
    "ohcpu_init": (_int, [_int, _u64, _u64]),
    "ohcpu_default_stream": (_vp, []),
    "ohcpu_stream_create": (_vp, []),
    "ohcpu_stream_destroy": (_int, [_vp]),
    "ohcpu_stream_synchronize": (_int, [_vp, _char_p, _int]),
    "ohcpu_stream_query": (_int, [_vp, _char_p, _int]),
    "ohcpu_stream_busy": (_int, [_vp]),
    "ohcpu_device_synchronize": (_int, [_char_p, _int]),
    "ohcpu_device_wait_idle": (_int, []),
    "ohcpu_after_fork_child": (None, []),
    "ohcpu_last_message": (None, [_char_p, _int]),
    "ohcpu_stream_synchronize_for": (_int, [_vp, ctypes.c_double, _char_p, _int]),
    "ohcpu_stream_cancel": (_int, [_vp, _char_p]),
    "ohcpu_device_synchronize_for": (_int, [ctypes.c_double, _char_p, _int]),
    "ohcpu_device_cancel": (_int, [_char_p]),
    "ohcpu_reset_device": (_int, []),
    "ohcpu_shutdown": (None, []),
    "ohcpu_event_synchronize_for": (_int, [_vp, ctypes.c_double]),
    "ohcpu_install_fault_handlers": (None, []),
    "ohcpu_event_create": (_vp, []),
    "ohcpu_event_destroy": (None, [_vp]),
    "ohcpu_event_record": (_int, [_vp, _vp]),
    "ohcpu_event_query": (_int, [_vp]),
    "ohcpu_event_synchronize": (_int, [_vp]),
    "ohcpu_event_elapsed": (_int, [_vp, _vp, ctypes.POINTER(ctypes.c_double)]),
    "ohcpu_stream_wait_event": (_int, [_vp, _vp]),
    "ohcpu_malloc": (_vp, [_u64]),
    "ohcpu_free": (None, [_vp]),
    "ohcpu_free_checked": (_int, [_vp, _char_p, _int]),
    "ohcpu_redzone_check": (_int, [_vp, _char_p, _int]),
    "ohcpu_redzone_resize": (_int, [_vp, _u64]),
    "ohcpu_memcheck_enable": (_u64, []),
    "ohcpu_memcheck_describe": (_int, [_u64, _char_p, _int]),
    "ohcpu_memcheck_live": (_u64, [ctypes.POINTER(_u64), _u64]),
    "ohcpu_memcheck_pool": (_int, [_vp, _u64, _int]),
    "ohcpu_memcheck_racecheck": (None, [_int]),
    "ohcpu_trace_enable": (_u64, [_u64]),
    "ohcpu_trace_read": (_u64, [_vp, _u64, ctypes.POINTER(_u64)]),
    "ohcpu_register_kernel": (None, [_vp, _char_p]),
    "ohcpu_memcpy": (_int, [_vp, _vp, _vp, _u64, _int]),
    "ohcpu_memset": (_int, [_vp, _vp, _int, _u64, _int]),
    "ohcpu_launch": (_int, [_vp, _vp, _u32, _u32, _u32, _u32, _u32, _u32, _u64, _vp, _u64, _vp,
                            _u32]),
    "ohcpu_launch_sync": (_int, [_vp, _vp, _char_p, _int]),
}


class RuntimeLibrary:
    """The loaded library: its ctypes functions as attributes (``lib.ohcpu_launch(...)``)."""

    def __init__(self, path: Path, threads: int, stack_size: int) -> None:
        self.path = path
        self.cdll = ctypes.CDLL(str(path), mode=getattr(os, "RTLD_LOCAL", 0))
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(self.cdll, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)
        rc = self.ohcpu_init(threads, stack_size, DYN_SHARED_CAPACITY)
        if rc:
            raise HipError(rc, "cannot start the CPU runtime", routine="hipInit")
        self.default_stream: int = self.ohcpu_default_stream()
        self.threads = threads
        self.stack_size = stack_size
        if hasattr(os, "register_at_fork"):
            # The worker threads do not survive fork(); the child starts new ones.
            os.register_at_fork(after_in_child=self.ohcpu_after_fork_child)


def _source_key(cxx_identity: str) -> str:
    h = hashlib.sha256()
    # src/*.h: headers runtime.cpp includes (redzone.h)
    for path in sorted(SOURCE_DIR.glob("*.cpp")) + sorted(SOURCE_DIR.glob("*.h")) + [
            INCLUDE_DIR / "openhip_cpu" / "abi.h"]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(cxx_identity.encode())
    h.update(" ".join(_FLAGS).encode())
    return h.hexdigest()[:20]


def _build(cxx: str, directory: Path) -> bytes:
    """Compile the library in ``directory`` (a private one) and return its bytes."""
    fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=directory)
    os.close(fd)
    try:
        cmd = [cxx, *_FLAGS, "-isystem", str(INCLUDE_DIR), "-o", tmp,
               str(SOURCE_DIR / "runtime.cpp")]
        proc = run_tool(cmd)
        if proc.returncode != 0 or proc.limit:
            why = limit_message(proc, "the compiler")
            raise HipError("hipErrorSharedObjectInitFailed",
                           f"building the CPU runtime library failed:\n{why}\n{proc.output}"
                           .replace("\n\n", "\n"), routine="hipInit")
        data = trust.read_artifact(Path(tmp))
        if not data:
            raise HipError("hipErrorSharedObjectInitFailed", f"the compiler wrote no library "
                           f"({tmp})", routine="hipInit")
        return data
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _label(name: str) -> str:
    return f"cpu-runtime {name}"


def _install(directory: Path, name: str, data: bytes, place: trust.TrustedDir) -> Path:
    return trust.install_verified(directory, name, data, place, _label(name))


def _verified(directory: Path, name: str, place: trust.TrustedDir) -> bool:
    return trust.is_verified(directory, name, place, _label(name))


def _library_path(cxx: str, cxx_identity: str,
                  on_build: Callable[[], None] | None = None) -> Path:
    """A library whose bytes this user's process built: the cached one when its MAC verifies,
    else a fresh build (installed into the cache when possible; ``on_build()`` is called
    first: other work that a cold cache needs can start meanwhile)."""
    name = f"libopenhip_cpu_runtime-{_source_key(cxx_identity)}.so"
    root = trust.cache_root()  # (used even under OPENHIP_DISABLE_CACHE, as it always was)
    directory = None
    if root is not None:
        try:
            directory = root.subdir("cpu-runtime")
        except OSError as exc:
            trust.warn_once(root.path, f"compile cache directory {root.path} is not usable "
                            f"({exc}); the CPU runtime library is built privately")
        if directory is not None and _verified(directory, name, root):
            return directory / name
    private = trust.private_dir()
    if on_build is not None:
        on_build()
    try:
        data = _build(cxx, private.path)
    except OSError as exc:
        raise HipError("hipErrorSharedObjectInitFailed", f"cannot build the CPU runtime "
                       f"library in {private.path}: {exc}", routine="hipInit") from None
    if root is not None and directory is not None:
        try:
            return _install(directory, name, data, root)
        except OSError as exc:  # full or read-only cache filesystem: load the private build
            trust.warn_once(root.path, f"cannot write the CPU runtime library into "
                            f"{directory} ({exc}); using a private copy for this process")
    try:
        return _install(private.path, name, data, private)
    except OSError as exc:
        raise HipError("hipErrorSharedObjectInitFailed", f"cannot write the CPU runtime "
                       f"library anywhere: {exc}", routine="hipInit") from None


_lock = threading.Lock()
_loaded: RuntimeLibrary | None = None


def stack_size() -> int:
    """Bytes per fiber stack: ``OPENHIP_CPU_STACK_SIZE`` (e.g. ``262144`` or ``256k``), default
    64 KiB."""
    value = os.environ.get("OPENHIP_CPU_STACK_SIZE", "").strip().lower()
    if not value:
        return DEFAULT_STACK_SIZE
    scale = {"k": 1024, "m": 1024 * 1024}.get(value[-1], 1)
    number = value[:-1] if value[-1] in "km" else value
    size = int(number) * scale
    if size < 16 * 1024:
        raise ValueError(f"OPENHIP_CPU_STACK_SIZE={value!r}: at least 16 KiB")
    return size


def load_runtime(cxx: str, cxx_identity: str,
                 on_build: Callable[[], None] | None = None) -> RuntimeLibrary:
    """The process's runtime library, built and started on the first call (``on_build``: see
    ``_library_path``)."""
    global _loaded
    with _lock:
        if _loaded is None:
            path = _library_path(cxx, cxx_identity, on_build)
            _loaded = RuntimeLibrary(path, config.cpu_threads(), stack_size())
        return _loaded
