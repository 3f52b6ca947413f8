#!/usr/bin/env python3
"""Generate ``openhip/hipify/_maps.py`` from the HIPIFY mapping tables.

Reads ``cuda2hip.tsv`` (the complete CUDA -> HIP map) and ``cuda2hip-versions.tsv`` (the CUDA
versions in which names were deprecated or removed) of ``--tables``: by default
``tools/hipify_tables_7.0.2``, HIPIFY rocm-7.0.2's tables as tools/hipify_src_tables.py converts
them (the 2024 snapshot ``../shared/hipify-map`` has the same schema). Writes one Python module of
plain literals, so that the installed package loads its maps from bytecode (fast) and never reads
the tables at run time.

Usage::

    python tools/gen_hipify_maps.py [--tables DIR] [--out FILE] [--check]

``--check`` exits 1 when the committed module differs from what the tables produce.

HIPIFY flags some CUDA device functions unsupported that openhip's platforms provide
(``umin``, ``__isinff``, ``htanh``...). ``--probe`` finds them: it compiles a
reference to every device function HIPIFY calls unsupported against each platform's headers (the
CPU platform's with the host compiler, the AMD platform's with hiprtc, the NVIDIA platform's with
NVRTC) and writes the names that every platform declares to ``tools/hipify_provided.txt``. The
generated module marks those names ``OPENHIP_PROVIDED`` (kept, not reported unsupported) instead
of ``UNSUPPORTED``. tests/hipify/test_hipify_provided.py re-runs the probe on the toolchains it
finds and checks the list against it.
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: HIPIFY rocm-7.0.2's tables, converted by tools/hipify_src_tables.py (its README says how).
DEFAULT_TABLES = ROOT / "tools" / "hipify_tables_7.0.2"
DEFAULT_OUT = ROOT / "openhip" / "hipify" / "_maps.py"
PROVIDED = ROOT / "tools" / "hipify_provided.txt"
#: Rows later HIPIFY releases map that the tables lack (tools/hipify_newer_maps.tsv says whence).
NEWER = ROOT / "tools" / "hipify_newer_maps.tsv"
#: The HIP headers hipify's include map produces for device code; the probe includes them all.
PROBE_HEADERS = ("hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_bf16.h", "hip/hip_fp8.h")
#: The platforms whose headers must all declare a name for it to count as provided.
PROBE_PLATFORMS = ("cpu", "amd", "nvidia")

#: HIPIFY's statistics categories, in HIPIFY's order (Statistics.cpp ``counterTypes``).
CONV_TYPES = (
    "CONV_ERROR", "CONV_INIT", "CONV_VERSION", "CONV_DEVICE", "CONV_CONTEXT", "CONV_MODULE",
    "CONV_LIBRARY", "CONV_MEMORY", "CONV_VIRTUAL_MEMORY", "CONV_ORDERED_MEMORY", "CONV_MULTICAST",
    "CONV_UNIFIED", "CONV_STREAM", "CONV_EVENT", "CONV_EXTERNAL_RES", "CONV_STREAM_MEMORY",
    "CONV_EXECUTION", "CONV_GRAPH", "CONV_OCCUPANCY", "CONV_TEXTURE", "CONV_SURFACE", "CONV_TENSOR",
    "CONV_PEER", "CONV_GRAPHICS", "CONV_DRIVER_ENTRY_POINT", "CONV_CPP", "CONV_COREDUMP",
    "CONV_GREEN_CONTEXT", "CONV_ERROR_LOG", "CONV_DRIVER_INTERACT", "CONV_PROFILER", "CONV_OPENGL",
    "CONV_D3D9", "CONV_D3D10", "CONV_D3D11",
    "CONV_VDPAU", "CONV_EGL", "CONV_THREAD", "CONV_COMPLEX", "CONV_LIB_FUNC", "CONV_LIB_DEVICE_FUNC",
    "CONV_DEVICE_FUNC", "CONV_DEVICE_TYPE", "CONV_INCLUDE", "CONV_INCLUDE_CUDA_MAIN_H",
    "CONV_INCLUDE_CUDA_MAIN_V2_H", "CONV_TYPE", "CONV_LITERAL", "CONV_NUMERIC_LITERAL", "CONV_DEFINE",
    "CONV_EXTERN_SHARED", "CONV_KERNEL_LAUNCH",
)
#: Libraries (HIPIFY's API types), in HIPIFY's order.
LIBRARIES = (
    "CUDA_Driver_API", "CUDA_Runtime_API", "cuComplex", "CUBLAS", "CURAND", "CUDNN", "CUFFT", "CUB",
    "CUSPARSE", "CUSOLVER", "CAFFE2", "NVRTC", "CUSPARSELT", "CUFILE", "CUTENSOR",
)
#: Status flags -> bit.
FLAGS = (
    "UNSUPPORTED", "HIP_UNSUPPORTED", "ROC_UNSUPPORTED", "CUDA_DEPRECATED", "CUDA_REMOVED",
    "HIP_DEPRECATED", "HIP_REMOVED", "HIP_EXPERIMENTAL", "HIP_SUPPORTED_V2_ONLY", "DEPRECATED",
    "ROC_DEPRECATED", "CUDA_OVERLOADED", "ROC_MIOPEN_ONLY", "REMOVED", "ROC_REMOVED",
    "OPENHIP_PROVIDED",
)
#: Headers HIPIFY rocm-7.0.2 does not map; the HIP side is a header openhip's platforms ship.
#: Added only where the tables lack them. cuda_bf16.h: the header of the bf16 device functions
#: (HIP's <hip/hip_bf16.h>); the cooperative-groups reduce/scan headers: as ROCm/HIPIFY
#: src/CUDA2HIP.cpp at 06ebcc28 (amd-staging) maps them (CUDA_INCLUDE_MAP, CONV_INCLUDE,
#: API_RUNTIME; HIP declares the same cooperative_groups::reduce / inclusive_scan there).
#: (7.0.2 maps cuda_fp8.h and nvrtc.h itself, to hip/hip_fp8.h and hip/hiprtc.h.)
OPENHIP_INCLUDES = {
    "cuda_bf16.h": "hip/hip_bf16.h",
    "cooperative_groups/reduce.h": "hip/cooperative_groups/hip_reduce.h",
    "cooperative_groups/scan.h": "hip/cooperative_groups/hip_scan.h",
}
#: Includes of HIPIFY rocm-7.0.2 that openhip does not take: ``helper_cuda.h`` ->
#: ``hip/hip_runtime_api.h`` and ``helper_math.h`` -> ``hip/hip_vector_types.h`` (src/CUDA2HIP.cpp,
#: HIPIFY #1962). They are not CUDA's headers but NVIDIA cuda-samples' own (Common/), which
#: define checkCudaErrors, findCudaDevice, getLastCudaError, _ConvertSMVer2Cores and the float2/
#: float3/float4 operators; the runtime headers define none of them, so every sample that
#: includes them would stop compiling. openhip keeps the include and translates the header
#: itself as a local header, from the user's include path (openhip/hipify/local_headers.py).
DROPPED_INCLUDES = frozenset({"helper_cuda.h", "helper_math.h"})
#: Device types openhip maps differently from HIPIFY rocm-7.0.2, on purpose. CUDA's fp8 types
#: (cuda_fp8.h) are the OCP formats: e4m3 with bias 7, a negative zero and NaN at S.1111.111,
#: e5m2 IEEE-like. HIPIFY 7.0.2 maps ``__nv_fp8_e4m3`` -> ``__hip_fp8_e4m3_fnuz`` and
#: ``__NV_E4M3`` -> ``__HIP_E4M3_FNUZ``: the FNUZ formats (AMD MI300's) have another bias, no
#: negative zero and one NaN (0x80), so the same bits are other numbers and a translated program
#: would compute different results. openhip keeps the encoding: HIP's OCP types
#: (``__hip_fp8_e4m3``, ``__HIP_E4M3``), which every openhip platform's <hip/hip_fp8.h> declares
#: (the CPU platform's openhip_cpu/fp8.h, the GPU platforms' openhip_fp8_impl.h), as HIP >= 6.3.
#: (7.0.2 maps the storage types, ``__nv_saturation_t``, ``__nv_fp8_interpretation_t``,
#: ``__NV_NOSAT``/``__NV_SATFINITE``, the ``__nv_cvt_*`` conversions and ``__nv_bfloat16`` ->
#: ``__hip_bfloat16`` the way openhip did already: no correction needed.)
DEVICE_TYPE_CORRECTIONS = {
    f"__nv_{name}": f"__hip_{name}"
    for name in ("fp8_e4m3", "fp8x2_e4m3", "fp8x4_e4m3", "fp8_e5m2", "fp8x2_e5m2", "fp8x4_e5m2")
}
DEVICE_TYPE_CORRECTIONS.update({"__NV_E4M3": "__HIP_E4M3", "__NV_E5M2": "__HIP_E5M2"})
#: CUDA's ``nv_bfloat16``/``nv_bfloat162`` are typedefs of ``__nv_bfloat16``/``__nv_bfloat162``
#: (cuda_bf16.h), so they become the same HIP types: ``__hip_bfloat16``/``__hip_bfloat162``.
#: HIPIFY rocm-7.0.2 maps them to ``hip_bfloat16`` (hip/hip_bfloat16.h's separate class, with its
#: own conversions: CUDA code mixing both spellings would mix two types) and ``hip_bfloat162``
#: (UNSUPPORTED, no such type).
DEVICE_TYPE_CORRECTIONS.update({"nv_bfloat16": "__hip_bfloat16", "nv_bfloat162": "__hip_bfloat162"})
#: CUDA names HIPIFY rocm-7.0.2 maps to a name HIP does not have and flags HIP_UNSUPPORTED:
#: library_types.h's property enum (cuBLAS/cuFFT/cuSPARSELt ...GetProperty) is
#: ``hipLibraryPropertyType`` in HIP's hip/library_types.h (ROCm 5.2's has it already), not
#: 7.0.2's ``hipLibraryPropertyType_t``; later HIPIFY's cuSPARSELt test expects it
#: (tests/unit_tests/synthetic/libraries/cusparselt2hipsparselt_after_0300.cu; 7.0.2 has no
#: cuSPARSELt maps, openhip adds them from tools/hipify_newer_maps.tsv). Its values
#: (MAJOR_VERSION ...) are left alone: they are common macro names.
#: cuda_name -> (hip_name, kind, conv, flags); library CUDA_Runtime_API.
NEWER_RUNTIME_NAMES = {
    "libraryPropertyType": ("hipLibraryPropertyType", "type", "CONV_TYPE", ""),
    "libraryPropertyType_t": ("hipLibraryPropertyType", "type", "CONV_TYPE", ""),
}
#: HIPIFY's "no HIP equivalent" flags, which a provided name loses.
_HIP_UNSUPPORTED_BITS = (1 << FLAGS.index("UNSUPPORTED")) | (1 << FLAGS.index("HIP_UNSUPPORTED"))
KINDS = ("function", "type", "enum_value", "define", "device_function", "device_type", "include")

#: HIPIFY's MIT license text, after its copyright line.
_MIT_TERMS = """\
Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.  IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
THE SOFTWARE.
"""


def mit_notice(tables: Path) -> str:
    """The notice for the generated module: the tables' source and copyright line (from the
    LICENSE.txt and README.md beside converted tables; the 2024 snapshot's otherwise)."""
    lic, readme = tables / "LICENSE.txt", tables / "README.md"
    source = "HIPIFY (https://github.com/ROCm/HIPIFY), branch amd-staging,"
    copyright_line = "Copyright (c) 2024 Advanced Micro Devices, Inc."
    if lic.exists():
        copyright_line = next(line.strip() for line in lic.read_text(encoding="utf-8").splitlines()
                              if line.strip().startswith("Copyright"))
    if readme.exists():
        release = re.search(r"release \W*(rocm-\d[\w.]*\w)", readme.read_text(encoding="utf-8"))
        if release:
            source = f"HIPIFY (https://github.com/ROCm/HIPIFY), release {release.group(1)},"
    lines = [f"The mapping facts below come from {source}"]
    if "release" in source:
        lines.append("and, for the rows of tools/hipify_newer_maps.tsv, from its branch amd-staging,")
    lines += ["and are used under its MIT license:", "", copyright_line, "", *_MIT_TERMS.splitlines()]
    return "".join(f"# {line}".rstrip() + "\n" for line in lines)


