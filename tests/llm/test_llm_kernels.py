"""Each forward kernel of openhip.llm against numpy: embedding, RMSNorm, RoPE (llama and NeoX
pairing), the matrix products per weight type (float and Q8_0-integer paths, fused SwiGLU),
KV-cache writes (bytes equal to quantize()), causal GQA attention over the cache (also split
into key chunks and merged), log-softmax."""

from __future__ import annotations

import numpy as np
import pytest

import openhip as hip
from openhip.llm import kernels, quant
from openhip.llm.types import by_name

gguf = pytest.importorskip("gguf")

RNG = np.random.default_rng(42)
B = 64


def fwd(name):
    return kernels.function("forward", name)


def att(name, kt, vt):  # the module a model with this cache-type pair builds
    return kernels.function("attention", name, (f"oh_attention<{kt}, {vt}>",
                                                f"oh_attention_split<{kt}, {vt}>",
                                                f"oh_rope_kv_store<{kt}, {vt}>"))


def grid(n):
    return (n + B - 1) // B


def deq(q, t):
    return quant.dequantize(q, t).astype(np.float64)


@pytest.mark.parametrize("wtype", ["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1",
                                   "q4_k", "q6_k"])
def test_embedding(wtype):
    t = by_name(wtype)
    table = RNG.standard_normal((20, 256)).astype(np.float32)
    q = quant.quantize(table, t) if t.quantized or t.name == "bf16" else (
        table.astype(np.float16).view(np.uint8) if t.name == "f16" else table.view(np.uint8))
    ids = np.array([3, 0, 19, 3, 7], np.int32)
    out = hip.empty(5 * 256, np.float32)
    fwd(f"oh_embed<{t.id}>")(grid(5 * 256 // t.block), B, (hip.asarray(q.ravel()),
                                                            hip.asarray(ids), out, 5, 256))
    want = quant.dequantize(q, t) if t.name != "f32" else table
    assert np.array_equal(out.get().reshape(5, 256), want[ids])


