"""The generated maps: complete, carrying HIPIFY's notice, in step with the generator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from openhip.hipify import _maps, maps

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT.parent / "shared" / "hipify-map"


def test_flag_bits_match_generated_order():
    for i, name in enumerate(_maps.FLAGS):
        assert getattr(maps, name) == 1 << i


def test_kind_order():
    assert _maps.KINDS.index("device_function") == maps.KIND_DEVICE_FUNCTION
    assert _maps.KINDS.index("include") == maps.KIND_INCLUDE


def test_tables_loaded():
    t = maps.tables()
    assert len(t.renames) > 8900 and len(t.includes) == 70  # HIPIFY's 60 + cuda_bf16/fp8.h, cg reduce/scan, cusparseLt.h, cufile.h, cufftw.h, cuda_fp4.h, cutensor.h, cutensorMg.h
    assert t.includes["cuda_bf16.h"].hip == "hip/hip_bf16.h"
    assert t.includes["cuda_runtime.h"].hip == "hip/hip_runtime.h"
    assert t.cuda_versions["cudaThreadSynchronize"] == ("10.0", "")
    assert maps.tables() is t


def test_notice_present():
    text = (ROOT / "openhip" / "hipify" / "_maps.py").read_text()
    assert "Copyright (c) 2024 Advanced Micro Devices, Inc." in text
    assert "MIT" in text or "Permission is hereby granted" in text


def test_no_translation_chains():
    """A target name is never itself a CUDA name mapped elsewhere (translation is idempotent)."""
    t = maps.tables()
    for entry in t.renames.values():
        for target in (entry.hip, entry.roc):
            other = t.renames.get(target)
            if target and target != entry.cuda and other is not None:
                assert other.hip == target


@pytest.mark.skipif(not TABLES.is_dir(), reason="../shared/hipify-map is not available")
def test_generated_module_is_current():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_hipify_maps.py"), "--check", "--tables", str(TABLES)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr


def test_runtime_never_reads_shared(monkeypatch):
    import builtins

    opened = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    maps.tables.cache_clear()
    try:
        maps.tables()
    finally:
        maps.tables.cache_clear()
    assert not [f for f in opened if "shared" in f and "hipify-map" in f]


def test_newer_hipify_rows():
    """tools/hipify_newer_maps.tsv (cuSPARSELt) and the generator's later-HIPIFY corrections."""
    t = maps.tables()
    e = t.renames["cusparseLtInit"]
    assert (e.hip, e.library, e.kind) == ("hipsparseLtInit", "CUSPARSELT", maps.KIND_FUNCTION)
    assert t.renames["CUSPARSELT_INVALID_MODE"].flags & maps.UNSUPPORTED
    assert t.includes["cusparseLt.h"].hip == "hipsparseLt.h"
    assert t.renames["__nv_bfloat16"].hip == "__hip_bfloat16"
    assert not t.renames["__nv_bfloat162"].flags & (maps.UNSUPPORTED | maps.HIP_UNSUPPORTED)
    assert t.renames["cudaKernel_t"].hip == "hipKernel_t"
    assert t.renames["cudaLibraryGetGlobal"].flags & maps.HIP_UNSUPPORTED
    assert t.renames["cuFileDriverClose_v2"].hip == "hipFileDriverClose"
    assert t.renames["cuFileStatsStart"].flags & maps.UNSUPPORTED
    assert t.includes["cufile.h"].library == "CUFILE"
    assert (t.renames["cutensorCreatePlan"].hip, t.renames["cutensorCreatePlan"].library) == (
        "hiptensorCreatePlan", "CUTENSOR")
    assert t.renames["cutensorGetCudartVersion"].hip == "hiptensorGetHiprtVersion"
    assert t.renames["cutensorMgCreate"].flags & maps.UNSUPPORTED
    assert t.includes["cutensor.h"].hip == "hiptensor.h"
    # REPLACES rows: the later HIP name, no longer HIP_UNSUPPORTED
    e = t.renames["CUkern_st"]
    assert (e.hip, e.flags & maps.HIP_UNSUPPORTED) == ("ihipKernel_t", 0)
    assert t.renames["CUDA_MEMCPY3D_BATCH_OP"].hip == "hipMemcpy3DBatchOp"
    e = t.renames["cudaLaunchConfig_t"]
    assert (e.hip, e.flags & maps.HIP_UNSUPPORTED) == ("hipLaunchConfig_t", 0)
    assert not t.renames["cudaEventRecordWithFlags"].flags & maps.HIP_UNSUPPORTED
    assert t.renames["cudaMemcpy3DBatchAsync"].hip == "hipMemcpy3DBatchAsync"
    assert t.renames["CUDA_MEMSET_NODE_PARAMS"].hip == "hipMemsetParams"
    e = t.renames["cuLaunchKernelEx"]
    assert (e.hip, e.flags & maps.HIP_UNSUPPORTED) == ("hipDrvLaunchKernelEx", 0)
    assert t.renames["cuEventElapsedTime_v2"].hip == "hipEventElapsedTime"
    # a row's roc_name column: the --roc name; HIP_EXPERIMENTAL in place of the tables' UNSUPPORTED
    e = t.renames["cublasCsyrkEx"]
    assert (e.hip, e.roc, e.flags & (maps.UNSUPPORTED | maps.HIP_EXPERIMENTAL)) == (
        "hipblasSyrkEx", "rocblas_syrk_ex", maps.HIP_EXPERIMENTAL)
    assert t.renames["cusparseLtInit"].roc == ""


def test_cutensor_statistics_and_warnings():
    """cuTENSOR references count under their own API; the unsupported ones warn."""
    from openhip.hipify import hipify

    r = hipify('#include "cutensor.h"\nint f(cutensorHandle_t h) { cutensorGetVersion();'
               ' return cutensorDestroy(h); }\n', filename="t.cu")
    assert "hiptensorDestroy(h)" in r.text and "cutensorGetVersion()" in r.text
    assert r.stats.converted.by_api == {"CUTENSOR": 3}
    assert r.stats.unconverted.by_name == {"cutensorGetVersion": 1}
    assert [w.message for w in r.warnings] == ["'cutensorGetVersion' is unsupported in 'HIP'."]
