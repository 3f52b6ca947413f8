"""The Array API inspection namespace (``hnp.__array_namespace_info__()``)."""

from __future__ import annotations

from typing import Any

from ..runtime.device import Device, devices, get_device
from . import _dtypes as D

__all__ = ["Info", "__array_namespace_info__"]

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class Info:
    """What this library supports: capabilities, devices and dtypes."""

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 8}

    def default_device(self) -> Device:
        return get_device()

    def devices(self) -> list[Device]:
        return list(devices())

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        return {"real floating": D.float64, "complex floating": D.complex128,
                "integral": D.int64, "indexing": D.int64}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        if kind is None:
            names = ("bool",) + _KINDS["numeric"]
        elif isinstance(kind, tuple):
            names = tuple(dict.fromkeys(n for k in kind for n in self._names(k)))
        else:
            names = self._names(kind)
        return {n: getattr(D, n) for n in names}

    @staticmethod
    def _names(kind: Any) -> tuple[str, ...]:
        if isinstance(kind, str):
            if kind not in _KINDS:
                raise ValueError(f"unknown dtype kind {kind!r}")
            return _KINDS[kind]
        dt = D.to_dtype(kind)
        return (dt.name,)


def __array_namespace_info__() -> Info:
    """The inspection namespace of openhip.numpy."""
    return Info()
