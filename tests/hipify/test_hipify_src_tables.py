"""tools/hipify_src_tables.py: HIPIFY's C++ maps (src/CUDA2HIP_*.cpp) into the two tables."""

from __future__ import annotations

import importlib.util
import io
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: HIPIFY rocm-7.0.2's extracted tree, where a session has it (not in CI).
RELEASE_TREE = Path("/tmp/hipify_deb/HIPIFY-rocm-7.0.2")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


SRC = _load("hipify_src_tables")

HEADER = """
namespace runtime {
  enum CUDA_RUNTIME_API_SECTIONS {
    DEVICE = 1,
    MEMORY = 5,
    DATA_TYPES,
  };
}
"""
RUNTIME_FUNCTIONS = r"""
#include "CUDA2HIP.h"
using SEC = runtime::CUDA_RUNTIME_API_SECTIONS;
// Map of all CUDA Runtime API functions
const std::map<llvm::StringRef, hipCounter> CUDA_RUNTIME_FUNCTION_MAP {
  // 1. Device Management
  {"cudaGetDevice",  {"hipGetDevice",  "", CONV_DEVICE, API_RUNTIME, SEC::DEVICE}},
  /* a block comment, {"cudaFake", {...}} */
  {"cudaMallocHost", {"hipHostMalloc", "", CONV_MEMORY, API_RUNTIME, SEC::MEMORY, CUDA_DEPRECATED | HIP_DEPRECATED}},
  {"cudaGetDevice",  {"hipSecond",     "", CONV_DEVICE, API_RUNTIME, SEC::DEVICE, UNSUPPORTED}},
  {"cudaNew",        {"hipNew",        "", CONV_MEMORY, API_RUNTIME, SEC::MEMORY, HIP_UNSUPPORTED}},
};
const std::map<llvm::StringRef, cudaAPIversions> CUDA_RUNTIME_FUNCTION_VER_MAP {
  {"cudaMallocHost", {CUDA_0,   CUDA_110, CUDA_0  }},
  {"cudaNew",        {CUDA_128, CUDA_0,   CUDA_0  }},
};
const std::map<llvm::StringRef, hipAPIversions> HIP_RUNTIME_FUNCTION_VER_MAP {
  {"hipGetDevice",   {HIP_1060, HIP_0,    HIP_0   }},
  {"hipHostMalloc",  {HIP_1060, HIP_0,    HIP_0,   HIP_1060}},
  {"hipNew",         {HIP_1060, HIP_0,    HIP_0   }},
};
const std::map<unsigned int, llvm::StringRef> CUDA_RUNTIME_API_SECTION_MAP {
  {SEC::DEVICE, "Device Management"},
  {SEC::MEMORY, "Memory Management"},
  {SEC::DATA_TYPES, "Data types used by CUDA Runtime"},
};
"""
# the lambda form some HIPIFY versions use: a later assignment replaces an earlier one
DEVICE_TYPES = r"""
const std::map<llvm::StringRef, hipCounter> CUDA_DEVICE_TYPE_NAME_MAP = []() {
  std::map<llvm::StringRef, hipCounter> m;
  m["__half"]      = {"__half",      "rocblas_half", CONV_DEVICE_TYPE, API_RUNTIME, 2};
  m["__NV_E4M3"]   = {"__HIP_E4M3",  "",             CONV_NUMERIC_LITERAL, API_RUNTIME, 2, UNSUPPORTED};
  m["__NV_E4M3"]   = {"__HIP_E4M3",  "",             CONV_NUMERIC_LITERAL, API_RUNTIME, 2};
  return m;
}();
"""
DEVICE_FUNCTIONS = r"""
const std::map<llvm::StringRef, hipCounter> CUDA_DEVICE_FUNCTION_MAP {
  {"umin", {"umin", "", CONV_DEVICE_FUNC, API_RUNTIME, 1, UNSUPPORTED}},
};
const std::map<unsigned int, llvm::StringRef> CUDA_DEVICE_FUNCTION_API_SECTION_MAP {
  {1, "Device Functions"},
  {2, "Device Types"},
};
"""
INCLUDES = r"""
const std::map <llvm::StringRef, hipCounter> CUDA_INCLUDE_MAP {
  {"cuda_runtime.h", {"hip/hip_runtime.h", "", CONV_INCLUDE_CUDA_MAIN_H, API_RUNTIME, 0}},
  {"texture_fetch_functions.h", {"", "", CONV_INCLUDE, API_RUNTIME, 0}},
};
const std::map<llvm::StringRef, hipCounter> &CUDA_RENAMES_MAP() {
  static std::map<llvm::StringRef, hipCounter> ret;
  if (!ret.empty())
    return ret;
  return ret;
};
"""
STATISTICS = """
    case CUDA_110: return "11.0";
    case CUDA_128: return "12.8";
    case HIP_1060: return "1.6.0";
"""


