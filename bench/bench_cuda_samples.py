"""Build and run CUDA sample programs with ``openhip run`` on the CPU platform; count those that
pass their own check.

    python3 bench/bench_cuda_samples.py /tmp/cuda-samples [--manifest bench/cuda_samples_manifest.txt]
        [--only NAME ...] [--timeout 600] [--json out.json]
    python3 bench/bench_cuda_samples.py /tmp/cuda-samples --peer [--repeats 3]

The directory holds NVIDIA/cuda-samples' layout (``Common/`` and ``Samples/<category>/<name>/``);
the manifest (``bench/cuda_samples_manifest.txt``) lists each sample measured: its directory, its
source files, the commit each file was taken from, the line it prints when it passes (``-``: its
exit status is its only check) and any build options (``-fopenmp``); and, as ``skip`` lines, the
samples that are not applicable to the CPU platform and why. A sample passes when ``openhip run`` exits 0 and, where it
prints one, its pass line appears. Every build goes through openhip's compile cache, so a second
run measures the cached build; ``--cold`` points ``OPENHIP_CACHE_DIR`` at a fresh directory first.

``--peer`` instead times the matrixMul sample (its own "Time= ... msec" per product, the cached
build run ``--repeats`` times) against the same product in plain C++ with OpenMP
(``bench/cuda_samples_peer/matrixMul.cpp``, built with the CPU platform's optimisation flags),
interleaved, and prints the medians and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass
class Sample:
    name: str          # Samples/<category>/<name>
    sources: list[str]
    commits: str
    passes: str | None
    options: list[str]


def read_manifest(path: Path) -> tuple[list[Sample], list[tuple[str, str]]]:
    """(measured samples, [(not applicable sample, why)]) from the manifest."""
    measured: list[Sample] = []
    excluded: list[tuple[str, str]] = []
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        if fields[0] == "run" and len(fields) in (5, 6):
            _, name, sources, commits, passes = fields[:5]
            options = fields[5].split() if len(fields) == 6 else []
            measured.append(Sample(name, sources.split(), commits,
                                   None if passes == "-" else passes, options))
        elif fields[0] == "skip" and len(fields) == 3:
            excluded.append((fields[1], fields[2]))
        else:
            raise ValueError(f"{path}: bad manifest line: {raw!r}")
    return measured, excluded


def run_sample(root: Path, sample: Sample, timeout: float) -> dict:
    directory = root / sample.name
    cmd = [sys.executable, "-m", "openhip", "run", *sample.options, "-I", str(root / "Common"),
           *[str(directory / s) for s in sample.sources], "--"]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              cwd=directory, stdin=subprocess.DEVNULL)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc = "timeout"
        out = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) \
            else (exc.stdout or "")
        err = f"timed out after {timeout} s"
    seconds = time.perf_counter() - start
    ok = rc == 0 and (sample.passes is None or sample.passes in out)
    return {"name": sample.name, "passed": ok, "rc": rc, "seconds": round(seconds, 2),
            "command": shlex.join(cmd), "stdout_tail": out[-1500:], "stderr_tail": err[-3000:]}


_TIME = re.compile(r"Time= *([0-9.]+) msec")


def peer(root: Path, repeats: int) -> int:
    """matrixMul under openhip run against the plain C++ peer (see the module docstring)."""
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        print("no host C++ compiler", file=sys.stderr)
        return 1
    exe = Path(tempfile.mkdtemp(prefix="openhip-peer-")) / "matrixMul_peer"
    subprocess.run([cxx, "-O3", "-march=native", "-ffp-contract=fast", "-fno-math-errno",
                    "-fopenmp", str(HERE / "cuda_samples_peer" / "matrixMul.cpp"), "-o",
                    str(exe)], check=True)
    sample = Sample("Samples/0_Introduction/matrixMul", ["matrixMul.cu"], "", "Result = PASS",
                    [])
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(repeats):
        r = run_sample(root, sample, 900.0)
        m = _TIME.search(r["stdout_tail"])
        if not r["passed"] or m is None:
            print(f"matrixMul failed: {r['stderr_tail'][-500:]}", file=sys.stderr)
            return 1
        ours.append(float(m.group(1)))
        out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
        theirs.append(float(_TIME.search(out).group(1)))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"matrixMul (openhip run, CPU platform): median {a:.3f} ms per product {ours}")
    print(f"plain C++ + OpenMP peer:               median {b:.3f} ms per product {theirs}")
    print(f"ratio openhip / peer: {a / b:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path, help="the downloaded cuda-samples directory")
    ap.add_argument("--manifest", type=Path, default=HERE / "cuda_samples_manifest.txt")
    ap.add_argument("--only", nargs="*", default=None, help="sample names (last path part)")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--cold", action="store_true", help="use a fresh, empty compile cache")
    ap.add_argument("--json", type=Path, default=None, help="write every result here")
    ap.add_argument("--peer", action="store_true", help="matrixMul against plain C++")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    if args.peer:
        return peer(args.root, args.repeats)
    measured, excluded = read_manifest(args.manifest)
    if args.only:
        measured = [s for s in measured if s.name.rsplit("/", 1)[-1] in args.only]
    if args.cold:
        os.environ["OPENHIP_CACHE_DIR"] = tempfile.mkdtemp(prefix="openhip-cold-cache-")
    results = []
    for sample in measured:
        r = run_sample(args.root, sample, args.timeout)
        results.append(r)
        status = "PASS" if r["passed"] else f"FAIL (rc {r['rc']})"
        print(f"{status:14} {r['seconds']:7.2f} s  {sample.name}", flush=True)
        if not r["passed"]:
            tail = (r["stderr_tail"] or r["stdout_tail"]).strip().splitlines()[-6:]
            for ln in tail:
                print(f"{'':24}| {ln[:160]}")
    passed = sum(r["passed"] for r in results)
    not_applicable = sum(len(names.split(",")) for names, _why in excluded)
    print(f"\n{passed} of {len(results)} applicable samples pass their own check "
          f"({100.0 * passed / max(1, len(results)):.0f}%); {not_applicable} samples listed as "
          f"not applicable to the CPU platform")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "excluded": excluded}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
