"""hipify: translate CUDA sources to HIP.

* :func:`translate` — CUDA text in, HIP text out (what ``hip.Module(source, language="cuda")``
  uses).
* :func:`hipify` — the same, returning a :class:`HipifyResult` with ``.text``, ``.warnings``
  (:class:`HipifyWarning`: file, line, column, message) and ``.stats`` (:class:`Stats`).
* :class:`HipifyOptions` — every option, named after hipify-clang's flags.
* :class:`HipifyError` — raised for input that cannot be translated.

The command line is ``openhip hipify`` (:mod:`openhip.cli.hipify`). Mapping tables come from
HIPIFY (MIT, Copyright (c) 2024 Advanced Micro Devices, Inc.), generated into ``_maps.py`` by
``tools/gen_hipify_maps.py``.
"""

from .options import HipifyOptions
from .result import HipifyError, HipifyResult, HipifyWarning
from .stats import Stats
from .translator import hipify, translate

__all__ = ["translate", "hipify", "HipifyOptions", "HipifyResult", "HipifyWarning", "HipifyError", "Stats"]
