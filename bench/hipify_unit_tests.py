#!/usr/bin/env python3
"""Score ``openhip hipify`` (and hipify-perl) on HIPIFY's own unit tests (``tests/unit_tests``).

Give it a directory holding those test files: a released HIPIFY tree
(bench/fetch_hipify_release.py downloads and verifies rocm-7.0.2's from Debian's mirror), or the
copies read through the code corpus (paths and commits in bench/hipify_unit_tests_manifest.txt).
It does what HIPIFY's ``tests/run_test.sh`` does with hipify-clang.

Each ``.cu`` file (the files the issue counts; ``--cpp`` adds the ``.cpp`` samples) with a
``// RUN:`` line is one test. For each:

1. runs ``openhip hipify FILE -o OUT <the RUN line's hipify options> -- <its clang options>``
   through the real command line (:func:`openhip.cli.hipify.run`), so options are accepted or
   refused exactly as a user would see; with ``--tool hipify-perl=PATH`` it runs HIPIFY's perl
   translator instead (or as well: each ``--tool`` is scored on the same tree in one run), given
   the RUN-line options it has (:data:`HIPIFY_PERL_OPTIONS`, :class:`ExternalTool`);
2. cuts every ``//`` comment from the output (``sed -Ee 's|//.+|// |g'``), as run_test.sh does;
3. checks the file's ``CHECK`` lines against it with FileCheck's rules (the subset the tests
   use): ``CHECK`` in order, ``CHECK-NEXT``, ``CHECK-SAME``, ``CHECK-EMPTY``, ``CHECK-NOT``,
   ``CHECK-DAG``, ``{{regex}}`` and ``[[VAR:regex]]``/``[[VAR]]`` in patterns, and FileCheck's
   default whitespace canonicalisation (runs of blanks match one blank, leading and trailing
   blanks of a pattern ignored).

A file passes when every check holds (what FileCheck reports); the line score is the share of
CHECK lines that hold (after a failed check the scan goes on from the last match). Prints a table
per file, per tool the totals (files passing, CHECK lines found, translation time as lines/s of
wall clock and per CPU-second: the tool's runs only, process starts included for hipify-perl), and
the failing files with their first unmatched check.

``--cuda-version`` (default 12.6, the CUDA of openhip's maps; 12.9.1 for HIPIFY rocm-7.0.2's tables)
is the CUDA release scored for: version-gated files outside it (``name_12080.cu``...) get a
``-D CUDA_VERSION`` inside their range, and when the tree has HIPIFY's ``tests/lit.cfg`` beside
``unit_tests`` its ``config.excludes`` for that release are read from it (:func:`lit_excludes`);
without one (the crawled corpus) the built-in :data:`LIT_EXCLUDED_CUDA12` is used.

    python bench/hipify_unit_tests.py /tmp/hipify_unit_tests [--verbose] [--only SUBSTR]
    python bench/hipify_unit_tests.py HIPIFY/tests/unit_tests --cuda-version 12.9.1 \\
        --tool openhip --tool hipify-perl=HIPIFY/bin/hipify-perl [--repeat 3]
"""

from __future__ import annotations

import abc
import argparse
import ast
import contextlib
import io
import operator
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openhip.cli.hipify import run as hipify_cli  # noqa: E402

#: FileCheck directive: the prefix must not follow a word character or '-' (``DO-NOT-CHECK:``).
_DIRECTIVE = re.compile(r"(?<![\w-])CHECK(-NEXT|-SAME|-NOT|-DAG|-EMPTY|-LABEL)?:(.*)$")
_RUN = re.compile(r"(?<![\w-])RUN:(.*)$")
#: The issue counts HIPIFY's ``.cu`` test files (``--cpp`` adds the ``.cpp`` samples).
_SUFFIXES = (".cu",)


@dataclass
class Check:
    """One CHECK line: its kind (``CHECK``, ``CHECK-NEXT``...), pattern text and line number."""

    kind: str
    text: str
    line: int


@dataclass
class HeaderScore:
    """The translation of one local header (``HEADER.hip``) against the header's CHECK lines."""

    path: str
    produced: bool
    checks: int
    found: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.produced and self.found == self.checks


@dataclass
class FileScore:
    """What one test file scored."""

    path: str
    checks: int = 0
    found: int = 0
    error: str = ""  # hipify refused the file or its options
    first_failure: str = ""
    seconds: float = 0.0  # wall time of the translation (the tool's run only)
    cpu_seconds: float = 0.0  # its CPU time (user + system; a child process's for an external tool)
    lines: int = 0  # lines of the test file translated
    failures: list[str] = field(default_factory=list)
    headers: list[HeaderScore] = field(default_factory=list)  # the --local-headers outputs
    stray: list[str] = field(default_factory=list)  # .hip outputs of files that are no local header

    @property
    def passed(self) -> bool:
        """What lit reports: the main output holds every CHECK line."""
        return not self.error and self.checks > 0 and self.found == self.checks

    @property
    def headers_passed(self) -> bool:
        """Every local header was written and holds its CHECK lines; nothing else was written."""
        return all(h.passed for h in self.headers) and not self.stray


