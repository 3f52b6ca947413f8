"""The conformance kernels (tests/kernels/*.hip) and how the tests compile them."""

from __future__ import annotations

import re
from pathlib import Path

import openhip as hip

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


def load_kernel(name: str, options=()) -> hip.Module:
    """Compiles tests/kernels/<name>.hip with the name expressions its first line lists
    (``// openhip: name_expressions = k<float>, k<double>``)."""
    src = (KERNELS / f"{name}.hip").read_text()
    m = re.match(r"//\s*openhip:\s*name_expressions\s*=\s*(.*)", src.splitlines()[0])
    exprs = [e.strip() for e in re.split(r",\s*(?![^<]*>)", m.group(1))] if m else []
    return hip.Module(src, options=options, name_expressions=exprs, name=f"{name}.hip")
