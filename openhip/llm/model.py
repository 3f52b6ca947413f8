"""A llama-family model on an openhip device: weights uploaded in their GGUF types, the forward
pass as openhip.llm's HIP kernels, the KV cache, and the user-facing calls (tokenize, logits,
logprobs, generate)."""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import openhip as hip
from openhip.runtime.bound import LaunchSequence

from . import kernels
from .gguf_file import GGUFModelFile, open_gguf
from .sampling import SamplingParams, sample
from .types import GgmlType, cache_type, row_bytes

__all__ = ["Model", "Token", "KVCache"]

_BLOCK = 64
_Q8_TYPES = {"q8_0", "q4_0", "q5_0"}  # weight types with integer dot products on Q8_0 inputs
_SPLIT_MIN_KEYS = 256  # default mode: decode attention is split beyond this many keys


@dataclass(frozen=True)
class Token:
    """One generated token: ``id``, ``text`` (the new complete UTF-8 text it adds; a piece of a
    multi-byte character waits for the rest) and ``logprob`` (the log-softmax of the model's own
    logits at temperature 1, before any filtering)."""

    id: int
    text: str
    logprob: float


def _grid(n: int) -> int:
    return max(1, (n + _BLOCK - 1) // _BLOCK)


def _input_arrays(tokens: Sequence[int], seqs: Sequence[int], positions: Sequence[int],
                  n_ctx: int, rows: Sequence[int]) -> tuple[np.ndarray, ...]:
    """The host arrays a forward pass reads: ids, seq, pos (int32), cache slot (int64), the
    rows whose logits are computed (int32)."""
    return (np.asarray(tokens, np.int32), np.asarray(seqs, np.int32),
            np.asarray(positions, np.int32),
            np.asarray(seqs, np.int64) * n_ctx + np.asarray(positions, np.int64),
            np.asarray(rows, np.int32))


class _DecodeStep:
    """One token's forward pass through ``cache`` recorded as bound launches. Its inputs (token
    id, sequence slot 0, position, cache slot, logits row 0) live in one small device array
    written once per token, so every replay is the same launches with the same packed
    arguments, and the logits land in the same array. Valid for one cache and one attention
    split; the model records a new one when either changes."""

    # byte offsets in the input array: ids, seq (int32), pos (int32), slot (int64), out row
    _IDS, _SEQ, _POS, _SLOT, _ROW, _SIZE = 0, 4, 8, 16, 24, 32

    def __init__(self, model: Model, cache: KVCache, split: int, token: int,
                 position: int) -> None:
        from openhip.runtime.memory import DeviceBuffer

        self.cache, self.split = cache, split
        self.host = np.zeros(self._SIZE, np.uint8)
        self.buf = hip.zeros(self._SIZE, np.uint8)
        base, dev = self.buf.data.ptr, self.buf.device
        self.inputs = tuple(DeviceBuffer(base + off, n, dev, owner=False) for off, n in (
            (self._IDS, 4), (self._SEQ, 4), (self._POS, 4), (self._SLOT, 8), (self._ROW, 4)))
        self._write(token, position)
        self.launches = LaunchSequence()
        model._recording = self.launches
        try:
            self.logits = model._forward([token], [0], [position], cache, None, self.inputs)
        finally:
            model._recording = None
        self.logprob = hip.empty(1, np.float32)
        self.logprob_launch = model._k("oh_logprob").bind(  # target: the token input
            1, _BLOCK, (self.logits, self.inputs[0], self.logprob, 1, model.n_vocab))

    def _write(self, token: int, position: int) -> None:
        h = self.host
        h[self._IDS:self._IDS + 4].view(np.int32)[0] = token
        h[self._POS:self._POS + 4].view(np.int32)[0] = position
        h[self._SLOT:self._SLOT + 8].view(np.int64)[0] = position  # sequence slot 0
        self.buf.set(h)

    def logprob_and_replay(self, token: int, position: int) -> float:
        """log-softmax of the current logits at ``token``, then the pass of ``token`` at
        ``position`` (its logits in :attr:`logits`): one wait for both."""
        self._write(token, position)
        self.logprob_launch()
        self.launches()
        return float(self.logprob.get()[0])

    def replay(self, token: int, position: int) -> Any:
        """The logits (device) after ``token`` at ``position``."""
        self._write(token, position)
        self.launches()
        return self.logits

    def logprob_of(self, token: int) -> float:
        """log-softmax of the current logits at ``token`` (the oh_logprob kernel)."""
        self.host[self._IDS:self._IDS + 4].view(np.int32)[0] = token
        self.buf.set(self.host)
        self.logprob_launch()
        return float(self.logprob.get()[0])


class KVCache:
    """K and V for every layer: ``n_seq`` sequence slots of ``n_ctx`` positions each, in the
    types ``kt``/``vt`` (quantized when written)."""

    def __init__(self, n_layer: int, n_seq: int, n_ctx: int, width: int, kt: GgmlType,
                 vt: GgmlType) -> None:
        self.n_seq, self.n_ctx, self.width, self.kt, self.vt = n_seq, n_ctx, width, kt, vt
        self.k = [hip.zeros(n_seq * n_ctx * row_bytes(kt, width), np.uint8)
                  for _ in range(n_layer)]
        self.v = [hip.zeros(n_seq * n_ctx * row_bytes(vt, width), np.uint8)
                  for _ in range(n_layer)]
        self.length = [0] * n_seq

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.k) + sum(a.nbytes for a in self.v)


