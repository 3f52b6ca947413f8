"""Whether memcheck mode is on, and the compile flags of a checked kernel module."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

__all__ = ["ALIGNMENT_FLAGS", "ENV", "INCLUDE_DIR", "HEADER", "TOOL_ENV", "TOOLS", "enabled",
           "compile_flags", "flags_digest", "for_sources", "needs_alignment_checks",
           "pointer_alignments", "tool"]

#: the environment variable that turns memcheck mode on (``openhip memcheck`` sets it)
ENV = "OPENHIP_MEMCHECK"
#: ``racecheck``: shared-memory hazards are tracked instead (``openhip memcheck --tool racecheck``);
#: ``initcheck``: reads of device memory never written
TOOL_ENV = "OPENHIP_MEMCHECK_TOOL"
TOOLS = ("memcheck", "racecheck", "initcheck")  # (the runtime's tool numbers)
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
HEADER = INCLUDE_DIR / "openhip_memcheck.h"


def enabled() -> bool:
    """True when ``OPENHIP_MEMCHECK`` is set to something other than ``0``/empty."""
    return os.environ.get(ENV, "").strip() not in ("", "0")


def tool() -> str:
    """The checking tool of this process: ``memcheck`` (default) or ``racecheck``."""
    name = os.environ.get(TOOL_ENV, "").strip() or "memcheck"
    if name not in TOOLS:
        raise ValueError(f"{TOOL_ENV}={name!r}: the tools are {', '.join(TOOLS)}")
    return name


#: GCC's misaligned-access checks (UBSan's, with the source location of each typed access)
ALIGNMENT_FLAGS = ("-fsanitize=alignment", "-fsanitize-recover=alignment")

# What can make a typed access misaligned in device code: a pointer made by a cast
# (reinterpret_cast, a static_cast or C-style cast to a pointer type, a bit_cast) or a packed
# type.  Pointer arithmetic on a typed pointer keeps its alignment; the address of an object is
# aligned.  A C-style cast is `(T*)` (T a possibly qualified, possibly template name) followed
# by an operand; `(float*)` in a declaration is followed by `)`, `,`, `;` or `{` and does not
# count, `sizeof(float*) * n` does (too many is only slower).
_CASTS = re.compile(
    r"\breinterpret_cast\s*<|\bbit_cast\s*<|\bstatic_cast\s*<[^;<>]*(?:<[^;]*?>)?[^;<>]*\*\s*>"
    r"|\b__attribute__\s*\(\(\s*(?:__)?packed|#\s*pragma\s+pack"
    r"|\(\s*(?:(?:const|volatile|struct|union|unsigned|signed|long|short)\s+)*"
    r"(?:::)?[A-Za-z_][\w:]*(?:\s*<[^()<>;]*(?:<[^()<>;]*>[^()<>;]*)*>)?\s*"
    r"(?:const\s*|volatile\s*)?\*[\s*]*(?:const\s*|volatile\s*|__restrict__\s*)?\)"
    r"\s*[\w(&*\[]")


def needs_alignment_checks(texts: Iterable[str]) -> bool:
    """Whether code built from ``texts`` (the source, its local headers, the options) can make
    a misaligned typed access: it casts to a pointer type or declares a packed type (see
    ``_CASTS``).  Without one, every pointer the kernels use is a parameter, derived from one
    by arithmetic, or the address of an object, all aligned for their types, so memcheck
    compiles the module without UBSan's alignment checks: GCC cannot move or hoist any memory
    access across them (an internal call it cannot analyse), which kept every store of a
    thread loop's ``threadIdx`` in the loop (2-4x of the checked time). Not seen then: a
    misaligned pointer passed as an argument or loaded from memory. (A pointer argument is
    checked at launch instead: :func:`pointer_alignments`.)"""
    return any(_CASTS.search(text) for text in texts)


# The alignment of the pointee types a kernel parameter commonly points to (HIP's scalar and
# vector types as every platform lays them out); anything else (templates, structs) is not
# checked at launch.
_ALIGN = {
    2: ("short", "unsigned short", "short int", "unsigned short int", "int16_t", "uint16_t",
        "ushort", "half", "__half", "__hip_bfloat16", "hip_bfloat16", "__nv_bfloat16",
        "char2", "uchar2"),
    4: ("int", "unsigned", "unsigned int", "signed", "signed int", "float", "int32_t",
        "uint32_t", "uint", "__half2", "half2", "__hip_bfloat162", "short2", "ushort2",
        "char4", "uchar4"),
    8: ("long", "unsigned long", "long int", "unsigned long int", "long long",
        "unsigned long long", "long long int", "unsigned long long int", "double", "size_t",
        "int64_t", "uint64_t", "ptrdiff_t", "int2", "uint2", "float2"),
    16: ("float4", "int4", "uint4", "double2", "longlong2", "ulonglong2"),
}
_ALIGN_OF = {name: a for a, names in _ALIGN.items() for name in names}
_QUALIFIERS = re.compile(r"\b(?:const|volatile|__restrict__|__restrict|restrict)\b")


def pointer_alignments(params: Iterable[tuple[str, str]]) -> list[list]:
    """``[[index, alignment, name, type], ...]`` for each kernel parameter (``(name, type as
    written)``) that is a pointer to a type of known alignment above 1: what memcheck checks
    at launch in a module built without per-access alignment checks."""
    out: list[list] = []
    for i, (name, typ) in enumerate(params):
        bare = _QUALIFIERS.sub(" ", typ).strip()
        if not bare.endswith("*") or bare.count("*") != 1:
            continue
        base = " ".join(bare[:-1].split()).removeprefix("::")
        align = _ALIGN_OF.get(base)
        if align:
            out.append([i, align, name, typ])
    return out


def for_sources(flags: list[str], texts: Iterable[str]) -> list[str]:
    """``flags`` (from :func:`compile_flags`) for a module built from ``texts``: without the
    alignment checks where :func:`needs_alignment_checks` says none can fail."""
    if needs_alignment_checks(texts):
        return list(flags)
    return [f for f in flags if f not in ALIGNMENT_FLAGS]


def compile_flags(shadow_offset: int) -> list[str]:
    """The flags added to a CPU kernel compile in memcheck mode, for the runtime's shadow at
    ``shadow_offset`` (``ohcpu_memcheck_enable``). ``-g`` gives the reports their file:line;
    the header defines the report functions the instrumentation calls. Local arrays get red
    zones (``asan-stack=1``; the engine's fiber frames that never return are not instrumented,
    and a failure's abandoned frames are unpoisoned, so they leave no stale red zones). Null
    accesses are seen by the shadow of the first 64 KiB (no ``-fsanitize=null`` test per
    access); misaligned ones by ``-fsanitize=alignment`` (left out of modules that cannot
    make one, :func:`for_sources`)."""
    if shadow_offset <= 0:
        raise ValueError("memcheck needs the runtime's shadow offset")
    off = f"0x{shadow_offset:x}"
    return ["-g", "-fsanitize=kernel-address", f"-fasan-shadow-offset={off}",
            "--param", "asan-stack=1", "--param", "asan-globals=1",
            "--param", "asan-instrumentation-with-call-threshold=1000000",
            "--param", "asan-use-after-return=0",
            *ALIGNMENT_FLAGS,
            f"-DOPENHIP_MEMCHECK_SHADOW={off}ull",
            # racecheck: -O0, where GCC instruments every access (optimised, it leaves out
            # the check of a store to an address a load just checked: invisible writes)
            *(["-DOPENHIP_RACECHECK=1", "-O0"] if tool() == "racecheck" else []),
            *(["-DOPENHIP_INITCHECK=1"] if tool() == "initcheck" else []),
            # the module's own memcpy/memmove/memset (checked, see the header) bind its calls,
            # made through the GOT (-fno-plt), not the C library's
            "-Wl,-Bsymbolic",
            "-include", str(HEADER)]


def flags_digest(flags: list[str]) -> str:
    """A digest of the checked-mode flags, the header's text and this file's (which decides the
    flags per source: the compile cache's key)."""
    h = hashlib.sha256("\0".join(flags).encode())
    h.update(HEADER.read_bytes())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()[:16]
