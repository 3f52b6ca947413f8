"""The CPU platform's kernel-language headers on their own (no engine, no runtime): standalone
C++ programs built with the host compiler against tests/platforms/cpu/lang/stub_engine.h."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
INCLUDE = ROOT / "openhip" / "platforms" / "cpu" / "include"
CXX = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++")

pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler")
FLAGS = ["-std=c++17", f"-I{INCLUDE}", f"-I{HERE}", "-fno-math-errno"]


def build(tmp_path: Path, sources: list[str], *extra: str) -> Path:
    exe = tmp_path / "prog"
    cmd = [CXX, *FLAGS, *extra, *[str(HERE / s) for s in sources], "-o", str(exe), "-pthread"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    return exe


def test_warp_functions_on_stub_engine(tmp_path):
    exe = build(tmp_path, ["warp_test.cpp"], "-O1")
    res = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.startswith("OK"), res.stdout[-3000:]


def test_fp16_bf16_conversions_exhaustive(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    exe = build(tmp_path, ["fpconv_test.cpp"], "-O2")
    rng = np.random.default_rng(0)
    rand = rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    mids = halves.astype(np.float32).view(np.uint32) + np.uint32(1 << 12)  # binary16 midpoints
    bmids = (np.arange(1 << 16, dtype=np.uint32) << 16) + np.uint32(1 << 15)  # bfloat16 midpoints
    bits = np.concatenate([rand, mids - 1, mids, mids + 1, bmids - 1, bmids, bmids + 1])
    f = bits.view(np.float32)
    res = subprocess.run([str(exe)], input=f.tobytes(), capture_output=True, timeout=300)
    assert res.returncode == 0
    conv = np.frombuffer(res.stdout[: 4 * f.size], np.uint16).reshape(-1, 2)
    back = np.frombuffer(res.stdout[4 * f.size:], np.float32).reshape(2, 1 << 16)
    with np.errstate(all="ignore"):
        want_h = f.astype(np.float16).view(np.uint16)
        want_b = f.astype(ml_dtypes.bfloat16).view(np.uint16)
    nan = np.isnan(f)
    assert np.array_equal(conv[~nan, 0], want_h[~nan])
    assert np.array_equal(conv[~nan, 1], want_b[~nan])
    assert np.isnan(conv[nan, 0].view(np.float16)).all()
    assert np.isnan(conv[nan, 1].view(ml_dtypes.bfloat16).astype(np.float32)).all()
    all16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    want = np.stack([all16.view(np.float16).astype(np.float32),
                     all16.view(ml_dtypes.bfloat16).astype(np.float32)])
    same = (back.view(np.uint32) == want.view(np.uint32)) | (np.isnan(back) & np.isnan(want))
    assert same.all()


@pytest.mark.parametrize("which,expect", [(1, "__trap()"), (2, "abort()"),
                                          (3, "device-side assertion `i != 37' failed")])
def test_trap_abort_assert_reach_device_trap(tmp_path, which, expect):
    exe = build(tmp_path, ["trap_test.cpp", "trap_kernel.cpp"], "-O2")
    res = subprocess.run([str(exe), str(which)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("trapped: ") and expect in res.stdout, res.stdout


def test_headers_are_warning_free_and_reincludable(tmp_path):
    build(tmp_path, ["hygiene_test.cpp"], "-O0", "-Wall", "-Wextra", "-Wpedantic", "-Werror")


def test_umbrella_stays_small():
    """The cold-compile budget (<= 1 s for a small kernel) is mostly preprocessing and parsing:
    keep what the language headers pull in bounded."""
    src = "\n".join(f"#include <{h}>" for h in [
        "hip/hip_vector_types.h", "openhip_cpu/intrinsics.h", "openhip_cpu/math.h",
        "openhip_cpu/atomics.h", "hip/hip_fp16.h", "hip/hip_bf16.h"]) + "\n"
    res = subprocess.run([CXX, *FLAGS, "-E", "-x", "c++", "-"], input=src, capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("\n") < 40000