class Model:
    """A GGUF model loaded for inference; made by :func:`openhip.llm.load`."""

    def __init__(self, path: Any, kv_cache: str | None = None, cache_type_k: str | None = None,
                 cache_type_v: str | None = None, deterministic: bool = False,
                 n_ctx: int | None = None) -> None:
        default = kv_cache or os.environ.get("OPENHIP_KV_CACHE_TYPE") or "f16"
        self.cache_type_k = cache_type(cache_type_k or default)
        self.cache_type_v = cache_type(cache_type_v or default)
        self.file: GGUFModelFile = open_gguf(path)
        self.hparams = h = self.file.hparams
        self.tokenizer = self.file.tokenizer
        if n_ctx is None:
            n_ctx = min(h.n_ctx_train, 4096)
        if not isinstance(n_ctx, int) or isinstance(n_ctx, bool) or n_ctx < 1:
            raise ValueError(f"n_ctx must be a positive int, not {n_ctx!r}")
        self.n_ctx = n_ctx
        self.deterministic = bool(deterministic)
        self.device = hip.get_device()
        self._keep: list[Any] = []
        self._bufs: dict[tuple, Any] = {}
        self._fns: dict[str, Any] = {}
        self._recording: LaunchSequence | None = None
        self._step: _DecodeStep | None = None
        self.replay_decode = True  # decode steps replay their recorded launches
        self._upload()
        self._build_kernels()
        self.cache = KVCache(h.n_layer, 1, n_ctx, h.n_kv * h.head_dim, self.cache_type_k,
                             self.cache_type_v)

    # ------------------------------------------------------------------ setup
    def _upload(self) -> None:
        self.weights: dict[str, tuple[GgmlType, Any]] = {}
        self.vectors: dict[str, Any] = {}
        for name, t in self.file.tensors.items():
            if len(t.shape) == 1:
                self.vectors[name] = hip.asarray(np.asarray(t.data).astype(np.float32).ravel())
            else:
                self.weights[name] = (t.type, hip.asarray(
                    np.ascontiguousarray(t.data).view(np.uint8).ravel()))
        if "output.weight" not in self.weights:  # tied embeddings
            self.weights["output.weight"] = self.weights["token_embd.weight"]
        self.weight_bytes = sum(a.nbytes for n, (_, a) in self.weights.items()
                                if n != "token_embd.weight")
        self.n_params = sum(int(np.prod(t.shape)) for t in self.file.tensors.values())
        self._tied = "output.weight" not in self.file.tensors

    def _build_kernels(self) -> None:
        # the forward module is built once with every weight and cache type (one cache entry
        # shared by all models); attention with the one (K, V) cache-type pair of this model
        self._fwd_exprs = kernels.name_expressions("forward")
        kt, vt = self.cache_type_k.id, self.cache_type_v.id
        self._att_exprs = (f"oh_attention<{kt}, {vt}>", f"oh_attention_split<{kt}, {vt}>",
                           f"oh_rope_kv_store<{kt}, {vt}>")
        kernels.module("forward", self._fwd_exprs)
        kernels.module("attention", self._att_exprs)
        self._has_q8 = any(t.name in _Q8_TYPES for t, _ in self.weights.values())
        if self._has_q8:
            kernels.module("quant")

    def _k(self, name: str):
        f = self._fns.get(name)
        if f is None:
            f = self._fns[name] = self._lookup(name)
        return f

    def _lookup(self, name: str):
        if name.startswith(("oh_attention", "oh_rope_kv_store")):
            return kernels.function("attention", name, self._att_exprs)
        if name.startswith("oh_quantize"):
            return kernels.function("quant", name)
        return kernels.function("forward", name, self._fwd_exprs)

    # ------------------------------------------------------------------ facts
    @property
    def n_vocab(self) -> int:
        return self.hparams.n_vocab

    def kv_bytes_per_token(self) -> int:
        """Bytes the KV cache holds per token (K and V, every layer)."""
        h = self.hparams
        w = h.n_kv * h.head_dim
        return h.n_layer * (row_bytes(self.cache_type_k, w) + row_bytes(self.cache_type_v, w))

    def __repr__(self) -> str:
        h = self.hparams
        return (f"<openhip.llm.Model {h.arch} {self.n_params / 1e6:.1f}M params, "
                f"{h.n_layer} layers, dim {h.dim}, ctx {self.n_ctx}, cache "
                f"{self.cache_type_k.name}/{self.cache_type_v.name}"
                f"{', deterministic' if self.deterministic else ''} on {self.device.platform}>")

    # ------------------------------------------------------------------ text
    def tokenize(self, text: str, add_bos: bool = True) -> list[int]:
        """Token ids of ``text`` as llama.cpp's tokenizer gives them (BOS first when
        ``add_bos`` and the vocabulary uses one)."""
        return self.tokenizer.encode(text, add_bos=add_bos)

    def detokenize(self, ids: Sequence[int]) -> str:
        """The text of ``ids`` (control tokens dropped)."""
        return self.tokenizer.decode(self._check_ids(ids, "ids", allow_empty=True))

    def _check_ids(self, ids: Any, what: str = "ids", allow_empty: bool = False) -> list[int]:
        if isinstance(ids, (str, bytes)):
            raise TypeError(f"{what} must be a sequence of token ids, not {type(ids).__name__}")
        try:
            out = [int(i) for i in ids]
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{what} must be a sequence of token ids: {exc}") from None
        if not out and not allow_empty:
            raise ValueError(f"{what} is empty")
        bad = [i for i in out if not 0 <= i < self.n_vocab]
        if bad:
            raise ValueError(f"{what}: token id {bad[0]} is outside the vocabulary "
                             f"(0..{self.n_vocab - 1})")
        return out

    # ------------------------------------------------------------------ forward
    def _scratch(self, n: int, dtype: Any, name: str | None = None) -> Any:
        """A device buffer of n values: ``name``d ones are kept on the model and reused by every
        pass of the same size (a decode step allocates nothing); others live for one pass."""
        if name is not None:
            key = (name, n, np.dtype(dtype).str)
            a = self._bufs.get(key)
            if a is None:
                if len(self._bufs) > 256:
                    self._bufs.clear()
                a = self._bufs[key] = hip.empty(n, dtype)
            return a
        a = hip.empty(n, dtype)
        self._keep.append(a)
        return a

    def _upload_small(self, host: np.ndarray) -> Any:
        a = hip.asarray(host)
        self._keep.append(a)
        return a

    def _matmul(self, name: str, x: Any, xq: Any, T: int, K: int, out: str | None = None) -> Any:
        t, w = self.weights[name]
        N = w.nbytes // row_bytes(t, K)
        y = self._scratch(T * N, np.float32, out)
        if t.name in _Q8_TYPES:
            self._run(f"oh_matmul_q8<{t.id}>", _grid(N), (w, xq, y, N, K, T))
        else:
            self._run(f"oh_matmul<{t.id}>", _grid(N), (w, x, y, N, K, T))
        return y

    def _gate_up(self, p: str, x: Any, xq: Any, T: int) -> Any:
        """silu(x W_gate^T) * (x W_up^T): one fused launch when both have the same type."""
        h = self.hparams
        (gt, gw), (ut, uw) = self.weights[p + "ffn_gate.weight"], self.weights[p + "ffn_up.weight"]
        if gt.id != ut.id:
            g = self._matmul(p + "ffn_gate.weight", x, xq, T, h.dim, "g")
            u = self._matmul(p + "ffn_up.weight", x, xq, T, h.dim, "u")
            self._run("oh_swiglu", _grid(T * h.ffn), (g, u, g, T * h.ffn))
            return g
        g = self._scratch(T * h.ffn, np.float32, "g")
        if gt.name in _Q8_TYPES:
            self._run(f"oh_matmul_swiglu_q8<{gt.id}>", _grid(h.ffn),
                      (gw, uw, xq, g, h.ffn, h.dim, T))
        else:
            self._run(f"oh_matmul_swiglu<{gt.id}>", _grid(h.ffn),
                      (gw, uw, x, g, h.ffn, h.dim, T))
        return g

    def _qkv(self, p: str, x: Any, xq: Any, T: int) -> tuple[Any, Any, Any]:
        """The Q, K and V products of layer prefix ``p``: one launch when the three matrices
        have the same integer-path type."""
        h = self.hparams
        (qt, qw), (kt, kw), (vt, vw) = (self.weights[p + f"attn_{n}.weight"] for n in "qkv")
        if not (qt.id == kt.id == vt.id and qt.name in _Q8_TYPES):
            return tuple(self._matmul(p + f"attn_{n}.weight", x, xq, T, h.dim, n) for n in "qkv")
        nq, nkv = qw.nbytes // row_bytes(qt, h.dim), kw.nbytes // row_bytes(kt, h.dim)
        q = self._scratch(T * nq, np.float32, "q")
        k = self._scratch(T * nkv, np.float32, "k")
        v = self._scratch(T * nkv, np.float32, "v")
        self._run(f"oh_matmul_q8_qkv<{qt.id}>", _grid(nq + 2 * nkv),
                  (qw, kw, vw, xq, q, k, v, nq, nkv, h.dim, T))
        return q, k, v

    def _quant_q8(self, x: Any, T: int, K: int, out: str | None = None) -> Any:
        """x [T, K] quantised to Q8_0 rows (for the integer matmul)."""
        if not self._has_q8:
            return None
        nb = T * K // 32
        xq = self._scratch(nb * 34, np.uint8, out)
        self._run("oh_quantize<8>", _grid(nb), (x, xq, nb))
        return xq

    def _run(self, name: str, grid: int, args: tuple) -> None:
        """Launch kernel ``name`` over ``grid`` blocks; while a decode step is being recorded,
        the launch is also kept bound (:meth:`openhip.Function.bind`) for its replays."""
        fn = self._k(name)
        fn(grid, _BLOCK, args)
        if self._recording is not None:
            self._recording.append(fn.bind(grid, _BLOCK, args))

    def _forward(self, tokens: list[int], seqs: list[int], positions: list[int],
                 cache: KVCache, out_rows: list[int] | None, inputs: tuple | None = None) -> Any:
        """Runs the tokens (each with its sequence slot and position) through the model,
        writing K/V into ``cache``; returns the device logits of ``out_rows`` (all when None).
        ``inputs``: device arrays (ids, seq, pos, slot, out_rows) already holding them (a
        recorded decode step's), else they are uploaded."""
        h = self.hparams
        T = len(tokens)
        # Every temporary lives until the pass has run: the pool may hand a freed block to a
        # smaller request (moving its red zone) while a queued kernel still writes the old one.
        keep: list[Any] = []
        self._keep = keep
        dim, hd, nh, nkv = h.dim, h.head_dim, h.n_head, h.n_kv
        rows = list(range(T)) if out_rows is None else out_rows
        if inputs is None:
            inputs = tuple(self._upload_small(a) for a in _input_arrays(tokens, seqs, positions,
                                                                        cache.n_ctx, rows))
        ids, seq, pos, slot, out_idx = inputs
        et, ew = self.weights["token_embd.weight"]
        x = self._scratch(T * dim, np.float32, "x")
        nb = dim // et.block
        self._run(f"oh_embed<{et.id}>", _grid(T * nb), (ew, ids, x, T, dim))
        hbuf = self._scratch(T * dim, np.float32, "h")
        kt, vt = cache.kt, cache.vt
        scale = float(1.0 / np.sqrt(hd))
        split = self._n_split(T, max(positions) + 1)
        # RMSNorm + Q8_0 quantisation fused, the residual add into the next norm (the same
        # operations as oh_residual, oh_rmsnorm and oh_quantize<8>: the same bits)
        q8 = self._has_q8
        hq = self._scratch(T * dim // 32 * 34, np.uint8, "hq") if q8 else None
        aq = self._scratch(T * nh * hd // 32 * 34, np.uint8, "aq") if q8 else None
        self._run("oh_add_rmsnorm_q8", _grid(T), (x, None, self.vectors["blk.0.attn_norm.weight"],
                                                  hbuf, hq, T, dim, h.eps))
        for layer in range(h.n_layer):
            p = f"blk.{layer}."
            q, k, v = self._qkv(p, hbuf, hq, T)
            if h.qkv_bias:
                for vec, bias, w in ((q, "attn_q.bias", nh * hd), (k, "attn_k.bias", nkv * hd),
                                     (v, "attn_v.bias", nkv * hd)):
                    b = self.vectors.get(p + bias)
                    if b is not None:
                        self._run("oh_add_bias", _grid(T * w), (vec, b, w, T * w))
            # RoPE on Q and K and the K/V cache writes in one launch
            self._run(f"oh_rope_kv_store<{kt.id}, {vt.id}>", _grid(T * (nh + nkv)),
                      (q, k, v, cache.k[layer], cache.v[layer], pos, slot, T, nh, nkv, hd,
                       h.n_rot, h.rope_base, h.rope_scale, int(h.neox)))
            att = self._scratch(T * nh * hd, np.float32, "att")
            if split > 1:
                part = self._scratch(T * nh * split * (hd + 2), np.float32, "part")
                self._run(f"oh_attention_split<{kt.id}, {vt.id}>", _grid(T * nh * split),
                          (q, cache.k[layer], cache.v[layer], part, seq, pos, T, nh, nkv, hd,
                           cache.n_ctx, scale, split))
                self._run("oh_attention_merge", _grid(T * nh), (part, att, T * nh, hd, split,
                                                                aq))
            else:  # the output and its Q8_0 blocks
                self._run(f"oh_attention<{kt.id}, {vt.id}>", _grid(T * nh),
                          (q, cache.k[layer], cache.v[layer], att, seq, pos, T, nh, nkv, hd,
                           cache.n_ctx, scale, aq))
            o = self._matmul(p + "attn_output.weight", att, aq, T, nh * hd, "o")
            self._run("oh_add_rmsnorm_q8", _grid(T), (x, o, self.vectors[p + "ffn_norm.weight"],
                                                      hbuf, hq, T, dim, h.eps))
            g = self._gate_up(p, hbuf, hq, T)
            gq = self._quant_q8(g, T, h.ffn, "gq")
            d = self._matmul(p + "ffn_down.weight", g, gq, T, h.ffn, "o")
            if layer + 1 < h.n_layer:
                self._run("oh_add_rmsnorm_q8", _grid(T), (
                    x, d, self.vectors[f"blk.{layer + 1}.attn_norm.weight"], hbuf, hq, T, dim,
                    h.eps))
            else:
                self._run("oh_residual", _grid(T * dim), (x, d, T * dim))
        R = len(rows)
        hr = self._scratch(R * dim, np.float32)
        self._run("oh_rmsnorm", _grid(R), (x, self.vectors["output_norm.weight"], hr,
                                           out_idx, R, dim, h.eps))
        logits = self._matmul("output.weight", hr, self._quant_q8(hr, R, dim), R, dim)
        self.device.synchronize()
        self._keep = []
        return logits

    def _n_split(self, T: int, n_keys: int) -> int:
        """Key chunks per query for the default mode's decode attention (1: not split): used
        when the queries are fewer than the device's lanes (decode) and the keys many; the
        count follows the device's multiprocessors (on the CPU, its threads)."""
        if self.deterministic or n_keys < _SPLIT_MIN_KEYS:
            return 1
        queries = T * self.hparams.n_head
        units = int(getattr(self.device.properties, "multiprocessor_count", 1) or 1) * _BLOCK
        if queries * 2 > units:
            return 1
        return int(min(max(2, n_keys // 64), units // queries, 16))

    def _logprob_rows(self, logits: Any, targets: Sequence[int], R: int) -> np.ndarray:
        out = hip.empty(R, np.float32)
        self._k("oh_logprob")(_grid(R), _BLOCK, (logits, hip.asarray(
            np.asarray(targets, np.int32)), out, R, self.n_vocab))
        return out.get()

    # ------------------------------------------------------------------ public calls
    def logits(self, ids: Sequence[int]) -> np.ndarray:
        """The logits after each position of ``ids``: float32 ``[len(ids), n_vocab]``."""
        ids = self._check_ids(ids)
        self._check_length(len(ids))
        cache = KVCache(self.hparams.n_layer, 1, len(ids), self.cache.width, self.cache_type_k,
                        self.cache_type_v)
        out = self._forward(ids, [0] * len(ids), list(range(len(ids))), cache, None)
        return out.get().reshape(len(ids), self.n_vocab)

    def logprobs(self, ids: Any) -> Any:
        """``log p(ids[t+1] | ids[:t+1])`` for t < len(ids) - 1 (float32 ``[len(ids) - 1]``).
        Given a list of sequences, returns a list of such arrays, all computed in one batch."""
        if len(ids) and not isinstance(ids[0], (int, np.integer)):
            seqs = [self._check_ids(s, f"ids[{i}]") for i, s in enumerate(ids)]
            single = False
        else:
            seqs = [self._check_ids(ids)]
            single = True
        for s in seqs:
            self._check_length(len(s))
        n_ctx = max(len(s) for s in seqs)
        cache = KVCache(self.hparams.n_layer, len(seqs), n_ctx, self.cache.width,
                        self.cache_type_k, self.cache_type_v)
        tokens, sq, pos, rows, targets = [], [], [], [], []
        for si, s in enumerate(seqs):
            base = len(tokens)
            tokens += s
            sq += [si] * len(s)
            pos += list(range(len(s)))
            rows += [base + t for t in range(len(s) - 1)]
            targets += s[1:]
        if not rows:
            res = [np.zeros(0, np.float32) for _ in seqs]
            return res[0] if single else res
        logits = self._forward(tokens, sq, pos, cache, rows)
        lp = self._logprob_rows(logits, targets, len(rows))
        out, i = [], 0
        for s in seqs:
            out.append(lp[i:i + len(s) - 1].copy())
            i += len(s) - 1
        return out[0] if single else out

    def _check_length(self, n: int) -> None:
        if n > self.n_ctx:
            raise ValueError(f"{n} tokens do not fit the context of {self.n_ctx} "
                             f"(load with a larger n_ctx, at most the model's "
                             f"{self.hparams.n_ctx_train})")

    def generate(self, prompt: Any, max_tokens: int = 64, temperature: float = 0.0,
                 top_k: int = 0, top_p: float = 1.0, min_p: float = 0.0,
                 seed: int | None = None, stop_at_eos: bool = True) -> Iterator[Token]:
        """Generate up to ``max_tokens`` tokens after ``prompt`` (text, tokenized with BOS, or
        ids) through the KV cache, yielding a :class:`Token` each. ``temperature=0`` is greedy;
        otherwise top-k, top-p, min-p and temperature are applied in llama.cpp's order and a
        token is drawn with a counter-based RNG (Philox keyed by ``seed``, counter = step). Stops
        at the end-of-sequence token (``stop_at_eos``) or when the context is full."""
        params = SamplingParams.checked(temperature, top_k, top_p, min_p, seed)
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 0:
            raise ValueError(f"max_tokens must be an int >= 0, not {max_tokens!r}")
        ids = self.tokenize(prompt) if isinstance(prompt, str) else self._check_ids(prompt,
                                                                                      "prompt")
        if not ids:
            raise ValueError("the prompt is empty (and the vocabulary has no BOS token)")
        if len(ids) >= self.n_ctx:
            raise ValueError(f"the prompt has {len(ids)} tokens; the context holds "
                             f"{self.n_ctx} (load with a larger n_ctx)")
        return self._generate(ids, max_tokens, params, stop_at_eos)

    def _generate(self, ids: list[int], max_tokens: int, params: SamplingParams,
                  stop_at_eos: bool) -> Iterator[Token]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        cache = self.cache
        n = len(ids)
        logits = self._forward(ids, [0] * n, list(range(n)), cache, [n - 1])
        recorded: _DecodeStep | None = None  # the recorded step whose logits these are
        pos = n
        for step in range(max_tokens):
            row = logits.get()
            tid = sample(row, params, step)
            text = decoder.decode(self.tokenizer.piece(tid))
            last = (stop_at_eos and tid == self.tokenizer.eos) or pos >= self.n_ctx or \
                step + 1 == max_tokens
            if not last and self.replay_decode:
                # the token's logprob and the next pass, waited for together
                logits, recorded, lp = self._decode_step(tid, pos, cache, logits, recorded)
                yield Token(tid, text, lp)
                pos += 1
                continue
            lp = self._logprob_of(logits, recorded, tid)
            yield Token(tid, text, lp)
            if last:
                break
            logits, recorded = self._forward([tid], [0], [pos], cache, None), None
            pos += 1
        cache.length[0] = pos

    def _logprob_of(self, logits: Any, recorded: _DecodeStep | None, tid: int) -> float:
        if recorded is not None and logits is recorded.logits:
            return recorded.logprob_of(tid)
        return float(self._logprob_rows(logits, [tid], 1)[0])

    def _decode_step(self, token: int, position: int, cache: KVCache, logits: Any,
                     recorded: _DecodeStep | None) -> tuple[Any, _DecodeStep, float]:
        """The logprob of ``token`` under ``logits`` and the pass of ``token`` at ``position``:
        (its device logits, the :class:`_DecodeStep` that made them, the logprob). The step is
        recorded on first use and replayed after that while the cache and the attention
        split stay the same."""
        split = self._n_split(1, position + 1)
        st = self._step
        if st is None or st.cache is not cache or st.split != split:
            lp = self._logprob_of(logits, recorded, token)
            self._step = None
            st = self._step = _DecodeStep(self, cache, split, token, position)
            return st.logits, st, lp
        if recorded is st and logits is st.logits:
            return st.logits, st, st.logprob_and_replay(token, position)
        lp = self._logprob_of(logits, recorded, token)
        return st.replay(token, position), st, lp

    def _decode(self, token: int, position: int, cache: KVCache) -> tuple[Any, Any]:
        """One decode step without its logprob (tests): the device logits after ``token`` at
        ``position`` and the :class:`_DecodeStep` that made them (None when replays are off)."""
        if not self.replay_decode:
            return self._forward([token], [0], [position], cache, None), None
        split = self._n_split(1, position + 1)
        st = self._step
        if st is None or st.cache is not cache or st.split != split:
            self._step = None
            st = self._step = _DecodeStep(self, cache, split, token, position)
            return st.logits, st
        return st.replay(token, position), st

    def quantized_cache_types(self) -> tuple[str, str]:
        """The (K, V) cache type names."""
        return self.cache_type_k.name, self.cache_type_v.name

