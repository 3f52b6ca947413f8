"""ggml's tensor types as openhip.llm knows them: ids, block sizes, bytes per block, and the
KV-cache type names (llama.cpp's ``-ctk``/``-ctv``)."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UnsupportedModelError

__all__ = ["GgmlType", "TYPES", "by_name", "by_id", "CACHE_TYPES", "cache_type", "row_bytes"]


@dataclass(frozen=True)
class GgmlType:
    """One ggml type: ``id`` (ggml.h's enum), ``name`` (lower case, llama.cpp's spelling),
    ``block`` values per block, ``bytes`` per block."""

    id: int
    name: str
    block: int
    bytes: int

    @property
    def quantized(self) -> bool:
        return self.block > 1


TYPES: tuple[GgmlType, ...] = (
    GgmlType(0, "f32", 1, 4),
    GgmlType(1, "f16", 1, 2),
    GgmlType(30, "bf16", 1, 2),
    GgmlType(8, "q8_0", 32, 34),
    GgmlType(2, "q4_0", 32, 18),
    GgmlType(3, "q4_1", 32, 20),
    GgmlType(6, "q5_0", 32, 22),
    GgmlType(7, "q5_1", 32, 24),
    GgmlType(12, "q4_k", 256, 144),
    GgmlType(14, "q6_k", 256, 210),
)
_BY_NAME = {t.name: t for t in TYPES}
_BY_ID = {t.id: t for t in TYPES}

#: The KV-cache types (llama.cpp's names).
CACHE_TYPES: tuple[str, ...] = ("f32", "f16", "bf16", "q8_0", "q4_0")


def by_name(name: str) -> GgmlType:
    """The type called ``name`` (``"q8_0"``, ``"Q4_K"``...); UnsupportedModelError otherwise."""
    t = _BY_NAME.get(str(name).lower())
    if t is None:
        raise UnsupportedModelError(
            f"unsupported tensor type {name!r}; supported: {', '.join(_BY_NAME)}")
    return t


def by_id(type_id: int, what: str = "tensor") -> GgmlType:
    """The type with ggml id ``type_id``; UnsupportedModelError naming it otherwise."""
    t = _BY_ID.get(int(type_id))
    if t is None:
        try:
            from gguf import GGMLQuantizationType

            label = GGMLQuantizationType(int(type_id)).name
        except (ImportError, ValueError):
            label = f"type id {type_id}"
        raise UnsupportedModelError(
            f"{what}: unsupported tensor type {label}; supported: "
            f"{', '.join(t.name.upper() for t in TYPES)}")
    return t


def cache_type(name: str) -> GgmlType:
    """A KV-cache type by llama.cpp's name; ValueError listing the choices otherwise."""
    key = str(name).lower()
    if key not in CACHE_TYPES:
        raise ValueError(f"unknown KV-cache type {name!r}; choose one of {', '.join(CACHE_TYPES)}")
    return _BY_NAME[key]


def row_bytes(t: GgmlType, n: int) -> int:
    """Bytes of ``n`` values of type ``t`` (``n`` a multiple of the block size)."""
    if n % t.block:
        raise ValueError(f"{n} values are not a whole number of {t.name} blocks ({t.block})")
    return n // t.block * t.bytes
