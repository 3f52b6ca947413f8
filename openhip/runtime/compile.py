"""``openhip.compile``: compile a kernel for any platform and arch, no device needed."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from .. import config
from ..compiler.cache import Toolchain, cached_compile
from ..platforms.base import CompiledProgram

__all__ = ["compile", "compile_program", "toolchain_for"]


def toolchain_for(platform: str) -> Toolchain:
    """The compiler of ``platform``: the started platform itself, or its device-less
    toolchain (NVRTC, hiprtc) when no device is present."""
    if platform not in config.PLATFORM_NAMES:
        raise ValueError(f"platform must be one of {config.PLATFORM_NAMES}, not {platform!r}")
    from .. import platforms

    started = platforms.try_platform(platform)
    if started is not None:
        return started
    module = importlib.import_module(f"openhip.platforms.{platform}")
    factory = getattr(module, "toolchain", None)
    if factory is None:
        return platforms.get_platform(platform)  # raises with the reason
    return factory()


def compile_program(source: str, *, platform: str = "cpu", arch: str | None = None,
                    options: Sequence[str] = (), name_expressions: Sequence[str] = (),
                    filename: str = "kernel.hip") -> CompiledProgram:
    """Like :func:`compile` but returns the whole :class:`CompiledProgram` (binary, kernel
    symbols, lowered names, metadata)."""
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    tool = toolchain_for(platform)
    if arch is None:
        default = getattr(tool, "default_arch", None)
        if default is None:
            raise ValueError(f"arch is required for platform {platform!r} without a device")
        arch = default(0)
    return cached_compile(tool, source, platform=platform, arch=arch, options=tuple(options),
                          name_expressions=tuple(name_expressions), filename=filename)


def compile(source: str, *, platform: str = "cpu", arch: str | None = None,  # noqa: A001
            options: Sequence[str] = (), name_expressions: Sequence[str] = (),
            filename: str = "kernel.hip") -> bytes:
    """Compile HIP C++ ``source`` for ``platform`` ("cpu" | "nvidia" | "amd") and ``arch``
    ("sm_90", "gfx90a"...; default: the device's) and return the binary (a shared object, a
    cubin or an AMD code object), through the same compile cache as everything else."""
    return compile_program(source, platform=platform, arch=arch, options=options,
                           name_expressions=name_expressions, filename=filename).binary
