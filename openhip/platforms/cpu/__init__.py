"""The CPU platform: HIP C++ compiled with the host compiler, run on the host's cores.

``PLATFORM`` is the :class:`~openhip.platforms.base.Platform` subclass the platform registry
starts. Nothing is compiled or started at import time.
"""

from .platform import CpuFunction, CpuModule, CpuPlatform

PLATFORM = CpuPlatform

__all__ = ["PLATFORM", "CpuPlatform", "CpuModule", "CpuFunction"]