def parse_test(source: str) -> tuple[list[str] | None, list[Check]]:
    """The RUN line's words (None when there is none) and the CHECK lines of a test file."""
    run: list[str] | None = None
    checks: list[Check] = []
    for number, line in enumerate(source.splitlines(), 1):
        if run is None:
            m = _RUN.search(line)
            if m:
                run = shlex.split(m.group(1), posix=True)
                continue
        m = _DIRECTIVE.search(line)
        if m:
            checks.append(Check("CHECK" + (m.group(1) or ""), m.group(2).strip(), number))
    return run, checks


def run_options(words: list[str]) -> tuple[list[str], list[str]]:
    """(hipify options, clang options) of a RUN line.

    HIPIFY's lines read ``%run_test hipify "%s" "%t" %hipify_args N OPT1..OPTN %clang_args
    CLANG...``: N options for hipify-clang, then the compiler's (``-std=c++17``, ``-D...``,
    ``-I...``). Lines without ``%hipify_args`` give everything after ``%clang_args`` to clang.
    """
    hipify_opts: list[str] = []
    clang_opts: list[str] = []
    # options written between the output file and %hipify_args (older lines) are hipify's too
    if "%t" in words:
        start = words.index("%t") + 1
        stop = words.index("%hipify_args") if "%hipify_args" in words else len(words)
        hipify_opts += [w for w in words[start:stop] if w.startswith("-")]
    if "%hipify_args" in words:
        i = words.index("%hipify_args") + 1
        count = int(words[i]) if i < len(words) and words[i].isdigit() else 0
        if count:
            hipify_opts += words[i + 1 : i + 1 + count]
            rest = words[i + 1 + count :]
        else:
            # newer lines give options without the count (``%hipify_args --local-headers
            # %clang_args``): everything up to %clang_args is hipify's
            stop = words.index("%clang_args", i) if "%clang_args" in words[i:] else len(words)
            hipify_opts += [w for w in words[i:stop] if w.startswith("-")]
            rest = words[stop:]
    else:
        rest = words
    if "%clang_args" in rest:
        clang_opts = rest[rest.index("%clang_args") + 1 :]
    return hipify_opts, [w for w in clang_opts if not w.startswith("%")]


#: The CUDA version (``CUDA_VERSION`` form: major * 1000 + minor * 10) tests are scored for by
#: default: CUDA 12.6, the release openhip's maps were made for (openhip.hipify.preprocessor's
#: CUDA_VERSION). HIPIFY rocm-7.0.2's tables are for CUDA 12.9.1 (its CHANGELOG.md):
#: ``--cuda-version 12.9.1`` scores its tree for that release.
CUDA_VERSION = 12060
_GATE = re.compile(r"_(before_)?([1-9]\d{3,4})(?:_([1-9]\d{3,4}))?$")


def parse_cuda_version(text: str) -> int:
    """``12.9.1``, ``12.9`` or ``12090`` as a ``CUDA_VERSION`` number (12090); the patch level is
    dropped (CUDA_VERSION has none). ValueError for anything else."""
    if re.fullmatch(r"[1-9]\d{3,4}", text):
        return int(text)
    m = re.fullmatch(r"([1-9]\d?)\.(\d{1,2})(?:\.\d+)?", text)
    if not m:
        raise ValueError(f"not a CUDA version: {text!r} (give 12.9.1, 12.9 or 12090)")
    return int(m.group(1)) * 1000 + int(m.group(2)) * 10


def cuda_version_for(path: Path, cuda: int = CUDA_VERSION) -> int | None:
    """The CUDA_VERSION a version-gated test needs when ``cuda`` is outside its range, else None.

    HIPIFY runs ``name_A.cu`` with CUDA >= A, ``name_A_B.cu`` with A <= CUDA < B and
    ``name_before_A.cu`` with CUDA < A (lit's configuration picks them by the installed CUDA).
    A file whose range excludes ``cuda`` (default :data:`CUDA_VERSION`, 12.6) is scored as
    hipify-clang would translate it with a CUDA of that range: ``-D CUDA_VERSION=`` the range's
    lowest value (or just below its end). The cuDNN tests' numbers are cuDNN versions
    (``cudnn2miopen_before_9000``: cuDNN < 9), set with ``-D CUDNN_VERSION``/``CUDNN_MAJOR``
    instead (CUDA 12.x comes with cuDNN 9).
    """
    m = _GATE.search(path.stem)
    if not m:
        return None
    low, high = int(m.group(2)), int(m.group(3)) if m.group(3) else None
    if m.group(1):  # before_A
        return None if cuda < low else low - 10
    if high is not None:
        return None if low <= cuda < high else low
    return None if cuda >= low else low


