#!/usr/bin/env python3
"""openhip.llm against llama.cpp (llama-cpp-python) on the same GGUF file, CPU, thread count.

    python3 bench/bench_llm.py [--model m.gguf] [--threads 2] [--prompt 128] [--gen 32]
                               [--repeats 3] [--agree] [--no-speed]

Without --model a ~100M-parameter Q8_0 llama model is generated (tools/make_gguf_model.py,
cached under $TMPDIR). Speed: prefill tok/s (time to the first generated token of a --prompt
token prompt) and decode tok/s (the next --gen tokens), medians over --repeats, the two engines
alternating; the weight bytes read per decoded token against a measured memory bandwidth; the
cost of deterministic mode. --agree: max |dlogit| and top-1 agreement over 200 positions for F32,
Q8_0 and Q4_0 weights and each KV-cache type. llama-cpp-python is optional (only openhip's
figures without it); keep this script out of CI.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

GGML_TYPE = {"f32": 0, "f16": 1, "q4_0": 2, "q8_0": 8, "bf16": 30}


def model_path(size: str, wtype: str) -> Path:
    import make_gguf_model

    path = Path(tempfile.gettempdir()) / f"openhip-bench-{size}-{wtype}.gguf"
    if not path.exists():
        make_gguf_model.write_model(path, size, wtype)
    return path


def memory_bandwidth() -> float:
    """GB/s of a 256 MiB numpy copy (read + write), best of 3."""
    a = np.ones(32 << 20, np.float64)
    b = np.empty_like(a)
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        np.copyto(b, a)
        best = max(best, 2 * a.nbytes / (time.perf_counter() - t) / 1e9)
    return best


def openhip_speed(model, ids: list[int], gen: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    it = model.generate(ids, max_tokens=gen + 1, stop_at_eos=False)
    next(it)
    t1 = time.perf_counter()
    n = sum(1 for _ in it)
    t2 = time.perf_counter()
    return len(ids) / (t1 - t0), n / (t2 - t1)


def llama_speed(ll, ids: list[int], gen: int) -> tuple[float, float]:
    ll.reset()
    t0 = time.perf_counter()
    ll.eval(ids)
    t1 = time.perf_counter()
    tok = int(np.argmax(ll.scores[len(ids) - 1]))
    for _ in range(gen):
        ll.eval([tok])
        tok = int(np.argmax(ll.scores[ll.n_tokens - 1]))
    t2 = time.perf_counter()
    return len(ids) / (t1 - t0), gen / (t2 - t1)


def llama(path: Path, threads: int, n_ctx: int, cache: str = "f16", logits_all: bool = False):
    import llama_cpp

    kw = {}
    if cache != "f16":
        kw = dict(type_k=GGML_TYPE[cache], type_v=GGML_TYPE[cache], flash_attn=True)
    return llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads,
                           n_threads_batch=threads, n_batch=n_ctx, logits_all=logits_all,
                           verbose=False, **kw)


def speed(args) -> None:
    import openhip.llm as llm

    path = Path(args.model) if args.model else model_path("100m", "q8_0")
    det = llm.load(path, deterministic=True, n_ctx=args.prompt + args.gen + 8)
    fast = llm.load(path, n_ctx=args.prompt + args.gen + 8)
    rng = np.random.default_rng(0)
    ids = [1] + rng.integers(3, fast.n_vocab, args.prompt - 1).tolist()
    try:
        ll = llama(path, args.threads, args.prompt + args.gen + 8)
    except ImportError:
        ll = None
    res: dict[str, list] = {"oh": [], "ohdet": [], "ll": []}
    for _ in range(args.repeats):
        res["oh"].append(openhip_speed(fast, ids, args.gen))
        res["ohdet"].append(openhip_speed(det, ids, args.gen))
        if ll is not None:
            res["ll"].append(llama_speed(ll, ids, args.gen))
    med = {k: (statistics.median(p for p, _ in v), statistics.median(d for _, d in v))
           for k, v in res.items() if v}
    bw = memory_bandwidth()
    wb = fast.weight_bytes
    print(f"model {path.name}: {fast.n_params / 1e6:.1f}M params, weights read per token "
          f"{wb / 1e6:.1f} MB; threads {args.threads}; load {os.getloadavg()[0]:.2f}")
    print(f"memory bandwidth (numpy copy, 1 thread): {bw:.1f} GB/s -> bound "
          f"{bw * 1e9 / wb:.0f} tok/s decode")
    for k, label in (("oh", "openhip"), ("ohdet", "openhip deterministic"), ("ll", "llama.cpp")):
        if k in med:
            p, d = med[k]
            runs = res[k]
            print(f"{label:22s} prefill {p:8.1f} tok/s  decode {d:7.1f} tok/s  "
                  f"({d * wb / 1e9:.2f} GB/s of weights; runs: prefill "
                  f"{min(r[0] for r in runs):.0f}-{max(r[0] for r in runs):.0f}, decode "
                  f"{min(r[1] for r in runs):.0f}-{max(r[1] for r in runs):.0f})")
    if "ll" in med:
        print(f"ratio openhip/llama.cpp: prefill {med['oh'][0] / med['ll'][0]:.2f}x, decode "
              f"{med['oh'][1] / med['ll'][1]:.2f}x")
    print(f"deterministic cost (time ratio): prefill {med['oh'][0] / med['ohdet'][0]:.2f}x, "
          f"decode {med['oh'][1] / med['ohdet'][1]:.2f}x")


def agree(args) -> None:
    import openhip.llm as llm

    rng = np.random.default_rng(1)
    for wtype in ("f32", "q8_0", "q4_0"):
        path = model_path("small", wtype)
        ids = None
        for cache in ("f32", "f16", "q8_0", "q4_0"):
            model = llm.load(path, kv_cache=cache)
            if ids is None:
                ids = [1] + rng.integers(3, model.n_vocab, 199).tolist()
            got = model.logits(ids)
            ll = llama(path, args.threads, 256, cache, logits_all=True)
            ll.reset()
            ll.eval(ids)
            ref = np.array(ll.scores[: len(ids)], np.float32)
            top1 = float((ref.argmax(-1) == got.argmax(-1)).mean())
            print(f"weights {wtype:5s} cache {cache:5s}: max|dlogit| "
                  f"{np.abs(ref - got).max():.4g} (logit range {np.abs(ref).max():.3g}), "
                  f"top-1 agreement {top1 * 100:.1f}% over {len(ids)} positions")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model")
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OPENHIP_CPU_THREADS", 0))
                    or os.cpu_count())
    ap.add_argument("--prompt", type=int, default=128)
    ap.add_argument("--gen", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--agree", action="store_true")
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("OPENHIP_CPU_THREADS", str(args.threads))
    if not args.no_speed:
        speed(args)
    if args.agree:
        agree(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
