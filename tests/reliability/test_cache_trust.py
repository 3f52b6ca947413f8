"""Issue #14 item 1: the compile cache is not trusted as code.

Each test builds a hostile layout — a world-writable cache directory, one owned by another user,
a planted runtime library, a forged or replayed entry, a swapped precompiled header, a
pre-created fallback directory — and then runs a kernel in a new process. Everything planted
carries a constructor that writes a marker file when it is loaded; the marker must stay absent
and the kernel's result must be right. The children run with a timeout (the failure mode of a
planted library is arbitrary code in the child).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from openhip.compiler import cache, trust

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX permission checks")

KERNEL = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""

CHILD = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("always")
    import numpy as np
    import openhip as hip
    from openhip.platforms.cpu import runtime_lib
    import pathlib
    src = pathlib.Path(sys.argv[1]).read_text()
    x = hip.asarray(np.arange(256, dtype=np.float32))
    k = hip.Module(src).get_function("scale")
    k(1, 256, (x, 3.0, 256))
    ok = bool(np.array_equal(x.get(), np.arange(256, dtype=np.float32) * 3))
    print(json.dumps({"ok": ok, "runtime": str(runtime_lib._loaded.path)}))
""")


def cpu_or_skip():
    from openhip.platforms.cpu.compiler import find_compiler

    found, why = find_compiler()
    if found is None:
        pytest.skip(f"no CPU platform: {why}")
    return found