#: The test files HIPIFY's own lit configuration leaves out when it runs with CUDA 12.x (LLVM >= 10,
#: cuDNN and CUB given): tests/lit.cfg at 28abd145, the ``config.excludes`` of its CUDA-version
#: rules (``> 10``, ``>= 11``, ``>= 12`` and the ``..._12000`` range tests it runs below CUDA 12
#: only). hipify-clang's "passes all its tests" is over the other files.
LIT_EXCLUDED_CUDA12 = frozenset({
    "cudnn_convolution_forward.cu", "cuSPARSE_01.cu", "cuSPARSE_02.cu", "cuSPARSE_12.cu",
    "cusparse2rocsparse_before_11000.cu", "cusparse2rocsparse_10010_12000.cu",
    "cusparse2rocsparse_11010_12000.cu", "cusparse2rocsparse_11030_12000.cu",
    "cusparse2hipsparse_11030_12000.cu", "headers_test_06.cu", "headers_test_07.cu",
    "headers_test_08.cu", "headers_test_09.cu", "tex2dKernel.cpp", "cuSPARSE_11.cu",
    "cublas_0_based_indexing.cu", "cublas_0_based_indexing_rocblas.cu", "cub_01.cu", "cub_02.cu",
    "cub_03.cu", "cusparse2rocsparse_9020_12000.cu", "cusparse2rocsparse_before_12000.cu",
})


def lit_runs_with_cuda12(path: str) -> bool:
    """Whether HIPIFY's lit.cfg runs the test file ``path`` with CUDA 12.x (see
    :data:`LIT_EXCLUDED_CUDA12`; lit matches excludes by base name)."""
    return lit_runs(path, LIT_EXCLUDED_CUDA12)


def lit_runs(path: str, excludes: frozenset[str]) -> bool:
    """Whether lit runs the test file ``path`` given its ``config.excludes`` (base names)."""
    return Path(path).name not in excludes


class LitConfigError(ValueError):
    """A lit.cfg whose ``config.excludes`` cannot be worked out (a condition this reader cannot
    evaluate guards an exclude)."""


