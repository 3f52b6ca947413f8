"""A tiny model's logits against a pure-numpy forward pass written here from the llama
architecture's definition (weights dequantised by gguf-py, RMSNorm, RoPE in llama's and NeoX's
pairing, causal grouped-query attention, SwiGLU), for several weight and cache types."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.llm as llm

gguf = pytest.importorskip("gguf")


def _weights(path) -> tuple[dict, dict]:
    r = gguf.GGUFReader(str(path))
    meta = {k: f.contents() for k, f in r.fields.items() if not k.startswith("tokenizer.")}
    w = {}
    for t in r.tensors:
        shape = tuple(int(s) for s in reversed(list(t.shape)))
        a = gguf.quants.dequantize(np.asarray(t.data), t.tensor_type)
        w[t.name] = np.asarray(a, np.float32).reshape(shape)
    return w, meta


def _rope(x: np.ndarray, pos: np.ndarray, base: float, neox: bool) -> np.ndarray:
    """x: [T, heads, hd]; rotate pairs by pos * base^(-2i/hd)."""
    hd = x.shape[-1]
    half = hd // 2
    inv = base ** (-np.arange(half, dtype=np.float64) * 2 / hd)
    ang = pos[:, None].astype(np.float64) * inv[None, :]  # [T, half]
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    out = x.astype(np.float64).copy()
    if neox:
        a, b = x[..., :half], x[..., half:]
        out[..., :half] = a * c - b * s
        out[..., half:] = a * s + b * c
    else:
        a, b = x[..., 0::2], x[..., 1::2]
        out[..., 0::2] = a * c - b * s
        out[..., 1::2] = a * s + b * c
    return out


def _q8(x: np.ndarray) -> np.ndarray:
    from gguf import GGMLQuantizationType as G

    flat = np.ascontiguousarray(x, np.float32)
    return gguf.quants.dequantize(gguf.quants.quantize(flat, G.Q8_0), G.Q8_0).astype(np.float64)


def numpy_forward(path, ids: list[int], cache_round=None, act_q8: bool = False) -> np.ndarray:
    """Logits [T, vocab] of the llama architecture in float64 numpy. ``cache_round(x, kind)``
    (optional) rounds K/V as the cache stores them; ``act_q8`` rounds every matrix product's
    input through Q8_0 (as ggml does for Q8_0/Q4_0/Q5_0 weights)."""
    w, meta = _weights(path)
    aq = _q8 if act_q8 else (lambda a: a)
    arch = meta["general.architecture"]
    n_head = meta[f"{arch}.attention.head_count"]
    n_kv = meta[f"{arch}.attention.head_count_kv"]
    eps = meta[f"{arch}.attention.layer_norm_rms_epsilon"]
    base = meta[f"{arch}.rope.freq_base"]
    n_layer = meta[f"{arch}.block_count"]
    neox = arch == "qwen2"
    T = len(ids)
    x = w["token_embd.weight"][ids].astype(np.float64)
    dim = x.shape[1]
    hd = dim // n_head
    pos = np.arange(T)

    def rms(v, g):
        return v / np.sqrt(np.mean(v * v, axis=-1, keepdims=True) + eps) * g

    mask = np.triu(np.full((T, T), -np.inf), 1)
    for i in range(n_layer):
        p = f"blk.{i}."
        h = aq(rms(x, w[p + "attn_norm.weight"]))
        q = h @ w[p + "attn_q.weight"].T.astype(np.float64)
        k = h @ w[p + "attn_k.weight"].T.astype(np.float64)
        v = h @ w[p + "attn_v.weight"].T.astype(np.float64)
        if p + "attn_q.bias" in w:
            q, k, v = q + w[p + "attn_q.bias"], k + w[p + "attn_k.bias"], v + w[p + "attn_v.bias"]
        q = _rope(q.reshape(T, n_head, hd), pos, base, neox)
        k = _rope(k.reshape(T, n_kv, hd), pos, base, neox)
        v = v.reshape(T, n_kv, hd)
        if cache_round is not None:
            k, v = cache_round(k, "k"), cache_round(v, "v")
        rep = n_head // n_kv
        k, v = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
        s = np.einsum("thd,shd->hts", q, k) / np.sqrt(hd) + mask
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        att = np.einsum("hts,shd->thd", s, v).reshape(T, n_head * hd)
        x = x + aq(att) @ w[p + "attn_output.weight"].T
        h = aq(rms(x, w[p + "ffn_norm.weight"]))
        g = h @ w[p + "ffn_gate.weight"].T
        u = h @ w[p + "ffn_up.weight"].T
        x = x + aq(g / (1 + np.exp(-g)) * u) @ w[p + "ffn_down.weight"].T
    out = w.get("output.weight", w["token_embd.weight"])
    return aq(rms(x, w["output_norm.weight"])) @ out.T


IDS = [1, 17, 250, 3, 99, 300, 12, 45, 200, 7, 64, 128, 383, 0, 5, 77, 301, 260, 33, 2]


@pytest.mark.parametrize("wtype,arch,vocab,cache,tol", [
    ("f32", "llama", "llama", "f32", 2e-4),
    ("f32", "qwen2", "gpt2", "f32", 2e-4),
    ("f32", "mistral", "llama", "f32", 2e-4),
    ("f16", "llama", "llama", "f32", 2e-4),
    ("bf16", "llama", "llama", "f32", 2e-4),
    ("q4_1", "llama", "llama", "f32", 2e-4),
    ("q4_k", "llama", "llama", "f32", 2e-4),
    ("q6_k", "llama", "llama", "f32", 2e-4),
    ("q8_0", "llama", "llama", "f32", 1e-3),   # Q8_0 activations (integer dots), as ggml
    ("q4_0", "llama", "llama", "f32", 1e-3),
    ("q5_0", "qwen2", "llama", "f32", 1e-3),
    ("f32", "llama", "llama", "f16", 2e-3),
])
def test_logits_match_numpy_forward(tiny_model, wtype, arch, vocab, cache, tol):
    # K types have 256-value super-blocks: rows of 256
    extra = dict(dim=256, ffn=512) if wtype.endswith("_k") else {}
    path = tiny_model(wtype, vocab, arch, **extra)
    model = llm.load(path, kv_cache=cache)
    got = model.logits(IDS)
    want = numpy_forward(path, IDS, act_q8=wtype in ("q8_0", "q4_0", "q5_0"))
    assert got.shape == want.shape == (len(IDS), model.n_vocab)
    assert got.dtype == np.float32
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < tol, (wtype, arch, cache, err)
    assert (got.argmax(-1) == want.argmax(-1)).mean() >= 0.9


@pytest.mark.parametrize("cache", ["q8_0", "q4_0", "bf16"])
def test_quantized_cache_matches_numpy_with_the_same_rounding(tiny_model, cache):
    """With K/V rounded in numpy as the cache stores them (gguf-py's quantisers), the logits
    agree closely: attention reads the quantized values."""
    from gguf import GGMLQuantizationType as G

    qt = {"q8_0": G.Q8_0, "q4_0": G.Q4_0, "bf16": G.BF16}[cache]

    def rnd(x, kind):
        flat = x.astype(np.float32).reshape(x.shape[0], -1)
        return gguf.quants.dequantize(gguf.quants.quantize(flat, qt), qt).reshape(x.shape)

    path = tiny_model("f32")
    got = llm.load(path, kv_cache=cache).logits(IDS)
    want = numpy_forward(path, IDS, cache_round=rnd)
    plain = numpy_forward(path, IDS)
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < 2e-3, err
    if cache != "bf16":
        assert np.abs(plain - want).max() > 10 * np.abs(got - want).max()  # the rounding shows


def test_kv_cache_bytes_per_token(tiny_model):
    path = tiny_model("f32")
    per = {c: llm.load(path, kv_cache=c).kv_bytes_per_token() for c in llm.CACHE_TYPES}
    # 2 layers x (K + V) x 2 KV heads x 32 dims
    assert per["f16"] == 2 * 2 * 64 * 2 and per["f32"] == 2 * per["f16"]
    assert per["q8_0"] * 64 == per["f16"] * 34 and per["q4_0"] * 64 == per["f16"] * 18
    m = llm.load(path, cache_type_k="q8_0", cache_type_v="f16")
    assert m.kv_bytes_per_token() == (per["q8_0"] + per["f16"]) // 2