def run_child(tmp_path: Path, cache_dir: Path, source: str = KERNEL, **env_extra):
    """Run the kernel in a new process; (result dict, stderr)."""
    src = tmp_path / f"kernel-{hashlib.sha256(source.encode()).hexdigest()[:8]}.hip"
    src.write_text(source)
    env = dict(os.environ, OPENHIP_CACHE_DIR=str(cache_dir), OPENHIP_PLATFORM="cpu",
               **env_extra)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(src)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def evil_library(tmp_path: Path, marker: Path, name: str = "evil") -> bytes:
    """A shared object whose constructor writes ``marker`` (what an attacker plants)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler for the planted library")
    src = tmp_path / f"{name}.c"
    src.write_text(textwrap.dedent(f"""
        #include <stdio.h>
        __attribute__((constructor)) static void planted(void) {{
            FILE* f = fopen("{marker}", "w"); if (f) {{ fputs("planted code ran", f); fclose(f); }}
        }}
        void openhip_kernel_0(void) {{}}
    """))
    out = tmp_path / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(out), str(src)], check=True,
                   capture_output=True, timeout=60)
    return out.read_bytes()


def fresh_value(expression: str, cache_dir: Path | None = None):
    """``expression`` evaluated in a new process (this one's digests of openhip's sources are
    cached, and the sources of a shared checkout may have changed since)."""
    code = ("import json\nfrom openhip.platforms.cpu import compiler as cc, runtime_lib\n"
            "from openhip.platforms.cpu.platform import CpuPlatform\n"
            f"print(json.dumps({expression}))")
    env = dict(os.environ, OPENHIP_PLATFORM="cpu")
    if cache_dir is not None:
        env["OPENHIP_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def runtime_name() -> str:
    key = fresh_value("runtime_lib._source_key(CpuPlatform().compiler_identity())")
    return f"libopenhip_cpu_runtime-{key}.so"


@pytest.fixture(scope="module")
def warm_template(tmp_path_factory):
    """A cache directory holding the runtime library, the PCH and KERNEL's entry (built once;
    tests copy it)."""
    cpu_or_skip()
    base = tmp_path_factory.mktemp("warm")
    result, _ = run_child(base, base / "cache")
    assert result["ok"]
    return base / "cache"


@pytest.fixture
def warm_cache(warm_template, tmp_path):
    target = tmp_path / "cache"
    shutil.copytree(warm_template, target, symlinks=True)
    return target


def entry_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / "cpu").rglob("*.ohc"))


def plant_self_consistent_runtime(directory: Path, evil: bytes) -> None:
    """A planted runtime library with a key and a MAC that match each other: all an attacker
    who can write the directory can make."""
    from openhip.platforms.cpu import runtime_lib

    key = os.urandom(32)
    (directory / "cpu-runtime").mkdir(parents=True, exist_ok=True)
    (directory / trust.KEY_NAME).write_bytes(key)
    os.chmod(directory / trust.KEY_NAME, 0o600)
    name = runtime_name()
    (directory / "cpu-runtime" / name).write_bytes(evil)
    mac = trust.TrustedDir(directory, key).mac(runtime_lib._label(name), evil)
    (directory / "cpu-runtime" / f"{name}.mac").write_bytes(mac)


def refusals(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "compile cache directory refused" in ln]


def test_world_writable_cache_dir_is_refused(tmp_path):
    cpu_or_skip()
    marker = tmp_path / "marker"
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    plant_self_consistent_runtime(shared, evil_library(tmp_path, marker))
    os.chmod(shared, 0o777)
    before = sorted(str(p) for p in shared.rglob("*"))
    result, stderr = run_child(tmp_path, shared)
    assert result["ok"]
    assert not marker.exists()
    assert not result["runtime"].startswith(str(shared))
    assert len(refusals(stderr)) == 1, stderr
    assert "writable by group and others" in stderr
    assert sorted(str(p) for p in shared.rglob("*")) == before  # nothing written into it


def test_cache_dir_owned_by_another_user_is_refused(tmp_path):
    cpu_or_skip()
    marker = tmp_path / "marker"
    theirs = tmp_path / "their-cache"
    theirs.mkdir(mode=0o700)
    plant_self_consistent_runtime(theirs, evil_library(tmp_path, marker))
    other = 65534 if os.getuid() != 65534 else 65533
    try:
        for p in [theirs, *theirs.rglob("*")]:
            os.lchown(p, other, other)
    except PermissionError:
        pytest.skip("chown to another user needs root")
    result, stderr = run_child(tmp_path, theirs)
    assert result["ok"] and not marker.exists()
    assert len(refusals(stderr)) == 1 and f"owned by uid {other}" in stderr


@pytest.mark.parametrize("mac", ["kept", "deleted", "garbage", "other-key"])
def test_planted_runtime_library_is_rebuilt_not_loaded(warm_cache, tmp_path, mac):
    from openhip.platforms.cpu import runtime_lib

    marker = tmp_path / "marker"
    evil = evil_library(tmp_path, marker)
    name = runtime_name()
    lib = warm_cache / "cpu-runtime" / name
    assert lib.is_file()
    lib.write_bytes(evil)
    mac_file = lib.with_name(name + ".mac")
    if mac == "deleted":
        mac_file.unlink()
    elif mac == "garbage":
        mac_file.write_bytes(os.urandom(32))
    elif mac == "other-key":  # a MAC made with any key but the user's
        mac_file.write_bytes(trust.TrustedDir(warm_cache, os.urandom(32))
                             .mac(runtime_lib._label(name), evil))
    result, stderr = run_child(tmp_path, warm_cache)
    assert result["ok"] and not marker.exists()
    assert result["runtime"] == str(lib)
    assert lib.read_bytes() != evil  # rebuilt in place
    assert "refused" not in stderr


def test_forged_entry_is_rebuilt_not_loaded(warm_cache, tmp_path):
    from openhip.platforms.base import CompiledProgram
    from openhip.platforms.cpu.compiler import host_arch

    marker = tmp_path / "marker"
    (entry,) = entry_files(warm_cache)
    key = entry.stem
    forged = CompiledProgram(binary=evil_library(tmp_path, marker), platform="cpu",
                             arch=host_arch(), kernels={"scale": "openhip_kernel_0"},
                             metadata={"kernels": {"scale": {"symbol": "openhip_kernel_0",
                                                             "mode": "loop", "index": 0,
                                                             "param_sizes": [8, 4, 4]}}})
    attacker = trust.TrustedDir(warm_cache, os.urandom(32))
    entry.write_bytes(cache._serialise(forged, [], attacker, cache._label("cpu", key)))
    result, _ = run_child(tmp_path, warm_cache)
    assert result["ok"] and not marker.exists()
    assert b"planted code ran" not in entry.read_bytes()


def test_replayed_entry_of_another_kernel_is_refused(warm_cache, tmp_path):
    """A valid entry (the user's own MAC) copied over another kernel's entry is refused: the MAC
    covers the entry's name."""
    other = KERNEL.replace("x[i] *= a;", "x[i] = -1.0f;").replace("scale", "other")
    src = tmp_path / "other.hip"
    src.write_text(other)
    env = dict(os.environ, OPENHIP_CACHE_DIR=str(warm_cache), OPENHIP_PLATFORM="cpu")
    subprocess.run([sys.executable, "-c", "import sys, openhip as hip; "
                    "hip.Module(open(sys.argv[1]).read())", str(src)], env=env, check=True,
                   capture_output=True, timeout=300)
    entries = entry_files(warm_cache)
    assert len(entries) == 2
    scale_entry = next(p for p in entries if b'"scale"' in p.read_bytes())
    other_entry = next(p for p in entries if p != scale_entry)
    shutil.copyfile(other_entry, scale_entry)
    result, _ = run_child(tmp_path, warm_cache)
    assert result["ok"]  # rebuilt: the replayed entry has no kernel 'scale' and sets -1


@pytest.mark.parametrize("swap", ["header-only", "header-and-gch"])
def test_swapped_precompiled_header_never_reaches_a_kernel(warm_cache, tmp_path, swap):
    from openhip.platforms.cpu import compiler as cc
    from openhip.platforms.cpu.runtime_lib import INCLUDE_DIR

    found = cpu_or_skip()
    if found.is_clang:
        pytest.skip("precompiled headers are GCC's")
    header = Path(fresh_value('cc._pch_header(cc.find_compiler()[0], [cc.DEFAULT_STD, '
                              '*cc.BASE_FLAGS, "-march=native"])', warm_cache))
    pch_dir = header.parent
    assert header.read_bytes() == cc._PCH_TEXT
    marker = tmp_path / "marker"
    header.write_text(textwrap.dedent(f"""
        #include <hip/hip_runtime.h>
        #include <cstdio>
        __attribute__((constructor)) static void planted() {{
            FILE* f = std::fopen("{marker}", "w"); if (f) {{ std::fputs("ran", f); std::fclose(f); }}
        }}
    """))
    gch = pch_dir / "openhip_pch.h.gch"
    if swap == "header-only":
        gch.unlink()
    else:  # the attacker builds a matching .gch with the same flags
        flags = [cc.DEFAULT_STD, *cc.BASE_FLAGS, "-march=native"]
        subprocess.run([found.path, "-x", "c++-header", *flags, "-isystem", str(INCLUDE_DIR),
                        str(header), "-o", str(gch)], check=True, capture_output=True,
                       timeout=300)
    fresh = KERNEL + "\n// a kernel compiled after the swap\n"
    result, _ = run_child(tmp_path, warm_cache, source=fresh)
    assert result["ok"] and not marker.exists()
    assert header.read_bytes() == cc._PCH_TEXT  # rebuilt


def test_precreated_fallback_directory_is_not_used(tmp_path):
    """The old fallback /tmp/openhip-<uid> was predictable: another user could create it with a
    library in it. Now the fallback is a fresh mkdtemp directory."""
    cpu_or_skip()
    marker = tmp_path / "marker"
    tmpdir = tmp_path / "tmp"
    planted = tmpdir / f"openhip-{os.getuid()}" / "cpu-runtime"
    planted.mkdir(parents=True)
    (planted / runtime_name()).write_bytes(evil_library(tmp_path, marker))
    for p in (planted.parent, planted):
        os.chmod(p, 0o777)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")  # the cache directory cannot be created under a regular file
    result, stderr = run_child(tmp_path, blocker / "cache", TMPDIR=str(tmpdir))
    assert result["ok"] and not marker.exists()
    runtime = Path(result["runtime"])
    assert runtime.parent.parent == tmpdir and runtime.parent.name != f"openhip-{os.getuid()}"
    assert len([ln for ln in stderr.splitlines() if "not usable" in ln]) == 1, stderr
    assert not runtime.parent.exists()  # the private directory goes with the process


def test_created_directories_and_files_are_private(tmp_path):
    cpu_or_skip()
    root = tmp_path / "a" / "b" / "cache"
    old = os.umask(0o002)  # a permissive umask must not widen what openhip creates
    try:
        result, _ = run_child(tmp_path, root)
    finally:
        os.umask(old)
    assert result["ok"]
    for p in [tmp_path / "a", tmp_path / "a" / "b", root, *root.rglob("*")]:
        mode = stat.S_IMODE(os.lstat(p).st_mode)
        if p.is_dir():
            assert mode == 0o700, (p, oct(mode))
        else:
            assert mode & 0o077 == 0, (p, oct(mode))
    assert stat.S_IMODE(os.stat(root / trust.KEY_NAME).st_mode) == 0o600


# ---- the directory checks, in process ---------------------------------------------------------

@pytest.fixture
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(trust, "warned", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def test_parent_writable_by_others_is_refused_unless_sticky(tmp_path, monkeypatch,
                                                            fresh_warnings):
    parent = tmp_path / "open"
    parent.mkdir()
    os.chmod(parent, 0o777)
    monkeypatch.setenv("OPENHIP_CACHE_DIR", str(parent / "cache"))
    assert trust.cache_root() is None
    assert "not sticky" in str(fresh_warnings[-1].message)
    os.chmod(parent, 0o777 | stat.S_ISVTX)  # like /tmp: others cannot rename our directory
    trust.warned.clear()
    root = trust.cache_root()
    assert root is not None and root.path == parent / "cache"


def test_group_writable_and_symlinked_cache_dirs_are_refused(tmp_path, monkeypatch,
                                                            fresh_warnings):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    monkeypatch.setenv("OPENHIP_CACHE_DIR", str(link))
    assert trust.cache_root() is None
    assert "symbolic link" in str(fresh_warnings[-1].message)
    os.chmod(real, 0o770)
    monkeypatch.setenv("OPENHIP_CACHE_DIR", str(real))
    assert trust.cache_root() is None
    assert "writable by group" in str(fresh_warnings[-1].message)
    assert len(fresh_warnings) == 2  # one per directory


class FakeToolchain:
    """A stand-in compiler (the 'binary' is the source reversed) that counts its builds."""

    builds = 0

    def compiler_identity(self):
        return "fake 1"

    def compile(self, source, *, arch, options=(), name_expressions=(), filename="k.hip"):
        from openhip.platforms.base import CompiledProgram

        self.builds += 1
        return CompiledProgram(binary=source[::-1].encode(), platform="fake", arch=arch,
                               kernels={}, metadata={"signatures": {}})


def test_refused_cache_still_compiles_and_warns_once(tmp_path, monkeypatch, fresh_warnings):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("OPENHIP_CACHE_DIR", str(shared))
    tc = FakeToolchain()
    for source in ("a", "b", "a"):
        cache.clear_memory_cache()
        assert cache.cached_compile(tc, source, platform="fake", arch="x").binary == \
            source.encode()[::-1]
    cache.clear_memory_cache()
    assert tc.builds == 3 and list(shared.iterdir()) == []
    assert len([w for w in fresh_warnings if "refused" in str(w.message)]) == 1


def test_unsafe_key_files_are_replaced(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("OPENHIP_CACHE_DIR", str(root))
    first = trust.cache_root()
    key_file = root / trust.KEY_NAME
    os.chmod(key_file, 0o644)  # readable by others: no longer a secret
    monkeypatch.setattr(trust, "_keys", {})
    second = trust.cache_root()
    assert second.key != first.key and stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"k" * 32)
    key_file.unlink()
    key_file.symlink_to(elsewhere)  # a symbolic link is never followed
    monkeypatch.setattr(trust, "_keys", {})
    third = trust.cache_root()
    assert third.key != b"k" * 32 and not key_file.is_symlink()
    assert elsewhere.read_bytes() == b"k" * 32


def test_planted_header_in_the_vendor_header_guard_is_removed(tmp_path):
    """The vendor-header guard directory is on every CPU kernel's include path: a header planted
    there (or a stand-in changed) would be compiled into the victim's kernels."""
    cpu_or_skip()
    root = tmp_path / "cache"
    probe = ("import json; from openhip.platforms.cpu import compiler as c; "
             "print(json.dumps(c._header_guard_dir(c.find_compiler()[0].path)))")
    env = dict(os.environ, OPENHIP_CACHE_DIR=str(root), OPENHIP_PLATFORM="cpu")

    def guard_dir():
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                             text=True, timeout=120, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    first = guard_dir()
    if first is None:
        pytest.skip("no GPU vendor headers on the compiler's search path: no guard")
    guard = Path(first)
    stand_in = next(p for p in guard.rglob("*.h"))
    original = stand_in.read_bytes()
    marker = tmp_path / "marker"
    (guard / "cstdio").write_text(f'#error "planted {marker}"\n')
    stand_in.write_text("#pragma once\n")  # the vendor header would 'compile' silently
    result, _ = run_child(tmp_path, root, source="#include <cstdio>\n" + KERNEL)
    assert result["ok"]
    assert not (guard / "cstdio").exists() and stand_in.read_bytes() == original
