"""CUDA's cooperative groups headers (and the libcu++ they need) for NVRTC, found on the machine.

NVRTC ships no ``<cooperative_groups.h>``.  NVIDIA's PyPI wheels do (``nvidia-cuda-runtime``
ships the header, ``nvidia-cuda-cccl`` libcu++; both in openhip's ``nvidia`` extra), and so does
an installed CUDA toolkit (``$CUDA_HOME``, ``$CUDA_PATH``, ``/usr/local/cuda``).  The first
complete set found is used: the wheels first, then the toolkits.

Only what cooperative groups include is put on NVRTC's include path: a directory of links to
``cooperative_groups.h``, ``cooperative_groups/`` and the pipeline/barrier headers its
``memcpy_async`` includes, plus libcu++'s directory (``cuda/``, ``nv/``).  The rest of the
toolkit's include directory (its ``cuda_fp16.h``, ``cuda_runtime.h``...) would shadow or clash
with openhip's own NVRTC headers, so it is not on the path.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ... import config

__all__ = ["CgHeaders", "find_cg_headers", "nvrtc_options"]

#: what cooperative_groups.h includes with <...> from the toolkit's include directory
_LINKED = ("cooperative_groups.h", "cooperative_groups")
_LINKED_GLOBS = ("cuda_pipeline*.h", "cuda_awbarrier*.h")


@dataclass(frozen=True)
class CgHeaders:
    """Where the cooperative groups header and libcu++ were found."""

    cg_dir: Path    # holds cooperative_groups.h
    cccl_dir: Path  # holds cuda/std/cstdint

    def identity(self) -> str:
        """A string that changes when these headers do (part of the compile cache key)."""
        stamps = []
        for p in (self.cg_dir / "cooperative_groups.h", self.cccl_dir / "cuda" / "std" / "version"):
            try:
                stamps.append(f"{p}:{p.stat().st_mtime_ns}")
            except OSError:
                stamps.append(f"{p}:?")
        return ";".join(stamps)


def _candidates() -> list[Path]:
    """Include directories that may hold cooperative_groups.h, best first."""
    out: list[Path] = []
    try:
        import nvidia  # namespace package of NVIDIA's wheels

        for base in getattr(nvidia, "__path__", []):
            base = Path(base)
            out += sorted(base.glob("cu*/include"), reverse=True)  # CUDA 13+: nvidia/cu13
            out += [base / "cuda_runtime" / "include"]              # CUDA 12 wheels
    except ImportError:
        pass
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            out.append(Path(os.environ[var]) / "include")
    out.append(Path("/usr/local/cuda/include"))
    return out


def _cccl_dir(include: Path) -> Path | None:
    """The directory holding libcu++ (``cuda/std/cstdint``) next to ``include``."""
    for d in (include / "cccl", include, include.parents[1] / "cuda_cccl" / "include"):
        if (d / "cuda" / "std" / "cstdint").is_file():
            return d
    return None


def find_cg_headers() -> CgHeaders | None:
    """The first place with both cooperative_groups.h and libcu++, or None."""
    for include in _candidates():
        if (include / "cooperative_groups.h").is_file():
            cccl = _cccl_dir(include)
            if cccl is not None:
                return CgHeaders(include.resolve(), cccl.resolve())
    return None


def _link_dir(cg_dir: Path) -> Path:
    """A directory of links to the cooperative groups headers of ``cg_dir`` (made once, under
    the openhip cache directory, or the temporary directory when that is not writable)."""
    tag = hashlib.sha256(str(cg_dir).encode()).hexdigest()[:16]
    names = list(_LINKED) + sorted({p.name for g in _LINKED_GLOBS for p in cg_dir.glob(g)})
    for root in (config.cache_dir(), Path(tempfile.gettempdir()) / f"openhip-{os.getuid()}"):
        target = root / "nvidia-cg" / tag
        try:
            root.joinpath("nvidia-cg").mkdir(parents=True, exist_ok=True, mode=0o700)
            st = root.joinpath("nvidia-cg").stat()
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                continue  # someone else's directory: its links could point anywhere
            if all((target / n).exists() for n in names):
                return target
            tmp = Path(tempfile.mkdtemp(prefix=f"{tag}.", dir=root / "nvidia-cg"))
            for n in names:
                os.symlink(cg_dir / n, tmp / n)
            try:
                os.rename(tmp, target)  # atomic; another process may have won the race
            except OSError:
                for n in names:
                    (tmp / n).unlink()
                tmp.rmdir()
            if all((target / n).exists() for n in names):
                return target
        except OSError:
            continue
    raise OSError(f"cannot create a directory of links to the headers of {cg_dir}")


def _fixes(cg_dir: Path) -> list[str]:
    """Macros for openhip's <cooperative_groups.h> to mend known defects of the found header:
    CUDA 13.0 declares ``thread_group::num_threads()`` and defines it nowhere."""
    try:
        text = (cg_dir / "cooperative_groups.h").read_text(errors="replace")
    except OSError:
        return []
    if "num_threads() const;" in text and "thread_group::num_threads" not in text:
        return ["-D__OPENHIP_CG_DEFINE_THREAD_GROUP_NUM_THREADS"]
    return []


_cached: dict[str, object] = {}


def nvrtc_options() -> tuple[tuple[str, ...], str]:
    """NVRTC options that make cooperative groups available (include directories, fixes) and
    their identity; ``((), "")`` when no headers were found (then openhip's
    <cooperative_groups.h> says how to get them)."""
    if "found" not in _cached:
        _cached["found"] = find_cg_headers()
    found = _cached["found"]
    if found is None:
        return (), ""
    assert isinstance(found, CgHeaders)
    links = _cached.get("links")
    if not isinstance(links, Path) or not links.is_dir():  # made again if it was removed
        try:
            links = _cached["links"] = _link_dir(found.cg_dir)
        except OSError:
            return (), ""
    if "fixes" not in _cached:
        _cached["fixes"] = (tuple(_fixes(found.cg_dir)), found.identity())
    fixes, identity = _cached["fixes"]
    return (f"--include-path={links}", f"--include-path={found.cccl_dir}", *fixes), identity
