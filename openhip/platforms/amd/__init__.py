"""The amd platform: AMD GPUs through libamdhip64 and hiprtc (ctypes; ROCm 5.x and 6.x).

``PLATFORM`` is the Platform class (constructing it loads libamdhip64 and counts devices, or
raises PlatformUnavailable with the reason); ``toolchain()`` returns the hiprtc compiler, which
needs no GPU. Nothing is loaded until one of them is used.
"""

from __future__ import annotations

from .platform import AmdPlatform as PLATFORM
from .toolchain import HiprtcToolchain, toolchain

__all__ = ["PLATFORM", "HiprtcToolchain", "toolchain"]
