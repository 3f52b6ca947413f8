"""Reading a llama-family GGUF file: hyper-parameters from its metadata, the tensors (checked
against the file's size, so nothing is read past its end), the tokenizer."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import GGUFError, UnsupportedModelError
from .tokenizer import Tokenizer
from .types import GgmlType, by_id

__all__ = ["HParams", "GGUFModelFile", "ARCHITECTURES", "open_gguf"]

#: architecture -> (RoPE NeoX style, attention q/k/v biases)
ARCHITECTURES: dict[str, tuple[bool, bool]] = {
    "llama": (False, False),
    "mistral": (False, False),
    "qwen2": (True, True),
}


@dataclass(frozen=True)
class HParams:
    """The hyper-parameters of a llama-family model."""

    arch: str
    n_vocab: int
    n_ctx_train: int
    dim: int
    n_layer: int
    n_head: int
    n_kv: int
    ffn: int
    head_dim: int
    n_rot: int
    eps: float
    rope_base: float
    rope_scale: float
    neox: bool
    qkv_bias: bool


@dataclass
class Tensor:
    """One tensor: its ggml type, shape as (rows, columns) of values, and its bytes."""

    name: str
    type: GgmlType
    shape: tuple[int, ...]
    data: np.ndarray  # uint8 (quantized) or float32/float16 (memory-mapped from the file)


class GGUFModelFile:
    """A parsed GGUF model: ``hparams``, ``tensors`` (name -> Tensor), ``tokenizer``."""

    def __init__(self, hparams: HParams, tensors: dict[str, Tensor], tokenizer: Tokenizer,
                 path: Path) -> None:
        self.hparams = hparams
        self.tensors = tensors
        self.tokenizer = tokenizer
        self.path = path

    def tensor(self, name: str) -> Tensor:
        t = self.tensors.get(name)
        if t is None:
            raise GGUFError(f"{self.path}: tensor {name!r} is missing")
        return t


def _field(fields: dict, key: str, default: Any = None, required: bool = False) -> Any:
    f = fields.get(key)
    if f is None:
        if required:
            raise GGUFError(f"metadata key {key!r} is missing")
        return default
    try:
        return f.contents()
    except Exception as exc:  # noqa: BLE001 - a corrupt field
        raise GGUFError(f"metadata key {key!r} cannot be read: {exc}") from exc


def open_gguf(path: str | os.PathLike) -> GGUFModelFile:
    """Parse ``path``; GGUFError for a truncated or corrupt file, UnsupportedModelError for an
    architecture or tensor type openhip.llm does not run (naming it)."""
    import gguf

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such GGUF file: {path}")
    size = path.stat().st_size
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        raise GGUFError(f"{path}: not a GGUF file (magic {magic!r}, expected b'GGUF')")
    try:
        reader = gguf.GGUFReader(str(path))
    except (ValueError, IndexError, KeyError, OverflowError, MemoryError, UnicodeDecodeError,
            TypeError) as exc:
        raise GGUFError(f"{path}: truncated or corrupt GGUF file ({type(exc).__name__}: "
                        f"{exc})") from exc
    fields = reader.fields
    arch = _field(fields, "general.architecture", required=True)
    if arch not in ARCHITECTURES:
        raise UnsupportedModelError(
            f"{path}: unsupported architecture {arch!r} (supported: {', '.join(ARCHITECTURES)})")
    neox, bias = ARCHITECTURES[arch]

    def hp(key: str, default: Any = None, required: bool = True) -> Any:
        return _field(fields, f"{arch}.{key}", default, required and default is None)

    dim = int(hp("embedding_length"))
    n_head = int(hp("attention.head_count"))
    head_dim = int(hp("attention.key_length", dim // max(n_head, 1)))
    tensors: dict[str, Tensor] = {}
    for t in reader.tensors:
        gt = by_id(int(t.tensor_type), what=f"tensor {t.name}")
        end = int(t.data_offset) + int(t.n_bytes)
        if end > size or int(t.data_offset) < 0:
            raise GGUFError(f"{path}: tensor {t.name} lies past the end of the file "
                            f"({end} > {size} bytes): truncated")
        shape = tuple(int(s) for s in reversed(list(t.shape)))  # (rows, columns)
        if shape[-1] % gt.block:
            raise GGUFError(f"{path}: tensor {t.name} has {shape[-1]} columns, not whole "
                            f"{gt.name} blocks")
        tensors[t.name] = Tensor(t.name, gt, shape, t.data)
    tok = _tokenizer(fields, path)
    n_vocab = int(_field(fields, f"{arch}.vocab_size", tok.n_vocab))
    emb = tensors.get("token_embd.weight")
    if emb is None:
        raise GGUFError(f"{path}: tensor 'token_embd.weight' is missing")
    hparams = HParams(
        arch=arch, n_vocab=n_vocab, n_ctx_train=int(hp("context_length", 2048)), dim=dim,
        n_layer=int(hp("block_count")), n_head=n_head,
        n_kv=int(hp("attention.head_count_kv", n_head)), ffn=int(hp("feed_forward_length")),
        head_dim=head_dim, n_rot=int(hp("rope.dimension_count", head_dim)),
        eps=float(hp("attention.layer_norm_rms_epsilon", 1e-5)),
        rope_base=float(hp("rope.freq_base", 10000.0)),
        rope_scale=1.0 / float(hp("rope.scaling.factor", 1.0) or 1.0),
        neox=neox, qkv_bias=bias)
    _check(hparams, tensors, path)
    return GGUFModelFile(hparams, tensors, tok, path)


def _check(h: HParams, tensors: dict[str, Tensor], path: Path) -> None:
    if h.n_head % h.n_kv:
        raise GGUFError(f"{path}: {h.n_head} heads are not a multiple of {h.n_kv} KV heads")
    if h.head_dim > 256 or h.head_dim % 32:
        raise UnsupportedModelError(f"{path}: head dimension {h.head_dim} (supported: multiples "
                                    f"of 32 up to 256)")
    if h.dim % 32 or h.ffn % 32:
        raise UnsupportedModelError(f"{path}: dimensions {h.dim}/{h.ffn} are not multiples of 32")
    want = {"token_embd.weight": (h.n_vocab, h.dim), "output_norm.weight": (h.dim,)}
    for i in range(h.n_layer):
        p = f"blk.{i}."
        want.update({
            p + "attn_norm.weight": (h.dim,), p + "ffn_norm.weight": (h.dim,),
            p + "attn_q.weight": (h.n_head * h.head_dim, h.dim),
            p + "attn_k.weight": (h.n_kv * h.head_dim, h.dim),
            p + "attn_v.weight": (h.n_kv * h.head_dim, h.dim),
            p + "attn_output.weight": (h.dim, h.n_head * h.head_dim),
            p + "ffn_gate.weight": (h.ffn, h.dim), p + "ffn_up.weight": (h.ffn, h.dim),
            p + "ffn_down.weight": (h.dim, h.ffn)})
    for name, shape in want.items():
        t = tensors.get(name)
        if t is None:
            raise GGUFError(f"{path}: tensor {name!r} is missing")
        if t.shape != shape:
            raise GGUFError(f"{path}: tensor {name} has shape {t.shape}, expected {shape}")
    out = tensors.get("output.weight")
    if out is not None and out.shape != (h.n_vocab, h.dim):
        raise GGUFError(f"{path}: tensor output.weight has shape {out.shape}, expected "
                        f"{(h.n_vocab, h.dim)}")


def _tokenizer(fields: dict, path: Path) -> Tokenizer:
    model = _field(fields, "tokenizer.ggml.model", required=True)
    tokens = _field(fields, "tokenizer.ggml.tokens", required=True)
    try:
        return Tokenizer(
            str(model), list(tokens), scores=_field(fields, "tokenizer.ggml.scores"),
            types=_field(fields, "tokenizer.ggml.token_type"),
            merges=_field(fields, "tokenizer.ggml.merges"),
            bos=_field(fields, "tokenizer.ggml.bos_token_id"),
            eos=_field(fields, "tokenizer.ggml.eos_token_id"),
            unk=_field(fields, "tokenizer.ggml.unknown_token_id"),
            add_bos=_field(fields, "tokenizer.ggml.add_bos_token"),
            add_space_prefix=bool(_field(fields, "tokenizer.ggml.add_space_prefix", True)),
            pre=_field(fields, "tokenizer.ggml.pre"))
    except UnsupportedModelError as exc:
        raise UnsupportedModelError(f"{path}: {exc}") from exc
