"""Kernel arguments: from the parameter types in the kernel's signature to packed bytes.

Each parameter's C++ type (from :mod:`openhip.compiler.scan`, typedefs resolved) is classified as
a pointer, a scalar with a numpy dtype, a HIP vector type (``float4``...) or an opaque struct.
Python values are converted to the parameter's type — ``3`` for a ``float`` becomes ``3.0f``, a
``2**40`` for an ``int`` is an error — and a value of the wrong kind raises TypeError naming the
parameter. The packed layout follows the C ABI (natural alignment), as cuLaunchKernel and
hipModuleLaunchKernel expect for their ``kernelParams``.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..compiler.scan import Param
from ..errors import HipError
from ..platforms.base import PackedArgs

__all__ = ["ParamSpec", "classify", "ArgumentPacker"]

_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "class",
               "typename", "signed", "register"}

_SCALARS: dict[str, str] = {
    "bool": "?", "char": "b", "signed char": "b", "unsigned char": "B", "int8_t": "b",
    "uint8_t": "B", "short": "h", "short int": "h", "unsigned short": "H",
    "unsigned short int": "H", "int16_t": "h", "uint16_t": "H", "int": "i", "unsigned": "I",
    "unsigned int": "I", "int32_t": "i", "uint32_t": "I", "long": "q", "long int": "q",
    "unsigned long": "Q", "unsigned long int": "Q", "long long": "q", "long long int": "q",
    "unsigned long long": "Q", "unsigned long long int": "Q", "int64_t": "q", "uint64_t": "Q",
    "size_t": "Q", "ssize_t": "q", "ptrdiff_t": "q", "intptr_t": "q", "uintptr_t": "Q",
    "float": "f", "double": "d", "hipDeviceptr_t": "P", "CUdeviceptr": "Q",
    "__half": "e", "half": "e", "_Float16": "e", "__fp16": "e",
}
_BF16_NAMES = {"__hip_bfloat16", "hip_bfloat16", "__nv_bfloat16", "__bf16", "bfloat16"}
_VECTOR_BASES = {
    "char": "b", "uchar": "B", "short": "h", "ushort": "H", "int": "i", "uint": "I",
    "long": "q", "ulong": "Q", "longlong": "q", "ulonglong": "Q", "float": "f", "double": "d",
}
_PAIR_TYPES = {"__half2": ("e", 2, 4), "half2": ("e", 2, 4), "__hip_bfloat162": ("bf16", 2, 4),
               "__nv_bfloat162": ("bf16", 2, 4)}


@dataclass(frozen=True)
class ParamSpec:
    """How one parameter is passed: ``kind`` is pointer | scalar | vector | opaque."""

    name: str
    type: str
    kind: str
    code: str = ""  # struct code of the element ("f", "i", "bf16"...)
    count: int = 1  # elements (vector types)
    size: int = 8
    align: int = 8

    @property
    def label(self) -> str:
        return f"parameter {self.name!r} ({self.type})" if self.name else f"a {self.type} parameter"


def _strip(type_text: str) -> str:
    words = [w for w in type_text.replace("*", " * ").replace("&", " & ").split()
             if w not in _QUALIFIERS]
    return " ".join(words)


def _resolve(type_text: str, typedefs: dict[str, str]) -> str:
    seen = 0
    text = _strip(type_text)
    while seen < 16:
        base = text.replace(" *", "").replace("*", "").strip()
        if base in typedefs and "*" not in base:
            stars = text.count("*")
            text = _strip(typedefs[base]) + " *" * stars
            seen += 1
            continue
        break
    return text


def _code_size(code: str) -> int:
    return 2 if code == "bf16" else struct.calcsize(code)


def classify(param: Param, typedefs: dict[str, str] | None = None,
             size_hint: int | None = None) -> ParamSpec:
    """The :class:`ParamSpec` of a scanned parameter."""
    text = _resolve(param.type, typedefs or {})
    text = text.replace("std::", "").replace("::", "")
    if "*" in text or text.endswith("&"):
        return ParamSpec(param.name, param.type, "pointer", "P", 1, 8, 8)
    if text in _SCALARS:
        code = _SCALARS[text]
        size = struct.calcsize(code)
        return ParamSpec(param.name, param.type, "scalar", code, 1, size, size)
    if text in _BF16_NAMES:
        return ParamSpec(param.name, param.type, "scalar", "bf16", 1, 2, 2)
    if text in _PAIR_TYPES:
        code, n, size = _PAIR_TYPES[text]
        return ParamSpec(param.name, param.type, "vector", code, n, size, size)
    for base, code in _VECTOR_BASES.items():
        if text.startswith(base) and text[len(base):] in ("1", "2", "3", "4"):
            n = int(text[len(base):])
            esize = struct.calcsize(code)
            # CUDA/HIP alignment: 2- and 4-vectors aligned to their size (capped at 16),
            # 1- and 3-vectors to their element.
            align = min(esize * n, 16) if n in (2, 4) else esize
            size = esize * n
            size = (size + align - 1) // align * align
            return ParamSpec(param.name, param.type, "vector", code, n, size, align)
    if size_hint:
        return ParamSpec(param.name, param.type, "opaque", "", 1, size_hint,
                         min(size_hint & -size_hint, 16))
    return ParamSpec(param.name, param.type, "opaque", "", 1, 0, 1)


def _int_range(code: str) -> tuple[int, int]:
    bits = struct.calcsize(code) * 8
    if code in "bhiqn":
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _pointer_converter(spec: ParamSpec, device) -> Callable[[Any], int]:
    from .array import DeviceArray
    from .memory import DeviceBuffer

    def convert(value: Any) -> int:
        if type(value) is DeviceArray:  # the hot path: no property calls
            data = value.data
            mem = data.mem
            if mem.device is device and mem._ptr is not None:
                return mem._ptr + data.offset
        if isinstance(value, DeviceArray):
            if value.device is not device:
                raise TypeError(f"{spec.label}: the array lives on device {value.device.id}, "
                                f"the kernel on device {device.id}")
            return value.data.ptr
        if isinstance(value, DeviceBuffer):
            return value.ptr
        if value is None:
            return 0
        cai = getattr(value, "__cuda_array_interface__", None)
        if cai is not None and device.platform != "cpu":
            return int(cai["data"][0])
        ptr = getattr(value, "ptr", None)
        if isinstance(ptr, int) and not isinstance(value, (int, float, np.generic, np.ndarray)):
            return ptr
        hint = " (use openhip.asarray() to copy it to the device)" if isinstance(
            value, np.ndarray) else ""
        raise TypeError(f"{spec.label} needs device memory (DeviceArray, DeviceBuffer or "
                        f"None); got {type(value).__name__}{hint}")

    return convert


def _scalar_converter(spec: ParamSpec) -> Callable[[Any], Any]:
    code = spec.code
    if code == "?":
        def convert_bool(value: Any) -> bool:
            if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer))
                                                       and value in (0, 1)):
                return bool(value)
            raise TypeError(f"{spec.label} takes a bool; got {type(value).__name__}")
        return convert_bool
    if code in "bBhHiIqQ":
        lo, hi = _int_range(code)

        def convert_int(value: Any) -> int:
            if isinstance(value, (bool, np.bool_)):
                return int(value)
            if isinstance(value, (int, np.integer)):
                v = int(value)
                if not lo <= v <= hi:
                    raise TypeError(f"{spec.label}: {v} does not fit (range {lo}..{hi})")
                return v
            raise TypeError(f"{spec.label} takes an integer; got {type(value).__name__}"
                            + (f" {value!r}" if isinstance(value, (float, np.floating)) else ""))
        return convert_int
    if code in ("f", "d", "e", "bf16"):
        def convert_float(value: Any) -> float:
            if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
                    value, (bool, np.bool_)):
                return float(value)
            raise TypeError(f"{spec.label} takes a number; got {type(value).__name__}")
        return convert_float
    raise AssertionError(code)


def _bf16_bits(x: float) -> int:
    import ml_dtypes

    return int(np.array(x, dtype=ml_dtypes.bfloat16).view(np.uint16))


class ArgumentPacker:
    """Packs a kernel's arguments into a reusable buffer for one launch at a time."""

    def __init__(self, kernel_name: str, specs: Sequence[ParamSpec], device) -> None:
        self.kernel_name = kernel_name
        self.specs = list(specs)
        self.device = device
        self._plan: list[tuple[int, ParamSpec, Callable[[Any], Any]]] = []
        offset = 0
        offsets, sizes = [], []
        for spec in self.specs:
            if spec.kind == "opaque" and spec.size == 0:
                conv = self._opaque_converter(spec)
            elif spec.kind == "pointer":
                conv = _pointer_converter(spec, device)
            elif spec.kind == "scalar":
                conv = _scalar_converter(spec)
            elif spec.kind == "vector":
                conv = self._vector_converter(spec)
            else:
                conv = self._opaque_converter(spec)
            align = max(spec.align, 1)
            offset = (offset + align - 1) // align * align
            offsets.append(offset)
            sizes.append(spec.size)
            self._plan.append((offset, spec, conv))
            offset += spec.size
        self._offsets, self._sizes = offsets, sizes
        self._nargs = len(self.specs)
        self._converters = [conv for _, _, conv in self._plan]
        self._simple = all(s.kind in ("pointer", "scalar") and s.code != "bf16"
                           for s in self.specs)
        if self._simple:
            fmt = "<"
            pos = 0
            for off, spec, _ in self._plan:
                if off > pos:
                    fmt += f"{off - pos}x"
                fmt += "Q" if spec.kind == "pointer" else spec.code
                pos = off + spec.size
            self._struct = struct.Struct(fmt)
        total = max(offset, 1)
        self._buffer = (ctypes.c_char * ((total + 15) // 16 * 16))()
        self._packed = PackedArgs(self._buffer, offsets, sizes)
        self._fast = self._fast_packer() if self._simple and self.specs else None

    def _fast_packer(self) -> Callable[[tuple], None]:
        """A pack function made for this signature: each argument of the common exact type
        (a DeviceArray of this device, None for a pointer; an int in range; a float) is taken
        as it is, anything else goes through its converter (so values and errors are the
        converters'), then one ``pack_into``."""
        from .array import DeviceArray

        env: dict[str, Any] = {"DeviceArray": DeviceArray, "dev": self.device,
                               "convs": self._converters, "pack_into": self._struct.pack_into,
                               "buf": self._buffer}
        n = len(self.specs)
        names = ", ".join(f"a{i}" for i in range(n))
        lines = ["def fast(args):", f"    ({names},) = args"]
        for i, spec in enumerate(self.specs):
            a, v, conv = f"a{i}", f"v{i}", f"convs[{i}]({f'a{i}'})"
            if spec.kind == "pointer":
                lines += [f"    if type({a}) is DeviceArray:",
                          f"        d = {a}.data",
                          "        m = d.mem",
                          f"        {v} = m._ptr + d.offset if m.device is dev and m._ptr is not None"
                          f" else {conv}",
                          f"    elif {a} is None:",
                          f"        {v} = 0",
                          "    else:",
                          f"        {v} = {conv}"]
            elif spec.code in "bBhHiIqQ":
                lo, hi = _int_range(spec.code)
                lines.append(f"    {v} = {a} if type({a}) is int and {lo} <= {a} <= {hi} "
                             f"else {conv}")
            elif spec.code in ("f", "d", "e"):
                lines.append(f"    {v} = {a} if type({a}) is float else {conv}")
            else:
                lines.append(f"    {v} = {conv}")
        lines.append(f"    pack_into(buf, 0, {', '.join(f'v{i}' for i in range(n))})")
        exec("\n".join(lines), env)  # noqa: S102 - generated from the signature only
        return env["fast"]

    def _vector_converter(self, spec: ParamSpec) -> Callable[[Any], bytes]:
        def convert(value: Any) -> bytes:
            items = value
            if isinstance(value, np.ndarray) and value.dtype.names is None:
                items = value.tolist()
            elif isinstance(value, np.void):
                raw = value.tobytes()
                if len(raw) != spec.size:
                    raise TypeError(f"{spec.label}: got {len(raw)} bytes, need {spec.size}")
                return raw
            if not isinstance(items, (tuple, list)) or len(items) != spec.count:
                raise TypeError(f"{spec.label} takes a sequence of {spec.count} numbers; got "
                                f"{type(value).__name__}")
            elem = ParamSpec(spec.name, spec.type, "scalar", spec.code, 1,
                             _code_size(spec.code), _code_size(spec.code))
            conv = _scalar_converter(elem)
            vals = [conv(v) for v in items]
            if spec.code == "bf16":
                raw = struct.pack(f"<{spec.count}H", *[_bf16_bits(v) for v in vals])
            else:
                raw = struct.pack(f"<{spec.count}{spec.code}", *vals)
            return raw.ljust(spec.size, b"\0")
        return convert

    @staticmethod
    def _opaque_converter(spec: ParamSpec) -> Callable[[Any], bytes]:
        def convert(value: Any) -> bytes:
            if isinstance(value, (np.void, np.generic)):
                raw = value.tobytes()
            elif isinstance(value, ctypes.Structure | ctypes.Union | ctypes.Array):
                raw = bytes(value)
            elif isinstance(value, (bytes, bytearray, memoryview)):
                raw = bytes(value)
            else:
                raise TypeError(f"{spec.label} has a type openhip does not know; pass a numpy "
                                f"scalar, ctypes structure or bytes of its exact layout, not "
                                f"{type(value).__name__}")
            if spec.size and len(raw) != spec.size:
                raise TypeError(f"{spec.label}: got {len(raw)} bytes, the type has {spec.size}")
            return raw
        return convert

    def write_one(self, buffer: ctypes.Array, index: int, value: Any) -> None:
        """Convert ``value`` for parameter ``index`` and write it at its offset in ``buffer``
        (a buffer of this packer's layout: a bound launch's copy); TypeError on a bad value."""
        off, spec, conv = self._plan[index]
        v = conv(value)
        if isinstance(v, bytes):
            if spec.size == 0:
                raise HipError("hipErrorInvalidValue", f"{spec.label}: unknown size",
                               routine="launch")
            ctypes.memmove(ctypes.addressof(buffer) + off, v, len(v))
        elif spec.kind == "pointer":
            struct.pack_into("<Q", buffer, off, v)
        elif spec.code == "bf16":
            struct.pack_into("<H", buffer, off, _bf16_bits(v))
        else:
            struct.pack_into("<" + spec.code, buffer, off, v)

    def pack(self, args: Sequence[Any]) -> PackedArgs:
        """Convert and pack ``args``; TypeError naming the parameter on a bad argument."""
        if type(args) is not tuple and not isinstance(args, (tuple, list)):
            raise TypeError(f"kernel arguments must be a tuple or list, not "
                            f"{type(args).__name__}")
        if len(args) != self._nargs:
            names = ", ".join(s.name or s.type for s in self.specs)
            raise TypeError(f"{self.kernel_name}() takes {len(self.specs)} argument(s) "
                            f"({names}); {len(args)} given")
        if self._simple:
            if not args:
                return self._packed
            try:
                self._fast(args)
            except struct.error as exc:  # values are range-checked; this is defensive
                raise TypeError(f"{self.kernel_name}(): {exc}") from None
            return self._packed
        buf = self._buffer
        for i, a in enumerate(args):
            self.write_one(buf, i, a)
        return self._packed