def _files() -> dict[str, str]:
    return {"CUDA2HIP.h": HEADER, "CUDA2HIP.cpp": INCLUDES, "Statistics.cpp": STATISTICS,
            "CUDA2HIP_Runtime_API_functions.cpp": RUNTIME_FUNCTIONS,
            "CUDA2HIP_Device_types.cpp": DEVICE_TYPES,
            "CUDA2HIP_Device_functions.cpp": DEVICE_FUNCTIONS}


def test_fragment_rows_in_the_shared_schema():
    rows, versions = SRC.convert(_files())
    assert list(rows[0]) == list(SRC.MAP_COLUMNS)
    by = {(r["map"], r["cuda_name"]): r for r in rows}
    assert len(by) == len(rows) == 8  # the repeated cudaGetDevice keeps its first entry
    assert [r["cuda_name"] for r in rows][:2] == ["cuda_runtime.h", "texture_fetch_functions.h"]
    inc = by[("CUDA_INCLUDE_MAP", "cuda_runtime.h")]
    assert (inc["kind"], inc["hip_name"], inc["conv"], inc["section"]) == (
        "include", "hip/hip_runtime.h", "CONV_INCLUDE_CUDA_MAIN_H", "0")
    assert by[("CUDA_INCLUDE_MAP", "texture_fetch_functions.h")]["hip_name"] == ""
    first = by[("CUDA_RUNTIME_FUNCTION_MAP", "cudaGetDevice")]
    assert (first["hip_name"], first["flags"], first["library"], first["kind"], first["section"]) == (
        "hipGetDevice", "", "CUDA_Runtime_API", "function", "SEC::DEVICE")
    assert by[("CUDA_RUNTIME_FUNCTION_MAP", "cudaMallocHost")]["flags"] == "CUDA_DEPRECATED|HIP_DEPRECATED"
    assert "cudaFake" not in {r["cuda_name"] for r in rows}  # comments are not entries
    half = by[("CUDA_DEVICE_TYPE_NAME_MAP", "__half")]
    assert (half["kind"], half["roc_name"], half["section"]) == ("device_type", "rocblas_half", "2")
    e4m3 = by[("CUDA_DEVICE_TYPE_NAME_MAP", "__NV_E4M3")]
    assert (e4m3["kind"], e4m3["flags"]) == ("enum_value", "")  # the later m[...] = wins
    assert by[("CUDA_DEVICE_FUNCTION_MAP", "umin")]["kind"] == "device_function"
    # HIPIFY's merge order: runtime maps before device maps
    names = [r["cuda_name"] for r in rows]
    assert names.index("cudaGetDevice") < names.index("__half") < names.index("umin")


def test_fragment_versions():
    _rows, versions = SRC.convert(_files())
    assert set(versions[0]) == set(SRC.VERSION_COLUMNS)
    v = {r["cuda_name"]: r for r in versions}
    assert "cuda_runtime.h" not in v
    host = v["cudaMallocHost"]
    assert (host["cuda_deprecated"], host["tgt_added"], host["tgt_experimental"]) == ("11.0", "1.6.0", "1.6.0")
    assert host["section"] == "Memory Management"
    assert host["flags"] == "CUDA_DEPRECATED=11.0,HIP_ADDED=1.6.0,EXPERIMENTAL=1.6.0"
    new = v["cudaNew"]  # HIP_UNSUPPORTED: no HIP name, no HIP versions
    assert (new["hip_name"], new["tgt_added"], new["flags"]) == ("", "", "UNSUPPORTED,CUDA_ADDED=12.8")
    assert (v["umin"]["library"], v["umin"]["kind"], v["umin"]["section"]) == (
        "CUDA_Device_API", "device_function", "Device Functions")
    assert (v["__half"]["kind"], v["__half"]["src_kind"], v["__half"]["section"]) == (
        "type", "device_type", "Device Types")


