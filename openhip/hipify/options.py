"""Translation options: one field per behaviour, named after hipify-clang's flags."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

#: The values of :attr:`HipifyOptions.runtime_header`.
RUNTIME_HEADER_MODES = ("needed", "always")


@dataclasses.dataclass(frozen=True)
class HipifyOptions:
    """What :func:`openhip.hipify.translate` does; every field mirrors a command-line flag.

    * ``hip_kernel_execution_syntax`` (``--hip-kernel-execution-syntax``): rewrite
      ``k<<<g, b, s, q>>>(args)`` to ``hipLaunchKernelGGL(k, dim3(g), dim3(b), s, q, args)``;
      by default the launch syntax is kept (it is valid HIP).
    * ``roc`` (``--roc``): use the rocBLAS/rocSPARSE/rocSOLVER names where the tables have them;
      ``miopen`` (``--miopen``): MIOpen's names for cuDNN (and the runtime names MIOpen uses).
      They combine as in hipify-clang: with both, the names are those of ``miopen`` and the
      argument rewrites are cuDNN -> MIOpen's (see :mod:`openhip.hipify.calls`).
    * ``experimental`` (``--experimental``): also translate APIs HIP supports experimentally.
    * ``use_hip_data_types`` (``--use-hip-data-types``): keep ``hipDataType`` names for
      ``cudaDataType`` and its values even with ``roc``.
    * ``skip_excluded_preprocessor_blocks`` (``--skip-excluded-preprocessor-conditional-blocks``,
      ``--default-preprocessor``): leave code in ``#if`` branches that are false untouched;
      ``amap`` (``--amap``) overrides it (translate as much as possible). ``defines``: ``-D``.
    * ``translate_strings``: rewrite CUDA names that stand alone (space-separated) inside
      string literals, as hipify-clang does; ``translate_comments``: rewrite CUDA names in
      comments. Both off by default here (the translation of a kernel source keeps its
      literals); the ``openhip hipify`` command line turns ``translate_strings`` on, as
      hipify-clang (``--no-translate-strings`` turns it off).
    * ``runtime_header``: when to add ``#include <hip/hip_runtime.h>``: ``"needed"`` (default)
      when the file uses CUDA and includes no HIP runtime header; ``"always"`` to every file that
      does not include it yet, as hipify-clang does (it parses each file with CUDA's runtime
      header implicitly included, as nvcc compiles ``.cu`` files). The command line uses
      ``"always"`` for ``.cu``/``.cuh`` files (``--no-implicit-runtime-header`` turns it off).
    * ``warnings``: collect warnings (``-quiet-warnings`` turns them off);
      ``whitelist``: CUDA-looking names that are not reported as unknown.
    """

    hip_kernel_execution_syntax: bool = False
    roc: bool = False
    miopen: bool = False
    experimental: bool = False
    use_hip_data_types: bool = False
    skip_excluded_preprocessor_blocks: bool = False
    amap: bool = False
    defines: Mapping[str, str] = dataclasses.field(default_factory=dict)
    translate_strings: bool = False
    translate_comments: bool = False
    runtime_header: str = "needed"
    warnings: bool = True
    whitelist: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.runtime_header not in RUNTIME_HEADER_MODES:
            raise ValueError(f"runtime_header must be one of {RUNTIME_HEADER_MODES}, not {self.runtime_header!r}")

    @classmethod
    def from_kwargs(cls, **kwargs: object) -> HipifyOptions:
        """Build options from keyword arguments; unknown names raise :class:`TypeError`."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise TypeError(f"unknown hipify option(s): {', '.join(unknown)}")
        if "whitelist" in kwargs:
            kwargs["whitelist"] = frozenset(kwargs["whitelist"])  # type: ignore[arg-type]
        return cls(**kwargs)  # type: ignore[arg-type]
