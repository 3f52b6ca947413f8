"""Deterministic mode's bitwise properties: (1) the logprobs of prompt + generated tokens in one
prefill pass equal the tok.logprob values greedy generation produced one token at a time through
the KV cache (also with quantized caches); (2) a sequence's logprobs are the same alone or inside
a batch of other sequences; (3) the same across OPENHIP_CPU_THREADS values (subprocesses) and
repeated runs. And the default mode's split decode attention stays close to it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import openhip.llm as llm
from openhip.llm import model as model_mod

PROMPT = "The old man walked to the harbour and"


def _bits(a) -> list[int]:
    return np.asarray(a, np.float32).view(np.uint32).tolist()


@pytest.mark.parametrize("ktype,vtype", [("f16", "f16"), ("q8_0", "q8_0"), ("q4_0", "q8_0"),
                                         ("f32", "q4_0")])
@pytest.mark.parametrize("wtype", ["q8_0", "f16"])
def test_prefill_logprobs_equal_generate_logprobs(tiny_model, wtype, ktype, vtype):
    m = llm.load(tiny_model(wtype), cache_type_k=ktype, cache_type_v=vtype, deterministic=True)
    prompt = m.tokenize(PROMPT)
    toks = list(m.generate(prompt, max_tokens=24, stop_at_eos=False))
    assert len(toks) == 24
    lp = m.logprobs(prompt + [t.id for t in toks])
    assert _bits(lp[len(prompt) - 1:]) == _bits([t.logprob for t in toks])


def test_alone_or_in_a_batch(tiny_model):
    m = llm.load(tiny_model("q4_0"), kv_cache="q8_0", deterministic=True)
    rng = np.random.default_rng(3)
    seqs = [rng.integers(3, m.n_vocab, n).tolist() for n in (5, 17, 1, 40, 9)]
    alone = [m.logprobs(s) for s in seqs]
    batch = m.logprobs(seqs)
    rev = m.logprobs(seqs[::-1])[::-1]
    for a, b, c in zip(alone, batch, rev, strict=True):
        assert _bits(a) == _bits(b) == _bits(c)
    # and the logits rows are the same whatever else is in the launch
    L = m.logits(seqs[3])
    assert _bits(L[:5].ravel()) == _bits(m.logits(seqs[3][:5]).ravel())


CHILD = r"""
import json, sys
import numpy as np
import openhip.llm as llm
m = llm.load(sys.argv[1], kv_cache=sys.argv[2], deterministic=True)
ids = m.tokenize("In the beginning there was the word")
toks = list(m.generate(ids, max_tokens=12, stop_at_eos=False))
lp = m.logprobs(ids + [t.id for t in toks])
print(json.dumps({"ids": [t.id for t in toks], "lp": np.asarray(lp).view(np.uint32).tolist(),
                  "gen": np.asarray([t.logprob for t in toks], np.float32).view(np.uint32)
                  .tolist()}))
"""


def test_same_across_thread_counts_and_runs(tiny_model, tmp_path):
    path = tiny_model("q8_0")
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out = []
    for threads in ("1", "2", "3", "2"):
        env = dict(os.environ, OPENHIP_CPU_THREADS=threads, OPENHIP_PLATFORM="cpu")
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2]) + os.pathsep + \
            env.get("PYTHONPATH", "")
        r = subprocess.run([sys.executable, str(script), str(path), "q4_0"], env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        out.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert all(o == out[0] for o in out[1:])
    assert out[0]["gen"] == out[0]["lp"][-12:]


def test_default_mode_split_attention_is_close(tiny_model, monkeypatch):
    """The default mode splits decode attention into key chunks (flash-decoding) beyond a
    number of keys; its results agree with deterministic mode to rounding."""
    monkeypatch.setattr(model_mod, "_SPLIT_MIN_KEYS", 8)
    path = tiny_model("f32")
    fast = llm.load(path, kv_cache="f32")
    det = llm.load(path, kv_cache="f32", deterministic=True)
    assert fast._n_split(1, 100) > 1 and det._n_split(1, 100) == 1
    prompt = fast.tokenize(PROMPT)
    a = list(fast.generate(prompt, max_tokens=16, stop_at_eos=False))
    b = list(det.generate(prompt, max_tokens=16, stop_at_eos=False))
    assert [t.id for t in a] == [t.id for t in b]
    np.testing.assert_allclose([t.logprob for t in a], [t.logprob for t in b], rtol=1e-4,
                               atol=1e-4)
