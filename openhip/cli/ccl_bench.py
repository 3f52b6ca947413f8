"""``openhip ccl-bench``: nccl-tests-style table of every collective, with MPICH and gloo
all-reduce measured in the same run for comparison."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from openhip.ccl.bench import COLLECTIVES, bus_factor


def parse_size(text: str) -> int:
    text = text.strip().upper().rstrip("B")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(float(text[:-1] if mult > 1 else text) * mult)


def human(size: int) -> str:
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= div and size % div == 0:
            return f"{size // div}{unit}"
    return str(size)


def _run_job(n: int, cfg: dict, out: str, use_mpi: bool) -> str | None:
    """Run the benchmark job; returns None or why it failed."""
    worker = [sys.executable, "-m", "openhip.ccl.bench", out, json.dumps(cfg)]
    if use_mpi:
        from openhip.ccl.launcher import mpiexec

        cmd = [mpiexec(), "-n", str(n), *worker]
    else:
        cmd = [sys.executable, "-m", "openhip", "launch", "-n", str(n), "--no-python", *worker]
    env = dict(os.environ)
    env.pop("OPENHIP_CCL_UID", None)
    env.setdefault("OMP_NUM_THREADS", "1")  # as torchrun: no spinning thread pools per rank
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(out):
        return f"benchmark job failed ({p.returncode}): {p.stderr.strip()[-1500:]}"
    return None


def _mpi_usable() -> str | None:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (pip install 'openhip[mpi]')"
    from openhip.ccl.launcher import mpiexec

    try:
        mpiexec()
    except FileNotFoundError as exc:
        return str(exc)
    return None


def run(argv: list[str]) -> int:
    """Entry point of ``openhip ccl-bench``; returns 1 when a correctness check failed."""
    ap = argparse.ArgumentParser(prog="openhip ccl-bench", description=__doc__)
    ap.add_argument("-n", "--nranks", type=int, default=2)
    ap.add_argument("-b", "--minbytes", default="4K")
    ap.add_argument("-e", "--maxbytes", default="256M")
    ap.add_argument("-f", "--factor", type=int, default=2, help="size multiplier between rows")
    ap.add_argument("-c", "--collectives", default="all",
                    help="comma-separated: " + ",".join(COLLECTIVES))
    ap.add_argument("--compare", default="mpich,gloo",
                    help="all-reduce peers measured in the same run (mpich, gloo, none)")
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats per size (median)")
    ap.add_argument("--target", type=float, default=0.05, help="seconds per timed repeat")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run the whole job this many times (median over rounds)")
    ap.add_argument("--shared", action="store_true",
                    help="also time openhip with buffers from ccl.empty (shared memory the "
                         "peers map: no staging copy), as nccl-tests' -R does for registered "
                         "buffers")
    ap.add_argument("--json", help="also write every row to this file")
    ap.add_argument("--markdown", help="also write the tables as markdown to this file")
    ns = ap.parse_args(argv)
    colls = list(COLLECTIVES) if ns.collectives == "all" else ns.collectives.split(",")
    for c in colls:
        if c not in COLLECTIVES:
            ap.error(f"unknown collective {c!r}")
    cfg = {"minbytes": parse_size(ns.minbytes), "maxbytes": parse_size(ns.maxbytes),
           "factor": ns.factor, "repeats": ns.repeats, "target": ns.target}
    peers = [p for p in ns.compare.split(",") if p and p != "none"]
    cfg["peers"] = peers
    cfg["shared"] = ns.shared
    cfg["collectives"] = colls
    rows: dict[tuple[str, str, int], list[dict]] = {}
    skipped: dict[str, str] = {}
    why_no_mpi = _mpi_usable() if "mpich" in peers else "not asked"
    if "mpich" in peers and why_no_mpi:
        skipped["mpich"] = why_no_mpi
    tmp = tempfile.mkdtemp(prefix="openhip-ccl-bench-")
    try:
        for rnd in range(ns.rounds):
            out = os.path.join(tmp, f"round{rnd}.json")
            why = _run_job(ns.nranks, cfg, out, use_mpi=why_no_mpi is None)
            if why:
                print(f"openhip ccl-bench: {why}", file=sys.stderr)
                return 2
            with open(out) as f:
                data = json.load(f)
            skipped.update(data["skipped"])
            for row in data["rows"]:
                rows.setdefault((row["impl"], row["coll"], row["size"]), []).append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    merged = []
    for (impl, coll, size), rs in rows.items():
        t = statistics.median(r["time"] for r in rs)
        merged.append({"impl": impl, "coll": coll, "size": size, "time": t,
                       "wrong": max(r["wrong"] for r in rs), "n": rs[0]["n"],
                       "transport": rs[0]["transport"],
                       "algbw": size / t / 1e9, "busbw": size / t / 1e9 * bus_factor(coll, ns.nranks)})
    _print(merged, colls, peers, skipped, ns.nranks)
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump(merged, f, indent=1)
    if ns.markdown:
        with open(ns.markdown, "w") as f:
            f.write(markdown(merged, colls, peers, skipped, ns.nranks))
    return 1 if any(r["wrong"] for r in merged) else 0


def _print(rows: list[dict], colls: list[str], peers: list[str], skipped: dict[str, str],
           n: int) -> None:
    index = {(r["impl"], r["coll"], r["size"]): r for r in rows}
    transport = next((r["transport"] for r in rows if r["impl"] == "openhip"), "?")
    print(f"# openhip ccl-bench: {n} ranks, float32, sum; openhip transport: {transport}")
    print("# time: median over repeats of the mean per call (slowest rank); "
          "algbw = size/time; busbw by nccl-tests' formulas (GB/s = 1e9 B/s)")
    for name, why in skipped.items():
        print(f"# skipped {name}: {why}")
    for impl in ("mpich", "gloo"):
        info = next((r["transport"] for r in rows if r["impl"] == impl), None)
        if info:
            print(f"# {impl}: {info}, same processes, alternating with openhip per repeat")
    for coll in colls:
        sizes = sorted({r["size"] for r in rows if r["coll"] == coll})
        impls = _ours(rows) + ([p for p in peers if p not in skipped] if coll == "all_reduce"
                               else [])
        print(f"\n## {coll}")
        head = f"{'size':>8} "
        for impl in impls:
            head += f"| {impl + ' time(us)':>18} {'algbw':>7} {'busbw':>7} {'#wrong':>6} "
        print(head)
        for size in sizes:
            line = f"{human(size):>8} "
            for impl in impls:
                r = index.get((impl, coll, size))
                if r is None:
                    line += f"| {'-':>18} {'-':>7} {'-':>7} {'-':>6} "
                    continue
                line += (f"| {r['time'] * 1e6:18.1f} {r['algbw']:7.2f} {r['busbw']:7.2f} "
                         f"{r['wrong']:>6} ")
            print(line)
    sys.stdout.flush()


def _ours(rows: list[dict]) -> list[str]:
    """openhip's implementations present in ``rows`` (plain numpy buffers, shared arrays)."""
    return [i for i in ("openhip", "openhip-shared") if any(r["impl"] == i for r in rows)]


