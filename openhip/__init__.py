"""openhip: an open GPU compute platform for Python.

A HIP runtime over AMD GPUs, NVIDIA GPUs and any CPU; HIP C++ kernels compiled once and cached;
hipify (CUDA -> HIP); ccl (collectives). This module only re-exports the public API.
"""

__version__ = "0.1.0"

from .errors import CclError, CompileError, HipError, OpenHipError, PlatformUnavailable  # noqa: E402
