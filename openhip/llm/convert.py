"""``openhip llm quantize``: rewrite a GGUF model's weights in another ggml type, as llama.cpp's
``llama-quantize`` does for a base type (no importance matrix):

* every ``blk.*`` weight matrix in the target type;
* ``token_embd.weight`` in the target type (llama-quantize's default embedding type);
* ``output.weight`` in Q6_K when the target is a quantized type other than Q8_0 (Q8_0 where its
  rows are not whole 256-value super-blocks), in the target type otherwise;
* 1-D tensors (norms, biases) stay F32;
* a matrix whose rows do not split into the target's blocks falls back as llama-quantize does
  (Q4_K -> Q5_0, Q6_K -> Q8_0; F32 when even that does not fit).

The tensors are dequantised and quantised on the device (byte for byte as ggml's C).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from . import quant
from .errors import GGUFError
from .gguf_file import open_gguf
from .types import GgmlType, by_name

__all__ = ["quantize_file", "FILE_TYPES", "target_type"]

#: llama.cpp's general.file_type values (enum llama_ftype) of the base types
FILE_TYPES = {"f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q8_0": 7, "q5_0": 8, "q5_1": 9,
              "q4_k": 15, "q6_k": 18, "bf16": 32}
_FALLBACK = {"q4_k": "q5_0", "q6_k": "q8_0"}


def target_type(name: str, shape: tuple[int, ...], target: GgmlType) -> GgmlType:
    """The type llama-quantize gives tensor ``name`` of ``shape`` for base type ``target``."""
    if len(shape) == 1:
        return by_name("f32")
    t = target
    if name == "output.weight" and t.quantized and t.name != "q8_0":
        t = by_name("q6_k") if shape[-1] % 256 == 0 else by_name("q8_0")
    while shape[-1] % t.block:
        t = by_name(_FALLBACK.get(t.name, "f32"))
    return t


def quantize_file(src: str | os.PathLike, dst: str | os.PathLike, type_name: str) -> dict:
    """Write ``dst``: ``src`` with its weights in ``type_name``; returns {tensor: type name}."""
    import gguf

    target = by_name(type_name)
    if type_name.lower() not in FILE_TYPES:
        raise ValueError(f"unsupported target type {type_name!r}; choose one of "
                         f"{', '.join(FILE_TYPES)}")
    model = open_gguf(src)  # validates the source
    if Path(dst).resolve() == Path(src).resolve():
        raise ValueError("the output file must differ from the input file")
    reader = gguf.GGUFReader(str(src))
    arch = model.hparams.arch
    writer = gguf.GGUFWriter(str(dst), arch)
    for key, field in reader.fields.items():
        if key.startswith("GGUF.") or key in ("general.architecture", "general.file_type"):
            continue
        kind = field.types[0]
        value = field.contents()
        if kind == gguf.GGUFValueType.ARRAY:
            writer.add_array(key, value)
        elif kind == gguf.GGUFValueType.STRING:
            writer.add_string(key, value)
        else:
            writer.add_key_value(key, value, kind)
    writer.add_file_type(FILE_TYPES[target.name])
    chosen: dict[str, str] = {}
    for name, t in model.tensors.items():
        new = target_type(name, t.shape, target)
        chosen[name] = new.name
        if new.name == t.type.name:
            data, raw = np.asarray(t.data), t.type
        else:
            values = (np.asarray(t.data, np.float32) if t.type.name == "f32" else
                      quant.dequantize(np.asarray(t.data).view(np.uint8), t.type))
            values = values.reshape(t.shape)
            if new.name == "f32":
                data, raw = values, None
            elif new.name == "f16":
                data, raw = values.astype(np.float16), None
            else:
                data, raw = quant.quantize(values, new), new
        if raw is None or raw.name in ("f32", "f16"):
            writer.add_tensor(name, np.ascontiguousarray(data))
        else:
            gtype = gguf.GGMLQuantizationType(raw.id)
            data = np.ascontiguousarray(data).view(np.uint8).reshape(t.shape[0], -1) \
                if len(t.shape) == 2 else np.ascontiguousarray(data).view(np.uint8)
            writer.add_tensor(name, data, raw_shape=data.shape, raw_dtype=gtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    try:
        open_gguf(dst)
    except GGUFError as exc:  # pragma: no cover - a writer bug
        raise GGUFError(f"the written file {dst} does not read back: {exc}") from exc
    return chosen
