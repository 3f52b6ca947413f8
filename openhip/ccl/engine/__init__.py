"""Build and load the shared-memory engine (``shm_engine.cpp``) at first use.

The engine is a small CPython extension: g++ (or ``$CXX``) compiles it once per source,
compiler, Python and CPU; the result lives under ``openhip.config.cache_dir()/ccl`` (written to a
temporary file, then renamed; a file lock keeps concurrent ranks from compiling twice).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from types import ModuleType

from openhip import config
from openhip.errors import CclError

_SOURCE = Path(__file__).with_name("shm_engine.cpp")
_lock = threading.Lock()
_module: ModuleType | None = None


def _compiler() -> str:
    cxx = config.cxx()
    if cxx:
        return cxx
    for name in ("g++", "clang++", "c++"):
        if shutil.which(name):
            return name
    raise CclError("no C++ compiler found for the shm engine (set CXX or install g++)")


def _cpu_model() -> str:
    """The CPU's model and feature flags (the engine is built with -march=native)."""
    found: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key = line.split(":", 1)[0].strip()
                if key in ("model name", "flags", "cpu family", "model") and key not in found:
                    found[key] = line
                if len(found) == 4:
                    break
    except OSError:
        pass
    return "".join(found.values()) or platform.machine() + platform.processor()


def _key(cxx: str) -> str:
    try:
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True,
                                 timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise CclError(f"cannot run the C++ compiler {cxx!r}: {exc}") from exc
    h = hashlib.sha256()
    for part in (_SOURCE.read_bytes(), version.encode(), sys.version.encode(),
                 (sysconfig.get_config_var("EXT_SUFFIX") or "").encode(), _cpu_model().encode()):
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:20]


def _build(cxx: str, out: Path) -> None:
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        raise CclError(f"Python.h not found in {include}: install the Python development headers")
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    os.close(fd)
    cmd = [cxx, "-O3", "-march=native", "-std=c++17", "-shared", "-fPIC", "-fno-strict-aliasing",
           f"-I{include}", str(_SOURCE), "-o", tmp, "-lrt"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        os.unlink(tmp)
        raise CclError(f"building the shm engine failed ({' '.join(cmd)}):\n{proc.stderr}")
    os.replace(tmp, out)


def load() -> ModuleType:
    """The engine module, compiled on first use (raises CclError when it cannot be built)."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is not None:
            return _module
        cxx = _compiler()
        directory = config.cache_dir() / "ccl"
        directory.mkdir(parents=True, exist_ok=True)
        out = directory / f"_ohccl_shm-{_key(cxx)}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
        if not out.exists():
            with open(directory / ".build.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    if not out.exists():
                        _build(cxx, out)
                finally:
                    fcntl.flock(lock, fcntl.LOCK_UN)
        loader = importlib.machinery.ExtensionFileLoader("_ohccl_shm", str(out))
        spec = importlib.util.spec_from_file_location("_ohccl_shm", str(out), loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        _module = module
        return module
