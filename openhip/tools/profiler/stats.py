"""``--stats``: a table per kernel (calls, total, average, min, max, % of the device time the
kernels took) and one per copy kind (calls, bytes, time, bandwidth), as ``rocprof --stats``
and ``nsys profile --stats`` print them; computed from a trace (all its processes)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def kernel_stats(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per kernel name, by total time (µs), largest first."""
    durs: dict[str, list[float]] = defaultdict(list)
    for e in trace["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            durs[e["name"]].append(float(e["dur"]))
    total = sum(sum(v) for v in durs.values())
    rows = [{"name": name, "calls": len(v), "total_us": sum(v), "avg_us": sum(v) / len(v),
             "min_us": min(v), "max_us": max(v),
             "percent": 100.0 * sum(v) / total if total else 0.0} for name, v in durs.items()]
    rows.sort(key=lambda r: (-r["total_us"], r["name"]))
    return rows


def copy_stats(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per copy kind (HtoD, DtoH, DtoD, memset)."""
    acc: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for e in trace["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") in ("memcpy", "memset"):
            row = acc[e["args"].get("kind", e["cat"])]
            row[0] += 1
            row[1] += float(e["args"].get("bytes") or 0)
            row[2] += float(e["dur"])
    out = []
    for kind in sorted(acc):
        calls, nbytes, us = acc[kind]
        out.append({"kind": kind, "calls": int(calls), "bytes": int(nbytes), "total_us": us,
                    "avg_us": us / calls if calls else 0.0,
                    "GBps": nbytes / (us * 1e3) if us else None})
    return out


def format_stats(trace: dict[str, Any]) -> str:
    """The two tables as text."""
    lines = []
    kernels = kernel_stats(trace)
    width = max([len("Kernel")] + [len(r["name"]) for r in kernels])
    lines.append(f"{'Kernel':<{width}}  {'Calls':>7}  {'Total(us)':>12}  {'Avg(us)':>10}  "
                 f"{'Min(us)':>10}  {'Max(us)':>10}  {'%':>6}")
    for r in kernels:
        lines.append(f"{r['name']:<{width}}  {r['calls']:>7}  {r['total_us']:>12.1f}  "
                     f"{r['avg_us']:>10.1f}  {r['min_us']:>10.1f}  {r['max_us']:>10.1f}  "
                     f"{r['percent']:>6.2f}")
    if not kernels:
        lines.append("(no kernels)")
    lines.append("")
    lines.append(f"{'Copy':<8}  {'Calls':>7}  {'Bytes':>14}  {'Total(us)':>12}  {'Avg(us)':>10}  "
                 f"{'GB/s':>8}")
    copies = copy_stats(trace)
    for r in copies:
        bw = f"{r['GBps']:.2f}" if r["GBps"] is not None else "-"
        lines.append(f"{r['kind']:<8}  {r['calls']:>7}  {r['bytes']:>14}  {r['total_us']:>12.1f}  "
                     f"{r['avg_us']:>10.1f}  {bw:>8}")
    if not copies:
        lines.append("(no copies)")
    dropped = trace.get("otherData", {}).get("dropped")
    if dropped:
        lines.append(f"\n{dropped} records were dropped (the trace buffer was full): the tables "
                     "cover the rest")
    return "\n".join(lines)
