"""Chrome / Perfetto trace-event JSON: building it from the recorder's records, merging the
parts of several processes onto one timeline, checking it.

The format (the "Trace Event Format" document that chrome://tracing and ui.perfetto.dev read):
``{"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}``; every event has ``ph``
(its type), ``name``, ``pid``, ``tid`` and, except metadata, ``ts`` in microseconds. openhip
writes complete events (``ph: "X"``, with ``dur`` in µs) for kernels, copies, memsets, compiles,
allocations, frees, synchronisations, collectives and ranges, instant events (``ph: "i"``,
``s: "t"``) for marks, and metadata (``ph: "M"``) naming processes and lanes.

Lanes: ``pid`` is the rank of an ``openhip launch`` job (else the process id); in a process,
each host thread is a lane (``tid`` 1, 2...) and each device stream is one (``tid`` 100000 +
1000 * device + stream number; stream 0 is the default stream). Device work sits on its stream's
lane at its device times; the host call that queued it is a ``launch`` event on the host lane.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterable
from typing import Any

FORMAT_TAG = "openhip-trace/1"
_STREAM_TID = 100_000
#: ph values openhip writes (a subset of the format's)
PHASES = {"X", "i", "M"}
_DEVICE_CATS = {"kernel", "memcpy", "memset"}


def _us(ns: int) -> float:
    return ns / 1000.0


def build_part(records: list[dict[str, Any]], *, threads: dict[int, str],
               streams: dict[tuple[int, int], str], dropped: int = 0, capacity: int = 0,
               rank: int | None = None, pid: int | None = None,
               t_start: int | None = None, t_stop: int | None = None) -> dict[str, Any]:
    """The trace of one process (absolute times: µs of the monotonic clock)."""
    pid = os.getpid() if pid is None else pid
    lane_pid = rank if rank is not None else pid
    host_tid: dict[int, int] = {}
    events: list[dict[str, Any]] = []

    def host_lane(tid: int) -> int:
        lane = host_tid.get(tid)
        if lane is None:
            lane = host_tid[tid] = len(host_tid) + 1
        return lane

    used_streams: set[tuple[int, int]] = set()
    for r in records:
        cat, name, args = r["cat"], r["name"], r["args"]
        t0, t1 = r["t0"], r["t1"]
        tid = host_lane(r["tid"])
        if cat in _DEVICE_CATS:
            dev_id, sid = r["lane"][0], r["lane"][1]
            used_streams.add((dev_id, sid))
            d0, d1 = r.get("d0"), r.get("d1")
            timed = "device" if d0 is not None else "host"
            if d0 is None:
                d0, d1 = t0, t1
            if cat == "kernel":
                details = _kernel_args(args)
                label = name
            else:
                details = dict(args)
                label = name
                dur_ns = max(d1 - d0, 0)
                details["bandwidth_GBps"] = round(args["bytes"] / dur_ns, 3) if dur_ns else None
            details.update(device=dev_id, stream=streams.get((dev_id, sid), f"stream {sid}"),
                           timing=timed)
            events.append({"ph": "X", "cat": cat, "name": label, "pid": lane_pid,
                           "tid": _STREAM_TID + 1000 * dev_id + sid, "ts": _us(d0),
                           "dur": _us(max(d1 - d0, 0)), "args": details})
            if cat == "kernel" or args.get("async"):
                events.append({"ph": "X", "cat": "launch", "name": f"launch {name}",
                               "pid": lane_pid, "tid": tid, "ts": _us(t0),
                               "dur": _us(max(t1 - t0, 0)),
                               "args": {"device": dev_id, "stream": sid}})
        elif cat == "mark":
            events.append({"ph": "i", "s": "t", "cat": "mark", "name": name, "pid": lane_pid,
                           "tid": tid, "ts": _us(t0), "args": dict(args)})
        else:
            details = _memory_args(args) if cat in ("alloc", "free") else dict(args)
            events.append({"ph": "X", "cat": cat, "name": name, "pid": lane_pid, "tid": tid,
                           "ts": _us(t0), "dur": _us(max(t1 - t0, 0)), "args": details})
    label = f"rank {rank} (pid {pid})" if rank is not None else f"pid {pid}"
    meta = [{"ph": "M", "name": "process_name", "pid": lane_pid, "tid": 0,
             "args": {"name": label}},
            {"ph": "M", "name": "process_sort_index", "pid": lane_pid, "tid": 0,
             "args": {"sort_index": lane_pid}}]
    for native, lane in host_tid.items():
        meta.append({"ph": "M", "name": "thread_name", "pid": lane_pid, "tid": lane,
                     "args": {"name": f"host: {threads.get(native, native)}"}})
        meta.append({"ph": "M", "name": "thread_sort_index", "pid": lane_pid, "tid": lane,
                     "args": {"sort_index": lane}})
    for dev_id, sid in sorted(used_streams):
        tid = _STREAM_TID + 1000 * dev_id + sid
        meta.append({"ph": "M", "name": "thread_name", "pid": lane_pid, "tid": tid,
                     "args": {"name": streams.get((dev_id, sid), f"device {dev_id} stream {sid}")}})
        meta.append({"ph": "M", "name": "thread_sort_index", "pid": lane_pid, "tid": tid,
                     "args": {"sort_index": tid}})
    other = {"format": FORMAT_TAG, "rank": rank, "pid": pid, "host": socket.gethostname(),
             "dropped": dropped, "capacity": capacity,
             "start_us": _us(t_start) if t_start is not None else None,
             "stop_us": _us(t_stop) if t_stop is not None else None}
    return {"traceEvents": meta + events, "displayTimeUnit": "ms", "otherData": other}


def _memory_args(args: tuple) -> dict[str, Any]:
    pool, nbytes, block, device, ptr = args
    out = {"bytes": nbytes, "block": block, "device": device, "ptr": hex(ptr)}
    if pool is not None:
        out["pool"] = pool
    return out


def _kernel_args(args: tuple) -> dict[str, Any]:
    from ...runtime.module import normalize_dim3

    grid, block, shared_mem, cooperative, fn = args
    attrs = fn.attributes
    out: dict[str, Any] = {"grid": list(normalize_dim3(grid, "grid")),
                           "block": list(normalize_dim3(block, "block")),
                           "shared_mem_dynamic": int(shared_mem),
                           "shared_mem_static": int(attrs.static_shared_bytes),
                           "module": fn.module.name, "platform": fn._platform.name}
    mode = (attrs.extra or {}).get("mode")
    if mode is not None:
        out["mode"] = mode  # the CPU platform's execution mode (loop, regions, fibers)
    if cooperative:
        out["cooperative"] = True
    return out


def merge(parts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One trace from the parts of several processes: ``pid`` is each part's rank when every
    part has a distinct rank, else its process id; times start at 0 (the earliest event).
    Parts without events (a launcher process that ran no work) are left out."""
    parts = list(parts)
    busy = [p for p in parts if any(e.get("ph") != "M" for e in p.get("traceEvents", []))]
    parts = busy or parts[:1]  # a process that recorded nothing (the launcher) is left out
    ranks = [p.get("otherData", {}).get("rank") for p in parts]
    by_rank = None not in ranks and len(set(ranks)) == len(ranks)
    events: list[dict[str, Any]] = []
    dropped = 0
    info = []
    for p in parts:
        other = p.get("otherData", {})
        new_pid = other.get("rank") if by_rank else other.get("pid")
        dropped += int(other.get("dropped") or 0)
        info.append({"rank": other.get("rank"), "pid": other.get("pid"),
                     "host": other.get("host"), "dropped": other.get("dropped")})
        for e in p.get("traceEvents", []):
            e = dict(e)
            if new_pid is not None:
                e["pid"] = new_pid
                if e.get("name") == "process_sort_index":
                    e["args"] = {"sort_index": new_pid}
            events.append(e)
    stamps = [e["ts"] for e in events if "ts" in e]
    origin = min(stamps) if stamps else 0.0
    for e in events:
        if "ts" in e:
            e["ts"] = round(e["ts"] - origin, 3)
        if "dur" in e:
            e["dur"] = round(e["dur"], 3)
    events.sort(key=lambda e: (e["ph"] != "M", e.get("ts", 0.0)))
    return {"traceEvents": events, "displayTimeUnit": "ms",
            "otherData": {"format": FORMAT_TAG, "origin_us": origin, "dropped": dropped,
                          "processes": info}}


