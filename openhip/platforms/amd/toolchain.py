"""hiprtc as openhip's AMD compiler: HIP source -> code object for a gfx arch, no device needed.

The source is compiled as given (compiler line numbers are the user's; hiprtc's temporary file
name in the log is replaced by the user's file name) with openhip's ``include/`` directory first
on the include path: it supplies what older ROCm lacks (``hip_bf16.h``/``__hip_bfloat16``, parts of
the ``__half`` API), openhip's own ``_sync`` warp functions (32- or 64-bit masks, every ROCm), and
keeps host C headers, which clash with hiprtc's own, out. ``freestanding/`` (``stdarg.h``,
``stdbool.h``...) comes last (``-idirafter``): a hiprtc that finds no compiler resource headers
(Debian's ROCm 5.2 looks for clang 15's, absent unless that exact clang is installed) gets them
from there, so ``<cstdio>`` and friends still compile; where the resource headers exist they win.
The arch is validated before hiprtc is called (see :mod:`.arch`).
"""

from __future__ import annotations

import ctypes
import re
import threading
from collections.abc import Sequence
from pathlib import Path

from ...errors import CompileError
from ..base import CompiledProgram
from ..gpu_headers import SHARED_INCLUDE_DIR, headers_digest
from ..nvidia import elf
from ..nvidia.deps import user_dependencies
from ..nvidia.names import auto_name_expressions, merge_lowered
from ..options import refuse_tool_options
from . import lib as hiplib
from .arch import AmdArch, parse_arch, supported_archs
from .errors import HIPRTC_ERROR_COMPILATION, HIPRTC_RESULTS, check_rtc

INCLUDE_DIR = Path(__file__).with_name("include")
#: The compiler's freestanding C headers, searched after every system directory.
FREESTANDING_DIR = Path(__file__).with_name("freestanding")
_COMGR_NAME = re.compile(r"\S*comgr-[^/\s]+/input/CompileSource")

#: NVRTC/nvcc spellings users carry over, and their clang equivalents (None: dropped).
_OPTION_MAP = {
    "--use_fast_math": "-ffast-math",
    "-use_fast_math": "-ffast-math",
    "--generate-line-info": None,
    "-lineinfo": None,
}


def translate_options(options: Sequence[str]) -> list[str]:
    """User options for hiprtc; the target must come as ``arch=``, not ``--offload-arch``."""
    out: list[str] = []
    for opt in options:
        if opt.startswith(("--offload-arch", "--gpu-architecture", "-arch", "--amdgpu-target")):
            raise ValueError(f"option {opt!r}: give the target as arch=, not in options")
        refuse_tool_options(opt)
        if opt in _OPTION_MAP:
            if _OPTION_MAP[opt]:
                out.append(_OPTION_MAP[opt])
            continue
        out.append(opt)
    return out


def _headers_digest() -> str:
    return headers_digest(INCLUDE_DIR, SHARED_INCLUDE_DIR, FREESTANDING_DIR)


def kernels_and_globals(image: bytes) -> tuple[list[str], list[str]]:
    """Kernels (from their ``.kd`` descriptors) and global variables of an AMDGPU code object."""
    kernels, globals_ = [], []
    for sym in elf.symbols(image):
        if sym.type != elf.STT_OBJECT or sym.bind not in (elf.STB_GLOBAL, elf.STB_WEAK):
            continue
        if sym.name.endswith(".kd"):
            kernels.append(sym.name[:-3])
        elif not sym.name.startswith("__hip"):  # hiprtc's own (__hiprtc_1 ...)
            globals_.append(sym.name)
    return kernels, globals_