@dataclass
class LitSettings:
    """What HIPIFY's lit.site.cfg would hold for a run: the values lit.cfg's ``if`` conditions
    read (``config.<name>``; ``sys.platform`` is :attr:`platform`). The defaults describe a Linux
    run of HIPIFY rocm-7.0.2's own test setup with cuDNN, CUB and cuTENSOR given (its CHANGELOG:
    CUDA 12.9.1, cuDNN 9.11, cuTENSOR 2.2, LLVM 20.1.8); the CUDA version comes from
    ``--cuda-version``."""

    cuda_version_major: int = CUDA_VERSION // 1000
    cuda_version_minor: int = CUDA_VERSION % 1000 // 10
    llvm_version_major: int = 20
    cudnn_version_major: int = 9
    cutensor_version_major: int = 2
    cuda_dnn_root: str = "/usr/local/cudnn"
    cuda_cub_root: str = "/usr/local/cub"
    cuda_tensor_root: str = "/usr/local/cutensor"
    cuda_sdk_root: str = "OFF"
    platform: str = "linux"

    @classmethod
    def for_cuda(cls, cuda: int, **kw: object) -> LitSettings:
        """Settings for the CUDA_VERSION ``cuda`` (12090: major 12, minor 9)."""
        return cls(cuda_version_major=cuda // 1000, cuda_version_minor=cuda % 1000 // 10, **kw)


def _has_excludes(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == "excludes":
            return True
    return False


_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def _lit_value(node: ast.AST, settings: LitSettings) -> object:
    """Evaluate one lit.cfg expression of the forms its conditions use; LitConfigError else."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_lit_value(e, settings) for e in node.elts]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = node.value.id
        if owner == "config" and node.attr in LitSettings.__dataclass_fields__:
            return getattr(settings, node.attr)
        if owner == "sys" and node.attr == "platform":
            return settings.platform
    if isinstance(node, ast.BoolOp):
        values = node.values
        if isinstance(node.op, ast.And):
            return all(_lit_value(v, settings) for v in values)
        return any(_lit_value(v, settings) for v in values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _lit_value(node.operand, settings)
    if isinstance(node, ast.Compare):
        left = _lit_value(node.left, settings)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            compare = _COMPARE.get(type(op))
            if compare is None:
                break
            right = _lit_value(comparator, settings)
            try:
                if not compare(left, right):
                    return False
            except TypeError as exc:
                raise LitConfigError(f"line {node.lineno}: {ast.unparse(node)!r}: {exc}") from exc
            left = right
        else:
            return True
    raise LitConfigError(f"line {getattr(node, 'lineno', '?')}: cannot evaluate {ast.unparse(node)!r}")


def _excludes_call(stmt: ast.stmt, settings: LitSettings) -> tuple[str, list[str]] | None:
    """('set'|'add', names) when ``stmt`` assigns or extends ``config.excludes``."""
    target = "config.excludes"
    if isinstance(stmt, ast.Assign) and [ast.unparse(t) for t in stmt.targets] == [target]:
        return "set", [str(v) for v in _lit_value(stmt.value, settings)]  # type: ignore[union-attr]
    if isinstance(stmt, ast.AugAssign) and ast.unparse(stmt.target) == target:
        return "add", [str(v) for v in _lit_value(stmt.value, settings)]  # type: ignore[union-attr]
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = ast.unparse(stmt.value.func)
        args = stmt.value.args
        if func == target + ".append" and len(args) == 1:
            return "add", [str(_lit_value(args[0], settings))]
        if func == target + ".extend" and len(args) == 1:
            return "add", [str(v) for v in _lit_value(args[0], settings)]  # type: ignore[union-attr]
    return None


def lit_excludes(text: str, settings: LitSettings) -> frozenset[str]:
    """The ``config.excludes`` HIPIFY's ``tests/lit.cfg`` (its source ``text``) ends with for a run
    described by ``settings``.

    The file is read, not run: its top-level statements are walked in order, ``config.excludes =
    [...]``, ``+= [...]``, ``.append(...)`` and ``.extend([...])`` are applied, and every ``if`` /
    ``elif`` / ``else`` whose branches touch ``config.excludes`` has its condition evaluated
    (comparisons, ``and``/``or``/``not`` over :class:`LitSettings`'s ``config.*`` values and
    ``sys.platform``). Statements that do not touch the excludes are skipped; a condition it cannot
    evaluate in front of an exclude raises :class:`LitConfigError`."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise LitConfigError(f"lit.cfg does not parse: {exc}") from exc
    excludes: list[str] = []

    def walk(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                if _has_excludes(stmt):
                    walk(stmt.body if _lit_value(stmt.test, settings) else stmt.orelse)
                continue
            if not _has_excludes(stmt):
                continue
            change = _excludes_call(stmt, settings)
            if change is None:
                raise LitConfigError(f"line {stmt.lineno}: cannot follow {ast.unparse(stmt)!r}")
            if change[0] == "set":
                excludes.clear()
            excludes.extend(change[1])

    walk(tree.body)
    return frozenset(excludes)


def find_lit_cfg(root: Path) -> Path | None:
    """HIPIFY's ``tests/lit.cfg`` for a unit_tests folder ``root``: beside it (``root/../lit.cfg``)
    or in it; None when there is none (the crawled corpus copy has none)."""
    for candidate in (root.parent / "lit.cfg", root / "lit.cfg"):
        if candidate.is_file():
            return candidate
    return None


def strip_comments(text: str) -> list[str]:
    """The output's lines as run_test.sh gives them to FileCheck (``//...`` cut to ``// ``)."""
    return [re.sub(r"//.+", "// ", line) for line in text.split("\n")]


def _canon(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


def compile_pattern(text: str, variables: dict[str, str]) -> tuple[re.Pattern[str], list[str]]:
    """A FileCheck pattern as a Python regex (and the variables it defines, in group order)."""
    out: list[str] = []
    defined: list[str] = []
    pos = 0
    text = _canon(text.strip())
    token = re.compile(r"\{\{(.*?)\}\}|\[\[([A-Za-z_]\w*)(?::(.*?))?\]\]")
    for m in token.finditer(text):
        out.append(re.escape(text[pos : m.start()]))
        if m.group(1) is not None:
            out.append(f"(?:{m.group(1)})")
        elif m.group(3) is not None:
            if m.group(2) not in defined:
                defined.append(m.group(2))
                out.append(f"(?P<v_{m.group(2)}>{m.group(3)})")
            else:
                out.append(f"(?:{m.group(3)})")
        else:
            out.append(re.escape(variables.get(m.group(2), "\x00undefined\x00")))
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return re.compile("".join(out)), defined


class FileCheck:
    """FileCheck over the lines of one output; :meth:`run` returns the failures."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = [_canon(line) for line in lines]
        self.variables: dict[str, str] = {}

    def search(self, check: Check, line: int, col: int, last_line: int | None = None):
        """First match of ``check`` at or after (line, col), up to ``last_line``: (line, start, end)."""
        regex, defined = compile_pattern(check.text, self.variables)
        stop = len(self.lines) - 1 if last_line is None else min(last_line, len(self.lines) - 1)
        for i in range(line, stop + 1):
            m = regex.search(self.lines[i], col if i == line else 0)
            if m:
                for name in defined:
                    self.variables[name] = m.group(f"v_{name}")
                return i, m.start(), m.end()
        return None

    def run(self, checks: list[Check]) -> tuple[int, list[str]]:
        """(number of checks that hold, failure messages in order)."""
        found = 0
        failures: list[str] = []
        line, col = 0, 0  # where the previous match ended
        matched_any = False
        pending_not: list[Check] = []
        k = 0
        while k < len(checks):
            check = checks[k]
            kind = check.kind
            if kind == "CHECK-NOT":
                pending_not.append(check)
                k += 1
                continue
            if kind == "CHECK-DAG":
                group = []
                while k < len(checks) and checks[k].kind == "CHECK-DAG":
                    group.append(checks[k])
                    k += 1
                end_line, end_col = line, col
                for dag in group:
                    hit = self.search(dag, line, col)
                    if hit is None:
                        failures.append(f"line {dag.line}: CHECK-DAG not found: {dag.text}")
                    else:
                        found += 1
                        if (hit[0], hit[2]) > (end_line, end_col):
                            end_line, end_col = hit[0], hit[2]
                found += self._nots(pending_not, line, col, end_line, end_col, failures)
                pending_not = []
                line, col = end_line, end_col
                matched_any = True
                continue
            k += 1
            if kind == "CHECK-EMPTY":
                target = line + 1 if matched_any else 0
                hit = (target, 0, 0) if target < len(self.lines) and self.lines[target] == "" else None
            elif kind == "CHECK-NEXT" and matched_any:
                hit = self.search(check, line + 1, 0, last_line=line + 1)
            elif kind == "CHECK-SAME" and matched_any:
                hit = self.search(check, line, col, last_line=line)
            else:
                hit = self.search(check, line, col)
            if hit is None:
                failures.append(f"line {check.line}: {kind} not found: {check.text}")
                if kind in ("CHECK-NEXT", "CHECK-SAME", "CHECK-EMPTY"):
                    # resynchronise on a later occurrence, so one miss is counted once
                    later = self.search(check, line, col) if kind != "CHECK-EMPTY" else None
                    if later is not None:
                        line, col = later[0], later[2]
                continue
            found += 1
            found += self._nots(pending_not, line, col, hit[0], hit[1], failures)
            pending_not = []
            line, col = hit[0], hit[2]
            matched_any = True
        found += self._nots(pending_not, line, col, len(self.lines), 0, failures)
        return found, failures

    def _nots(self, nots: list[Check], line: int, col: int, end_line: int, end_col: int,
              failures: list[str]) -> int:
        held = 0
        for check in nots:
            hit = self.search(check, line, col, last_line=end_line)
            if hit is not None and (hit[0], hit[2]) <= (end_line, end_col if end_line < len(self.lines) else 1 << 30):
                failures.append(f"line {check.line}: CHECK-NOT matched output line {hit[0] + 1}: {check.text}")
            else:
                held += 1
        return held


#: hipify-clang's options that also translate the local headers a file includes (to HEADER.hip).
_LOCAL_HEADER_OPTIONS = ("--local-headers", "--local-headers-recursive")
_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
#: What run_test.sh puts for ``<CUDA dir>`` in a compile_commands.json.in (the %hipify_args).
_CUDA_DIR = "--cuda-path=/usr/local/cuda"


def expected_headers(test: Path, recursive: bool) -> list[Path]:
    """The local headers hipify-clang translates for ``test``: its ``#include "name"`` files that
    exist beside it (paths normalised), and with ``recursive`` theirs too; each once."""
    found: list[Path] = []
    seen = {test.resolve()}
    queue = [test.resolve()]
    while queue:
        includer = queue.pop(0)
        text = includer.read_bytes().decode("utf-8", "surrogateescape")
        for name in _QUOTED_INCLUDE.findall(text):
            path = Path(os.path.normpath(includer.parent / name))
            if not path.is_file() or path.resolve() in seen:
                continue
            seen.add(path.resolve())
            found.append(path.resolve())
            if recursive:
                queue.append(path.resolve())
    return found


def score_headers(tree: Path, test: Path, recursive: bool, result: FileScore) -> None:
    """Check the HEADER.hip outputs of a --local-headers run in ``tree`` (a copy of the test's
    folder): each expected header's output exists and holds the header's own CHECK lines; no
    other file got a ``.hip`` output."""
    expected = expected_headers(test, recursive)
    for header in expected:
        out = header.with_name(header.name + ".hip")
        _, checks = parse_test(header.read_bytes().decode("utf-8", "surrogateescape"))
        score = HeaderScore(str(header.relative_to(tree.resolve())), out.exists(), len(checks))
        if score.produced:
            text = out.read_bytes().decode("utf-8", "surrogateescape")
            score.found, score.failures = FileCheck(strip_comments(text)).run(checks)
        else:
            score.failures = ["no output written"]
        result.headers.append(score)
    wanted = {h.with_name(h.name + ".hip") for h in expected}
    result.stray = sorted(str(p.relative_to(tree.resolve())) for p in tree.resolve().rglob("*.hip")
                          if p not in wanted)


class Tool(abc.ABC):
    """A translator the scorer runs on each test (:class:`OpenhipTool`, :class:`ExternalTool`)."""

    name = "tool"

    @abc.abstractmethod
    def translate(self, work: Path, out: Path, hipify_opts: list[str], clang_opts: list[str],
                  database: Path | None) -> tuple[int, str]:
        """Translate the file ``work`` into ``out`` with the RUN line's options (``database``: the
        folder holding the filled-in compile_commands.json); (exit status, error text)."""

    def cpu_clock(self) -> float:
        """The CPU seconds this tool's runs are timed with (this process's, by default)."""
        return time.process_time()


class OpenhipTool(Tool):
    """``openhip hipify`` through its real command line (:func:`openhip.cli.hipify.run`), in this
    process: ``FILE -o OUT <hipify options> -- <clang options>``, or ``-p=<dir>`` for a
    compilation-database test, as run_test.sh runs hipify-clang."""

    name = "openhip"

    def translate(self, work: Path, out: Path, hipify_opts: list[str], clang_opts: list[str],
                  database: Path | None) -> tuple[int, str]:
        if database is not None:
            argv = [str(work), "-o", str(out), f"-p={database}", *hipify_opts]
        else:
            argv = [str(work), "-o", str(out), *hipify_opts, "--", *clang_opts]
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                rc = hipify_cli(argv)
            except Exception as exc:  # a crash is a result to report, not to hide
                rc = -1
                err.write(f"{type(exc).__name__}: {exc}")
        return rc, err.getvalue()


#: The RUN-line options hipify-perl has too (its GetOptions: same names, same meaning; a RUN
#: line's single-dash spelling, ``-roc``, is given as ``--roc``). The others are not given to it:
#: it has no preprocessor and no clang (``--amap``,
#: ``--skip-excluded-preprocessor-conditional-blocks``, ``--default-preprocessor``, the clang
#: options after ``%clang_args``, the ``-D CUDA_VERSION`` of version-gated files), no
#: ``--use-hip-data-types`` (rocm-7.0.2's hipify-perl lacks it), no
#: ``--local-headers``/``--local-headers-recursive`` (so its local-header outputs are reported
#: as not written) and no ``-p`` compilation database (database tests get the file alone).
HIPIFY_PERL_OPTIONS = frozenset({
    "--roc", "--miopen", "--experimental", "--hip-kernel-execution-syntax",
    "--cuda-kernel-execution-syntax",
})


class ExternalTool(Tool):
    """A translator with hipify-perl's command line: ``PROGRAM [OPTIONS] FILE``, the translation on
    standard output (HIPIFY's ``bin/hipify-perl``). Each test runs one process with the RUN line's
    options that :data:`HIPIFY_PERL_OPTIONS` lists, in their order; timed by wall clock and by the
    child's CPU time. A program whose ``#!`` line names perl runs under the ``perl`` on PATH
    (ValueError when there is none); any other runs as it is (it must be executable)."""

    def __init__(self, name: str, program: Path, options: frozenset[str] = HIPIFY_PERL_OPTIONS,
                 timeout: float = 900.0) -> None:
        if not program.is_file():
            raise ValueError(f"{name}: no such file: {program}")
        self.name = name
        self.program = program.resolve()
        self.options = options
        self.timeout = timeout
        with open(program, "rb") as f:
            first = f.readline(200)
        if first.startswith(b"#!") and b"perl" in first:
            perl = shutil.which("perl")
            if perl is None:
                raise ValueError(f"{name}: {program} is a perl script and perl is not installed")
            self.prefix = [perl, str(self.program)]
        elif os.access(program, os.X_OK):
            self.prefix = [str(self.program)]
        else:
            raise ValueError(f"{name}: {program} is neither a perl script nor executable")

    def command(self, work: Path, hipify_opts: list[str]) -> list[str]:
        """The command line for one test."""
        long = ["-" + o if o.startswith("-") and not o.startswith("--") else o for o in hipify_opts]
        return [*self.prefix, *[o for o in long if o in self.options], str(work)]

    def translate(self, work: Path, out: Path, hipify_opts: list[str], clang_opts: list[str],
                  database: Path | None) -> tuple[int, str]:
        with open(out, "wb") as stdout:
            try:
                done = subprocess.run(self.command(work, hipify_opts), stdout=stdout,
                                      stderr=subprocess.PIPE, timeout=self.timeout, check=False)
            except subprocess.TimeoutExpired:
                return -1, f"error: {self.name} ran past {self.timeout:.0f} s"
            except OSError as exc:
                return -1, f"error: {self.name} did not start: {exc}"
        stderr = done.stderr.decode("utf-8", "replace")
        if done.returncode != 0:
            stderr += f"\nerror: {self.name} exit status {done.returncode}"
        return done.returncode, stderr

    def cpu_clock(self) -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime


OPENHIP = OpenhipTool()


def parse_tool(spec: str) -> Tool:
    """``openhip`` or ``NAME=PATH`` (``hipify-perl=HIPIFY/bin/hipify-perl``: an
    :class:`ExternalTool`); ValueError for anything else."""
    if spec == "openhip":
        return OPENHIP
    name, sep, program = spec.partition("=")
    if not sep or not name or not program or name == "openhip":
        raise ValueError(f"--tool {spec!r}: give 'openhip' or NAME=PATH (e.g. hipify-perl=bin/hipify-perl)")
    return ExternalTool(name, Path(program))


def score_file(path: Path, root: Path, tool: Tool = OPENHIP, cuda: int = CUDA_VERSION) -> FileScore | None:
    """Score one test file with ``tool`` for the CUDA_VERSION ``cuda``; None when it is not a test
    (no RUN line or no CHECK line).

    A test run with ``--local-headers``/``--local-headers-recursive`` or with a
    ``compile_commands.json.in`` beside it runs in a temporary copy of its folder (as
    run_test.sh, which writes the database there; the header outputs land there too).
    """
    source = path.read_bytes().decode("utf-8", "surrogateescape")
    run, checks = parse_test(source)
    if run is None or not checks:
        return None
    result = FileScore(str(path.relative_to(root)), checks=len(checks), lines=len(source.splitlines()))
    hipify_opts, clang_opts = run_options(run)
    version = cuda_version_for(path, cuda)
    if version is not None and path.stem.startswith("cudnn"):
        # cuDNN tests are gated by the cuDNN version (9000 = cuDNN 9.0.0)
        clang_opts += [f"-DCUDNN_VERSION={version}", f"-DCUDNN_MAJOR={version // 1000}"]
    elif version is not None:
        clang_opts.append(f"-DCUDA_VERSION={version}")
    json_in = path.parent / "compile_commands.json.in"
    local = any(o in _LOCAL_HEADER_OPTIONS for o in hipify_opts)
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        work = path
        if local or json_in.exists():
            shutil.copytree(path.parent, tree)
            work = tree / path.name
        out = Path(tmp) / ("out_" + path.name)
        database = None
        if json_in.exists():
            # run_test.sh: the database's <test dir>/<CUDA dir> filled in, then -p=<test dir>
            text = json_in.read_text().replace("<test dir>", str(tree)).replace("<CUDA dir>", _CUDA_DIR)
            (tree / "compile_commands.json").write_text(text)
            database = tree
        cpu, started = tool.cpu_clock(), time.perf_counter()
        rc, err = tool.translate(work, out, hipify_opts, clang_opts, database)
        result.seconds = time.perf_counter() - started
        result.cpu_seconds = tool.cpu_clock() - cpu
        if rc != 0 or not out.exists():
            lines = [ln for ln in err.splitlines() if "error" in ln] or err.splitlines()
            result.error = (lines[-1] if lines else f"exit status {rc}")[:200]
            result.first_failure = result.error
            return result
        text = out.read_bytes().decode("utf-8", "surrogateescape")
        if local:
            score_headers(tree, work, "--local-headers-recursive" in hipify_opts, result)
    found, failures = FileCheck(strip_comments(text)).run(checks)
    result.found = found
    result.failures = failures
    result.first_failure = failures[0] if failures else ""
    return result


def find_tests(root: Path, only: str = "", cpp: bool = False, headers: bool = False) -> list[Path]:
    """The candidate test files under ``root`` (sorted); ``headers`` adds the ``.h`` files (lit
    runs those with a RUN line as tests too)."""
    suffixes = _SUFFIXES + ((".cpp",) if cpp else ()) + ((".h",) if headers else ())
    return sorted(p for p in root.rglob("*") if p.suffix in suffixes and p.is_file() and only in str(p))


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def score_tree(tests: list[Path], root: Path, tool: Tool, cuda: int) -> tuple[list[FileScore], list[str]]:
    """Every test of ``tests`` scored with ``tool``: (scores, paths of files that are no test)."""
    scores: list[FileScore] = []
    skipped: list[str] = []
    for path in tests:
        score = score_file(path, root, tool, cuda)
        if score is None:
            skipped.append(str(path.relative_to(root)))
        else:
            scores.append(score)
    return scores, skipped


def _share(found: int, checks: int) -> str:
    return f"{100.0 * found / checks:.1f}%" if checks else "-"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="directory holding HIPIFY's tests/unit_tests tree")
    parser.add_argument("--only", default="", help="score only paths containing this text")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every failure")
    parser.add_argument("--cpp", action="store_true", help="also score the .cpp test files")
    parser.add_argument("--headers", action="store_true",
                        help="also score the .h files that have a RUN line (lit runs them too)")
    parser.add_argument("--tool", action="append", default=[], metavar="openhip|NAME=PATH",
                        help="translator to score, repeatable: 'openhip' (the default) or "
                             "hipify-perl=PATH (HIPIFY's bin/hipify-perl, or any program with its "
                             "command line); several are scored on the same tree in one run")
    parser.add_argument("--cuda-version", default=str(CUDA_VERSION), metavar="X.Y[.Z]|NNNNN",
                        help="the CUDA release to score for (default 12.6, openhip's maps; HIPIFY "
                             "rocm-7.0.2's tables are for 12.9.1): picks the version-gated files' "
                             "-D CUDA_VERSION and lit.cfg's excludes")
    parser.add_argument("--lit-cfg", type=Path,
                        help="HIPIFY's tests/lit.cfg to read the excludes from (default: ROOT/../lit.cfg "
                             "when there is one, else the built-in LIT_EXCLUDED_CUDA12)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="score the tree this many times per tool and report the median times")
    args = parser.parse_args(argv)
    try:
        cuda = parse_cuda_version(args.cuda_version)
        tools = [parse_tool(spec) for spec in args.tool or ["openhip"]]
    except ValueError as exc:
        parser.error(str(exc))
    if len({t.name for t in tools}) != len(tools):
        parser.error("--tool: each tool once")
    lit_cfg = args.lit_cfg or find_lit_cfg(args.root)
    if lit_cfg is not None:
        try:
            excludes = lit_excludes(lit_cfg.read_text(), LitSettings.for_cuda(cuda))
        except (OSError, LitConfigError) as exc:
            print(f"{lit_cfg}: {exc}", file=sys.stderr)
            return 2
        lit_source = f"{lit_cfg}, CUDA {cuda // 1000}.{cuda % 1000 // 10}"
    else:
        excludes, lit_source = LIT_EXCLUDED_CUDA12, "LIT_EXCLUDED_CUDA12 (no lit.cfg beside the tree)"
    tests = find_tests(args.root, args.only, args.cpp, args.headers)
    results: dict[str, list[FileScore]] = {}
    walls: dict[str, list[float]] = {t.name: [] for t in tools}
    cpus: dict[str, list[float]] = {t.name: [] for t in tools}
    skipped: list[str] = []
    for round_ in range(max(1, args.repeat)):
        for tool in tools:
            scores, skipped = score_tree(tests, args.root, tool, cuda)
            walls[tool.name].append(sum(s.seconds for s in scores))
            cpus[tool.name].append(sum(s.cpu_seconds for s in scores))
            print(f"round {round_ + 1} {tool.name}: files {sum(s.passed for s in scores)} of {len(scores)} "
                  f"pass; CHECK lines {sum(s.found for s in scores)} of {sum(s.checks for s in scores)}; "
                  f"{sum(s.lines for s in scores)} lines in {walls[tool.name][-1]:.2f} s wall, "
                  f"{cpus[tool.name][-1]:.2f} s CPU", file=sys.stderr, flush=True)
            if round_ == 0:
                results[tool.name] = scores
            elif [(s.path, s.found, s.error) for s in scores] != [
                    (s.path, s.found, s.error) for s in results[tool.name]]:
                print(f"warning: {tool.name} scored differently in round {round_ + 1}", file=sys.stderr)
    first = results[tools[0].name]
    if not first:
        print("no test files found", file=sys.stderr)
        return 2
    width = max(len(s.path) for s in first)
    print(f"{'file':<{width}}  checks  " + "  ".join(f"{t.name + ' result/found':>22}" for t in tools))
    for i, s in enumerate(first):
        lit_note = "" if lit_runs(s.path, excludes) else "  (lit: not run)"
        cells = []
        for t in tools:
            r = results[t.name][i]
            cells.append(f"{('pass' if r.passed else 'FAIL'):>16} {r.found:>5}")
        print(f"{s.path:<{width}}  {s.checks:>6}  " + "  ".join(cells) + lit_note)
    print()
    lit = [i for i, s in enumerate(first) if lit_runs(s.path, excludes)]
    total_lines = sum(s.lines for s in first)
    checks = sum(s.checks for s in first)
    lit_checks = sum(first[i].checks for i in lit)
    print(f"{len(first)} test files, {total_lines} lines, {checks} CHECK lines; lit's excludes from "
          f"{lit_source}: {len(lit)} of the files run ({len(first) - len(lit)} left out)")
    for t in tools:
        scores = results[t.name]
        found = sum(s.found for s in scores)
        wall, cpu = _median(walls[t.name]), _median(cpus[t.name])
        rounds = f", median of {len(walls[t.name])} runs" if len(walls[t.name]) > 1 else ""
        print(f"{t.name}: files: {sum(s.passed for s in scores)} of {len(scores)} pass; CHECK lines: "
              f"{found} of {checks} ({_share(found, checks)}); time {wall:.2f} s wall, {cpu:.2f} s CPU"
              f"{rounds}: {total_lines / wall if wall else 0:,.0f} lines/s, "
              f"{total_lines / cpu if cpu else 0:,.0f} lines per CPU-second")
        if len(lit) != len(scores):
            lit_found = sum(scores[i].found for i in lit)
            print(f"{t.name}: the {len(lit)} files lit runs: {sum(scores[i].passed for i in lit)} pass; "
                  f"CHECK lines {lit_found} of {lit_checks} ({_share(lit_found, lit_checks)})")
        if len(walls[t.name]) > 1:
            print(f"{t.name}: wall per run {', '.join(f'{w:.2f}' for w in walls[t.name])} s; CPU "
                  f"{', '.join(f'{c:.2f}' for c in cpus[t.name])} s")
        with_headers = [s for s in scores if s.headers or s.stray]
        if with_headers:
            outputs = [h for s in with_headers for h in s.headers]
            print(f"{t.name}: local-header outputs of the {len(with_headers)} --local-headers runs: "
                  f"{sum(s.headers_passed for s in with_headers)} runs with every HEADER.hip right; "
                  f"{sum(h.passed for h in outputs)} of {len(outputs)} header outputs pass, CHECK lines "
                  f"{sum(h.found for h in outputs)} of {sum(h.checks for h in outputs)}; "
                  f"{sum(len(s.stray) for s in with_headers)} stray outputs")
    if skipped:
        print(f"not tests (no RUN or no CHECK line): {len(skipped)}: {', '.join(skipped)}")
    for t in tools:
        scores = results[t.name]
        for s in scores:
            if (s.headers or s.stray) and not s.headers_passed:
                bad = [f"{h.path}: {h.failures[0] if h.failures else ''}" for h in s.headers if not h.passed]
                print(f"  {t.name}: local headers of {s.path}: "
                      f"{'; '.join(bad + [f'stray {p}' for p in s.stray])}")
        failing = [s for s in scores if not s.passed]
        if failing:
            print(f"\n{t.name}: failing files (first unmatched check):")
            for s in failing:
                print(f"  {s.path}: {s.first_failure}")
                if args.verbose:
                    for failure in s.failures[1:]:
                        print(f"      {failure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
