"""The public API the rest of openhip uses: translate(), hipify(), HipifyOptions."""

from __future__ import annotations

import pickle

import pytest

import openhip.hipify as hipify_pkg
from openhip.errors import OpenHipError
from openhip.hipify import HipifyError, HipifyOptions, HipifyResult, hipify, translate

KERNEL = "__global__ void k(float *x) { x[threadIdx.x] *= 2; }\n"


def test_translate_for_module_sources():
    """What hip.Module(source, language="cuda") calls: plain text in, HIP text out."""
    assert translate(KERNEL) == "#include <hip/hip_runtime.h>\n" + KERNEL
    assert translate(KERNEL, filename="kernel.cu") == translate(KERNEL)


def test_hipify_result():
    r = hipify("cudaStream_t s;\n", filename="x.cu")
    assert isinstance(r, HipifyResult) and r.changed
    assert r.text.endswith("hipStream_t s;\n")
    assert r.stats.file == "x.cu" and r.stats.converted.total == 1
    assert not hipify("int x;\n").changed


def test_options_object_and_overrides():
    opts = HipifyOptions(hip_kernel_execution_syntax=True)
    src = "#include <hip/hip_runtime.h>\nk<<<1, 1>>>(x);"
    assert "hipLaunchKernelGGL" in hipify(src, options=opts).text
    assert "k<<<1, 1>>>" in hipify(src, options=opts, hip_kernel_execution_syntax=False).text


def test_error_type_and_pickling():
    with pytest.raises(HipifyError) as info:
        translate("k<<<1, 2(x);", filename="e.cu")
    err = info.value
    assert isinstance(err, OpenHipError) and isinstance(err, ValueError)
    again = pickle.loads(pickle.dumps(err))
    assert (again.file, again.line, again.column, str(again)) == (err.file, err.line, err.column, str(err))


def test_public_names():
    assert set(hipify_pkg.__all__) >= {"translate", "hipify", "HipifyOptions", "HipifyResult", "HipifyWarning",
                                        "HipifyError", "Stats"}
