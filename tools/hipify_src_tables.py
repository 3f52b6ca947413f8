#!/usr/bin/env python3
"""Convert HIPIFY's C++ mapping sources into openhip's two mapping tables.

HIPIFY (https://github.com/ROCm/HIPIFY, MIT-licensed) keeps its CUDA -> HIP maps as C++ in
``src/CUDA2HIP_*.cpp``: ``const std::map<llvm::StringRef, hipCounter> NAME { {"cuda", {"hip",
"roc", CONV_X, API_Y, SEC::Z, FLAGS}}, ... };`` (or, in some versions, a lambda that fills
``m["cuda"] = {...};``), the ``*_VER_MAP``s of ``cudaAPIversions`` / ``hipAPIversions`` (the
versions in which a name was added, deprecated, removed), the ``*_CHANGED_VER_MAP``s and one
``*_API_SECTION_MAP`` per API. This script reads them and writes ``cuda2hip.tsv`` and
``cuda2hip-versions.tsv`` in the schema of ``../shared/hipify-map`` (its README.md), so that
tools/gen_hipify_maps.py reads either.

Usage::

    python tools/hipify_src_tables.py SOURCE [--out DIR] [--compare SHARED_DIR]

SOURCE is HIPIFY's released source tarball (its sha256 must be one of ``KNOWN_TARBALLS``; any
other is refused) or an extracted tree (its root, or its ``src`` folder). ``--compare`` reports,
per map, the row counts and the rows whose fields differ from another pair of tables (the shared
snapshot), on the names both have.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import re
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tools" / "hipify_tables_7.0.2"
#: Released tarballs the script accepts: sha256 -> what it is. Debian's ``dfsg`` repack of
#: HIPIFY rocm-7.0.2 (pool/main/h/hipify/hipify_7.0.2+dfsg.orig.tar.xz, 617,612 bytes).
KNOWN_TARBALLS = {
    "d350941aa667dbf6a680f6cb0298d0e5c4d867e54697f52e551436515e669fc0":
        "hipify_7.0.2+dfsg.orig.tar.xz (HIPIFY rocm-7.0.2)",
}

MAP_COLUMNS = ("map", "library", "kind", "conv", "cuda_name", "hip_name", "roc_name", "section",
               "flags")
VERSION_COLUMNS = ("library", "kind", "cuda_name", "hip_name", "flags", "section", "src_kind",
                   "cuda_added", "cuda_deprecated", "cuda_changed", "cuda_removed", "tgt_added",
                   "tgt_deprecated", "tgt_changed", "tgt_removed", "tgt_experimental")
#: HIPIFY's ApiTypes -> the library names of the shared tables.
LIBRARIES = {
    "API_DRIVER": "CUDA_Driver_API", "API_RUNTIME": "CUDA_Runtime_API", "API_COMPLEX": "cuComplex",
    "API_BLAS": "CUBLAS", "API_RAND": "CURAND", "API_DNN": "CUDNN", "API_FFT": "CUFFT",
    "API_SPARSE": "CUSPARSE", "API_SOLVER": "CUSOLVER", "API_CUB": "CUB", "API_CAFFE2": "CAFFE2",
    "API_RTC": "NVRTC", "API_TENSOR": "CUTENSOR",
}
#: HIPIFY's order of merging its maps into CUDA_RENAMES_MAP (src/CUDA2HIP.cpp): a name in two
#: maps keeps the entry of the earlier one. Rows are written in this order.
RENAMES_ORDER = ("DRIVER", "RUNTIME", "COMPLEX", "BLAS", "RAND", "DNN", "FFT", "SPARSE", "CAFFE2",
                 "CUB", "RTC", "DEVICE", "SOLVER", "TENSOR")
#: A type map's statistics category -> the shared tables' kind.
TYPE_KINDS = {"CONV_DEFINE": "define", "CONV_DEVICE_TYPE": "device_type",
              "CONV_NUMERIC_LITERAL": "enum_value", "CONV_TYPE": "type"}

class SourceError(Exception):
    """The source given is not a HIPIFY tree or an accepted tarball."""


_TOKEN = re.compile(r'''
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<pp>\#[^\n]*)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<num>\d+)
  | (?P<id>[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)
  | (?P<op>[{}\[\](),;=<>|&*])
  | (?P<other>\S)
''', re.S | re.X)


def tokens(text: str) -> list[tuple[str, str]]:
    """C++ tokens of ``text`` as (kind, text): kind str (unquoted), num, id (``a::b`` joined), op.
    Comments, ``#include`` and ``#pragma`` lines are dropped; a conditional (``#if`` ...) is
    refused, since both of its branches would be read."""
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise SourceError(f"cannot tokenize at offset {pos}: {text[pos:pos + 40]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        value = m.group()
        if kind == "pp":
            if re.match(r"#\s*(?:include|pragma)\b", value):
                continue
            raise SourceError(f"preprocessor conditional in the map sources: {value.strip()!r}")
        if kind == "str":
            value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        elif kind == "id":
            value = re.sub(r"\s+", "", value)
        out.append((kind, value))
    return out


@dataclass
class CppMap:
    """One ``std::map`` definition: its name, its value type and its entries in source order
    (key, list of value items: a string literal in quotes, a number or an expression text)."""
    name: str
    value_type: str
    entries: list[tuple[str, list[str]]]
    file: str


def _skip_angle(toks: list[tuple[str, str]], i: int) -> tuple[int, list[str]]:
    """From the ``<`` at toks[i], return the index after the matching ``>`` and its ids."""
    depth, ids = 0, []
    while True:
        kind, value = toks[i]
        if value == "<":
            depth += 1
        elif value == ">":
            depth -= 1
            if depth == 0:
                return i + 1, ids
        elif kind == "id":
            ids.append(value)
        i += 1


def _items(toks: list[tuple[str, str]], i: int) -> tuple[int, list[str]]:
    """Parse a brace list ``{ a, b | c, "s" }`` at toks[i]; return the index after it and its
    items (nested lists are flattened into their own items)."""
    if toks[i][1] != "{":
        raise SourceError(f"expected '{{', got {toks[i][1]!r}")
    i += 1
    items: list[str] = []
    cur: list[str] = []
    while True:
        kind, value = toks[i]
        if value == "{":
            i, sub = _items(toks, i)
            items.extend(sub)
            continue
        if value in (",", "}"):
            if cur:
                items.append(" ".join(cur))
                cur = []
            i += 1
            if value == "}":
                return i, items
            continue
        cur.append(f'"{value}"' if kind == "str" else value)  # quoted: "" stays an item
        i += 1


def _entry(toks: list[tuple[str, str]], i: int) -> tuple[int, str, list[str]]:
    """Parse ``{ key, value }`` at toks[i]."""
    if toks[i][1] != "{":
        raise SourceError(f"expected '{{' before a map entry, got {toks[i][1]!r}")
    i += 1
    key = toks[i][1]
    i += 1
    if toks[i][1] != ",":
        raise SourceError(f"expected ',' after map key {key!r}")
    i += 1
    if toks[i][1] == "{":
        i, value = _items(toks, i)
    else:
        value = []
        while toks[i][1] != "}":
            value.append(f'"{toks[i][1]}"' if toks[i][0] == "str" else toks[i][1])
            i += 1
    if toks[i][1] != "}":
        raise SourceError(f"expected '}}' after map entry {key!r}")
    return i + 1, key, value


def parse_maps(text: str, file: str = "<text>") -> list[CppMap]:
    """Every ``std::map<K, V> NAME`` defined in ``text``: the braced form
    ``NAME { {k, {...}}, ... };`` and the lambda form ``NAME = []() { std::map<K, V> m;
    m["k"] = {...}; ... return m; }();`` (a later assignment to a key replaces the earlier)."""
    toks = tokens(text)
    maps = []
    i = 0
    while i < len(toks):
        if toks[i] == ("id", "std::map") and toks[i + 1][1] == "<":
            j, ids = _skip_angle(toks, i + 1)
            if j < len(toks) and toks[j][0] == "id" and toks[j + 1][1] in ("{", "="):
                name, value_type = toks[j][1], ids[-1] if ids else ""
                j += 1
                entries: list[tuple[str, list[str]]] = []
                if toks[j][1] == "{":
                    j += 1
                    while toks[j][1] != "}":
                        j, key, value = _entry(toks, j)
                        entries.append((key, value))
                        if toks[j][1] == ",":
                            j += 1
                    j += 1
                else:
                    j, entries = _lambda_body(toks, j)
                maps.append(CppMap(name, value_type, _first_wins(entries), file))
                i = j
                continue
        i += 1
    return maps


def _first_wins(entries: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """An initializer list keeps the first of duplicate keys (std::map's insert)."""
    seen: dict[str, list[str]] = {}
    for key, value in entries:
        seen.setdefault(key, value)
    return list(seen.items())


def _lambda_body(toks: list[tuple[str, str]], j: int) -> tuple[int, list[tuple[str, list[str]]]]:
    """Parse ``= [](){ ... }()`` from the ``=`` at toks[j]: the ``var["key"] = {...};``
    statements, in order; a repeated key keeps the last assignment (operator[])."""
    while toks[j][1] != "{":
        j += 1
    depth = 0
    assigned: dict[str, list[str]] = {}
    while True:
        value = toks[j][1]
        if value == "{":
            depth += 1
        elif value == "}":
            depth -= 1
            if depth == 0:
                return j + 1, list(assigned.items())
        elif (toks[j][0] == "id" and toks[j + 1][1] == "[" and toks[j + 2][0] == "str"
              and toks[j + 3][1] == "]" and toks[j + 4][1] == "="):
            key = toks[j + 2][1]
            j, items = _items(toks, j + 5)
            assigned.pop(key, None)
            assigned[key] = items
            continue
        j += 1


def _enums(text: str) -> dict[str, dict[str, int]]:
    """``enum NAME { A = 1, B, ... }`` of a header: NAME -> {A: 1, B: 2, ...}."""
    out = {}
    for m in re.finditer(r"enum\s+(\w+)\s*\{(.*?)\}", text, re.S):
        values, nxt = {}, 0
        body = re.sub(r"//[^\n]*", "", m.group(2))
        for part in body.split(","):
            part = part.strip()
            if not part:
                continue
            name, _, num = part.partition("=")
            name = name.strip()
            if num.strip():
                try:
                    nxt = int(num.strip(), 0)
                except ValueError:
                    nxt = values.get(num.strip(), nxt)
            values[name] = nxt
            nxt += 1
        out[m.group(1)] = values
    return out


def _version_strings(statistics_cpp: str) -> dict[str, str]:
    """``case CUDA_120: return "12.0";`` lines of Statistics.cpp: version enum -> text."""
    return dict(re.findall(r"case\s+(\w+)\s*:\s*return\s+\"([^\"]*)\"", statistics_cpp))


def read_sources(source: Path) -> dict[str, str]:
    """The files the conversion needs (``src/*.cpp``, ``src/*.h``, ``LICENSE.txt``) as
    basename -> text, from a tarball whose sha256 is in KNOWN_TARBALLS or from a tree."""
    if source.is_file():
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        if digest not in KNOWN_TARBALLS:
            raise SourceError(f"{source}: sha256 {digest} is not a known HIPIFY release tarball "
                              f"(accepted: {', '.join(KNOWN_TARBALLS)})")
        files = {}
        with tarfile.open(source) as tar:
            for member in tar.getmembers():
                parts = member.name.split("/")
                if member.isfile() and (parts[-2:-1] == ["src"] or parts[-1] == "LICENSE.txt"
                                        and len(parts) == 2):
                    data = tar.extractfile(member).read()
                    files[parts[-1]] = data.decode("utf-8", errors="replace")
        return files
    src = source / "src" if (source / "src").is_dir() else source
    if not (src / "CUDA2HIP.cpp").exists():
        raise SourceError(f"{source}: no src/CUDA2HIP.cpp (not a HIPIFY tree)")
    files = {p.name: p.read_text(encoding="utf-8", errors="replace")
             for p in sorted(src.iterdir()) if p.suffix in (".cpp", ".h")}
    lic = src.parent / "LICENSE.txt"
    if lic.exists():
        files["LICENSE.txt"] = lic.read_text(encoding="utf-8", errors="replace")
    return files


def _api_of(map_name: str) -> str:
    """CUDA_BLAS_FUNCTION_MAP -> BLAS; CUDA_DEVICE_TYPE_NAME_MAP -> DEVICE."""
    return map_name.split("_")[1]


def _text(item: str) -> str:
    """A value item as text: a string literal unquoted."""
    return item[1:-1] if len(item) >= 2 and item[0] == item[-1] == '"' else item


def convert(files: dict[str, str]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The rows of cuda2hip.tsv and cuda2hip-versions.tsv from HIPIFY's sources."""
    enums = _enums(files.get("CUDA2HIP.h", ""))
    versions_text = _version_strings(files.get("Statistics.cpp", ""))
    counters: list[CppMap] = []
    # (CUDA|HIP, VER|CHANGED, api, is_function) -> name -> version enum names
    vmaps: dict[tuple[str, str, str, bool], dict[str, list[str]]] = {}
    sections: dict[str, dict[int, str]] = {}
    sec_alias: dict[str, dict[str, int]] = {}
    for fname in sorted(files):
        if not (fname.startswith("CUDA2HIP") and fname.endswith(".cpp")):
            continue
        text = files[fname]
        alias = re.search(r"using\s+SEC\s*=\s*(?:\w+::)*(\w+)\s*;", text)
        sec_alias[fname] = enums.get(alias.group(1), {}) if alias else {}
        for cmap in parse_maps(text, fname):
            if cmap.value_type == "hipCounter":
                counters.append(cmap)
            elif cmap.value_type in ("cudaAPIversions", "hipAPIversions", "cudaAPIChangedVersions",
                                     "hipAPIChangedVersions"):
                side = "CUDA" if cmap.value_type.startswith("cuda") else "HIP"
                what = "CHANGED" if "Changed" in cmap.value_type else "VER"
                key = (side, what, _api_of(cmap.name), "FUNCTION" in cmap.name)
                table = vmaps.setdefault(key, {})
                for name, value in cmap.entries:
                    table.setdefault(name, [_text(v) for v in value])
            elif cmap.name.endswith("_SECTION_MAP"):
                sections[_api_of(cmap.name)] = {
                    _section_number(k, sec_alias[fname]): _text(v[0]) for k, v in cmap.entries}

    def lookup(side: str, what: str, api: str, is_function: bool, name: str) -> list[str]:
        """The versions of ``name`` in its own map's VER/CHANGED map, else in the first map
        (in CUDA_VERSIONS_MAP's merge order) that has it."""
        own = vmaps.get((side, what, api, is_function), {})
        if name in own:
            return own[name]
        for other in RENAMES_ORDER:
            for fn in (False, True):
                if name in vmaps.get((side, what, other, fn), {}):
                    return vmaps[(side, what, other, fn)][name]
        return []

    def ver(name: str) -> str:
        return versions_text.get(name, "")

    includes = [m for m in counters if m.name == "CUDA_INCLUDE_MAP"]
    others = [m for m in counters if m.name != "CUDA_INCLUDE_MAP"]
    unknown = {_api_of(m.name) for m in others} - set(RENAMES_ORDER)
    if unknown:
        raise SourceError(f"maps of unknown APIs {sorted(unknown)}: add them to RENAMES_ORDER")
    others.sort(key=lambda m: (RENAMES_ORDER.index(_api_of(m.name)), "FUNCTION" in m.name,
                               m.name))
    rows: list[dict[str, str]] = []
    vrows: list[dict[str, str]] = []
    for cmap in includes + others:
        is_function = "FUNCTION" in cmap.name
        for cuda_name, items in cmap.entries:
            if len(items) < 5:
                raise SourceError(f"{cmap.file}: {cmap.name}[{cuda_name!r}] has {len(items)} "
                                  "fields; a hipCounter has at least 5")
            hip_name, roc_name, conv, api, section = (_text(x) for x in items[:5])
            flags = [f.strip() for f in (items[5] if len(items) > 5 else "").split("|")
                     if f.strip() and f.strip() != "FULL"]
            if api not in LIBRARIES:
                raise SourceError(f"{cmap.file}: unknown API {api!r} for {cuda_name!r}")
            if cmap.name == "CUDA_INCLUDE_MAP":
                kind = "include"
            elif is_function:
                kind = ("device_function" if conv in ("CONV_DEVICE_FUNC", "CONV_LIB_DEVICE_FUNC")
                        else "function")
            else:
                kind = TYPE_KINDS.get(conv, "type")
            rows.append({"map": cmap.name, "library": LIBRARIES[api], "kind": kind, "conv": conv,
                         "cuda_name": cuda_name, "hip_name": hip_name, "roc_name": roc_name,
                         "section": section, "flags": "|".join(flags)})
            if kind == "include" or cmap.name.endswith("NAMESPACE_MAP"):
                continue
            api_key = _api_of(cmap.name)
            sec_num = _section_number(section, sec_alias.get(cmap.file, {}))
            unsupported = bool({"UNSUPPORTED", "HIP_UNSUPPORTED"} & set(flags))
            cv = lookup("CUDA", "VER", api_key, is_function, cuda_name) + [""] * 3
            hv = (lookup("HIP", "VER", api_key, is_function, hip_name) if not unsupported
                  else []) + [""] * 4
            cchg = lookup("CUDA", "CHANGED", api_key, is_function, cuda_name)
            hchg = lookup("HIP", "CHANGED", api_key, is_function, hip_name) if not unsupported else []
            vrow = {
                "library": "CUDA_Device_API" if api_key == "DEVICE" else LIBRARIES[api],
                "kind": ("device_function" if cmap.name == "CUDA_DEVICE_FUNCTION_MAP"
                         else "function" if is_function else "type"),
                "cuda_name": cuda_name, "hip_name": "" if unsupported else hip_name,
                "section": sections.get(api_key, {}).get(sec_num, ""), "src_kind": kind,
                "cuda_added": ver(cv[0]), "cuda_deprecated": ver(cv[1]),
                "cuda_changed": ver(cchg[-1]) if cchg else "", "cuda_removed": ver(cv[2]),
                "tgt_added": ver(hv[0]), "tgt_deprecated": ver(hv[1]),
                "tgt_changed": ver(hchg[-1]) if hchg else "", "tgt_removed": ver(hv[2]),
                "tgt_experimental": ver(hv[3]),
            }
            parts = ["UNSUPPORTED"] if unsupported else []
            for col, label in (("cuda_added", "CUDA_ADDED"), ("cuda_deprecated", "CUDA_DEPRECATED"),
                               ("cuda_changed", "CUDA_CHANGED"), ("cuda_removed", "CUDA_REMOVED"),
                               ("tgt_added", "HIP_ADDED"), ("tgt_deprecated", "HIP_DEPRECATED"),
                               ("tgt_changed", "HIP_CHANGED"), ("tgt_removed", "HIP_REMOVED"),
                               ("tgt_experimental", "EXPERIMENTAL")):
                if vrow[col]:
                    parts.append(f"{label}={vrow[col]}")
            vrow["flags"] = ",".join(parts)
            vrows.append(vrow)
    return rows, vrows


def _section_number(text: str, alias: dict[str, int]) -> int:
    """A section as written (``SEC::DEVICE`` or ``14``) -> its number."""
    if text.isdigit():
        return int(text)
    return alias.get(text.split("::")[-1], -1)


def write_tsv(path: Path, columns: tuple[str, ...], rows: list[dict[str, str]]) -> None:
    """Write ``rows`` tab-separated with a header line (no quoting: no field holds a tab)."""
    buf = io.StringIO()
    buf.write("\t".join(columns) + "\n")
    for row in rows:
        fields = [row[c] for c in columns]
        if any("\t" in f or "\n" in f for f in fields):
            raise SourceError(f"a field of {row['cuda_name']!r} holds a tab or a newline")
        buf.write("\t".join(fields) + "\n")
    path.write_text(buf.getvalue(), encoding="utf-8")


def read_tsv(path: Path) -> list[dict[str, str]]:
    """Rows of a table written by ``write_tsv`` (or the shared snapshot)."""
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


#: The fields of a map row :func:`compare` counts differences in.
MAP_FIELDS = ("library", "kind", "conv", "hip_name", "roc_name", "section", "flags")


def _field_differences(both: list, new: dict, old: dict, fields, width: int,
                       examples: int) -> list[str]:
    """One report line per field: how many of the keys ``both`` differ in it, with examples."""
    lines = []
    for field in fields:
        diff = [k for k in both if new[k][field] != old[k][field]]
        shown = "; ".join(f"{k[1]}: {old[k][field]!r} -> {new[k][field]!r}"
                          for k in diff[:examples])
        lines.append(f"  {field:{width}} differs in {len(diff):5}"
                     + (f"  e.g. {shown}" if diff else ""))
    return lines


def compare(new: list[dict[str, str]], old: list[dict[str, str]]) -> str:
    """A report: rows per map in both tables, maps of ``old`` with no counterpart, and per field
    the number of names both have whose field differs (with examples)."""
    lines = []
    new_maps, old_maps = Counter(r["map"] for r in new), Counter(r["map"] for r in old)
    lines.append(f"{'map':34} {'new':>6} {'old':>6}")
    for name in sorted(set(new_maps) | set(old_maps)):
        lines.append(f"{name:34} {new_maps.get(name, 0):6} {old_maps.get(name, 0):6}")
    missing = sorted(set(old_maps) - set(new_maps))
    lines.append(f"maps of old with no counterpart: {missing or 'none'}")
    by_key_new = {(r["map"], r["cuda_name"]): r for r in new}
    by_key_old = {(r["map"], r["cuda_name"]): r for r in old}
    both = sorted(set(by_key_new) & set(by_key_old))
    lines.append(f"rows in both: {len(both)}; only new: {len(set(by_key_new) - set(by_key_old))};"
                 f" only old: {len(set(by_key_old) - set(by_key_new))}")
    lines += _field_differences(both, by_key_new, by_key_old, MAP_FIELDS, width=9, examples=4)
    return "\n".join(lines)


def compare_versions(new: list[dict[str, str]], old: list[dict[str, str]]) -> str:
    """Per column, how many (library, cuda_name) rows both version tables have differ."""
    by_new = {(r["library"], r["cuda_name"]): r for r in reversed(new)}
    by_old = {(r["library"], r["cuda_name"]): r for r in reversed(old)}
    both = sorted(set(by_new) & set(by_old))
    lines = [f"version rows: new {len(new)}, old {len(old)}, names in both {len(both)}, only old "
             f"{len(set(by_old) - set(by_new))}"]
    lines += _field_differences(both, by_new, by_old, VERSION_COLUMNS[3:], width=16, examples=3)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="HIPIFY release tarball or extracted tree")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--compare", type=Path, help="a folder with another cuda2hip.tsv")
    args = parser.parse_args(argv)
    try:
        files = read_sources(args.source)
        rows, vrows = convert(files)
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    write_tsv(args.out / "cuda2hip.tsv", MAP_COLUMNS, rows)
    write_tsv(args.out / "cuda2hip-versions.tsv", VERSION_COLUMNS, vrows)
    print(f"wrote {args.out}/cuda2hip.tsv ({len(rows)} rows) and cuda2hip-versions.tsv "
          f"({len(vrows)} rows)")
    if args.compare:
        print(compare(rows, read_tsv(args.compare / "cuda2hip.tsv")))
        print(compare_versions(vrows, read_tsv(args.compare / "cuda2hip-versions.tsv")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
