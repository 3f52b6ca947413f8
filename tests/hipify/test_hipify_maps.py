"""The generated maps: complete, carrying HIPIFY's notice, in step with the generator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from openhip.hipify import _maps, maps

ROOT = Path(__file__).resolve().parents[2]
#: The 2024 snapshot the maps came from before HIPIFY rocm-7.0.2's tables (absent in CI).
SNAPSHOT = ROOT.parent / "shared" / "hipify-map"
GENERATOR = ROOT / "tools" / "gen_hipify_maps.py"


def test_flag_bits_match_generated_order():
    for i, name in enumerate(_maps.FLAGS):
        assert getattr(maps, name) == 1 << i


def test_kind_order():
    assert _maps.KINDS.index("device_function") == maps.KIND_DEVICE_FUNCTION
    assert _maps.KINDS.index("include") == maps.KIND_INCLUDE


def test_tables_loaded():
    t = maps.tables()
    # HIPIFY rocm-7.0.2's 66 headers less the samples' helper_cuda.h / helper_math.h, + cuda_bf16.h,
    # cg reduce/scan, cusparseLt.h, cufile.h, cufftw.h
    assert len(t.renames) > 10000 and len(t.includes) == 70
    assert "helper_cuda.h" not in t.includes and "helper_math.h" not in t.includes
    assert t.includes["cuda_bf16.h"].hip == "hip/hip_bf16.h"
    assert t.includes["cuda_runtime.h"].hip == "hip/hip_runtime.h"
    assert t.cuda_versions["cudaThreadSynchronize"] == ("10.0", "")
    assert maps.tables() is t


def test_notice_present():
    text = (ROOT / "openhip" / "hipify" / "_maps.py").read_text()
    assert "Copyright (c) 2025 Advanced Micro Devices, Inc." in text  # 7.0.2's LICENSE.txt
    assert "release rocm-7.0.2" in text
    assert "MIT" in text or "Permission is hereby granted" in text


def test_no_translation_chains():
    """A target name is never itself a CUDA name mapped elsewhere (translation is idempotent)."""
    t = maps.tables()
    for entry in t.renames.values():
        for target in (entry.hip, entry.roc):
            other = t.renames.get(target)
            if target and target != entry.cuda and other is not None:
                assert other.hip == target


def test_generated_module_is_current():
    """The committed module is what the repository's own tables (tools/hipify_tables_7.0.2)
    produce: no ../shared needed."""
    result = subprocess.run([sys.executable, str(GENERATOR), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(not SNAPSHOT.is_dir(), reason="../shared/hipify-map is not available")
def test_the_2024_snapshot_still_generates(tmp_path):
    out = tmp_path / "maps.py"
    result = subprocess.run([sys.executable, str(GENERATOR), "--tables", str(SNAPSHOT), "--out",
                             str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert "branch amd-staging" in text and "Copyright (c) 2024" in text
    assert "'cudaMalloc\\thipMalloc\\t" in text


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
    """tools/hipify_newer_maps.tsv (names 7.0.2 lacks) and the generator's corrections."""
    t = maps.tables()
    e = t.renames["cusparseLtInit"]
    assert (e.hip, e.library, e.kind) == ("hipsparseLtInit", "CUSPARSELT", maps.KIND_FUNCTION)
    assert t.renames["CUSPARSELT_INVALID_MODE"].flags & maps.UNSUPPORTED
    assert t.includes["cusparseLt.h"].hip == "hipsparseLt.h"
    assert t.renames["cuFileDriverClose_v2"].hip == "hipFileDriverClose"
    assert t.renames["cuFileStatsStart"].flags & maps.UNSUPPORTED
    assert t.includes["cufile.h"].library == "CUFILE"
    assert t.renames["CUTENSOR_COMPUTE_DESC_32F"].hip == "HIPTENSOR_COMPUTE_DESC_32F"
    assert t.renames["cutensorBlockSparseContract"].flags & maps.UNSUPPORTED
    assert t.renames["cusparseLtInit"].roc == ""
    # corrections: HIP's hipLibraryPropertyType; the OCP fp8 formats, not 7.0.2's FNUZ ones
    assert t.renames["libraryPropertyType"].hip == "hipLibraryPropertyType"
    assert not t.renames["libraryPropertyType_t"].flags & maps.HIP_UNSUPPORTED
    assert t.renames["__nv_fp8_e4m3"].hip == "__hip_fp8_e4m3"
    assert t.renames["__NV_E5M2"].hip == "__HIP_E5M2"


def test_rocm_7_0_2_rows():
    """Rows as HIPIFY rocm-7.0.2 maps them, where the 2024 snapshot differed."""
    t = maps.tables()
    assert (t.renames["cublasScnrm2_v2"].hip, t.renames["cublasScnrm2_v2"].roc) == (
        "hipblasScnrm2", "rocblas_scnrm2")  # hipBLAS 3.0: no _v2
    assert t.renames["cudaDevAttrPciDomainId"].hip == "hipDeviceAttributePciDomainId"
    assert t.renames["cufftXtMalloc"].hip == "hipfftXtMalloc"
    assert not t.renames["cufftXtMalloc"].flags & maps.HIP_UNSUPPORTED
    assert t.renames["curandStateXORWOW"].roc == "rocrand_device::xorwow_engine"
    assert t.renames["__nv_bfloat16"].hip == "__hip_bfloat16"
    assert t.includes["nvrtc.h"].hip == "hip/hiprtc.h"
    e = t.renames["cuLaunchKernelEx"]
    assert (e.hip, e.flags & maps.HIP_EXPERIMENTAL) == ("hipDrvLaunchKernelEx", maps.HIP_EXPERIMENTAL)
    # later HIPIFY maps these; 7.0.2 calls them unsupported, and 7.0.2 stands
    assert t.renames["CUkern_st"].flags & maps.HIP_UNSUPPORTED
    assert t.renames["cublasCsyrkEx"].flags & maps.UNSUPPORTED
    assert t.renames["cudaLibraryLoadData"].flags & maps.HIP_UNSUPPORTED
    assert t.renames["cuGreenCtxCreate"].conv == "CONV_GREEN_CONTEXT"


def test_cutensor_statistics_and_warnings():
    """cuTENSOR references count under their own API; the unsupported ones warn."""
    from openhip.hipify import hipify

    r = hipify('#include "cutensor.h"\nint f(cutensorHandle_t h) { cutensorGetVersion();'
               ' return cutensorDestroy(h); }\n', filename="t.cu")
    assert "hiptensorDestroy(h)" in r.text and "cutensorGetVersion()" in r.text
    assert r.stats.converted.by_api == {"CUTENSOR": 3}
    assert r.stats.unconverted.by_name == {"cutensorGetVersion": 1}
    assert [w.message for w in r.warnings] == ["'cutensorGetVersion' is unsupported in 'HIP'."]