def markdown(rows: list[dict], colls: list[str], peers: list[str], skipped: dict[str, str],
             n: int) -> str:
    """The all-reduce comparison and the busbw of every collective as markdown tables."""
    index = {(r["impl"], r["coll"], r["size"]): r for r in rows}
    ours = _ours(rows)
    impls = ours + [p for p in peers if p not in skipped]
    out = [f"All-reduce, {n} ranks, float32 sum, in place (median time per call; busbw GB/s)\n"]
    head = "| size | " + " | ".join(f"{i} µs | {i} busbw" for i in impls)
    if "mpich" in impls:
        head += "".join(f" | {i} / MPICH busbw" for i in ours)
    ncols = 1 + 2 * len(impls) + (len(ours) if "mpich" in impls else 0)
    out += [head + " |", "|" + "---|" * ncols]
    for size in sorted({r["size"] for r in rows if r["coll"] == "all_reduce"}):
        cells = [human(size)]
        for impl in impls:
            r = index.get((impl, "all_reduce", size))
            cells += [f"{r['time'] * 1e6:.1f}", f"{r['busbw']:.2f}"] if r else ["-", "-"]
        if "mpich" in impls:
            b = index.get(("mpich", "all_reduce", size))
            for impl in ours:
                a = index.get((impl, "all_reduce", size))
                cells.append(f"{a['busbw'] / b['busbw']:.2f}x" if a and b else "-")
        out.append("| " + " | ".join(cells) + " |")
    others = [c for c in colls if c != "all_reduce"]
    for impl in ours if others else []:
        out += ["", f"{impl} busbw (GB/s) of every collective, {n} ranks; #wrong = 0 "
                "everywhere unless marked\n", "| size | " + " | ".join(others) + " |",
                "|" + "---|" * (1 + len(others))]
        for size in sorted({r["size"] for r in rows if r["coll"] in others}):
            cells = [human(size)]
            for c in others:
                r = index.get((impl, c, size))
                cells.append("-" if r is None else f"{r['busbw']:.2f}" +
                             (f" ({r['wrong']} wrong)" if r["wrong"] else ""))
            out.append("| " + " | ".join(cells) + " |")
    for name, why in skipped.items():
        out.append(f"\nskipped {name}: {why}")
    return "\n".join(out) + "\n"
