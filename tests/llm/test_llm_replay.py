"""Decode steps replayed from their recorded launches (model._decode / _DecodeStep): the same
tokens and logprob bits as plain forward passes, in both modes, greedy and sampled; a new
recording when the attention split or the cache changes."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.llm as llm
from openhip.llm import model as model_mod


def _run(m, prompt, **kw):
    return [(t.id, np.float32(t.logprob).view(np.uint32).item())
            for t in m.generate(prompt, stop_at_eos=False, **kw)]


@pytest.mark.parametrize("deterministic", [False, True])
def test_replayed_decode_equals_plain_decode(tiny_model, monkeypatch, deterministic):
    m = llm.load(tiny_model("q8_0"), deterministic=deterministic, n_ctx=96)
    prompt = m.tokenize("Once upon a time")
    # the default mode's split changes mid-generation
    monkeypatch.setattr(model_mod, "_SPLIT_MIN_KEYS", len(prompt) + 10)
    splits = set()
    orig = model_mod._DecodeStep.__init__

    def spy(self, model, cache, split, token, position):
        splits.add(split)
        orig(self, model, cache, split, token, position)

    monkeypatch.setattr(model_mod._DecodeStep, "__init__", spy)
    got = _run(m, prompt, max_tokens=60)
    assert len(got) == 60
    if deterministic:
        assert splits == {1}
    else:  # recorded with one chunk, then again once the keys pass _SPLIT_MIN_KEYS
        assert 1 in splits and len(splits) > 1, splits
    again = _run(m, prompt, max_tokens=60)  # the recorded steps are reused
    m.replay_decode = False
    plain = _run(m, prompt, max_tokens=60)
    assert got == plain == again


def test_sampled_replay_equals_plain(tiny_model):
    m = llm.load(tiny_model("q4_0"), kv_cache="q8_0")
    prompt = m.tokenize("The sea")
    kw = dict(max_tokens=20, temperature=0.8, top_k=40, top_p=0.9, seed=7)
    got = _run(m, prompt, **kw)
    m.replay_decode = False
    assert got == _run(m, prompt, **kw)


def test_new_cache_is_recorded_again(tiny_model):
    m = llm.load(tiny_model("f16"), n_ctx=32)
    h = m.hparams
    logits, first = m._decode(5, 0, m.cache)
    other = model_mod.KVCache(h.n_layer, 1, 48, m.cache.width, m.cache_type_k, m.cache_type_v)
    got, second = m._decode(5, 0, other)
    assert second is not first and second.cache is other
    want = m._forward([5], [0], [0], other, None).get()
    assert np.array_equal(got.get().view(np.uint32), want.view(np.uint32))
    # replays on the same cache reuse the step; the position and token are its inputs
    for pos, tok in ((1, 9), (2, 3)):
        got, again = m._decode(tok, pos, other)
        assert again is second
        want = m._forward([tok], [0], [pos], other, None).get()
        assert np.array_equal(got.get().view(np.uint32), want.view(np.uint32))
