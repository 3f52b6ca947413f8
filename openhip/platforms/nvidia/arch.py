"""NVIDIA target names: ``sm_XY`` (cubin, optionally with the ``a``/``f`` suffix) and
``compute_XY`` (PTX). Validated against what the installed NVRTC supports, before compiling."""

from __future__ import annotations

import re
from dataclasses import dataclass

_ARCH = re.compile(r"^(sm|compute)_(\d{2,3})([af]?)$")


@dataclass(frozen=True)
class NvidiaArch:
    """A parsed target: ``kind`` "sm" (cubin) or "compute" (PTX), the number (90), the suffix."""

    kind: str
    number: int
    suffix: str = ""

    @property
    def name(self) -> str:
        return f"{self.kind}_{self.number}{self.suffix}"

    @property
    def is_ptx(self) -> bool:
        return self.kind == "compute"

    @property
    def nvrtc_option(self) -> str:
        return f"--gpu-architecture={self.name}"


def parse_arch(arch: str, supported: list[int] | None = None) -> NvidiaArch:
    """Parse ``arch``; ValueError naming the accepted forms and the supported numbers when it is
    malformed or NVRTC cannot target it."""
    text = arch.strip().lower()
    if text.isdigit():  # "90" -> sm_90
        text = f"sm_{text}"
    m = _ARCH.match(text)
    if m is None:
        raise ValueError(
            f"unknown NVIDIA arch {arch!r}: expected sm_XY (cubin) or compute_XY (PTX), "
            "e.g. sm_90")
    parsed = NvidiaArch(m.group(1), int(m.group(2)), m.group(3))
    if supported is not None and parsed.number not in supported:
        names = ", ".join(f"sm_{n}" for n in supported)
        raise ValueError(f"NVRTC cannot target {parsed.name}; it supports {names}")
    return parsed


def arch_for_capability(major: int, minor: int) -> str:
    """The cubin target of a device of compute capability ``major.minor``."""
    return f"sm_{major}{minor}"
