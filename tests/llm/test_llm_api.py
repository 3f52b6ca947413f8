"""openhip.llm's API on tiny generated models: tokenizer (same ids as llama.cpp where
llama-cpp-python is installed; round trips; SentencePiece and GPT-2 rules), logits/logprobs,
generate and its sampling, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.llm as llm
from openhip.llm.sampling import SamplingParams, sample, uniform
from openhip.llm.tokenizer import gpt2_pretokenize

TEXTS = ["Hello world", "The quick brown fox jumps over the lazy dog.",
         "  two  spaces\n\nnewlines\ttab", "naïve café — 日本語 😀", "don't it's we'll THEY'RE",
         "x=1+2; print(x)", "", " ", "a", "1234567 3.14", "\u2581raw", "   \n  end  "]


@pytest.fixture(scope="module")
def spm(tiny_model):
    return llm.load(tiny_model("f32"))


@pytest.fixture(scope="module")
def bpe(tiny_model):
    return llm.load(tiny_model("f32", "gpt2", "qwen2"))


@pytest.mark.parametrize("vocab", ["llama", "gpt2"])
def test_tokenize_matches_llama_cpp(tiny_model, vocab):
    llama_cpp = pytest.importorskip("llama_cpp")
    path = tiny_model("f32", vocab, "llama" if vocab == "llama" else "qwen2")
    model = llm.load(path)
    ref = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    for text in TEXTS:
        ids = model.tokenize(text)
        assert ids == ref.tokenize(text.encode(), add_bos=True, special=False), repr(text)
        assert model.detokenize(ids) == ref.detokenize(ids).decode("utf-8", "replace")


@pytest.mark.parametrize("pre", ["llama-bpe", "qwen2"])
def test_bpe_pre_tokenizers_match_llama_cpp(tiny_model, pre):
    pytest.importorskip("regex")
    llama_cpp = pytest.importorskip("llama_cpp")
    path = tiny_model("f32", "gpt2", "llama", pre=pre)
    model = llm.load(path)
    ref = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    for text in TEXTS + ["12345678 x\r\n\r\ny", "Don'T  'LL\n\n  z"]:
        assert model.tokenize(text) == ref.tokenize(text.encode(), add_bos=True,
                                                    special=False), (pre, repr(text))


def test_unknown_pre_tokenizer_is_refused(tiny_model):
    with pytest.raises(llm.UnsupportedModelError, match="pre-tokenizer 'nonesuch'"):
        llm.load(tiny_model("f32", "gpt2", "llama", pre="nonesuch"))


def test_spm_rules(spm):
    tok = spm.tokenizer
    ids = spm.tokenize("Hello world")
    assert ids[0] == tok.bos == 1 and spm.tokenize("Hello", add_bos=False)[0] != 1
    pieces = [tok.tokens[i] for i in ids[1:]]
    assert pieces[0].startswith("\u2581")  # the space prefix
    assert b"".join(tok.piece(i) for i in ids[1:]) == b" Hello world"
    # characters outside the vocabulary fall back to their UTF-8 bytes
    emoji = spm.tokenize("😀", add_bos=False)
    byte_ids = [tok.index[f"<0x{b:02X}>"] for b in "😀".encode()]
    assert emoji[-4:] == byte_ids
    # the highest-scoring merge wins: a word in the vocabulary is one token
    word = next(t for t in tok.tokens if t.startswith("\u2581") and len(t) > 4)
    assert spm.tokenize(word[1:], add_bos=False) == [tok.index[word]]


@pytest.mark.parametrize("text", TEXTS)
def test_round_trips(spm, bpe, text):
    if "\u2581" not in text:  # SentencePiece reads a literal "▁" back as a space (llama.cpp too)
        assert spm.detokenize(spm.tokenize(text)) == text
    assert bpe.detokenize(bpe.tokenize(text)) == text


def test_gpt2_pretokenizer_matches_the_regex():
    regex = pytest.importorskip("regex")
    pat = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
    for text in TEXTS + ["a  b   c\n\n\nd", "  ", "x  ", "ab12cd!!  ?", "'hello' 'll"]:
        assert gpt2_pretokenize(text) == pat.findall(text), repr(text)


def test_logprobs_are_log_softmax_of_logits(spm):
    ids = spm.tokenize("The quick brown fox jumps")
    logits = spm.logits(ids).astype(np.float64)
    lse = np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1)) + logits.max(-1)
    want = logits[np.arange(len(ids) - 1), ids[1:]] - lse[:-1]
    got = spm.logprobs(ids)
    assert got.dtype == np.float32 and got.shape == (len(ids) - 1,)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert spm.logprobs([5]).shape == (0,)


def test_generate_greedy_is_argmax_and_stops(spm):
    ids = spm.tokenize("Once upon a time")
    toks = list(spm.generate(ids, max_tokens=6))
    assert 1 <= len(toks) <= 6
    seq = list(ids)
    for t in toks:
        assert t.id == int(np.argmax(spm.logits(seq)[-1]))
        seq.append(t.id)
    assert spm.detokenize(seq[len(ids):]).startswith(toks[0].text.lstrip()[:1])
    assert list(spm.generate("Once", max_tokens=0)) == []
    # text prompts are tokenized with BOS
    a = [t.id for t in spm.generate("Once upon a time", max_tokens=3)]
    assert a == [t.id for t in toks[:3]]


def test_generate_stop_at_eos(tiny_model):
    model = llm.load(tiny_model("f32"))
    eos = model.tokenizer.eos
    # a forced EOS: sampling from a distribution with all mass on EOS is greedy-like
    ids = model.tokenize("x")
    first = next(iter(model.generate(ids, max_tokens=1)))
    toks = list(model.generate(ids, max_tokens=40, stop_at_eos=True))
    assert all(t.id != eos for t in toks[:-1])
    assert first.id == toks[0].id


def test_sampling_seeded_and_filters(spm):
    ids = spm.tokenize("In the beginning")
    kw = dict(max_tokens=8, temperature=0.8, top_k=40, top_p=0.95, min_p=0.05, seed=1234)
    a = [t.id for t in spm.generate(ids, **kw)]
    b = [t.id for t in spm.generate(ids, **kw)]
    assert a == b
    c = [t.id for t in spm.generate(ids, **dict(kw, seed=99))]
    assert len(a) == len(c)
    row = np.array([0.0, 5.0, 4.9, -3.0, 1.0], np.float32)
    p = SamplingParams.checked(1.0, 1, 1.0, 0.0, 0)
    assert all(sample(row, p, s) == 1 for s in range(20))  # top_k=1 is greedy
    p = SamplingParams.checked(1.0, 0, 1.0, 0.5, 0)  # min_p keeps tokens 1 and 2 only
    assert {sample(row, p, s) for s in range(200)} == {1, 2}
    p = SamplingParams.checked(1.0, 0, 0.3, 0.0, 0)  # top_p=0.3: token 1 alone
    assert {sample(row, p, s) for s in range(50)} == {1}
    p = SamplingParams.checked(1e-3, 0, 1.0, 0.0, 0)
    assert {sample(row, p, s) for s in range(50)} == {1}
    us = [uniform(7, s) for s in range(2000)]
    assert us == [uniform(7, s) for s in range(2000)] and 0.45 < np.mean(us) < 0.55


def test_bad_input(spm, tiny_model):
    with pytest.raises(ValueError, match="unknown KV-cache type 'q3_k'"):
        llm.load(tiny_model("f32"), kv_cache="q3_k")
    with pytest.raises(ValueError, match="unknown KV-cache type"):
        llm.load(tiny_model("f32"), cache_type_v="int8")
    with pytest.raises(ValueError, match="do not fit the context"):
        spm.logits(list(range(2, 2 + spm.n_ctx + 1)))
    with pytest.raises(ValueError, match="the context holds"):
        next(iter(spm.generate([5] * spm.n_ctx)))
    with pytest.raises(ValueError, match="outside the vocabulary"):
        spm.logits([1, spm.n_vocab])
    with pytest.raises(ValueError, match="outside the vocabulary"):
        spm.logprobs([[1, 2], [1, -1]])
    with pytest.raises(ValueError, match="empty"):
        spm.logits([])
    with pytest.raises(TypeError):
        spm.logits("text")
    for kw, msg in [(dict(temperature=-1), "temperature"), (dict(top_k=-2), "top_k"),
                    (dict(top_p=0.0), "top_p"), (dict(top_p=1.5), "top_p"),
                    (dict(min_p=2), "min_p"), (dict(seed=-1), "seed"),
                    (dict(max_tokens=-1), "max_tokens"), (dict(temperature=float("nan")),
                                                          "temperature")]:
        with pytest.raises(ValueError, match=msg):
            spm.generate([1, 2], **kw)
    with pytest.raises(ValueError, match="n_ctx"):
        llm.load(tiny_model("f32"), n_ctx=0)
    # the model still works after the errors
    assert spm.logits([1, 2]).shape == (2, spm.n_vocab)


def test_environment_picks_the_cache_type(tiny_model, monkeypatch):
    monkeypatch.setenv("OPENHIP_KV_CACHE_TYPE", "q4_0")
    m = llm.load(tiny_model("f32"))
    assert m.quantized_cache_types() == ("q4_0", "q4_0")
    m = llm.load(tiny_model("f32"), cache_type_k="q8_0")
    assert m.quantized_cache_types() == ("q8_0", "q4_0")
    monkeypatch.setenv("OPENHIP_KV_CACHE_TYPE", "nope")
    with pytest.raises(ValueError, match="nope"):
        llm.load(tiny_model("f32"))
