#!/usr/bin/env python3
"""Write a llama-architecture GGUF model with seeded random weights and a real small vocabulary.

    python3 tools/make_gguf_model.py out.gguf --size tiny --type q8_0 [--vocab llama|gpt2]
                                     [--arch llama|mistral|qwen2] [--seed 0]

Sizes: ``tiny`` (2 layers, dim 128, head dim 32; tests), ``small`` (4 layers, dim 256), ``100m`` (14 layers,
dim 768, ffn 2048, vocab 4096: about 105M parameters; benchmarks). ``--type`` is the type of every
weight matrix (f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q4_k, q6_k); norms stay f32.

The vocabulary is learned here (no network) by byte-pair merges over an English text written
below plus the docstrings of a fixed list of Python standard-library modules:
* ``llama`` — SentencePiece-style: ``<unk>`` ``<s>`` ``</s>``, the 256 byte-fallback tokens
  ``<0x00>``..``<0xFF>``, then pieces (``▁`` for a space) scored by merge rank, as llama.cpp's
  SPM tokenizer expects (it merges the highest-scoring adjacent pair first).
* ``gpt2`` — GPT-2 byte-level BPE: the 256 byte symbols of ``bytes_to_unicode``, the merged
  tokens, the ``merges`` list, and ``<|endoftext|>`` as BOS/EOS.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import sys
from pathlib import Path

import numpy as np

SIZES = {
    "tiny": dict(n_layer=2, dim=128, n_head=4, n_kv=2, ffn=256, vocab=384, ctx=256),
    "small": dict(n_layer=4, dim=256, n_head=8, n_kv=4, ffn=704, vocab=1024, ctx=512),
    "100m": dict(n_layer=14, dim=768, n_head=12, n_kv=4, ffn=2048, vocab=4096, ctx=1024),
}

TEXT = """\
The quick brown fox jumps over the lazy dog. A language model reads a sequence of tokens and
predicts the next one. Each token is a piece of text: a word, part of a word, a space, or a
single byte when nothing else fits. The model turns every token into a vector, mixes the
vectors of the earlier positions through attention, and ends with a score for every token of
its vocabulary. Those scores, the logits, become probabilities through the softmax function.
Generation picks one token, appends it, and runs the model again; a cache of keys and values
keeps the work of the earlier positions, so each new token costs one step. Greedy decoding
takes the most likely token; sampling draws one at random, shaped by a temperature, by keeping
the top k tokens, or the smallest set whose probability reaches p, or every token at least
min p times as likely as the best. The weights may be stored in sixteen bits, in eight bits
with one scale per block of thirty-two values, or in four bits. Reading fewer bytes of weights
per token is what makes a small computer fast: a matrix-vector product is bound by memory.
In the beginning there was the word, and the word was a number, and the number was a vector.
Once upon a time, in a small town by the sea, there lived an old man who loved to read. Every
morning he walked to the harbour, watched the boats come in, and wrote down what he saw. His
notebooks filled a whole room. When he was asked why, he said that the world was too large to
remember, and that writing was the only way he knew to keep a little of it. Numbers such as 1,
2, 3, 42, 100 and 2024 appear in text too, and so do punctuation marks: commas, full stops,
question marks? exclamation marks! quotes "like these", apostrophes in don't and it's, and
brackets (round) [square] {curly}. Python code looks like this: def main(argv): return 0.
"""

STDLIB_MODULES = ("os", "re", "json", "collections", "itertools", "functools", "pathlib",
                  "string", "textwrap", "argparse", "random", "statistics", "fractions",
                  "decimal", "datetime", "calendar", "heapq", "bisect", "shutil", "tempfile",
                  "typing", "dataclasses", "enum", "contextlib", "abc", "copy", "pprint")


def corpus() -> str:
    """The training text: TEXT plus the docstrings of STDLIB_MODULES (sorted members)."""
    parts = [TEXT]
    for name in STDLIB_MODULES:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        parts.append(inspect.getdoc(mod) or "")
        for attr in sorted(vars(mod)):
            obj = getattr(mod, attr, None)
            if callable(obj) and not attr.startswith("_"):
                parts.append(inspect.getdoc(obj) or "")
    return "\n".join(parts)


def learn_merges(words: collections.Counter, n_merges: int) -> list[tuple[str, str]]:
    """Byte-pair merges over ``words`` (a word -> count map of symbol tuples), most frequent
    pair first (ties: the lexicographically smallest pair), with an index of pair -> words."""
    seqs = {w: list(w) for w in words}
    pairs: collections.Counter = collections.Counter()
    where: dict[tuple[str, str], set] = collections.defaultdict(set)
    for w, cnt in words.items():
        s = seqs[w]
        for a, b in zip(s, s[1:], strict=False):
            pairs[(a, b)] += cnt
            where[(a, b)].add(w)
    merges = []
    while len(merges) < n_merges and pairs:
        best_count = max(pairs.values())
        if best_count < 2:
            break
        best = min(p for p, c in pairs.items() if c == best_count)
        merges.append(best)
        merged = best[0] + best[1]
        for w in list(where.pop(best, ())):
            cnt = words[w]
            s = seqs[w]
            for a, b in zip(s, s[1:], strict=False):
                pairs[(a, b)] -= cnt
                if pairs[(a, b)] <= 0:
                    del pairs[(a, b)]
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and s[i] == best[0] and s[i + 1] == best[1]:
                    out.append(merged)
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            seqs[w] = out
            for a, b in zip(out, out[1:], strict=False):
                pairs[(a, b)] += cnt
                where[(a, b)].add(w)
        pairs.pop(best, None)
    return merges


def llama_vocab(n_vocab: int, text: str) -> dict:
    """A SentencePiece-style vocabulary of exactly ``n_vocab`` tokens."""
    words = collections.Counter()
    for w in text.split():
        words[tuple("\u2581" + w)] += 1
    chars = collections.Counter(ch for w, c in words.items() for ch in w for _ in range(c))
    singles = [ch for ch, _ in sorted(chars.items(), key=lambda kv: (-kv[1], kv[0]))]
    specials = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)]
    room = n_vocab - len(specials)
    singles = singles[: max(0, room // 4)]
    merges = learn_merges(words, room - len(singles))
    tokens, scores, types = list(specials), [0.0] * len(specials), [2, 3, 3] + [6] * 256
    seen = set(tokens)
    for rank, (a, b) in enumerate(merges):
        piece = a + b
        if piece not in seen:
            seen.add(piece)
            tokens.append(piece)
            scores.append(-float(rank))
            types.append(1)
    for i, ch in enumerate(singles):
        if ch not in seen:
            seen.add(ch)
            tokens.append(ch)
            scores.append(-1e6 - i)
            types.append(1)
    filler = 0
    while len(tokens) < n_vocab:  # a tiny corpus may not give enough merges
        piece = f"\u2581tok{filler}"
        filler += 1
        if piece not in seen:
            seen.add(piece)
            tokens.append(piece)
            scores.append(-2e6 - filler)
            types.append(1)
    return dict(model="llama", tokens=tokens[:n_vocab], scores=scores[:n_vocab],
                types=types[:n_vocab], bos=1, eos=2, unk=0, merges=None)


def gpt2_vocab(n_vocab: int, text: str) -> dict:
    """A GPT-2 byte-level BPE vocabulary of exactly ``n_vocab`` tokens (the last is
    ``<|endoftext|>``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from openhip.llm.tokenizer import bytes_to_unicode, gpt2_pretokenize

    b2u = bytes_to_unicode()
    words = collections.Counter()
    for piece in gpt2_pretokenize(text):
        words[tuple(b2u[b] for b in piece.encode("utf-8"))] += 1
    base = [b2u[b] for b in range(256)]
    merges = learn_merges(words, n_vocab - 257)
    tokens = base + [a + b for a, b in merges]
    seen, out, kept = set(), [], []
    for t in tokens:
        if t not in seen:
            seen.add(t)
            out.append(t)
    for a, b in merges:
        kept.append(f"{a} {b}")
    while len(out) < n_vocab - 1:
        out.append(f"<|pad{len(out)}|>")
    out = out[: n_vocab - 1] + ["<|endoftext|>"]
    types = [1] * (n_vocab - 1) + [3]
    types = [4 if t.startswith("<|pad") else k for t, k in zip(out, types, strict=False)]
    eos = n_vocab - 1
    return dict(model="gpt2", tokens=out, scores=None, types=types, bos=eos, eos=eos, unk=None,
                merges=kept[: max(0, n_vocab - 257)])


def random_weights(cfg: dict, arch: str, seed: int) -> dict[str, np.ndarray]:
    """Seeded weights (float32) in gguf's tensor names and (rows, cols) shapes."""
    rng = np.random.default_rng(seed)
    dim, ffn, nh, nkv, nv = cfg["dim"], cfg["ffn"], cfg["n_head"], cfg["n_kv"], cfg["vocab"]
    hd = dim // nh

    def mat(rows, cols, scale=1.0):
        return (rng.standard_normal((rows, cols)) * scale / np.sqrt(cols)).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    w = {"token_embd.weight": (rng.standard_normal((nv, dim)) * 0.5).astype(np.float32)}
    for i in range(cfg["n_layer"]):
        p = f"blk.{i}."
        w[p + "attn_norm.weight"] = norm(dim)
        w[p + "attn_q.weight"] = mat(nh * hd, dim, 2.0)
        w[p + "attn_k.weight"] = mat(nkv * hd, dim, 2.0)
        w[p + "attn_v.weight"] = mat(nkv * hd, dim)
        w[p + "attn_output.weight"] = mat(dim, nh * hd)
        if arch == "qwen2":
            w[p + "attn_q.bias"] = (0.1 * rng.standard_normal(nh * hd)).astype(np.float32)
            w[p + "attn_k.bias"] = (0.1 * rng.standard_normal(nkv * hd)).astype(np.float32)
            w[p + "attn_v.bias"] = (0.1 * rng.standard_normal(nkv * hd)).astype(np.float32)
        w[p + "ffn_norm.weight"] = norm(dim)
        w[p + "ffn_gate.weight"] = mat(ffn, dim)
        w[p + "ffn_up.weight"] = mat(ffn, dim)
        w[p + "ffn_down.weight"] = mat(dim, ffn)
    w["output_norm.weight"] = norm(dim)
    w["output.weight"] = mat(nv, dim, 4.0)
    return w


def encode(arr: np.ndarray, type_name: str):
    """(data, raw_dtype) for gguf's writer: float types as numpy, quantized as ggml bytes
    (quantised on the device by openhip.llm.quant, byte-identical to ggml's C)."""
    from gguf import GGMLQuantizationType as G

    if type_name == "f32" or arr.ndim == 1:
        return arr.astype(np.float32), None
    if type_name == "f16":
        return arr.astype(np.float16), None
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from openhip.llm import quant

    qtype = {"bf16": G.BF16, "q8_0": G.Q8_0, "q4_0": G.Q4_0, "q4_1": G.Q4_1, "q5_0": G.Q5_0,
             "q5_1": G.Q5_1, "q4_k": G.Q4_K, "q6_k": G.Q6_K}[type_name]
    return quant.quantize(arr, type_name), qtype


FILE_TYPE = {"f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q8_0": 7, "q5_0": 8, "q5_1": 9,
             "q4_k": 15, "q6_k": 18, "bf16": 32}


def write_model(path: str | Path, size: str = "tiny", type_name: str = "f32",
                vocab: str = "llama", arch: str = "llama", seed: int = 0,
                **overrides) -> Path:
    """Write the model; returns its path. ``overrides`` replace entries of the size's config."""
    import gguf

    overrides_pre = overrides.pop("pre", None)  # the GPT-2 vocabulary's pre-tokenizer name
    cfg = dict(SIZES[size], **overrides)
    text = corpus()
    voc = llama_vocab(cfg["vocab"], text) if vocab == "llama" else gpt2_vocab(cfg["vocab"], text)
    path = Path(path)
    wr = gguf.GGUFWriter(str(path), arch)
    wr.add_name(f"openhip-random-{size}-{arch}")
    wr.add_file_type(FILE_TYPE[type_name])
    wr.add_context_length(cfg["ctx"])
    wr.add_embedding_length(cfg["dim"])
    wr.add_block_count(cfg["n_layer"])
    wr.add_feed_forward_length(cfg["ffn"])
    wr.add_head_count(cfg["n_head"])
    wr.add_head_count_kv(cfg["n_kv"])
    wr.add_rope_dimension_count(cfg["dim"] // cfg["n_head"])
    wr.add_rope_freq_base(10000.0 if arch != "qwen2" else 1000000.0)
    wr.add_layer_norm_rms_eps(1e-5 if arch != "qwen2" else 1e-6)
    wr.add_vocab_size(cfg["vocab"])
    wr.add_tokenizer_model(voc["model"])
    if voc["model"] == "gpt2":
        wr.add_tokenizer_pre(overrides_pre or "gpt-2")
    wr.add_token_list(voc["tokens"])
    if voc["scores"] is not None:
        wr.add_token_scores(voc["scores"])
    wr.add_token_types(voc["types"])
    if voc["merges"] is not None:
        wr.add_token_merges(voc["merges"])
    wr.add_bos_token_id(voc["bos"])
    wr.add_eos_token_id(voc["eos"])
    if voc["unk"] is not None:
        wr.add_unk_token_id(voc["unk"])
    wr.add_add_bos_token(voc["model"] == "llama")
    if voc["model"] == "llama":
        wr.add_add_space_prefix(True)
    for name, arr in random_weights(cfg, arch, seed).items():
        data, raw = encode(arr, type_name)
        if raw is None:
            wr.add_tensor(name, data)
        else:
            wr.add_tensor(name, data, raw_shape=data.shape, raw_dtype=raw)
    wr.write_header_to_file()
    wr.write_kv_data_to_file()
    wr.write_tensors_to_file()
    wr.close()
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--type", default="f32", choices=sorted(FILE_TYPE))
    ap.add_argument("--vocab", choices=("llama", "gpt2"), default="llama")
    ap.add_argument("--arch", choices=("llama", "mistral", "qwen2"), default="llama")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    path = write_model(args.out, args.size, args.type, args.vocab, args.arch, args.seed)
    print(f"{path}: {args.size} {args.arch} {args.type}, {args.vocab} vocabulary, "
          f"{path.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
