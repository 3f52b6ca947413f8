"""Quantise and dequantise ggml tensor types on the device, byte for byte as ggml's C reference
(``quantize_row_*_ref`` / ``dequantize_row_*`` of ggml-quants.c)."""

from __future__ import annotations

from typing import Any

import numpy as np

import openhip as hip

from . import kernels
from .types import GgmlType, by_name

__all__ = ["quantize", "dequantize", "quantize_device", "dequantize_device"]

_BLOCK = 64


def _type(t: GgmlType | str) -> GgmlType:
    return t if isinstance(t, GgmlType) else by_name(t)


def quantize_device(x: Any, t: GgmlType | str, out: Any = None):
    """Quantise the float32 device array ``x`` (its size a multiple of the block) into ``out`` (a
    uint8 device array of the right size, made when None); returns ``out``."""
    t = _type(t)
    if x.dtype != np.float32:
        raise TypeError(f"quantize: x must be float32, not {x.dtype}")
    if x.size % t.block:
        raise ValueError(f"quantize: {x.size} values are not whole {t.name} blocks of {t.block}")
    nblocks = x.size // t.block
    if out is None:
        out = hip.empty(nblocks * t.bytes, np.uint8)
    elif out.nbytes != nblocks * t.bytes:
        raise ValueError(f"quantize: out holds {out.nbytes} bytes, {nblocks * t.bytes} needed")
    if nblocks:
        kernels.function("quant", f"oh_quantize<{t.id}>")(
            (nblocks + _BLOCK - 1) // _BLOCK, _BLOCK, (x, out, nblocks))
    return out


def dequantize_device(q: Any, t: GgmlType | str, out: Any = None):
    """Dequantise the uint8 device array ``q`` of type ``t`` into a float32 device array."""
    t = _type(t)
    if q.nbytes % t.bytes:
        raise ValueError(f"dequantize: {q.nbytes} bytes are not whole {t.name} blocks of "
                         f"{t.bytes} bytes")
    nblocks = q.nbytes // t.bytes
    if out is None:
        out = hip.empty(nblocks * t.block, np.float32)
    elif out.size != nblocks * t.block or out.dtype != np.float32:
        raise ValueError(f"dequantize: out must be {nblocks * t.block} float32 values")
    if nblocks:
        kernels.function("quant", f"oh_dequantize<{t.id}>")(
            (nblocks + _BLOCK - 1) // _BLOCK, _BLOCK, (q, out, nblocks))
    return out


def quantize(x: np.ndarray, t: GgmlType | str) -> np.ndarray:
    """Quantise a float array (last axis a multiple of the block) on the device; returns the bytes
    as a uint8 numpy array of shape ``x.shape[:-1] + (row bytes,)`` (gguf's layout)."""
    t = _type(t)
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim == 0 or x.shape[-1] % t.block:
        raise ValueError(f"quantize: the last axis ({x.shape[-1:] or 'scalar'}) is not a "
                         f"multiple of {t.name}'s block of {t.block}")
    out = quantize_device(hip.asarray(x.reshape(-1)), t).get()
    return out.reshape(*x.shape[:-1], x.shape[-1] // t.block * t.bytes)


def dequantize(q: np.ndarray, t: GgmlType | str) -> np.ndarray:
    """Dequantise gguf-layout bytes (uint8, last axis whole blocks) to float32 on the device."""
    t = _type(t)
    q = np.ascontiguousarray(q).view(np.uint8)
    if q.ndim == 0 or q.shape[-1] % t.bytes:
        raise ValueError(f"dequantize: the last axis is not whole {t.name} blocks of {t.bytes} "
                         f"bytes")
    out = dequantize_device(hip.asarray(q.reshape(-1)), t).get()
    return out.reshape(*q.shape[:-1], q.shape[-1] // t.bytes * t.block)
