"""Issue #14 item 11a: a source string that has no UTF-8 form (a lone surrogate, as
``errors="surrogateescape"`` decoding leaves for bytes that are not UTF-8) is a CompileError
naming the line and column, not a UnicodeEncodeError from deep inside the compiler; a source
that is not a str is a TypeError. Nothing is compiled or cached."""

from __future__ import annotations

import pickle

import pytest

import openhip as hip
from openhip.compiler import cache

GOOD = 'extern "C" __global__ void k(int* p) { p[0] = 1; }\n'


@pytest.mark.parametrize("bad, line, column", [
    ("\ud800" + GOOD, 1, 1),
    (GOOD + "// caf\udce9\n", 2, 7),  # b"caf\xe9" decoded with surrogateescape
    ('#include <hip/hip_runtime.h>\nconst char* s = "\udfff";\n' + GOOD, 2, 18),
])
def test_lone_surrogate_is_a_compile_error_with_its_position(isolated_cache, bad, line, column):
    with pytest.raises(hip.CompileError) as info:
        hip.compile_program(bad, platform="cpu")
    err = info.value
    assert f"kernel.hip:{line}:{column}: error:" in err.log and "surrogate" in err.log
    assert err.platform == "cpu"
    err.source.encode("utf-8")  # the error itself holds text that can be dumped
    assert pickle.loads(pickle.dumps(err)).log == err.log
    assert not isolated_cache.exists() or not list(isolated_cache.rglob("*.ohc"))


def test_lone_surrogate_through_module_and_every_platform_name(isolated_cache):
    with pytest.raises(hip.CompileError, match="surrogate"):
        cache.check_source("x\udc80", platform="nvidia", filename="k.cu")
    with pytest.raises(hip.CompileError, match="surrogate"):
        hip.Module("\udc80" + GOOD)


@pytest.mark.parametrize("bad", [b"__global__ void k() {}", None, 3, ["src"]])
def test_non_str_source_is_a_type_error(bad):
    with pytest.raises(TypeError, match="source must be str"):
        cache.check_source(bad)
    with pytest.raises(TypeError):
        hip.compile_program(bad, platform="cpu")


def test_valid_non_ascii_source_compiles(isolated_cache):
    program = hip.compile_program("// größe: 𝛼\n" + GOOD, platform="cpu")
    assert "k" in program.kernels