def test_rmsnorm_with_rows():
    x = RNG.standard_normal((6, 96)).astype(np.float32)
    w = RNG.standard_normal(96).astype(np.float32)
    rows = np.array([5, 0, 2], np.int32)
    y = hip.empty(3 * 96, np.float32)
    fwd("oh_rmsnorm")(1, B, (hip.asarray(x), hip.asarray(w), y, hip.asarray(rows), 3, 96, 1e-5))
    xr = x[rows].astype(np.float64)
    want = xr / np.sqrt((xr * xr).mean(-1, keepdims=True) + 1e-5) * w
    np.testing.assert_allclose(y.get().reshape(3, 96), want, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("neox", [0, 1])
def test_rope(neox):
    T, H, hd = 5, 3, 64
    x = RNG.standard_normal((T, H, hd)).astype(np.float32)
    pos = np.array([0, 1, 7, 100, 1000], np.int32)
    d = hip.asarray(x.copy())
    fwd("oh_rope")(grid(T * H * hd // 2), B, (d, hip.asarray(pos), T, H, hd, hd, 10000.0, 0.5,
                                              neox))
    ang = pos[:, None] * 0.5 * 10000.0 ** (-np.arange(hd // 2) * 2 / hd)
    c, s = np.cos(ang)[:, None], np.sin(ang)[:, None]
    a, b = (x[..., : hd // 2], x[..., hd // 2:]) if neox else (x[..., 0::2], x[..., 1::2])
    ra, rb = a * c - b * s, a * s + b * c
    want = np.empty_like(x, dtype=np.float64)
    if neox:
        want[..., : hd // 2], want[..., hd // 2:] = ra, rb
    else:
        want[..., 0::2], want[..., 1::2] = ra, rb
    np.testing.assert_allclose(d.get().reshape(x.shape), want, rtol=1e-4, atol=2e-4)


@pytest.mark.parametrize("wtype", ["f32", "f16", "bf16", "q4_1", "q5_1", "q4_k", "q6_k",
                                   "q8_0", "q4_0", "q5_0"])
@pytest.mark.parametrize("T", [1, 3, 9])
def test_matmul_and_swiglu(wtype, T):
    t = by_name(wtype)
    N, K = 40, 512
    Wg = RNG.standard_normal((N, K)).astype(np.float32)
    Wu = RNG.standard_normal((N, K)).astype(np.float32)
    X = RNG.standard_normal((T, K)).astype(np.float32)

    def enc(w):
        if t.name == "f32":
            return w.view(np.uint8), w.astype(np.float64)
        if t.name == "f16":
            return w.astype(np.float16).view(np.uint8), w.astype(np.float16).astype(np.float64)
        q = quant.quantize(w, t)
        return q, deq(q, t)

    (qg, fg), (qu, fu) = enc(Wg), enc(Wu)
    q8 = t.name in ("q8_0", "q4_0", "q5_0")
    xin = hip.asarray(quant.quantize(X, "q8_0").ravel()) if q8 else hip.asarray(X)
    xf = deq(quant.quantize(X, "q8_0"), "q8_0") if q8 else X.astype(np.float64)
    suffix = "_q8" if q8 else ""
    y = hip.empty(T * N, np.float32)
    fwd(f"oh_matmul{suffix}<{t.id}>")(grid(N), B, (hip.asarray(qg.ravel()), xin, y, N, K, T))
    g = xf @ fg.T
    np.testing.assert_allclose(y.get().reshape(T, N), g, rtol=1e-4, atol=1e-3)
    s = hip.empty(T * N, np.float32)
    fwd(f"oh_matmul_swiglu{suffix}<{t.id}>")(grid(N), B, (hip.asarray(qg.ravel()),
                                                          hip.asarray(qu.ravel()), xin, s, N, K,
                                                          T))
    u = xf @ fu.T
    np.testing.assert_allclose(s.get().reshape(T, N), g / (1 + np.exp(-g)) * u, rtol=1e-4,
                               atol=1e-3)
    # one token alone gives the same bits as inside the batch
    y1 = hip.empty(N, np.float32)
    x1 = hip.asarray(quant.quantize(X[-1:], "q8_0").ravel()) if q8 else hip.asarray(X[-1:])
    fwd(f"oh_matmul{suffix}<{t.id}>")(grid(N), B, (hip.asarray(qg.ravel()), x1, y1, N, K, 1))
    assert np.array_equal(y1.get(), y.get().reshape(T, N)[-1])


@pytest.mark.parametrize("ctype", ["f32", "f16", "bf16", "q8_0", "q4_0"])
def test_kv_store_bytes(ctype):
    t = by_name(ctype)
    T, W, n_ctx = 3, 128, 8
    src = RNG.standard_normal((T, W)).astype(np.float32)
    cache = hip.zeros(2 * n_ctx * (W // t.block) * t.bytes, np.uint8)
    slot = np.array([5, n_ctx + 0, 2], np.int64)
    fwd(f"oh_kv_store<{t.id}>")(grid(T * W // t.block), B, (hip.asarray(src), cache,
                                                            hip.asarray(slot), T, W))
    rows = cache.get().reshape(2 * n_ctx, -1)
    for i, s in enumerate(slot):
        assert np.array_equal(rows[s], quant.quantize(src[i], t))
    assert not rows[1].any()


def _cache(vals, t):
    """[n_slots*n_ctx, width] floats -> cache bytes of type t, and their dequantised values."""
    q = quant.quantize(vals, t)
    return q, quant.dequantize(q, t).astype(np.float64)


@pytest.mark.parametrize("kt,vt", [("f32", "f32"), ("f16", "f16"), ("q8_0", "q8_0"),
                                   ("q4_0", "q8_0"), ("bf16", "bf16"), ("f16", "q4_0")])
def test_attention_gqa_causal(kt, vt):
    K_t, V_t = by_name(kt), by_name(vt)
    nh, nkv, hd, n_ctx, n_seq = 4, 2, 64, 16, 2
    kv = RNG.standard_normal((n_seq * n_ctx, nkv * hd)).astype(np.float32)
    vv = RNG.standard_normal((n_seq * n_ctx, nkv * hd)).astype(np.float32)
    kq, kf = _cache(kv, K_t)
    vq, vf = _cache(vv, V_t)
    seq = np.array([0, 0, 1, 1, 1], np.int32)
    pos = np.array([0, 9, 3, 15, 0], np.int32)
    T = len(seq)
    Q = RNG.standard_normal((T, nh, hd)).astype(np.float32)
    scale = 1 / np.sqrt(hd)
    want = np.zeros((T, nh, hd))
    for t in range(T):
        for h in range(nh):
            g = h // (nh // nkv)
            rows = seq[t] * n_ctx + np.arange(pos[t] + 1)
            k = kf[rows, g * hd:(g + 1) * hd]
            v = vf[rows, g * hd:(g + 1) * hd]
            s = (k @ Q[t, h].astype(np.float64)) * scale
            p = np.exp(s - s.max())
            want[t, h] = p @ v / p.sum()
    args = (hip.asarray(Q), hip.asarray(kq.ravel()), hip.asarray(vq.ravel()))
    meta = (hip.asarray(seq), hip.asarray(pos), T, nh, nkv, hd, n_ctx, scale)
    out = hip.empty(T * nh * hd, np.float32)
    oq = hip.empty(T * nh * hd // 32 * 34, np.uint8)
    att(f"oh_attention<{K_t.id}, {V_t.id}>", K_t.id, V_t.id)(grid(T * nh), B,
                                                            (*args, out, *meta, oq))
    np.testing.assert_allclose(out.get().reshape(T, nh, hd), want, rtol=1e-4, atol=1e-4)
    # the output's Q8_0 blocks, as oh_quantize<8> writes them
    assert np.array_equal(oq.get(), quant.quantize(out.get(), "q8_0").ravel())
    for split in (2, 5):
        part = hip.empty(T * nh * split * (hd + 2), np.float32)
        att(f"oh_attention_split<{K_t.id}, {V_t.id}>", K_t.id, V_t.id)(
            grid(T * nh * split), B, (*args, part, *meta, split))
        o2 = hip.empty(T * nh * hd, np.float32)
        att("oh_attention_merge", K_t.id, V_t.id)(grid(T * nh), B, (part, o2, T * nh, hd, split,
                                                                    oq))
        np.testing.assert_allclose(o2.get().reshape(T, nh, hd), want, rtol=1e-4, atol=1e-4)
        assert np.array_equal(oq.get(), quant.quantize(o2.get(), "q8_0").ravel())


def test_logprob_rows():
    V = 1003
    x = (RNG.standard_normal((4, V)) * 5).astype(np.float32)
    tgt = np.array([0, 1002, 17, 500], np.int32)
    out = hip.empty(4, np.float32)
    fwd("oh_logprob")(1, B, (hip.asarray(x), hip.asarray(tgt), out, 4, V))
    xd = x.astype(np.float64)
    lse = np.log(np.exp(xd - xd.max(-1, keepdims=True)).sum(-1)) + xd.max(-1)
    np.testing.assert_allclose(out.get(), xd[np.arange(4), tgt] - lse, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("wtype", ["q8_0", "q4_0"])
def test_q8_dot_simd_path_equals_portable_path(wtype):
    """On the CPU platform with AVX2 the Q8_0 block dot runs as ggml's maddubs/madd kernel (the
    token tile's sums held in registers, F16C scales); the portable C++ (every GPU, other CPUs;
    here forced with -U__AVX2__) gives the same bits, for every tile width (T = 1..5)."""
    if hip.get_device().platform != "cpu":
        pytest.skip("the SIMD path is the CPU platform's")
    wt = by_name(wtype)
    N, K, T = 70, 256, 5
    W = RNG.standard_normal((N, K)).astype(np.float32)
    W[3, :32] = 0.0  # a zero block (zero scale)
    X = RNG.standard_normal((T, K)).astype(np.float32)
    Wq = hip.asarray(quant.quantize(W, wtype).ravel())
    Xq = hip.asarray(quant.quantize(X, "q8_0").ravel())
    for t in range(1, T + 1):
        outs = []
        for opts in ((), ("-U__AVX2__",)):
            names = (f"oh_matmul_q8<{wt.id}>", f"oh_matmul_swiglu_q8<{wt.id}>")
            m = hip.Module(kernels.source("forward"), options=opts, name_expressions=names)
            y = hip.empty(t * N, np.float32)
            g = hip.empty(t * N, np.float32)
            m.get_function(names[0])(grid(N), B, (Wq, Xq, y, N, K, t))
            m.get_function(names[1])(grid(N), B, (Wq, Wq, Xq, g, N, K, t))
            outs.append((y.get(), g.get()))
        for a, b in zip(outs[0], outs[1], strict=True):
            assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
        ref = deq(quant.quantize(X[:t], "q8_0"), "q8_0") @ deq(quant.quantize(W, wtype),
                                                                wtype).T
        np.testing.assert_allclose(outs[0][0].reshape(t, N), ref, rtol=1e-3, atol=1e-3)


def test_attention_f16_simd_path_equals_portable_path():
    """The F16 cache's attention steps on the CPU platform (AVX2 + F16C) and in portable C++
    (-U__AVX2__) give the same bits, the cache holding subnormal halves, zeros and -0.0 too."""
    if hip.get_device().platform != "cpu":
        pytest.skip("the SIMD path is the CPU platform's")
    nh, nkv, hd, n_ctx = 4, 2, 64, 24
    kv = RNG.standard_normal((n_ctx, nkv * hd)).astype(np.float32)
    vv = RNG.standard_normal((n_ctx, nkv * hd)).astype(np.float32)
    kv[2, :8] = 3e-6  # fp16 subnormals
    vv[3, :8] = -0.0
    kq, vq = quant.quantize(kv, "f16"), quant.quantize(vv, "f16")
    seq = np.zeros(3, np.int32)
    pos = np.array([0, 7, 23], np.int32)
    Q = RNG.standard_normal((3, nh, hd)).astype(np.float32)
    outs = []
    for opts in ((), ("-U__AVX2__",)):
        m = hip.Module(kernels.source("attention"), options=opts,
                       name_expressions=("oh_attention<1, 1>",))
        out = hip.empty(3 * nh * hd, np.float32)
        m.get_function("oh_attention<1, 1>")(grid(3 * nh), B, (
            hip.asarray(Q), hip.asarray(kq.ravel()), hip.asarray(vq.ravel()), out,
            hip.asarray(seq), hip.asarray(pos), 3, nh, nkv, hd, n_ctx, float(1 / np.sqrt(hd)),
            None))
        outs.append(out.get())
    assert np.array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))


def _bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("with_add", [False, True])
def test_add_rmsnorm_q8_equals_the_three_kernels(with_add):
    """The fused residual + RMSNorm + Q8_0 quantisation: the bits of oh_residual, oh_rmsnorm
    and oh_quantize<8> run one after the other; without yq only the norm is written."""
    T, dim = 5, 96
    x = RNG.standard_normal((T, dim)).astype(np.float32)
    a = RNG.standard_normal((T, dim)).astype(np.float32)
    w = RNG.standard_normal(dim).astype(np.float32)
    dw = hip.asarray(w)
    x1, x2 = hip.asarray(x), hip.asarray(x)
    add = hip.asarray(a) if with_add else None
    y1, y2 = hip.empty(T * dim, np.float32), hip.empty(T * dim, np.float32)
    q1, q2 = hip.empty(T * dim // 32 * 34, np.uint8), hip.empty(T * dim // 32 * 34, np.uint8)
    fwd("oh_add_rmsnorm_q8")(grid(T), B, (x1, add, dw, y1, q1, T, dim, 1e-5))
    if with_add:
        fwd("oh_residual")(grid(T * dim), B, (x2, add, T * dim))
    fwd("oh_rmsnorm")(grid(T), B, (x2, dw, y2, None, T, dim, 1e-5))
    kernels.function("quant", "oh_quantize<8>")(grid(T * dim // 32), B, (y2, q2, T * dim // 32))
    assert _bits_equal(x1.get(), x2.get())
    assert _bits_equal(y1.get(), y2.get()) and _bits_equal(q1.get(), q2.get())
    y3 = hip.empty(T * dim, np.float32)
    fwd("oh_add_rmsnorm_q8")(grid(T), B, (hip.asarray(x2.get()), None, dw, y3, None, T, dim,
                                          1e-5))
    want = x2.get().astype(np.float64)
    want = want / np.sqrt((want * want).mean(-1, keepdims=True) + 1e-5) * w
    np.testing.assert_allclose(y3.get().reshape(T, dim), want, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("kt,vt,neox", [("f16", "f16", 0), ("q8_0", "q4_0", 1),
                                        ("f32", "bf16", 0)])
def test_rope_kv_store_equals_rope_then_kv_store(kt, vt, neox):
    """oh_rope_kv_store: the bits of oh_rope on Q and K, then oh_kv_store of K and V."""
    K_t, V_t = by_name(kt), by_name(vt)
    T, nh, nkv, hd, n_ctx = 3, 4, 2, 64, 8
    w = nkv * hd
    q = RNG.standard_normal((T, nh * hd)).astype(np.float32)
    k = RNG.standard_normal((T, w)).astype(np.float32)
    v = RNG.standard_normal((T, w)).astype(np.float32)
    pos = hip.asarray(np.array([0, 5, 300], np.int32))
    slot = hip.asarray(np.array([1, 6, n_ctx + 3], np.int64))
    rope = (hd, 10000.0, 1.0, neox)
    outs = []
    for fused in (True, False):
        dq, dk, dv = hip.asarray(q), hip.asarray(k), hip.asarray(v)
        kc = hip.zeros(2 * n_ctx * (w // K_t.block) * K_t.bytes, np.uint8)
        vc = hip.zeros(2 * n_ctx * (w // V_t.block) * V_t.bytes, np.uint8)
        if fused:
            att(f"oh_rope_kv_store<{K_t.id}, {V_t.id}>", K_t.id, V_t.id)(
                grid(T * (nh + nkv)), B, (dq, dk, dv, kc, vc, pos, slot, T, nh, nkv, hd, *rope))
        else:
            for vec, heads in ((dq, nh), (dk, nkv)):
                fwd("oh_rope")(grid(T * heads * hd // 2), B, (vec, pos, T, heads, hd, *rope))
            fwd(f"oh_kv_store<{K_t.id}>")(grid(T * w // K_t.block), B, (dk, kc, slot, T, w))
            fwd(f"oh_kv_store<{V_t.id}>")(grid(T * w // V_t.block), B, (dv, vc, slot, T, w))
        outs.append([a.get() for a in (dq, dk, kc, vc)])
    for a, b in zip(*outs, strict=True):
        assert _bits_equal(a, b)
    assert outs[0][2].any() and outs[0][3].any()


def test_matmul_q8_qkv_equals_three_products():
    N_q, N_kv, K, T = 96, 40, 256, 3
    ws = [RNG.standard_normal((n, K)).astype(np.float32) for n in (N_q, N_kv, N_kv)]
    wq = [hip.asarray(quant.quantize(w_, "q8_0").ravel()) for w_ in ws]
    xq = hip.asarray(quant.quantize(RNG.standard_normal((T, K)).astype(np.float32),
                                    "q8_0").ravel())
    fused = [hip.empty(T * n, np.float32) for n in (N_q, N_kv, N_kv)]
    fwd("oh_matmul_q8_qkv<8>")(grid(N_q + 2 * N_kv), B, (*wq, xq, *fused, N_q, N_kv, K, T))
    for w_, y, n in zip(wq, fused, (N_q, N_kv, N_kv), strict=True):
        one = hip.empty(T * n, np.float32)
        fwd("oh_matmul_q8<8>")(grid(n), B, (w_, xq, one, n, K, T))
        assert _bits_equal(y.get(), one.get())
