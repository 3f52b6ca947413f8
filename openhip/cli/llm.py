"""``openhip llm``: run a GGUF language model, or quantize one.

    openhip llm run m.gguf -p "text" -n 64 [--kv-cache q8_0] [--temp 0.8 --top-k 40 --seed 1]
    openhip llm quantize in.gguf out.gguf q8_0|q4_0|q4_1|q5_0|q5_1|q4_k|q6_k|f16|bf16|f32

``run`` streams the generated text and ends with ``N tokens: prefill X tok/s, decode Y tok/s``.
``quantize`` writes every ``blk.*`` weight matrix in the target type, as llama-quantize (see
openhip.llm.convert for the embedding and output matrices).
"""

from __future__ import annotations

import argparse
import sys
import time


def _run(args: argparse.Namespace) -> int:
    import openhip.llm as llm

    model = llm.load(args.model, kv_cache=args.kv_cache, cache_type_k=args.cache_type_k,
                     cache_type_v=args.cache_type_v, deterministic=args.deterministic,
                     n_ctx=args.ctx_size)
    ids = model.tokenize(args.prompt)
    if args.verbose:
        print(f"{model}; prompt {len(ids)} tokens; KV cache "
              f"{model.kv_bytes_per_token()} bytes/token", file=sys.stderr)
    out = sys.stdout
    if args.echo:
        out.write(args.prompt)
        out.flush()
    t0 = time.perf_counter()
    t_first = None
    n = 0
    for tok in model.generate(ids, max_tokens=args.n_predict, temperature=args.temp,
                              top_k=args.top_k, top_p=args.top_p, min_p=args.min_p,
                              seed=args.seed, stop_at_eos=not args.ignore_eos):
        if t_first is None:
            t_first = time.perf_counter()
        n += 1
        out.write(tok.text)
        out.flush()
    t_end = time.perf_counter()
    prefill = len(ids) / (t_first - t0) if t_first else 0.0
    decode = (n - 1) / (t_end - t_first) if t_first and n > 1 else 0.0
    out.write(f"\n{n} tokens: prefill {prefill:.1f} tok/s, decode {decode:.1f} tok/s\n")
    return 0


def _quantize(args: argparse.Namespace) -> int:
    from openhip.llm.convert import quantize_file

    chosen = quantize_file(args.input, args.output, args.type)
    kinds: dict[str, int] = {}
    for t in chosen.values():
        kinds[t] = kinds.get(t, 0) + 1
    print(f"{args.output}: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) +
          " tensors")
    return 0


def run(argv: list[str]) -> int:
    """Entry point of ``openhip llm``; returns the exit code."""
    from openhip.llm.errors import GGUFError

    ap = argparse.ArgumentParser(prog="openhip llm", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="generate text from a prompt")
    r.add_argument("model")
    r.add_argument("-p", "--prompt", default="")
    r.add_argument("-n", "--n-predict", type=int, default=64)
    r.add_argument("-c", "--ctx-size", type=int, default=None)
    r.add_argument("--kv-cache", default=None, help="f32, f16 (default), bf16, q8_0, q4_0")
    r.add_argument("-ctk", "--cache-type-k", default=None)
    r.add_argument("-ctv", "--cache-type-v", default=None)
    r.add_argument("--temp", type=float, default=0.0)
    r.add_argument("--top-k", type=int, default=0)
    r.add_argument("--top-p", type=float, default=1.0)
    r.add_argument("--min-p", type=float, default=0.0)
    r.add_argument("--seed", type=int, default=None)
    r.add_argument("--ignore-eos", action="store_true")
    r.add_argument("--deterministic", action="store_true")
    r.add_argument("--echo", action="store_true", help="print the prompt first")
    r.add_argument("-v", "--verbose", action="store_true")
    q = sub.add_parser("quantize", help="rewrite a model's weights in another type")
    q.add_argument("input")
    q.add_argument("output")
    q.add_argument("type")
    args = ap.parse_args(argv)
    try:
        return _run(args) if args.cmd == "run" else _quantize(args)
    except (GGUFError, ValueError, FileNotFoundError) as exc:
        print(f"openhip llm: {exc}", file=sys.stderr)
        return 1
