"""Issue #14 item 1, the other artifacts in the cache: the ccl shared-memory engine (a CPython
extension that every ccl process loads) and the CUDA headers that ``language="cuda"`` translates
(which the compiler reads into the user's kernel). A planted engine never runs; a translated
header never lands in a directory other users can write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_cache_trust import cpu_or_skip, evil_library

from openhip.compiler import trust

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX permission checks")

ENGINE_CHILD = textwrap.dedent("""
    import json, sys
    from openhip.ccl import engine
    module = engine.load()
    print(json.dumps({"path": module.__file__}))
""")


def child(code: str, cache_dir: Path, *args: str) -> tuple[dict, str]:
    env = dict(os.environ, OPENHIP_CACHE_DIR=str(cache_dir), OPENHIP_PLATFORM="cpu")
    proc = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.fixture(scope="module")
def engine_cache(tmp_path_factory):
    """A cache directory holding a built, verified ccl engine."""
    cpu_or_skip()
    base = tmp_path_factory.mktemp("ccl-cache") / "cache"
    result, _ = child(ENGINE_CHILD, base)
    path = Path(result["path"])
    assert path.parent == base / "ccl" and path.with_name(path.name + ".mac").is_file()
    return base, path


@pytest.mark.parametrize("mac", ["kept", "deleted", "other-key"])
def test_planted_ccl_engine_is_rebuilt_not_loaded(engine_cache, tmp_path, mac):
    from openhip.ccl import engine

    cache_dir, lib = engine_cache
    marker = tmp_path / "marker"
    evil = evil_library(tmp_path, marker)
    lib.write_bytes(evil)
    mac_file = lib.with_name(lib.name + ".mac")
    if mac == "deleted":
        mac_file.unlink()
    elif mac == "other-key":  # consistent with a key the attacker chose, not the user's
        mac_file.write_bytes(trust.TrustedDir(cache_dir, os.urandom(32))
                             .mac(engine._label(lib.name), evil))
    result, _ = child(ENGINE_CHILD, cache_dir)
    assert not marker.exists()
    assert result["path"] == str(lib)
    assert lib.read_bytes() != evil  # rebuilt in place, and the rebuilt one verifies


def test_ccl_engine_in_a_refused_cache_is_built_privately(tmp_path):
    cpu_or_skip()
    marker = tmp_path / "marker"
    shared = tmp_path / "shared"
    (shared / "ccl").mkdir(parents=True)
    os.chmod(shared, 0o777)
    (shared / "ccl" / "planted.so").write_bytes(evil_library(tmp_path, marker))
    result, stderr = child(ENGINE_CHILD, shared)
    assert not marker.exists()
    assert not result["path"].startswith(str(shared))
    assert "compile cache directory refused" in stderr
    assert sorted(p.name for p in (shared / "ccl").iterdir()) == ["planted.so"]


HEADERS_CHILD = textwrap.dedent("""
    import json, sys, pathlib
    import numpy as np
    import openhip as hip
    src = pathlib.Path(sys.argv[1])
    x = hip.asarray(np.arange(64, dtype=np.float32))
    mod = hip.Module(src.read_text(), language="cuda", name=str(src))
    mod.get_function("twice")(1, 64, (x, 64))
    print(json.dumps({"ok": bool(np.array_equal(x.get(), np.arange(64) * 2))}))
""")


def write_cuda_sources(tmp_path: Path) -> Path:
    (tmp_path / "util.cuh").write_text(
        "__device__ inline float twice_of(float v) { return v * 2.0f; }\n")
    src = tmp_path / "k.cu"
    src.write_text('#include <cuda_runtime.h>\n#include "util.cuh"\n'
                   'extern "C" __global__ void twice(float* x, int n) {\n'
                   '  int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
                   '  if (i < n) x[i] = twice_of(x[i]);\n}\n')
    return src


def test_translated_headers_go_to_a_private_cache(tmp_path):
    cpu_or_skip()
    src = write_cuda_sources(tmp_path)
    cache_dir = tmp_path / "cache"
    result, _ = child(HEADERS_CHILD, cache_dir, str(src))
    assert result["ok"]
    headers = cache_dir / "cuda-headers"
    made = [p for p in headers.rglob("*")]
    assert any(p.name == "util.cuh" for p in made)
    for p in [headers, *made]:
        assert os.lstat(p).st_mode & 0o077 == 0, p  # nobody else can swap a header


def test_translated_headers_never_land_in_a_refused_cache(tmp_path):
    cpu_or_skip()
    src = write_cuda_sources(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    result, stderr = child(HEADERS_CHILD, shared, str(src))
    assert result["ok"]
    assert list(shared.iterdir()) == []
    assert "compile cache directory refused" in stderr
