"""NVRTC as openhip's NVIDIA compiler: HIP source -> cubin (or PTX when asked), no device needed.

The source is compiled as given (so compiler line numbers are the user's) with openhip's
``include/`` directory first on the include path and ``hip/hip_runtime.h`` pre-included; that
header maps the HIP device API onto CUDA. ``cuda.bindings.nvrtc`` is imported on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from ...errors import CompileError
from ..base import CompiledProgram
from ..gpu_headers import SHARED_INCLUDE_DIR, headers_digest
from ..options import refuse_tool_options
from . import cuda_headers, elf
from .arch import NvidiaArch, parse_arch
from .deps import user_dependencies
from .names import auto_name_expressions, merge_lowered

INCLUDE_DIR = Path(__file__).with_name("include")

#: hipcc/clang spellings NVRTC does not take, and what they become (None: dropped).
_OPTION_MAP = {
    "-ffast-math": "--use_fast_math",
    "-g": "--generate-line-info",
    "-O0": None, "-O1": None, "-O2": None, "-O3": None, "-Os": None,
    "-fgpu-rdc": "--relocatable-device-code=true",
    "-Wall": None, "-Wextra": None,
}


def translate_options(options: Sequence[str]) -> list[str]:
    """HIP/clang-style options to NVRTC's; ``--offload-arch``/``-arch`` are refused (use
    ``arch=``). Unknown options pass through unchanged (NVRTC reports the ones it rejects)."""
    out: list[str] = []
    for opt in options:
        if opt.startswith(("--offload-arch", "--gpu-architecture", "-arch")):
            raise ValueError(f"option {opt!r}: give the target as arch=, not in options")
        refuse_tool_options(opt)
        if opt in _OPTION_MAP:
            mapped = _OPTION_MAP[opt]
            if mapped:
                out.append(mapped)
            continue
        out.append(opt)
    return out


def _headers_digest() -> str:
    return headers_digest(INCLUDE_DIR, SHARED_INCLUDE_DIR)


def kernels_and_globals(image: bytes) -> tuple[list[str], list[str]]:
    """Kernel entry symbols and ``__device__``/``__constant__`` variables of a cubin."""
    kernels, globals_ = [], []
    for sym in elf.symbols(image):
        if sym.type == elf.STT_FUNC and sym.other & 0x10:
            kernels.append(sym.name)
        elif (sym.type == elf.STT_OBJECT and "__nv_" not in sym.name
              and sym.section.startswith((".nv.global", ".nv.constant"))):
            globals_.append(sym.name)  # (skipping CUDA's own helper variables)
    return kernels, globals_


def _ptx_symbols(ptx: str) -> tuple[list[str], list[str]]:
    """Kernel entries and module-scope ``.global``/``.const`` variables of a PTX module."""
    import re

    kernels = re.findall(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)", ptx,
                         re.M)
    globals_ = re.findall(
        r"^(?:\.visible\s+|\.weak\s+)?\.(?:global|const)\s[^;=\[]*?([A-Za-z_$][\w$]*)\s*(?:\[|;|=)",
        ptx, re.M)
    return kernels, [g for g in globals_ if "__nv_" not in g]


class NvrtcToolchain:
    """Compile HIP C++ for NVIDIA GPUs with NVRTC (``nvidia-cuda-nvrtc`` from PyPI)."""

    platform = "nvidia"

    def __init__(self) -> None:
        from cuda.bindings import nvrtc  # noqa: F401 - fail early (ImportError) if missing

        self._identity: str | None = None
        self._supported: list[int] | None = None

    # ---- facts -------------------------------------------------------------------------------
    def supported_archs(self) -> list[int]:
        """The sm numbers the installed NVRTC compiles for (e.g. [75, 80, 86, ..., 121])."""
        if self._supported is None:
            from cuda.bindings import nvrtc

            err, archs = nvrtc.nvrtcGetSupportedArchs()
            self._supported = [int(a) for a in archs] if int(err) == 0 else []
        return self._supported

    def version(self) -> tuple[int, int]:
        from cuda.bindings import nvrtc

        err, major, minor = nvrtc.nvrtcVersion()
        return int(major), int(minor)

    def compiler_identity(self) -> str:
        """NVRTC's version, cuda-bindings' version, a digest of openhip's NVIDIA headers and
        the cooperative groups headers found."""
        if self._identity is None:
            import cuda.bindings

            major, minor = self.version()
            self._identity = (f"nvrtc {major}.{minor}; cuda-bindings "
                              f"{getattr(cuda.bindings, '__version__', '?')}; "
                              f"openhip-nvidia-headers {_headers_digest()}; "
                              f"cooperative-groups {cuda_headers.nvrtc_options()[1] or 'none'}")
        return self._identity

    def parse_arch(self, arch: str) -> NvidiaArch:
        return parse_arch(arch, self.supported_archs() or None)

    # ---- compiling ---------------------------------------------------------------------------
    def nvrtc_options(self, target: NvidiaArch, options: Sequence[str]) -> list[str]:
        """The full NVRTC command line for ``target`` and the user's ``options``."""
        return [
            target.nvrtc_option,
            f"--include-path={INCLUDE_DIR}",
            f"--include-path={SHARED_INCLUDE_DIR}",
            # CUDA's cooperative groups and libcu++ where installed (cuda_headers.py), after
            # openhip's headers
            *cuda_headers.nvrtc_options()[0],
            "--pre-include=hip/hip_runtime.h",
            "-std=c++17",
            # unannotated functions (constexpr helpers...) are device functions, as clang treats
            # constexpr functions in HIP and as the CPU platform compiles everything
            "-default-device",
            *translate_options(options),
        ]

    def compile(self, source: str, *, arch: str, options: Sequence[str] = (),
                name_expressions: Sequence[str] = (),
                filename: str = "kernel.hip") -> CompiledProgram:
        """Compile ``source`` for ``arch`` (``sm_XY`` cubin, ``compute_XY`` PTX).

        Plain names of non-``extern "C"`` kernels are resolved too (see :mod:`.names`).
        ValueError for an arch NVRTC cannot target; CompileError (line numbers of ``source``)
        when the source does not compile.
        """
        target = self.parse_arch(arch)
        opts = self.nvrtc_options(target, options)
        auto_k, auto_g = auto_name_expressions(source, name_expressions)
        exprs = list(dict.fromkeys([*name_expressions, *auto_k, *auto_g]))
        ok, log, binary, lowered = self._compile_once(source, filename, opts, exprs, target)
        if not ok and len(exprs) > len(name_expressions):
            # An automatic name expression may be what failed (an overloaded kernel): retry
            # with the user's own only, so the log shows only the user's errors.
            ok, log, binary, lowered = self._compile_once(source, filename, opts,
                                                          list(name_expressions), target)
        if not ok:
            raise CompileError(log, source, tuple(options), platform="nvidia", name=filename,
                               arch=target.name)
        if target.is_ptx:
            kernels, globals_ = _ptx_symbols(binary.decode("utf-8", "replace"))
        else:
            kernels, globals_ = kernels_and_globals(binary)
        kernel_map, global_map = merge_lowered(kernels, globals_, lowered)
        return CompiledProgram(
            binary=binary, platform="nvidia", arch=target.name, kernels=kernel_map,
            globals=global_map,
            metadata={"format": "ptx" if target.is_ptx else "cubin", "options": opts,
                      "dependencies": user_dependencies(source, options)},
            log=log.strip(),
        )

    @staticmethod
    def _compile_once(source: str, filename: str, opts: list[str], exprs: Sequence[str],
                      target: NvidiaArch) -> tuple[bool, str, bytes, dict[str, str]]:
        """One NVRTC run: (succeeded, log, binary, lowered names)."""
        from cuda.bindings import nvrtc

        err, prog = nvrtc.nvrtcCreateProgram(source.encode("utf-8"), filename.encode(), 0, [], [])
        _check_nvrtc(err, "nvrtcCreateProgram")
        try:
            for expr in exprs:
                _check_nvrtc(nvrtc.nvrtcAddNameExpression(prog, expr.encode())[0],
                             "nvrtcAddNameExpression")
            (status,) = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
            log = _program_log(prog)
            if int(status) != 0:
                if int(status) == int(nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_OPTION):
                    log = f"invalid option among {opts!r}\n{log}"
                return False, log or str(status), b"", {}
            if target.is_ptx:
                err, size = nvrtc.nvrtcGetPTXSize(prog)
                _check_nvrtc(err, "nvrtcGetPTXSize")
                buf = b" " * size
                _check_nvrtc(nvrtc.nvrtcGetPTX(prog, buf)[0], "nvrtcGetPTX")
                binary = buf.rstrip(b"\0") + b"\0"
            else:
                err, size = nvrtc.nvrtcGetCUBINSize(prog)
                _check_nvrtc(err, "nvrtcGetCUBINSize")
                buf = b" " * size
                _check_nvrtc(nvrtc.nvrtcGetCUBIN(prog, buf)[0], "nvrtcGetCUBIN")
                binary = bytes(buf)
            lowered = {}
            for expr in exprs:
                err, name = nvrtc.nvrtcGetLoweredName(prog, expr.encode())
                _check_nvrtc(err, "nvrtcGetLoweredName")
                lowered[expr] = name.decode()
            return True, log, binary, lowered
        finally:
            nvrtc.nvrtcDestroyProgram(prog)


def _program_log(prog) -> str:
    from cuda.bindings import nvrtc

    err, size = nvrtc.nvrtcGetProgramLogSize(prog)
    if int(err) != 0 or size <= 1:
        return ""
    buf = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\0").decode("utf-8", "replace")


def _check_nvrtc(result, routine: str) -> None:
    from .errors import check

    check(result, routine)


_toolchain: NvrtcToolchain | None = None
_toolchain_lock = threading.Lock()


def toolchain() -> NvrtcToolchain:
    """The process-wide NVRTC toolchain (ImportError when cuda-bindings/NVRTC are missing)."""
    global _toolchain
    with _toolchain_lock:
        if _toolchain is None:
            _toolchain = NvrtcToolchain()
        return _toolchain
