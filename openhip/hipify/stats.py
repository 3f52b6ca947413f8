"""Translation statistics and their report, in hipify-clang's ``--print-stats`` layout.

A :class:`Stats` counts the CUDA references found in one file (or the sum over files): converted
and unconverted, per category (``memory``, ``stream``, ``library``, ...), per library and per
name, plus lines, bytes and warnings. :meth:`Stats.report` prints it the way hipify-clang does
(``CONVERTED refs count``, ``CONVERSION %``, ``CHANGED lines of code``, ``refs by type``, ...)
with hipify-perl's ``WARNINGS`` line added.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

#: HIPIFY's category names per CONV_* value (Statistics.cpp ``counterNames``).
CATEGORY_NAMES = {
    "CONV_ERROR": "error", "CONV_INIT": "init", "CONV_VERSION": "version", "CONV_DEVICE": "device",
    "CONV_CONTEXT": "context", "CONV_MODULE": "module", "CONV_LIBRARY": "library",
    "CONV_MEMORY": "memory", "CONV_VIRTUAL_MEMORY": "virtual_memory",
    "CONV_ORDERED_MEMORY": "ordered_memory", "CONV_MULTICAST": "multicast", "CONV_UNIFIED": "unified",
    "CONV_STREAM": "stream", "CONV_EVENT": "event", "CONV_EXTERNAL_RES": "external_resource",
    "CONV_STREAM_MEMORY": "stream_memory", "CONV_EXECUTION": "execution", "CONV_GRAPH": "graph",
    "CONV_OCCUPANCY": "occupancy", "CONV_TEXTURE": "texture", "CONV_SURFACE": "surface",
    "CONV_TENSOR": "tensor", "CONV_PEER": "peer", "CONV_GRAPHICS": "graphics",
    "CONV_DRIVER_ENTRY_POINT": "driver_entry_point", "CONV_CPP": "cpp", "CONV_COREDUMP": "coredump",
    "CONV_GREEN_CONTEXT": "green_context", "CONV_ERROR_LOG": "error_log",
    "CONV_DRIVER_INTERACT": "driver_interact", "CONV_PROFILER": "profiler", "CONV_OPENGL": "openGL",
    "CONV_D3D9": "D3D9", "CONV_D3D10": "D3D10", "CONV_D3D11": "D3D11", "CONV_VDPAU": "VDPAU",
    "CONV_EGL": "EGL", "CONV_THREAD": "thread", "CONV_COMPLEX": "complex",
    "CONV_LIB_FUNC": "library", "CONV_LIB_DEVICE_FUNC": "device_library",
    "CONV_DEVICE_FUNC": "device_function", "CONV_DEVICE_TYPE": "device_type",
    "CONV_INCLUDE": "include", "CONV_INCLUDE_CUDA_MAIN_H": "include_cuda_main_header",
    "CONV_INCLUDE_CUDA_MAIN_V2_H": "include_cuda_main_header_v2", "CONV_TYPE": "type",
    "CONV_LITERAL": "literal", "CONV_NUMERIC_LITERAL": "numeric_literal", "CONV_DEFINE": "define",
    "CONV_EXTERN_SHARED": "extern_shared", "CONV_KERNEL_LAUNCH": "kernel_launch",
}
_CATEGORY_ORDER = {name: i for i, name in enumerate(CATEGORY_NAMES)}

#: HIPIFY's API names per library.
API_NAMES = {
    "CUDA_Driver_API": "CUDA Driver API", "CUDA_Runtime_API": "CUDA RT API",
    "cuComplex": "cuComplex API", "CUBLAS": "cuBLAS API", "CURAND": "cuRAND API",
    "CUDNN": "cuDNN API", "CUFFT": "cuFFT API", "CUB": "CUB API", "CUSPARSE": "cuSPARSE API",
    "CUSOLVER": "cuSOLVER API", "CAFFE2": "CAFFE2 API", "NVRTC": "RTC API",
    "CUSPARSELT": "cuSPARSELt API", "CUFILE": "cuFile API", "CUTENSOR": "cuTENSOR API",
}
_API_ORDER = {name: i for i, name in enumerate(API_NAMES)}


@dataclasses.dataclass
class RefCounts:
    """References counted per category (CONV_*), per library and per CUDA name."""

    by_type: Counter[str] = dataclasses.field(default_factory=Counter)
    by_api: Counter[str] = dataclasses.field(default_factory=Counter)
    by_name: Counter[str] = dataclasses.field(default_factory=Counter)

    def add(self, conv: str, library: str, name: str) -> None:
        """Count one reference."""
        self.by_type[conv] += 1
        self.by_api[library] += 1
        self.by_name[name] += 1

    @property
    def total(self) -> int:
        """Number of references."""
        return sum(self.by_type.values())

    def merge(self, other: RefCounts) -> None:
        """Add ``other`` into this one."""
        self.by_type.update(other.by_type)
        self.by_api.update(other.by_api)
        self.by_name.update(other.by_name)

    def report(self, prefix: str) -> list[str]:
        """Report lines (hipify-clang's ``refs by type / API / names`` sections)."""
        lines: list[str] = []
        if self.by_type:
            lines.append(f"[HIPIFY] info: {prefix} refs by type:")
            for conv in sorted(self.by_type, key=lambda c: _CATEGORY_ORDER.get(c, 99)):
                lines.append(f"  {CATEGORY_NAMES.get(conv, conv)}: {self.by_type[conv]}")
        if self.by_api:
            lines.append(f"[HIPIFY] info: {prefix} refs by API:")
            for lib in sorted(self.by_api, key=lambda a: _API_ORDER.get(a, 99)):
                lines.append(f"  {API_NAMES.get(lib, lib)}: {self.by_api[lib]}")
        if self.by_name:
            lines.append(f"[HIPIFY] info: {prefix} refs by names:")
            for name in sorted(self.by_name):
                lines.append(f"  {name}: {self.by_name[name]}")
        return lines


@dataclasses.dataclass
class Stats:
    """Statistics of one translated file, or of several added together."""

    file: str = "<string>"
    converted: RefCounts = dataclasses.field(default_factory=RefCounts)
    unconverted: RefCounts = dataclasses.field(default_factory=RefCounts)
    total_lines: int = 0
    changed_lines: int = 0
    total_bytes: int = 0
    replaced_bytes: int = 0
    warnings: int = 0
    seconds: float = 0.0
    files: int = 1
    changed_files: int = 0

    @property
    def conversion_percent(self) -> float:
        """Share of the CUDA references that were converted, in percent (100 when none)."""
        total = self.converted.total + self.unconverted.total
        return 100.0 if total == 0 else 100.0 * self.converted.total / total

    def merge(self, other: Stats) -> None:
        """Add ``other`` (another file) into this one."""
        self.converted.merge(other.converted)
        self.unconverted.merge(other.unconverted)
        for name in ("total_lines", "changed_lines", "total_bytes", "replaced_bytes", "warnings",
                     "seconds", "files", "changed_files"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def report(self, *, total: bool = False) -> str:
        """The report text (hipify-clang layout plus ``WARNINGS``); ``total`` adds file counts."""
        lines_pct = 0.0 if not self.total_lines else 100.0 * self.changed_lines / self.total_lines
        bytes_pct = 0.0 if not self.total_bytes else 100.0 * self.replaced_bytes / self.total_bytes
        out = [
            "",
            f"[HIPIFY] info: file '{self.file}' statistics:",
            f"  CONVERTED refs count: {self.converted.total}",
            f"  UNCONVERTED refs count: {self.unconverted.total}",
            f"  CONVERSION %: {self.conversion_percent:.1f}",
            f"  REPLACED bytes: {self.replaced_bytes}",
            f"  TOTAL bytes: {self.total_bytes}",
            f"  CHANGED lines of code: {self.changed_lines}",
            f"  TOTAL lines of code: {self.total_lines}",
            f"  CODE CHANGED (in bytes) %: {bytes_pct:.1f}",
            f"  CODE CHANGED (in lines) %: {lines_pct:.1f}",
            f"  WARNINGS: {self.warnings}",
            f"  TIME ELAPSED s: {self.seconds:.2f}",
        ]
        out += self.converted.report("CONVERTED")
        out += self.unconverted.report("UNCONVERTED")
        if total:
            out += [
                "",
                "[HIPIFY] info: TOTAL statistics:",
                f"  CONVERTED files: {self.changed_files}",
                f"  PROCESSED files: {self.files}",
            ]
        return "\n".join(out) + "\n"
