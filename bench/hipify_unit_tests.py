#!/usr/bin/env python3
"""Score ``openhip hipify`` on HIPIFY's own unit tests (ROCm/HIPIFY ``tests/unit_tests``).

Fetch-free: give it a directory holding a copy of those test files (the tree as in HIPIFY, the
paths and commits used listed in bench/hipify_unit_tests_manifest.txt). It does what HIPIFY's
``tests/run_test.sh`` does with hipify-clang.

Each ``.cu`` file (the files the issue counts; ``--cpp`` adds the ``.cpp`` samples) with a
``// RUN:`` line is one test. For each:

1. runs ``openhip hipify FILE -o OUT <the RUN line's hipify options> -- <its clang options>``
   through the real command line (:func:`openhip.cli.hipify.run`), so options are accepted or
   refused exactly as a user would see;
2. cuts every ``//`` comment from the output (``sed -Ee 's|//.+|// |g'``), as run_test.sh does;
3. checks the file's ``CHECK`` lines against it with FileCheck's rules (the subset the tests
   use): ``CHECK`` in order, ``CHECK-NEXT``, ``CHECK-SAME``, ``CHECK-EMPTY``, ``CHECK-NOT``,
   ``CHECK-DAG``, ``{{regex}}`` and ``[[VAR:regex]]``/``[[VAR]]`` in patterns, and FileCheck's
   default whitespace canonicalisation (runs of blanks match one blank, leading and trailing
   blanks of a pattern ignored).

A file passes when every check holds (what FileCheck reports); the line score is the share of
CHECK lines that hold (after a failed check the scan goes on from the last match). Prints a table
per file, the totals, and the failing files with their first unmatched check.

    python bench/hipify_unit_tests.py /tmp/hipify_unit_tests [--verbose] [--only SUBSTR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import shutil
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
    seconds: float = 0.0
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


#: The CUDA release openhip's maps describe (openhip.hipify.preprocessor.CUDA_VERSION).
CUDA_VERSION = 12060
_GATE = re.compile(r"_(before_)?([1-9]\d{3,4})(?:_([1-9]\d{3,4}))?$")


def cuda_version_for(path: Path) -> int | None:
    """The CUDA_VERSION a version-gated test needs when 12.6 is outside its range, else None.

    HIPIFY runs ``name_A.cu`` with CUDA >= A, ``name_A_B.cu`` with A <= CUDA < B and
    ``name_before_A.cu`` with CUDA < A (lit's configuration picks them by the installed CUDA).
    A file whose range excludes CUDA 12.6 is scored as hipify-clang would translate it with a
    CUDA of that range: ``-D CUDA_VERSION=`` the range's lowest value (or just below its end).
    The cuDNN tests' numbers are cuDNN versions (``cudnn2miopen_before_9000``: cuDNN < 9), set
    with ``-D CUDNN_VERSION``/``CUDNN_MAJOR`` instead (CUDA 12.6 comes with cuDNN 9.5).
    """
    m = _GATE.search(path.stem)
    if not m:
        return None
    low, high = int(m.group(2)), int(m.group(3)) if m.group(3) else None
    if m.group(1):  # before_A
        return None if CUDA_VERSION < low else low - 10
    if high is not None:
        return None if low <= CUDA_VERSION < high else low
    return None if CUDA_VERSION >= low else low


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
    return Path(path).name not in LIT_EXCLUDED_CUDA12


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


def score_file(path: Path, root: Path) -> FileScore | None:
    """Score one test file; None when it is not a test (no RUN line or no CHECK line).

    A test run with ``--local-headers``/``--local-headers-recursive`` or with a
    ``compile_commands.json.in`` beside it runs in a temporary copy of its folder (as
    run_test.sh, which writes the database there; the header outputs land there too).
    """
    source = path.read_bytes().decode("utf-8", "surrogateescape")
    run, checks = parse_test(source)
    if run is None or not checks:
        return None
    result = FileScore(str(path.relative_to(root)), checks=len(checks))
    hipify_opts, clang_opts = run_options(run)
    version = cuda_version_for(path)
    if version is not None and path.stem.startswith("cudnn"):
        # cuDNN tests are gated by the cuDNN version (9000 = cuDNN 9.0.0)
        clang_opts += [f"-DCUDNN_VERSION={version}", f"-DCUDNN_MAJOR={version // 1000}"]
    elif version is not None:
        clang_opts.append(f"-DCUDA_VERSION={version}")
    json_in = path.parent / "compile_commands.json.in"
    local = any(o in _LOCAL_HEADER_OPTIONS for o in hipify_opts)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        work = path
        if local or json_in.exists():
            shutil.copytree(path.parent, tree)
            work = tree / path.name
        out = Path(tmp) / ("out_" + path.name)
        if json_in.exists():
            # run_test.sh: the database's <test dir>/<CUDA dir> filled in, then -p=<test dir>
            database = json_in.read_text().replace("<test dir>", str(tree)).replace("<CUDA dir>", _CUDA_DIR)
            (tree / "compile_commands.json").write_text(database)
            argv = [str(work), "-o", str(out), f"-p={tree}", *hipify_opts]
        else:
            argv = [str(work), "-o", str(out), *hipify_opts, "--", *clang_opts]
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                rc = hipify_cli(argv)
            except Exception as exc:  # a crash is a result to report, not to hide
                rc = -1
                err.write(f"{type(exc).__name__}: {exc}")
        result.seconds = time.perf_counter() - started
        if rc != 0 or not out.exists():
            lines = [ln for ln in err.getvalue().splitlines() if "error" in ln] or err.getvalue().splitlines()
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


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="directory holding HIPIFY's tests/unit_tests tree")
    parser.add_argument("--only", default="", help="score only paths containing this text")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every failure")
    parser.add_argument("--cpp", action="store_true", help="also score the .cpp test files")
    parser.add_argument("--headers", action="store_true",
                        help="also score the .h files that have a RUN line (lit runs them too)")
    args = parser.parse_args(argv)
    scores: list[FileScore] = []
    skipped: list[str] = []
    for path in find_tests(args.root, args.only, args.cpp, args.headers):
        score = score_file(path, args.root)
        if score is None:
            skipped.append(str(path.relative_to(args.root)))
        else:
            scores.append(score)
    if not scores:
        print("no test files found", file=sys.stderr)
        return 2
    width = max(len(s.path) for s in scores)
    print(f"{'file':<{width}}  result  checks  found  share")
    for s in scores:
        share = 100.0 * s.found / s.checks
        lit_note = "" if lit_runs_with_cuda12(s.path) else "  (lit: not run with CUDA 12)"
        print(f"{s.path:<{width}}  {'pass' if s.passed else 'FAIL':<6}  {s.checks:>6}  {s.found:>5}  "
              f"{share:5.1f}%{lit_note}")
    passed = sum(s.passed for s in scores)
    checks = sum(s.checks for s in scores)
    found = sum(s.found for s in scores)
    seconds = sum(s.seconds for s in scores)
    print()
    print(f"files: {passed} of {len(scores)} pass; CHECK lines: {found} of {checks} "
          f"({100.0 * found / checks:.1f}%); hipify time {seconds:.2f} s")
    lit = [s for s in scores if lit_runs_with_cuda12(s.path)]
    if len(lit) != len(scores):
        lit_checks = sum(s.checks for s in lit)
        lit_found = sum(s.found for s in lit)
        print(f"the {len(lit)} of these files HIPIFY's lit.cfg runs with CUDA 12.x "
              f"({len(scores) - len(lit)} left out: LIT_EXCLUDED_CUDA12): "
              f"{sum(s.passed for s in lit)} pass; CHECK lines {lit_found} of {lit_checks} "
              f"({100.0 * lit_found / lit_checks:.1f}%)")
    with_headers = [s for s in scores if s.headers or s.stray]
    if with_headers:
        outputs = [h for s in with_headers for h in s.headers]
        h_checks = sum(h.checks for h in outputs)
        h_found = sum(h.found for h in outputs)
        stray = sum(len(s.stray) for s in with_headers)
        print(f"local-header outputs of the {len(with_headers)} --local-headers runs: "
              f"{sum(s.headers_passed for s in with_headers)} runs with every HEADER.hip right; "
              f"{sum(h.passed for h in outputs)} of {len(outputs)} header outputs pass, CHECK lines "
              f"{h_found} of {h_checks}; {stray} stray outputs")
    if skipped:
        print(f"not tests (no RUN or no CHECK line): {len(skipped)}: {', '.join(skipped)}")
    for s in with_headers:
        if not s.headers_passed:
            bad = [f"{h.path}: {h.failures[0] if h.failures else ''}" for h in s.headers if not h.passed]
            print(f"  local headers of {s.path}: {'; '.join(bad + [f'stray {p}' for p in s.stray])}")
    failing = [s for s in scores if not s.passed]
    if failing:
        print("\nfailing files (first unmatched check):")
        for s in failing:
            print(f"  {s.path}: {s.first_failure}")
            if args.verbose:
                for failure in s.failures[1:]:
                    print(f"      {failure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
