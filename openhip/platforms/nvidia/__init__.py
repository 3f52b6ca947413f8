"""The nvidia platform: NVIDIA GPUs through the CUDA driver API and NVRTC (``cuda-bindings``).

``PLATFORM`` is the Platform class (constructing it starts the driver or raises
PlatformUnavailable with the reason); ``toolchain()`` returns the NVRTC compiler, which needs no
GPU and no driver. Nothing from ``cuda.bindings`` is imported until one of them is used.
"""

from __future__ import annotations

from .platform import NvidiaPlatform as PLATFORM
from .toolchain import NvrtcToolchain, toolchain

__all__ = ["PLATFORM", "NvrtcToolchain", "toolchain"]
