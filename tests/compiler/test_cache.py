"""The compile cache: keys, disk layer, integrity, concurrency, read-only directories."""

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from openhip.compiler import cache
from openhip.errors import CompileError
from openhip.platforms.base import CompiledProgram


class CountingToolchain:
    """A stand-in compiler: the 'binary' is the source reversed; counts real builds."""

    def __init__(self, identity="fake-cc 1.0"):
        self.builds = 0
        self.identity = identity

    def compiler_identity(self):
        return self.identity

    def compile(self, source, *, arch, options=(), name_expressions=(), filename="kernel.hip"):
        self.builds += 1
        if "#error" in source:
            raise CompileError(f"{filename}:1:2: error: #error", source, options, "fake")
        deps = [o[len("-include="):] for o in options if o.startswith("-include=")]
        return CompiledProgram(binary=source[::-1].encode(), platform="fake", arch=arch,
                               kernels={"k": "k_sym"}, metadata={"dependencies": deps})


def build(tc, source="k", **kw):
    kw.setdefault("arch", "a1")
    return cache.cached_compile(tc, source, platform="fake", **kw)


def entry_files(root):
    return [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".ohc")]


def test_cold_then_memory_then_disk(isolated_cache):
    tc = CountingToolchain()
    p1 = build(tc)
    assert tc.builds == 1 and p1.binary == b"k"
    assert build(tc).binary == b"k" and tc.builds == 1  # memory hit
    cache.clear_memory_cache()
    p3 = build(tc)  # disk hit
    assert tc.builds == 1 and p3.binary == b"k" and p3.kernels == {"k": "k_sym"}
    assert len(entry_files(isolated_cache)) == 1


@pytest.mark.parametrize("change", [
    {"arch": "a2"}, {"options": ("-DX=1",)}, {"name_expressions": ("k<int>",)},
    {"filename": "other.hip"}, {"source": "k2"}])
def test_key_covers_everything(isolated_cache, change):
    tc = CountingToolchain()
    build(tc)
    build(tc, **change)
    assert tc.builds == 2


def test_compiler_identity_in_key(isolated_cache):
    build(CountingToolchain("cc 1"))
    tc2 = CountingToolchain("cc 2")
    build(tc2)
    assert tc2.builds == 1


def test_corrupt_and_truncated_entries_are_rebuilt(isolated_cache):
    tc = CountingToolchain()
    build(tc, source="abcdef")
    (path,) = entry_files(isolated_cache)
    data = open(path, "rb").read()
    for bad in (data[:-1] + bytes([data[-1] ^ 1]), data[: len(data) // 2], b"", b"garbage"):
        with open(path, "wb") as f:
            f.write(bad)
        cache.clear_memory_cache()
        assert build(tc, source="abcdef").binary == b"fedcba"
    assert tc.builds == 5


def test_failed_build_is_never_cached(isolated_cache):
    tc = CountingToolchain()
    for _ in range(2):
        with pytest.raises(CompileError):
            build(tc, source="#error")
    assert tc.builds == 2 and entry_files(isolated_cache) == []


def test_included_file_change_rebuilds(isolated_cache, tmp_path):
    header = tmp_path / "inc.h"
    header.write_text("one")
    tc = CountingToolchain()
    opts = (f"-include={header}",)
    build(tc, options=opts)
    build(tc, options=opts)
    assert tc.builds == 1
    header.write_text("two!")
    build(tc, options=opts)
    assert tc.builds == 2
    cache.clear_memory_cache()
    build(tc, options=opts)
    assert tc.builds == 2  # the rebuilt entry is valid for the new header


def test_read_only_directory_warns_once(tmp_path, monkeypatch):
    """A read-only cache directory (chmod; root bypasses it, so also a read-only bind is
    simulated by making the entry directory a file) compiles without the cache."""
    root = tmp_path / "ro"
    root.mkdir()
    (root / "fake").write_text("not a directory")  # <root>/fake/<xx>/ cannot be created
    os.chmod(root, 0o555)
    monkeypatch.setenv("OPENHIP_CACHE_DIR", str(root))
    cache.clear_memory_cache()
    cache._warned_dirs.clear()
    tc = CountingToolchain()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert build(tc, source="ro-a").binary == b"a-or"
            assert build(tc, source="ro-b").binary == b"b-or"
    finally:
        os.chmod(root, 0o755)
    assert tc.builds == 2
    assert len([w for w in caught if "not usable" in str(w.message)]) == 1


def test_unusable_directory_warns_once_and_still_compiles(tmp_path, monkeypatch):
    # A path under a regular file can never be created, even by root.
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("OPENHIP_CACHE_DIR", str(blocker / "cache"))
    cache.clear_memory_cache()
    cache._warned_dirs.clear()
    tc = CountingToolchain()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build(tc, source="a")
        cache.clear_memory_cache()
        build(tc, source="b")
    assert tc.builds == 2
    assert len([w for w in caught if "not usable" in str(w.message)]) == 1


def test_disable_switch(isolated_cache, monkeypatch):
    monkeypatch.setenv("OPENHIP_DISABLE_CACHE", "1")
    tc = CountingToolchain()
    build(tc)
    assert entry_files(isolated_cache) == []


CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from compiler.test_cache import CountingToolchain, build
    tc = CountingToolchain()
    p = build(tc, source="concurrent-source" * 1000)
    assert p.binary == ("concurrent-source" * 1000)[::-1].encode()
    print(tc.builds)
""")


def test_concurrent_processes_and_warm_new_process(isolated_cache):
    code = CHILD.format(tests=os.path.dirname(os.path.dirname(__file__)))
    env = dict(os.environ, OPENHIP_CACHE_DIR=str(isolated_cache))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert len(entry_files(isolated_cache)) == 1
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert warm.returncode == 0 and warm.stdout.strip() == "0"  # served from disk


def test_cache_info(isolated_cache):
    build(CountingToolchain())
    info = cache.cache_info()
    assert info.entries == 1 and info.bytes > 0 and info.path == isolated_cache


def test_entry_moved_to_another_key_is_a_miss(isolated_cache):
    """The MAC covers the entry's name: a valid entry copied over another one is rebuilt."""
    tc = CountingToolchain()
    build(tc, source="first")
    build(tc, source="second")
    entries = entry_files(isolated_cache)
    a = next(p for p in entries if b"tsrif" in Path(p).read_bytes())
    b = next(p for p in entries if p != a)
    with open(a, "rb") as src, open(b, "wb") as dst:
        dst.write(src.read())
    cache.clear_memory_cache()
    assert build(tc, source="second").binary == b"dnoces"
    assert build(tc, source="first").binary == b"tsrif"
    assert tc.builds == 3


def test_new_key_invalidates_every_entry(isolated_cache, monkeypatch):
    from openhip.compiler import trust

    tc = CountingToolchain()
    build(tc, source="kept")
    (isolated_cache / trust.KEY_NAME).unlink()
    monkeypatch.setattr(trust, "_keys", {})
    cache.clear_memory_cache()
    assert build(tc, source="kept").binary == b"tpek" and tc.builds == 2
    cache.clear_memory_cache()
    assert build(tc, source="kept").binary == b"tpek" and tc.builds == 2  # valid again
    assert os.stat(isolated_cache / trust.KEY_NAME).st_mode & 0o777 == 0o600