def _read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _flag_bits(flags: str) -> int:
    bits = 0
    for flag in filter(None, flags.split("|")):
        if flag not in FLAGS:
            raise SystemExit(f"unknown flag {flag!r}; add it to FLAGS")
        bits |= 1 << FLAGS.index(flag)
    return bits


def _lines(table: dict[str, tuple]) -> list[str]:
    return ["\t".join([key, *map(str, value)]) + "\n" for key, value in table.items()]


def _table_text(table: dict[str, tuple]) -> str:
    """One string literal per table: parsing it at run time is faster than unmarshalling a dict."""
    return "(\n" + "".join(f"    {line!r}\n" for line in _lines(table)) + ")"


def unsupported_device_functions(tables: Path) -> list[str]:
    """The CUDA device functions HIPIFY reports as having no HIP equivalent, in table order."""
    names: dict[str, None] = {}
    for row in _read_tsv(tables / "cuda2hip.tsv"):
        flags = set(row["flags"].split("|"))
        if row["kind"] == "device_function" and flags & {"UNSUPPORTED", "HIP_UNSUPPORTED"}:
            names.setdefault(row["cuda_name"], None)
    return list(names)


def probe_source(names: list[str]) -> tuple[str, dict[int, str]]:
    """A translation unit that refers to each name once (a macro counts as declared), and the
    line of each reference."""
    lines = [f"#include <{h}>" for h in PROBE_HEADERS]
    where: dict[int, str] = {}
    for i, name in enumerate(names):
        lines.append(f"#ifndef {name}")
        lines.append(f"__device__ void openhip_probe_{i}() {{ (void){name}; }}")
        where[len(lines)] = name
        lines.append("#endif")
    return "\n".join(lines) + "\n", where


