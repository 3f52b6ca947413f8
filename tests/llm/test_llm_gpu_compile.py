"""openhip.llm's kernel modules compile for NVIDIA sm_90 (NVRTC) and AMD gfx90a (hiprtc) without
a GPU, every template instantiation resolved; skips where a toolchain is absent."""

from __future__ import annotations

import pytest

from openhip.llm import kernels

MODULES = sorted(p.stem for p in kernels.KERNEL_DIR.glob("*.hip"))
TARGETS = [("nvidia", "sm_90"), ("amd", "gfx90a")]


@pytest.mark.parametrize("platform,arch", TARGETS, ids=[f"{p}-{a}" for p, a in TARGETS])
@pytest.mark.parametrize("name", MODULES)
def test_llm_module_compiles_for_gpu(gpu_toolchain, name, platform, arch):
    tool = gpu_toolchain(platform)
    exprs = list(kernels.name_expressions(name))
    program = tool.compile(kernels.source(name), arch=arch, name_expressions=exprs,
                           filename=f"{name}.hip")
    assert program.binary[:4] == b"\x7fELF"
    for expr in exprs:
        assert expr in program.kernels, f"{expr} not resolved: {sorted(program.kernels)[:8]}"


def test_name_expressions_listed():
    assert "oh_quantize<8>" in kernels.name_expressions("quant")
    assert len(kernels.name_expressions("quant")) == 20
