"""The HIP kernel modules of openhip.llm: sources in ``kernels/*.hip`` (the shared header
``ggml_types.h`` inlined), built once per process and device through openhip's compile cache."""

from __future__ import annotations

import re
import threading
from functools import cache
from pathlib import Path

import openhip as _rt

__all__ = ["KERNEL_DIR", "source", "name_expressions", "module", "function"]

KERNEL_DIR = Path(__file__).parent / "kernels"
_INCLUDE = re.compile(r'^#include "([A-Za-z0-9_]+\.h)"\s*$', re.M)
_LOCK = threading.Lock()
_MODULES: dict[tuple[str, tuple[str, ...], int], object] = {}


@cache
def source(name: str) -> str:
    """The text of ``kernels/<name>.hip`` with its ``#include "x.h"`` lines replaced by the
    headers' text (each header once)."""
    seen: set[str] = set()

    def expand(text: str) -> str:
        def sub(m: re.Match) -> str:
            header = m.group(1)
            if header in seen:
                return ""
            seen.add(header)
            return expand((KERNEL_DIR / header).read_text())

        return _INCLUDE.sub(sub, text)

    return expand((KERNEL_DIR / f"{name}.hip").read_text())


@cache
def name_expressions(name: str) -> tuple[str, ...]:
    """The template instantiations listed on the first line of ``kernels/<name>.hip``
    (``// openhip: name_expressions = a<1>, b<2>``)."""
    first = (KERNEL_DIR / f"{name}.hip").read_text().splitlines()[0]
    if "openhip: name_expressions" not in first:
        return ()
    from ..compiler.scan import split_template_args

    return tuple(a for a in split_template_args(first.split("=", 1)[1]) if a)


def module(name: str, exprs: tuple[str, ...] | None = None):
    """The compiled module ``kernels/<name>.hip`` for the current device, with the template
    instantiations ``exprs`` (default: all those its first line lists)."""
    exprs = name_expressions(name) if exprs is None else tuple(sorted(set(exprs)))
    dev = _rt.get_device()
    key = (name, exprs, int(getattr(dev, "id", 0)))
    with _LOCK:
        mod = _MODULES.get(key)
        if mod is None:
            mod = _rt.Module(source(name), name_expressions=exprs,
                             name=f"openhip_llm_{name}.hip")
            _MODULES[key] = mod
    return mod


def function(name: str, kernel: str, exprs: tuple[str, ...] | None = None):
    """Kernel ``kernel`` (``"oh_quantize<8>"``) of module ``name`` (built with ``exprs``)."""
    return module(name, exprs).get_function(kernel)
