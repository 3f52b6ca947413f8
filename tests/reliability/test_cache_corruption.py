"""Issue #14 item 10: every unreadable artifact is a miss, a full filesystem a fallback.

A bit flip in an entry's header used to give ``KeyError: 'platform'`` in every later process; a
corrupt or truncated runtime library ``OSError``/SIGBUS forever; a full cache filesystem made
openhip unusable; a full ``/dev/shm`` made every load fail with a misleading
``hipErrorInvalidImage`` and leaked partial files. Each case runs a kernel in a new process with a
timeout (the failure modes are crashes). The full-filesystem cases mount a small tmpfs in a
private mount namespace (``unshare -m``, skipped where that is not allowed); the ``/dev/shm``
fallback is also checked everywhere by making its writes fail with ENOSPC.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from openhip.compiler import cache
from openhip.platforms.base import CompiledProgram

KERNEL = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""

CHILD = textwrap.dedent("""
    import json, os, sys, warnings
    warnings.simplefilter("always")
    import numpy as np
    import openhip as hip
    from openhip.platforms.cpu import runtime_lib
    exec(sys.argv[2])  # the test's prelude (fault injection)
    import pathlib
    src = pathlib.Path(sys.argv[1]).read_text()
    out = {}
    try:
        x = hip.asarray(np.arange(256, dtype=np.float32))
        k = hip.Module(src).get_function("scale")
        k(1, 256, (x, 3.0, 256))
        out["ok"] = bool(np.array_equal(x.get(), np.arange(256, dtype=np.float32) * 3))
        out["runtime"] = str(runtime_lib._loaded.path)
    except hip.HipError as exc:
        out["error"] = str(exc)
        out["status"] = exc.status
    out["shm_left"] = sorted(n for n in os.listdir("/dev/shm")
                             if n.startswith(f"openhip-{os.getpid()}-"))
    print(json.dumps(out))
""")


def cpu_or_skip():
    from openhip.platforms.cpu.compiler import find_compiler

    if find_compiler()[0] is None:
        pytest.skip("no CPU platform")


def child_command(tmp_path: Path, prelude: str = "") -> list[str]:
    src = tmp_path / "corruption.hip"
    src.write_text(KERNEL)
    return [sys.executable, "-c", CHILD, str(src), prelude]


def run_child(tmp_path: Path, cache_dir: Path, prelude: str = "", wrap=None) -> tuple[dict, str]:
    cpu_or_skip()
    cmd = child_command(tmp_path, prelude)
    if wrap is not None:
        cmd = wrap(cmd)
    env = dict(os.environ, OPENHIP_CACHE_DIR=str(cache_dir), OPENHIP_PLATFORM="cpu")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.fixture(scope="module")
def warm_template(tmp_path_factory):
    base = tmp_path_factory.mktemp("warm")
    result, _ = run_child(base, base / "cache")
    assert result["ok"]
    return base / "cache"


@pytest.fixture
def warm_cache(warm_template, tmp_path):
    shutil.copytree(warm_template, tmp_path / "cache", symlinks=True)
    return tmp_path / "cache"


def current_runtime(root: Path, tmp_path: Path) -> Path:
    """The runtime library this checkout's sources build, present in ``root``."""
    # asked of a new process: this one's digests of openhip's sources are cached, and the
    # sources of a shared checkout may have changed since
    code = ("from openhip.platforms.cpu import runtime_lib\n"
            "from openhip.platforms.cpu.platform import CpuPlatform\n"
            "print(runtime_lib._source_key(CpuPlatform().compiler_identity()))")
    key = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()[-1]
    lib = root / "cpu-runtime" / f"libopenhip_cpu_runtime-{key}.so"
    if not lib.is_file():  # the sources changed since the template was built
        run_child(tmp_path, root)
    assert lib.is_file()
    return lib


# ---- entries -------------------------------------------------------------------------------

class FakeToolchain:
    builds = 0

    def compiler_identity(self):
        return "fake 1"

    def compile(self, source, *, arch, options=(), name_expressions=(), filename="k.hip"):
        self.builds += 1
        return CompiledProgram(binary=source[::-1].encode(), platform="fake", arch=arch,
                               kernels={"k": "k_sym"}, metadata={"signatures": {}})


def test_every_bit_flip_of_an_entry_is_a_miss(isolated_cache):
    tc = FakeToolchain()
    source = "a kernel's source text"
    cache.cached_compile(tc, source, platform="fake", arch="x")
    (entry,) = [p for p in isolated_cache.rglob("*.ohc")]
    good = entry.read_bytes()
    positions = sorted(set(range(0, len(good), 3)) | {len(good) - 1})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to warn about: a miss is silent
        for pos in positions:
            bad = bytearray(good)
            bad[pos] ^= 1 << (pos % 8)
            entry.write_bytes(bytes(bad))
            cache.clear_memory_cache()
            program = cache.cached_compile(tc, source, platform="fake", arch="x")
            assert program.binary == source[::-1].encode() and program.kernels == {"k": "k_sym"}
    assert tc.builds == 1 + len(positions)


