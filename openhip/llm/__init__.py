"""openhip.llm: GGUF language models (the llama family: llama, mistral, qwen2) on every openhip
platform, with ggml's quantized tensor types, a KV cache in f32/f16/bf16/q8_0/q4_0, and a
deterministic mode whose logprobs agree bit for bit between one prefill pass and token-by-token
generation.

    model = openhip.llm.load("m.gguf", kv_cache="q8_0", deterministic=True)
    ids = model.tokenize("Hello")
    for tok in model.generate(ids, max_tokens=16): print(tok.text, end="")
"""

from __future__ import annotations

from .errors import GGUFError, UnsupportedModelError
from .types import CACHE_TYPES

__all__ = ["load", "GGUFError", "UnsupportedModelError", "CACHE_TYPES"]


def load(path, kv_cache: str | None = None, cache_type_k: str | None = None,
         cache_type_v: str | None = None, deterministic: bool = False, n_ctx: int | None = None):
    """Load a GGUF model file onto the current device; see :class:`openhip.llm.model.Model`.

    ``kv_cache`` (default ``"f16"``, or ``OPENHIP_KV_CACHE_TYPE``) sets both cache types;
    ``cache_type_k``/``cache_type_v`` override one each (llama.cpp's ``-ctk``/``-ctv``).
    ``n_ctx`` defaults to the model's context length (at most 4096)."""
    from .model import Model

    return Model(path, kv_cache=kv_cache, cache_type_k=cache_type_k, cache_type_v=cache_type_v,
                 deterministic=deterministic, n_ctx=n_ctx)