def test_generator_reads_converted_tables(tmp_path):
    rows, versions = SRC.convert(_files())
    SRC.write_tsv(tmp_path / "cuda2hip.tsv", SRC.MAP_COLUMNS, rows)
    SRC.write_tsv(tmp_path / "cuda2hip-versions.tsv", SRC.VERSION_COLUMNS, versions)
    assert SRC.read_tsv(tmp_path / "cuda2hip.tsv") == rows
    gen = _load("gen_hipify_maps")
    text = gen.build(tmp_path, provided={"umin"})
    assert "'cudaGetDevice\\thipGetDevice\\t\\t" in text
    assert "'cudaMallocHost\\t11.0\\t\\n'" in text  # CUDA_VERSIONS: deprecated in 11.0


def test_unknown_api_and_short_entries_refused():
    files = _files()
    files["CUDA2HIP_Runtime_API_functions.cpp"] = RUNTIME_FUNCTIONS.replace(
        "API_RUNTIME, SEC::DEVICE}}", "API_NEW, SEC::DEVICE}}", 1)
    with pytest.raises(SRC.SourceError, match="unknown API 'API_NEW'"):
        SRC.convert(files)
    files["CUDA2HIP_Runtime_API_functions.cpp"] = RUNTIME_FUNCTIONS.replace(
        '"", CONV_DEVICE, API_RUNTIME, SEC::DEVICE}}', '""}}', 1)
    with pytest.raises(SRC.SourceError, match="at least 5"):
        SRC.convert(files)


def _tarball(path: Path) -> Path:
    with tarfile.open(path, "w:xz") as tar:
        data = INCLUDES.encode()
        info = tarfile.TarInfo("HIPIFY-rocm-7.0.2/src/CUDA2HIP.cpp")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


def test_a_tarball_with_another_sha256_is_refused(tmp_path, capsys):
    tarball = _tarball(tmp_path / "hipify_7.0.2+dfsg.orig.tar.xz")
    with pytest.raises(SRC.SourceError, match="not a known HIPIFY release tarball"):
        SRC.read_sources(tarball)
    assert SRC.main([str(tarball), "--out", str(tmp_path / "out")]) == 2
    assert "sha256" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_tree_without_hipify_sources_is_refused(tmp_path):
    with pytest.raises(SRC.SourceError, match="not a HIPIFY tree"):
        SRC.read_sources(tmp_path)


def test_tree_and_src_folder_both_accepted(tmp_path):
    (tmp_path / "src").mkdir()
    for name, text in _files().items():
        (tmp_path / "src" / name).write_text(text)
    assert SRC.read_sources(tmp_path) == SRC.read_sources(tmp_path / "src")


@pytest.mark.skipif(not RELEASE_TREE.is_dir(), reason=f"{RELEASE_TREE} is not here")
def test_the_committed_tables_are_the_releases(tmp_path):
    """Converting HIPIFY rocm-7.0.2 again gives the committed tables byte for byte."""
    assert SRC.main([str(RELEASE_TREE), "--out", str(tmp_path)]) == 0
    committed = ROOT / "tools" / "hipify_tables_7.0.2"
    for name in ("cuda2hip.tsv", "cuda2hip-versions.tsv"):
        assert (tmp_path / name).read_bytes() == (committed / name).read_bytes(), name


def test_a_conditional_in_the_sources_is_refused():
    """Both branches of an #if would be read as entries: refused rather than guessed."""
    files = _files()
    files["CUDA2HIP_Device_functions.cpp"] = DEVICE_FUNCTIONS.replace(
        '  {"umin"', '#if CUDA_VERSION >= 12000\n  {"umin"', 1).replace("}},\n};", "}},\n#endif\n};", 1)
    with pytest.raises(SRC.SourceError, match="preprocessor conditional"):
        SRC.convert(files)


def test_tokens():
    assert SRC.tokens('{"a\\"b", SEC :: X, 7} // c\n#include "x.h"\n') == [
        ("op", "{"), ("str", 'a"b'), ("op", ","), ("id", "SEC::X"), ("op", ","), ("num", "7"),
        ("op", "}")]
