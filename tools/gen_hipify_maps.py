#!/usr/bin/env python3
"""Generate ``openhip/hipify/_maps.py`` from the HIPIFY mapping tables.

Reads ``../shared/hipify-map/cuda2hip.tsv`` (the complete CUDA -> HIP map) and
``cuda2hip-versions.tsv`` (the CUDA versions in which names were deprecated or removed) and writes
one Python module of plain literals, so that the installed package loads its maps from bytecode
(fast) and never reads ``../shared`` at run time.

Usage::

    python tools/gen_hipify_maps.py [--tables DIR] [--out FILE] [--check]

``--check`` exits 1 when the committed module differs from what the tables produce.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TABLES = ROOT.parent / "shared" / "hipify-map"
DEFAULT_OUT = ROOT / "openhip" / "hipify" / "_maps.py"

#: HIPIFY's statistics categories, in HIPIFY's order (Statistics.cpp ``counterTypes``).
CONV_TYPES = (
    "CONV_ERROR", "CONV_INIT", "CONV_VERSION", "CONV_DEVICE", "CONV_CONTEXT", "CONV_MODULE",
    "CONV_LIBRARY", "CONV_MEMORY", "CONV_VIRTUAL_MEMORY", "CONV_ORDERED_MEMORY", "CONV_MULTICAST",
    "CONV_UNIFIED", "CONV_STREAM", "CONV_EVENT", "CONV_EXTERNAL_RES", "CONV_STREAM_MEMORY",
    "CONV_EXECUTION", "CONV_GRAPH", "CONV_OCCUPANCY", "CONV_TEXTURE", "CONV_SURFACE", "CONV_TENSOR",
    "CONV_PEER", "CONV_GRAPHICS", "CONV_DRIVER_ENTRY_POINT", "CONV_CPP", "CONV_COREDUMP",
    "CONV_DRIVER_INTERACT", "CONV_PROFILER", "CONV_OPENGL", "CONV_D3D9", "CONV_D3D10", "CONV_D3D11",
    "CONV_VDPAU", "CONV_EGL", "CONV_THREAD", "CONV_COMPLEX", "CONV_LIB_FUNC", "CONV_LIB_DEVICE_FUNC",
    "CONV_DEVICE_FUNC", "CONV_DEVICE_TYPE", "CONV_INCLUDE", "CONV_INCLUDE_CUDA_MAIN_H",
    "CONV_INCLUDE_CUDA_MAIN_V2_H", "CONV_TYPE", "CONV_LITERAL", "CONV_NUMERIC_LITERAL", "CONV_DEFINE",
    "CONV_EXTERN_SHARED", "CONV_KERNEL_LAUNCH",
)
#: Libraries (HIPIFY's API types), in HIPIFY's order.
LIBRARIES = (
    "CUDA_Driver_API", "CUDA_Runtime_API", "cuComplex", "CUBLAS", "CURAND", "CUDNN", "CUFFT", "CUB",
    "CUSPARSE", "CUSOLVER", "CAFFE2", "NVRTC",
)
#: Status flags -> bit.
FLAGS = (
    "UNSUPPORTED", "HIP_UNSUPPORTED", "ROC_UNSUPPORTED", "CUDA_DEPRECATED", "CUDA_REMOVED",
    "HIP_DEPRECATED", "HIP_REMOVED", "HIP_EXPERIMENTAL", "HIP_SUPPORTED_V2_ONLY", "DEPRECATED",
    "ROC_DEPRECATED", "CUDA_OVERLOADED", "ROC_MIOPEN_ONLY", "REMOVED", "ROC_REMOVED",
)
KINDS = ("function", "type", "enum_value", "define", "device_function", "device_type", "include")

MIT_NOTICE = """\
# The mapping facts below come from HIPIFY (https://github.com/ROCm/HIPIFY), branch amd-staging,
# and are used under its MIT license:
#
# Copyright (c) 2024 Advanced Micro Devices, Inc.
#
# Permission is hereby granted, free of charge, to any person obtaining a copy
# of this software and associated documentation files (the "Software"), to deal
# in the Software without restriction, including without limitation the rights
# to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
# copies of the Software, and to permit persons to whom the Software is
# furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in
# all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.  IN NO EVENT SHALL THE
# AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
# OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
# THE SOFTWARE.
"""


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


def build(tables: Path) -> str:
    """Return the text of the generated module."""
    rows = _read_tsv(tables / "cuda2hip.tsv")
    versions = _read_tsv(tables / "cuda2hip-versions.tsv")
    renames: dict[str, tuple] = {}
    includes: dict[str, tuple] = {}
    for row in rows:
        entry = (
            row["hip_name"],
            row["roc_name"],
            CONV_TYPES.index(row["conv"]),
            LIBRARIES.index(row["library"]),
            _flag_bits(row["flags"]),
            KINDS.index(row["kind"]),
        )
        table = includes if row["kind"] == "include" else renames
        # HIPIFY merges its maps keeping the first entry of a name; do the same.
        table.setdefault(row["cuda_name"], entry)
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
        "CUDA_VERSIONS lines: cuda_name, CUDA version deprecated, CUDA version removed.\n"
        "openhip.hipify.maps parses them once, on first use.\n"
        '"""\n',
        MIT_NOTICE,
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
    args = parser.parse_args(argv)
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
