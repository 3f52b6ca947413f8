"""Language-model generation with openhip.llm on a generated GGUF model (seeded random weights,
a real small vocabulary; tools/make_gguf_model.py): greedy text through a Q8_0 KV cache, and the
train/inference check of deterministic mode — the logprobs of prompt + generated tokens in one
prefill pass equal, bit for bit, the logprobs generation produced one token at a time."""

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import make_gguf_model  # noqa: E402

import openhip.llm as llm  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = make_gguf_model.write_model(Path(tmp) / "tiny.gguf", "tiny", "q8_0")
        model = llm.load(path, kv_cache="q8_0", deterministic=True)
        print(model, f"KV cache {model.kv_bytes_per_token()} bytes/token")
        prompt = model.tokenize("Once upon a time")
        toks = list(model.generate(prompt, max_tokens=16, stop_at_eos=False))
        print("generated:", repr("".join(t.text for t in toks)))
        lp = model.logprobs(prompt + [t.id for t in toks])[len(prompt) - 1:]
        same = np.array_equal(lp.view(np.uint32),
                              np.array([t.logprob for t in toks], np.float32).view(np.uint32))
        print(f"prefill logprobs == generation logprobs bit for bit: {same}")
        assert same


if __name__ == "__main__":
    main()
