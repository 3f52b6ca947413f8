"""AMD target names, validated before hiprtc sees them.

hiprtc from ROCm 5.x (Debian 12's 5.2.3 among them) aborts the whole process when asked for an
arch its runtime does not know (gfx940/941/942, gfx1100, gfx1200, misspellings, malformed
feature suffixes). So every arch is checked here first against what the installed ROCm can
target; an arch it cannot is a ValueError naming the ones it can. Nothing is ever handed to
hiprtc that was not checked.

The table lists, per ROCm release, the archs added then (measured on 5.2.3: every 5.0 entry
compiles, the rest abort; later entries follow the ROCm release notes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: (ROCm major, minor) -> the gfx processors first targetable with that release.
ARCHS_SINCE: dict[tuple[int, int], tuple[str, ...]] = {
    (5, 0): (
        "gfx600", "gfx601", "gfx602",
        "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705",
        "gfx801", "gfx802", "gfx803", "gfx805", "gfx810",
        "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90a", "gfx90c",
        "gfx1010", "gfx1011", "gfx1012", "gfx1013",
        "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
    ),
    (5, 5): ("gfx940", "gfx941", "gfx942", "gfx1100", "gfx1101", "gfx1102", "gfx1103"),
    (6, 1): ("gfx1150", "gfx1151"),
    (6, 2): ("gfx1200", "gfx1201"),
    (6, 3): ("gfx1152",),
    (6, 4): ("gfx950",),
}
_FEATURES = ("sramecc", "xnack")
_ARCH = re.compile(r"^(gfx[0-9a-f]{3,4})((?::[a-z]+[+-])*)$")


@dataclass(frozen=True)
class AmdArch:
    """A validated target: the processor (``gfx90a``) and its feature suffix (``:xnack-``)."""

    processor: str
    features: str = ""

    @property
    def name(self) -> str:
        return self.processor + self.features

    @property
    def hiprtc_option(self) -> str:
        return f"--offload-arch={self.name}"


def supported_archs(version: tuple[int, int]) -> list[str]:
    """Every processor ROCm ``version`` (major, minor) can target."""
    out: list[str] = []
    for since, names in ARCHS_SINCE.items():
        if version >= since:
            out.extend(names)
    return out


def parse_arch(arch: str, version: tuple[int, int]) -> AmdArch:
    """Validate ``arch`` (``gfx90a``, ``gfx90a:sramecc+:xnack-``) for ROCm ``version``.

    ValueError, naming the archs this ROCm can target, for a malformed name, an unknown feature
    or a processor the installed ROCm cannot target (which would abort hiprtc 5.x).
    """
    text = arch.strip()
    m = _ARCH.match(text)
    supported = supported_archs(version)
    listing = ", ".join(supported)
    rocm = f"{version[0]}.{version[1]}"
    if m is None:
        raise ValueError(f"unknown AMD arch {arch!r}: expected gfxNNN[:feature+|-], e.g. gfx90a; "
                         f"ROCm {rocm} here targets {listing}")
    processor, suffix = m.group(1), m.group(2)
    seen = []
    for token in filter(None, suffix.split(":")):
        feature = token[:-1]
        if feature not in _FEATURES or feature in seen:
            raise ValueError(f"AMD arch {arch!r}: bad feature {token!r} (expected sramecc+/- or "
                             "xnack+/-, each at most once)")
        seen.append(feature)
    if processor not in supported:
        raise ValueError(f"the installed ROCm {rocm} cannot compile for {processor} (hiprtc would "
                         f"abort the process); it targets {listing}")
    return AmdArch(processor, suffix)