# "not declared" as g++, clang (hiprtc) and NVRTC say it; other errors (an overloaded name whose
# address cannot be taken) mean the name is declared.
_UNDECLARED = re.compile(
    r"[:(](\d+)(?::\d+|\)): error: (?:\S+ was not declared in this scope|"
    r"use of undeclared identifier|identifier \"\w+\" is undefined)")


def _undeclared(log: str, where: dict[int, str]) -> set[str]:
    found = set()
    for m in _UNDECLARED.finditer(log):
        line = int(m.group(1))
        if line not in where:
            raise RuntimeError(f"probe: unexpected diagnostic at line {line}:\n{log[-2000:]}")
        found.add(where[line])
    return found


def probe(platform: str, names: list[str]) -> set[str]:
    """The subset of ``names`` that ``platform``'s headers declare. RuntimeError when the
    platform's compiler is not installed or the probe fails for another reason."""
    source, where = probe_source(names)
    sys.path.insert(0, str(ROOT))
    try:
        if platform == "cpu":
            log = _probe_cpu(source)
        elif platform == "amd":
            log = _probe_amd(source)
        elif platform == "nvidia":
            log = _probe_nvidia(source)
        else:
            raise ValueError(f"unknown platform {platform!r}")
    finally:
        sys.path.remove(str(ROOT))
    return set(names) - _undeclared(log, where)