class HiprtcToolchain:
    """Compile HIP C++ for AMD GPUs with the installed ROCm's hiprtc."""

    platform = "amd"

    def __init__(self) -> None:
        self._libs = hiplib.load()  # OSError when ROCm is absent
        self._identity: str | None = None
        # hiprtc 5.x keeps global state; one compilation at a time is the safe choice.
        self._lock = threading.Lock()

    @property
    def rocm_version(self) -> tuple[int, int]:
        return self._libs.version

    def supported_archs(self) -> list[str]:
        """The gfx processors the installed ROCm can target."""
        return supported_archs(self.rocm_version)

    def parse_arch(self, arch: str) -> AmdArch:
        """Validate ``arch`` for the installed ROCm (ValueError when it cannot target it)."""
        return parse_arch(arch, self.rocm_version)

    def compiler_identity(self) -> str:
        """hiprtc's ROCm version, the library it lives in, and a digest of openhip's headers."""
        if self._identity is None:
            self._identity = (f"hiprtc {self._libs.runtime_version} ({self._libs.rtc_path}); "
                              f"openhip-amd-headers {_headers_digest()}")
        return self._identity

    def hiprtc_options(self, target: AmdArch, options: Sequence[str]) -> list[str]:
        """The full hiprtc command line for ``target`` and the user's ``options``."""
        return [
            target.hiprtc_option,
            f"-I{INCLUDE_DIR}",
            f"-I{SHARED_INCLUDE_DIR}",
            f"-idirafter{FREESTANDING_DIR}",
            "-std=c++17",
            "-O3",
            *translate_options(options),
        ]

    def compile(self, source: str, *, arch: str, options: Sequence[str] = (),
                name_expressions: Sequence[str] = (),
                filename: str = "kernel.hip") -> CompiledProgram:
        """Compile ``source`` for ``arch`` (``gfx90a``, ``gfx942:xnack-``...).

        Plain names of non-``extern "C"`` kernels are resolved too. ValueError for an arch the
        installed ROCm cannot target (checked before hiprtc runs); CompileError with the log
        (the user's file name and line numbers) on a build failure.
        """
        target = self.parse_arch(arch)
        opts = self.hiprtc_options(target, options)
        auto_k, auto_g = auto_name_expressions(source, name_expressions)
        exprs = list(dict.fromkeys([*name_expressions, *auto_k, *auto_g]))
        ok, log, binary, lowered = self._compile_once(source, filename, opts, exprs)
        if not ok and len(exprs) > len(name_expressions):
            ok, log, binary, lowered = self._compile_once(source, filename, opts,
                                                          list(name_expressions))
        if not ok:
            raise CompileError(log, source, tuple(options), platform="amd", name=filename,
                               arch=target.name)
        kernels, globals_ = kernels_and_globals(binary)
        kernel_map, global_map = merge_lowered(kernels, globals_, lowered)
        return CompiledProgram(binary=binary, platform="amd", arch=target.name,
                               kernels=kernel_map, globals=global_map,
                               metadata={"format": "hsaco", "options": opts,
                                         "dependencies": user_dependencies(source, options)},
                               log=log.strip())

    def _compile_once(self, source: str, filename: str, opts: list[str],
                      exprs: Sequence[str]) -> tuple[bool, str, bytes, dict[str, str]]:
        """One hiprtc run: (succeeded, log, code object, lowered names)."""
        rtc = self._libs.rtc
        with self._lock:
            prog = ctypes.c_void_p()
            check_rtc(rtc.hiprtcCreateProgram(ctypes.byref(prog), source.encode("utf-8"),
                                              filename.encode(), 0, None, None),
                      "hiprtcCreateProgram")
            try:
                for expr in exprs:
                    check_rtc(rtc.hiprtcAddNameExpression(prog, expr.encode()),
                              "hiprtcAddNameExpression")
                argv = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
                status = rtc.hiprtcCompileProgram(prog, len(opts), argv)
                log = self._log(prog, filename)
                if status != 0:
                    if status != HIPRTC_ERROR_COMPILATION:
                        log = (f"{HIPRTC_RESULTS.get(status, status)} with options {opts!r}\n"
                               + log)
                    return False, log or HIPRTC_RESULTS.get(status, str(status)), b"", {}
                size = ctypes.c_size_t(0)
                check_rtc(rtc.hiprtcGetCodeSize(prog, ctypes.byref(size)), "hiprtcGetCodeSize")
                buf = ctypes.create_string_buffer(size.value)
                check_rtc(rtc.hiprtcGetCode(prog, buf), "hiprtcGetCode")
                lowered: dict[str, str] = {}
                for expr in exprs:
                    out = ctypes.c_char_p()
                    check_rtc(rtc.hiprtcGetLoweredName(prog, expr.encode(), ctypes.byref(out)),
                              "hiprtcGetLoweredName")
                    lowered[expr] = (out.value or b"").decode()
                return True, log, buf.raw[:size.value], lowered
            finally:
                rtc.hiprtcDestroyProgram(ctypes.byref(prog))

    def _log(self, prog: ctypes.c_void_p, filename: str) -> str:
        rtc = self._libs.rtc
        size = ctypes.c_size_t(0)
        if rtc.hiprtcGetProgramLogSize(prog, ctypes.byref(size)) != 0 or size.value <= 1:
            return ""
        buf = ctypes.create_string_buffer(size.value + 1)
        rtc.hiprtcGetProgramLog(prog, buf)
        text = buf.value.decode("utf-8", "replace")
        return _COMGR_NAME.sub(filename, text)


_toolchain: HiprtcToolchain | None = None
_toolchain_lock = threading.Lock()


def toolchain() -> HiprtcToolchain:
    """The process-wide hiprtc toolchain (OSError when libamdhip64/hiprtc are not installed)."""
    global _toolchain
    with _toolchain_lock:
        if _toolchain is None:
            _toolchain = HiprtcToolchain()
        return _toolchain
