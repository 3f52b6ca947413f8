"""``openhip llm run`` and ``openhip llm quantize`` (subprocesses), and the quantize rules."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import openhip.llm as llm
from openhip.llm.convert import quantize_file, target_type
from openhip.llm.types import by_name

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "openhip", "llm", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


def test_run_streams_and_reports_speed(tiny_model):
    path = tiny_model("q8_0")
    r = _cli("run", str(path), "-p", "Once upon a time", "-n", "12", "--kv-cache", "q8_0",
             "--ignore-eos")
    assert r.returncode == 0, r.stderr
    last = r.stdout.rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"12 tokens: prefill \d+\.\d tok/s, decode \d+\.\d tok/s", last), last
    m = llm.load(path, kv_cache="q8_0")
    want = "".join(t.text for t in m.generate("Once upon a time", max_tokens=12,
                                              stop_at_eos=False))
    assert r.stdout.startswith(want)


def test_run_bad_input(tiny_model, tmp_path):
    r = _cli("run", str(tiny_model("f32")), "-p", "x", "--kv-cache", "q9")
    assert r.returncode == 1 and "unknown KV-cache type 'q9'" in r.stderr
    r = _cli("run", str(tmp_path / "none.gguf"), "-p", "x")
    assert r.returncode == 1 and "no such GGUF file" in r.stderr


def test_quantize_rules():
    q4 = by_name("q4_0")
    assert target_type("blk.0.attn_q.weight", (256, 256), q4).name == "q4_0"
    assert target_type("token_embd.weight", (1000, 256), q4).name == "q4_0"
    assert target_type("output.weight", (1000, 256), q4).name == "q6_k"
    assert target_type("output.weight", (1000, 128), q4).name == "q8_0"
    assert target_type("output.weight", (1000, 256), by_name("q8_0")).name == "q8_0"
    assert target_type("blk.0.attn_norm.weight", (256,), q4).name == "f32"
    assert target_type("blk.0.ffn_up.weight", (512, 128), by_name("q4_k")).name == "q5_0"
    assert target_type("blk.0.ffn_up.weight", (512, 128), by_name("q6_k")).name == "q8_0"


@pytest.mark.parametrize("target", ["q8_0", "q4_0", "q4_k"])
def test_quantize_file(tiny_model, tmp_path, target):
    src = tiny_model("f32", dim=256, ffn=512)
    dst = tmp_path / f"out-{target}.gguf"
    r = _cli("quantize", str(src), str(dst), target)
    assert r.returncode == 0, r.stderr
    chosen = quantize_file(src, tmp_path / "again.gguf", target)
    assert (tmp_path / "again.gguf").read_bytes() == dst.read_bytes()
    assert chosen["blk.0.ffn_down.weight"] == target
    assert chosen["blk.0.attn_norm.weight"] == "f32"
    a = llm.load(src, kv_cache="f32").logits([1, 5, 9, 200, 33])
    b = llm.load(dst, kv_cache="f32").logits([1, 5, 9, 200, 33])
    rel = np.abs(a - b).max() / np.abs(a).max()
    assert rel < {"q8_0": 0.08, "q4_0": 0.4, "q4_k": 0.4}[target], rel
    llama_cpp = pytest.importorskip("llama_cpp")
    ref = llama_cpp.Llama(model_path=str(dst), n_ctx=64, logits_all=True, verbose=False)
    ref.eval([1, 5, 9, 200, 33])
    got = np.array(ref.scores[:5])
    assert (got.argmax(-1) == b.argmax(-1)).mean() >= 0.8


def test_quantize_bad_input(tiny_model, tmp_path):
    r = _cli("quantize", str(tiny_model("f32")), str(tmp_path / "o.gguf"), "q3_k")
    assert r.returncode == 1 and "q3_k" in r.stderr
    src = tiny_model("f32")
    r = _cli("quantize", str(src), str(src), "q8_0")
    assert r.returncode == 1 and "differ" in r.stderr