def _probe_cpu(source: str) -> str:
    from openhip.platforms.cpu.compiler import find_compiler
    from openhip.platforms.cpu.runtime_lib import INCLUDE_DIR

    compiler, why = find_compiler()
    if compiler is None:
        raise RuntimeError(f"no host C++ compiler: {why}")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "probe.cpp"
        src.write_text(source)
        proc = subprocess.run([compiler.path, "-x", "c++", "-std=c++17", "-fsyntax-only",
                               "-fmax-errors=0" if "clang" not in compiler.path else
                               "-ferror-limit=0", "-isystem", str(INCLUDE_DIR), str(src)],
                              capture_output=True, text=True, timeout=600)
    return proc.stderr


def _probe_amd(source: str) -> str:
    from openhip.platforms.amd import toolchain

    try:
        tool = toolchain()
    except OSError as exc:
        raise RuntimeError(f"hiprtc unavailable: {exc}") from exc
    opts = tool.hiprtc_options(tool.parse_arch("gfx90a"), ["-fsyntax-only", "-ferror-limit=0"])
    ok, log, _binary, _names = tool._compile_once(source, "probe.hip", opts, [])
    return log


def _probe_nvidia(source: str) -> str:
    from openhip.errors import CompileError
    from openhip.platforms.nvidia import toolchain

    try:
        tool = toolchain()
    except (ImportError, OSError, RuntimeError) as exc:
        raise RuntimeError(f"NVRTC unavailable: {exc}") from exc
    # NVRTC stops after 100 errors: probe in chunks whose line numbers stay the source's.
    lines = source.splitlines(keepends=True)
    head = len(PROBE_HEADERS)
    logs = []
    for start in range(head, len(lines), 150):
        chunk = lines[:head] + ["\n"] * (start - head) + lines[start:start + 150]
        try:
            tool.compile("".join(chunk), arch="sm_90", filename="probe.hip")
        except CompileError as exc:
            logs.append(exc.log)
    return "\n".join(logs)


