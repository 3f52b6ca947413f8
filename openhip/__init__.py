"""openhip: an open GPU compute platform for Python.

A HIP runtime over AMD GPUs, NVIDIA GPUs and any CPU; HIP C++ kernels compiled once and cached;
hipify (CUDA -> HIP); ccl (collectives). This module only re-exports the public API; nothing
starts until it is used.
"""

__version__ = "0.1.0"

from .errors import CclError, CompileError, HipError, OpenHipError, PlatformUnavailable
from .platforms.base import DeviceProperties
from .runtime.array import (
    DeviceArray,
    MemoryPointer,
    asarray,
    empty,
    empty_like,
    from_dlpack,
    full,
    ones,
    zeros,
    zeros_like,
)
from .runtime.compile import compile, compile_program
from .runtime.device import (
    Device,
    device_count,
    devices,
    get_device,
    reset_device,
    set_device,
    synchronize,
)
from .runtime.memory import (
    DeviceBuffer,
    free,
    malloc,
    memcpy_dtod,
    memcpy_dtod_async,
    memcpy_dtoh,
    memcpy_dtoh_async,
    memcpy_htod,
    memcpy_htod_async,
    memset,
    memset_async,
)
from .runtime.module import Function, Module
from .runtime.pool import MemoryPool, get_default_memory_pool
from .runtime.stream import Event, Stream
from .tools.profiler.session import profile

__all__ = [
    "__version__",
    "CclError", "CompileError", "HipError", "OpenHipError", "PlatformUnavailable",
    "DeviceProperties",
    "DeviceArray", "MemoryPointer", "asarray", "empty", "empty_like", "from_dlpack", "full",
    "ones", "zeros", "zeros_like",
    "compile", "compile_program",
    "Device", "device_count", "devices", "get_device", "reset_device", "set_device",
    "synchronize",
    "DeviceBuffer", "free", "malloc", "memcpy_dtod", "memcpy_dtod_async", "memcpy_dtoh",
    "memcpy_dtoh_async", "memcpy_htod", "memcpy_htod_async", "memset", "memset_async",
    "Function", "Module",
    "MemoryPool", "get_default_memory_pool",
    "Event", "Stream",
    "profile",
]

import os as _os

if _os.environ.get("OPENHIP_PROFILE_DIR"):  # a process run by `openhip prof`: record it
    from .tools.profiler.session import autostart as _autostart

    _autostart()
del _os
