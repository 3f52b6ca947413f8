"""openhip.numpy's kernel families compile for NVIDIA (NVRTC, sm_90) and AMD (hiprtc, gfx90a)
without a GPU: every elementwise group for a dtype of each kind (bfloat16 and complex
included), the casts, the creation and the data-movement kernels. Skips where a toolchain is
absent."""

from __future__ import annotations

import pytest

from openhip.numpy import _dtypes as D
from openhip.numpy import _elementwise as ew
from openhip.numpy._creation import FAMILY as CREATE
from openhip.numpy._kernels import ctype, source
from openhip.numpy._manipulation import _EXPRS as INDEX_EXPRS

TARGETS = [("nvidia", "sm_90"), ("amd", "gfx90a")]
# every group over a dtype of each kind (the contiguous and the strided n-D layout), every
# layout for float64; the creation kernels over all of them
DTYPES = [D.bool, D.int8, D.uint64, D.float16, D.bfloat16, D.float32, D.float64, D.complex64,
          D.complex128]
EW_DTYPES = [D.bool, D.uint64, D.bfloat16, D.float64, D.complex64]


def _elementwise_exprs() -> list[str]:
    exprs: list[str] = []
    for dt in EW_DTYPES:
        for group in sorted({op.group for op in ew._OPS.values()}):
            for layout in ((0, 1, 2, 3) if dt == D.float64 else (0, 1)):
                exprs += ew._group_exprs(group, dt, layout)
    for src, dst in [(D.int32, D.float16), (D.bfloat16, D.complex64), (D.complex128, D.bool),
                     (D.float64, D.uint8), (D.bool, D.bfloat16)]:
        exprs.append(f"un<o_copy, {ctype(src)}, {ctype(dst)}, 1>")
        exprs.append(f"un0<o_copy, {ctype(src)}, {ctype(dst)}>")
        exprs.append(f"un3<o_copy, {ctype(src)}, {ctype(dst)}>")
    return sorted(set(exprs))


@pytest.mark.parametrize("platform,arch", TARGETS, ids=[f"{p}-{a}" for p, a in TARGETS])
@pytest.mark.parametrize("family", ["elementwise", "create", "index"])
def test_family_compiles(gpu_toolchain, family, platform, arch):
    tool = gpu_toolchain(platform)
    if family == "elementwise":
        exprs = _elementwise_exprs()
        filename, options = "elementwise.hip", ew.FAMILY.options
    elif family == "create":
        exprs = [f"{k}<{ctype(dt)}>" for dt in DTYPES
                 for k in ("fill", "arange", "linspace", "eye", "tri")]
        filename, options = "create.hip", CREATE.options
    else:
        exprs = list(INDEX_EXPRS)
        filename, options = "index.hip", ("-std=c++17",)
    gpu_options = tuple(o for o in options if not o.startswith("-O"))
    program = tool.compile(source(filename), arch=arch, options=gpu_options,
                           name_expressions=exprs, filename=filename)
    assert program.binary[:4] == b"\x7fELF"
    missing = [e for e in exprs if e not in program.kernels]
    assert not missing, missing[:5]