def read_provided(path: Path = PROVIDED) -> set[str]:
    """The names ``--probe`` recorded (comment lines start with #)."""
    if not path.exists():
        return set()
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")}


def write_provided(tables: Path, path: Path = PROVIDED) -> set[str]:
    """Probe every platform and write the names all of them declare."""
    names = unsupported_device_functions(tables)
    provided = set(names)
    for platform in PROBE_PLATFORMS:
        provided &= probe(platform, names)
    text = ("# CUDA device functions HIPIFY calls unsupported in HIP that every openhip platform\n"
            "# declares (written by tools/gen_hipify_maps.py --probe; do not edit).\n"
            f"# Probed with the {', '.join(PROBE_PLATFORMS)} platforms' headers.\n"
            + "".join(f"{n}\n" for n in names if n in provided))
    path.write_text(text, encoding="utf-8")
    return provided


def _shown(tables: Path) -> str:
    """``tables`` relative to the repository when inside it (the module must not vary by checkout)."""
    try:
        return str(tables.resolve().relative_to(ROOT))
    except ValueError:
        return tables.name


def build(tables: Path, provided: set[str] | None = None) -> str:
    """Return the text of the generated module (``provided``: names to mark OPENHIP_PROVIDED,
    by default those of tools/hipify_provided.txt)."""
    provided = read_provided() if provided is None else provided
    rows = _read_tsv(tables / "cuda2hip.tsv")
    versions = _read_tsv(tables / "cuda2hip-versions.tsv")
    renames: dict[str, tuple] = {}
    includes: dict[str, tuple] = {}
    for row in rows:
        hip_name, flags = row["hip_name"], _flag_bits(row["flags"])
        if (row["kind"] in ("device_type", "enum_value")
                and row["cuda_name"] in DEVICE_TYPE_CORRECTIONS):
            hip_name = DEVICE_TYPE_CORRECTIONS[row["cuda_name"]]
            flags &= ~_HIP_UNSUPPORTED_BITS
        if (row["kind"] == "device_function" and row["cuda_name"] in provided
              and flags & _HIP_UNSUPPORTED_BITS):
            hip_name = row["cuda_name"]  # the name the probe found (HIP's may differ)
            flags = (flags & ~_HIP_UNSUPPORTED_BITS) | (1 << FLAGS.index("OPENHIP_PROVIDED"))
        entry = (
            hip_name,
            row["roc_name"],
            CONV_TYPES.index(row["conv"]),
            LIBRARIES.index(row["library"]),
            flags,
            KINDS.index(row["kind"]),
        )
        if row["kind"] == "include" and row["cuda_name"] in DROPPED_INCLUDES:
            continue
        table = includes if row["kind"] == "include" else renames
        # HIPIFY merges its maps keeping the first entry of a name; do the same.
        table.setdefault(row["cuda_name"], entry)
    for line in NEWER.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        cuda_name, hip_name, roc_name, kind, conv, library, flags, _source = line.split("\t")
        # REPLACES: the later name replaces the tables' own entry (which had no HIP equivalent).
        replaces = "REPLACES" in flags.split("|")
        flags = "|".join(f for f in flags.split("|") if f != "REPLACES")
        entry = (hip_name, roc_name, CONV_TYPES.index(conv), LIBRARIES.index(library),
                 _flag_bits(flags), KINDS.index(kind))
        table = includes if kind == "include" else renames
        if replaces:
            table[cuda_name] = entry
        else:
            table.setdefault(cuda_name, entry)
    for cuda_name, (hip_name, kind, conv, flags) in NEWER_RUNTIME_NAMES.items():
        renames[cuda_name] = (hip_name, "", CONV_TYPES.index(conv),
                              LIBRARIES.index("CUDA_Runtime_API"), _flag_bits(flags),
                              KINDS.index(kind))
    for cuda_name, hip_name in OPENHIP_INCLUDES.items():
        includes.setdefault(cuda_name, (hip_name, "", CONV_TYPES.index("CONV_INCLUDE"),
                                        LIBRARIES.index("CUDA_Runtime_API"), 0,
                                        KINDS.index("include")))
    cuda_versions: dict[str, tuple[str, str]] = {}
    for row in versions:
        dep, rem = row["cuda_deprecated"], row["cuda_removed"]
        if (dep or rem) and row["cuda_name"] in renames:
            cuda_versions.setdefault(row["cuda_name"], (dep, rem))

    out = [
        '"""CUDA -> HIP mapping tables (generated by tools/gen_hipify_maps.py; do not edit).\n\n'
        "RENAMES and INCLUDES hold one tab-separated line per CUDA name:\n"
        "cuda_name, hip_name, roc_name, conv index into CONV_TYPES, library index into LIBRARIES,\n"
        "flag bits (bit i = FLAGS[i]), kind index into KINDS.\n"
        f"From the tables in {_shown(tables)}.\n"
        "OPENHIP_PROVIDED marks device functions HIPIFY calls unsupported that every openhip\n"
        "platform provides (tools/hipify_provided.txt): hip_name is the CUDA name itself.\n"
        "INCLUDES also maps cuda_bf16.h and cooperative_groups/{reduce,scan}.h\n"
        "(OPENHIP_INCLUDES in the generator: later HIPIFY maps them), and not the CUDA samples'\n"
        "helper_cuda.h / helper_math.h (DROPPED_INCLUDES: translated as local headers).\n"
        "CUDA's OCP fp8 types and values stay OCP (__nv_fp8_e4m3 -> __hip_fp8_e4m3, __NV_E4M3 ->\n"
        "__HIP_E4M3), never the FNUZ formats, another encoding; nv_bfloat16, CUDA's typedef\n"
        "of __nv_bfloat16, maps to __hip_bfloat16 as that does (DEVICE_TYPE_CORRECTIONS).\n"
        "libraryPropertyType maps to HIP's hipLibraryPropertyType (NEWER_RUNTIME_NAMES).\n"
        "RENAMES has the rows of tools/hipify_newer_maps.tsv for names the tables lack\n"
        "(cuSPARSELt, cuFile, cuFFTW's header, newer cuTENSOR names).\n"
        "CUDA_VERSIONS lines: cuda_name, CUDA version deprecated, CUDA version removed.\n"
        "openhip.hipify.maps parses them once, on first use.\n"
        '"""\n',
        mit_notice(tables),
        "# fmt: off\n",
        f"CONV_TYPES = {CONV_TYPES!r}\n",
        f"LIBRARIES = {LIBRARIES!r}\n",
        f"FLAGS = {FLAGS!r}\n",
        f"KINDS = {KINDS!r}\n",
        f"INCLUDES = {_table_text(includes)}\n",
        f"RENAMES = {_table_text(renames)}\n",
        "CUDA_VERSIONS = (\n",
    ]
    out += [f"    {line!r}\n" for line in _lines(cuda_versions)]
    out.append(")\n")
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, default=DEFAULT_TABLES)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="fail if the output is stale")
    parser.add_argument("--probe", action="store_true",
                        help=f"re-probe the platforms' headers into {PROVIDED.name} first "
                             "(needs the host compiler, hiprtc and NVRTC)")
    args = parser.parse_args(argv)
    if args.probe:
        try:
            found = write_provided(args.tables)
        except RuntimeError as exc:
            print(f"probe failed: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {PROVIDED} ({len(found)} names)")
    text = build(args.tables)
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale; run tools/gen_hipify_maps.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