def test_header_bit_flip_in_a_real_entry_rebuilds_in_every_later_process(warm_cache, tmp_path):
    (entry,) = list((warm_cache / "cpu").rglob("*.ohc"))
    data = bytearray(entry.read_bytes())
    at = data.index(b'"platform"') + 1
    data[at] ^= 0x01  # "platform" -> "qlatform": the old code raised KeyError here
    entry.write_bytes(bytes(data))
    for _ in range(2):
        result, _ = run_child(tmp_path, warm_cache)
        assert result["ok"]
    assert b'"platform"' in entry.read_bytes()  # rewritten


# ---- the runtime library -------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["truncated", "empty", "flipped", "garbage"])
def test_damaged_runtime_library_is_rebuilt(warm_cache, tmp_path, damage):
    lib = current_runtime(warm_cache, tmp_path)
    good = lib.read_bytes()
    bad = {"truncated": good[: len(good) // 3], "empty": b"",
           "flipped": good[:4000] + bytes([good[4000] ^ 0x40]) + good[4001:],
           "garbage": os.urandom(len(good))}[damage]
    lib.write_bytes(bad)
    result, stderr = run_child(tmp_path, warm_cache)
    assert result["ok"] and result["runtime"] == str(lib)
    assert lib.read_bytes() != bad and "RuntimeWarning" not in stderr


def test_runtime_library_path_taken_by_a_directory_falls_back_once(warm_cache, tmp_path):
    lib = current_runtime(warm_cache, tmp_path)
    lib.unlink()
    lib.mkdir()
    result, stderr = run_child(tmp_path, warm_cache)
    assert result["ok"] and not result["runtime"].startswith(str(warm_cache))
    assert len([ln for ln in stderr.splitlines() if "RuntimeWarning" in ln]) == 1, stderr


# ---- full filesystems (a private mount namespace) ---------------------------------------------

def _can_mount_tmpfs() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    probe = subprocess.run([unshare, "-m", "sh", "-c",
                            "mount -t tmpfs -o size=64k tmpfs /mnt && umount /mnt"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


needs_mount = pytest.mark.skipif(not _can_mount_tmpfs(),
                                 reason="needs unshare -m and tmpfs mounts (root)")


def in_namespace(mountpoint: str, size: str, before: str = "", mode: str = "1777"):
    """Run the command in a mount namespace where ``mountpoint`` is a tmpfs of ``size`` that is
    filled up (after ``before``, a shell command) before the command runs."""
    def wrap(cmd: list[str]) -> list[str]:
        script = (f"mount -t tmpfs -o size={size},mode={mode} tmpfs {shlex.quote(mountpoint)} && "
                  f"{before or 'true'} && "
                  f"(dd if=/dev/zero of={shlex.quote(mountpoint)}/fill bs=4096 2>/dev/null; "
                  f"true) && exec {shlex.join(cmd)}")
        return ["unshare", "-m", "sh", "-c", script]
    return wrap


@needs_mount
@pytest.mark.parametrize("key_first", [True, False])
def test_full_cache_filesystem_falls_back_with_one_warning(tmp_path, key_first):
    root = tmp_path / "small"
    root.mkdir(mode=0o700)
    before = ""
    if key_first:  # the key fits; the artifacts do not
        before = shlex.join([sys.executable, "-c", "from openhip.compiler import trust; "
                             "assert trust.cache_root() is not None"])
    result, stderr = run_child(tmp_path, root, wrap=in_namespace(str(root), "256k", before, "0700"))
    assert result["ok"] and not result["runtime"].startswith(str(root))
    warned = [ln for ln in stderr.splitlines() if "RuntimeWarning" in ln]
    assert len(warned) == 1 and "No space left on device" in warned[0], stderr


@needs_mount
def test_full_dev_shm_falls_back_without_leaking(warm_cache, tmp_path):
    result, _ = run_child(tmp_path, warm_cache, wrap=in_namespace("/dev/shm", "64k"))
    assert result.get("ok"), result
    assert result["shm_left"] == []


ENOSPC_IN = textwrap.dedent("""
    import errno
    from openhip.platforms.cpu import platform as cpu_platform
    _real_write_all = cpu_platform._write_all
    FULL = {full!r}
    def _full_write_all(fd, data):
        where = os.path.realpath(os.readlink(f"/proc/self/fd/{{fd}}"))
        if any(where.startswith(os.path.realpath(d).rstrip("/") + "/") for d in FULL):
            os.write(fd, data[: len(data) // 2])  # a partial file, as a full tmpfs leaves
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        _real_write_all(fd, data)
    cpu_platform._write_all = _full_write_all
    cpu_platform._LOAD_DIRS = (FULL[0], None)
""")


def test_load_dir_out_of_space_falls_back_and_leaks_nothing(warm_cache, tmp_path):
    full = tmp_path / "shm"
    full.mkdir()
    result, _ = run_child(tmp_path, warm_cache, ENOSPC_IN.format(full=[str(full)]))
    assert result.get("ok"), result
    assert list(full.iterdir()) == []


def test_every_load_dir_out_of_space_names_enospc(warm_cache, tmp_path):
    full = tmp_path / "shm"
    full.mkdir()
    prelude = ENOSPC_IN.format(full=[str(full), "/"])  # "/": every place, the private dir too
    result, _ = run_child(tmp_path, warm_cache, prelude)
    assert result["status"] == "hipErrorOutOfMemory", result
    assert "ENOSPC" in result["error"] and str(full) in result["error"]
    assert list(full.iterdir()) == []