def write(trace: dict[str, Any], path: str | os.PathLike) -> None:
    """Write ``trace`` as JSON (through a temporary file, so a reader never sees half)."""
    tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(trace, f, separators=(",", ":"), default=str)
    os.replace(tmp, path)


def validate(trace: Any) -> list[str]:
    """What in ``trace`` does not follow the trace-event format as openhip writes it (empty
    when all is well): required keys, ``ph`` types, ``ts``/``dur`` in µs (numbers, ``dur`` >= 0),
    integer ``pid``/``tid``, metadata with a name."""
    problems: list[str] = []
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["the top level must be an object with a traceEvents list"]
    if trace.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        problems.append("displayTimeUnit must be 'ms' or 'ns'")
    for k, e in enumerate(trace["traceEvents"]):
        where = f"event {k}"
        if not isinstance(e, dict):
            problems.append(f"{where}: not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            problems.append(f"{where}: ph {ph!r} is not one of {sorted(PHASES)}")
            continue
        if not isinstance(e.get("name"), str) or not e["name"]:
            problems.append(f"{where}: no name")
        for key in ("pid", "tid"):
            if not isinstance(e.get(key), int) or isinstance(e.get(key), bool):
                problems.append(f"{where}: {key} must be an int")
        if ph == "M":
            if not isinstance(e.get("args"), dict) or not e["args"]:
                problems.append(f"{where}: metadata without args")
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts != ts:
            problems.append(f"{where}: ts must be a number (µs)")
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or isinstance(dur, bool) or not dur >= 0:
                problems.append(f"{where}: a complete event needs dur >= 0 (µs)")
        if ph == "i" and e.get("s", "t") not in ("t", "p", "g"):
            problems.append(f"{where}: instant scope must be t, p or g")
        if "args" in e and not isinstance(e["args"], dict):
            problems.append(f"{where}: args must be an object")
    return problems
