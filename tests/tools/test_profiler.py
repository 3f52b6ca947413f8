"""The profiler in a process (issue #15): the events of a scripted run (kernels with their
launch configuration and device times, copies, memsets, compiles with cache hit/miss, pool
allocations, synchronisations, ranges, marks) with the right names, counts and ordering; the
trace-event format; results unchanged; the hooks absent while off; the ring buffer; bad input."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import openhip as hip
from openhip.tools.profiler import trace_event
from openhip.tools.profiler.stats import copy_stats, format_stats, kernel_stats

KERNELS = Path(__file__).with_name("profiler_kernels.hip")
N = 5000


def _workload(mod, rng_seed=0):
    """A small scripted run: returns (host results, expected per-lane kernel counts)."""
    rng = np.random.default_rng(rng_seed)
    x_h = rng.random(N).astype(np.float32)
    y_h = rng.random(N).astype(np.float32)
    saxpy = mod.get_function("saxpy")
    block_sum = mod.get_function("block_sum")
    s = hip.Stream()
    with hip.profile.range("outer"):
        x = hip.asarray(x_h)                                   # HtoD
        y = hip.asarray(y_h)                                   # HtoD
        out = hip.zeros(N, np.float32)                         # memset
        with hip.profile.range("inner"):
            for a in (1.0, 2.0, 3.0):
                saxpy((N + 255) // 256, 256, (a, x, y, out, N), stream=s)
            s.synchronize()
        hip.profile.mark("half way")
        partial = hip.empty((N + 255) // 256, np.float32)
        block_sum((N + 255) // 256, 256, (out, partial, N), shared_mem=256 * 4)
        saxpy((N + 255) // 256, 256, (0.5, x, y, out, N))
        copy = hip.empty(N, np.float32)
        hip.memcpy_dtod(copy, out)                             # DtoD
        hip.memset_async(x, 0, stream=s)                       # memset, async
        s.synchronize()
        results = (out.get(), partial.get(), copy.get(), x.get())  # 4 DtoH
    return results


def _events(trace, cat=None, ph=None):
    return [e for e in trace["traceEvents"] if e["ph"] != "M" and
            (cat is None or e.get("cat") == cat) and (ph is None or e["ph"] == ph)]


def _lane_names(trace):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}


def test_scripted_run(device, isolated_cache):
    source = KERNELS.read_text()
    with hip.profile(None) as session:
        mod = hip.Module(source, name="profiler_kernels.hip")      # a miss (fresh cache)
        hip.Module(source, name="profiler_kernels.hip")            # a hit
        results = _workload(mod)
    trace = session.trace
    assert trace_event.validate(trace) == []

    # the same run unprofiled gives the same results
    assert not hip.profile.active
    again = _workload(hip.Module(source, name="profiler_kernels.hip"))
    for a, b in zip(results, again, strict=True):
        np.testing.assert_array_equal(a, b)

    compiles = _events(trace, "compile")
    assert [c["args"]["cache"] for c in compiles] == ["miss", "hit"]
    assert all(c["args"]["platform"] == device.platform and c["args"]["arch"] for c in compiles)
    assert "saxpy" in compiles[0]["args"]["kernels"]

    kernels = _events(trace, "kernel")
    assert [k["name"] for k in kernels].count("saxpy") == 4
    assert [k["name"] for k in kernels].count("block_sum") == 1
    names = _lane_names(trace)
    by_lane: dict[str, list] = {}
    for k in kernels:
        by_lane.setdefault(names[(k["pid"], k["tid"])], []).append(k)
    stream_lane = next(n for n in by_lane if "stream 1" in n)
    default_lane = next(n for n in by_lane if "default stream" in n)
    assert [k["name"] for k in by_lane[stream_lane]] == ["saxpy"] * 3
    assert [k["name"] for k in by_lane[default_lane]] == ["block_sum", "saxpy"]
    for k in kernels:
        assert k["args"]["grid"] == [(N + 255) // 256, 1, 1] and k["args"]["block"] == [256, 1, 1]
        assert k["args"]["timing"] == "device" and k["dur"] >= 0
        if device.platform == "cpu":
            assert k["args"]["mode"] in ("loop", "regions", "fibers"), k["args"]
    bs = next(k for k in kernels if k["name"] == "block_sum")
    assert bs["args"]["shared_mem_dynamic"] == 1024 and bs["args"]["shared_mem_static"] == 0
    # device order: a stream runs its work in order, one after the other
    for lane in by_lane.values():
        for a, b in zip(lane, lane[1:], strict=False):
            assert b["ts"] >= a["ts"] + a["dur"] - 1e-3
    # each kernel started on the device after its launch began on the host
    launches = [e for e in _events(trace, "launch") if e["name"].startswith("launch ")]
    kernel_launches = [e for e in launches if e["name"] in ("launch saxpy", "launch block_sum")]
    assert len(kernel_launches) == 5
    for k in by_lane[stream_lane]:
        assert any(la["ts"] <= k["ts"] + 1e-3 for la in kernel_launches)

    copies = _events(trace, "memcpy")
    kinds = [c["args"]["kind"] for c in copies]
    assert kinds.count("HtoD") == 2 and kinds.count("DtoD") == 1 and kinds.count("DtoH") == 4
    assert all(c["args"]["bytes"] == N * 4 for c in copies if c["args"]["kind"] != "DtoH")
    assert sorted(c["args"]["bytes"] for c in copies if c["args"]["kind"] == "DtoH") == \
        [(N + 255) // 256 * 4] + [N * 4] * 3
    memsets = _events(trace, "memset")
    assert [m["args"]["async"] for m in memsets] == [False, True]
    assert sum(1 for e in _events(trace, "sync") if e["name"] == "hipStreamSynchronize") == 2

    allocs = _events(trace, "alloc")
    assert len(allocs) == 5 and {a["args"]["pool"] for a in allocs} <= {"hit", "miss"}
    assert sorted(a["args"]["bytes"] for a in allocs) == [(N + 255) // 256 * 4] + [N * 4] * 4

    ranges = {r["name"]: r for r in _events(trace, "range")}
    outer, inner = ranges["outer"], ranges["inner"]
    assert outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"]
    (mark,) = _events(trace, "mark")
    assert mark["name"] == "half way" and mark["ph"] == "i"
    assert inner["ts"] + inner["dur"] <= mark["ts"] <= outer["ts"] + outer["dur"]
    # the inner range holds the three stream launches
    inside = [la for la in kernel_launches if inner["ts"] <= la["ts"] <= inner["ts"] + inner["dur"]]
    assert len(inside) == 3

    rows = {r["name"]: r for r in kernel_stats(trace)}
    assert rows["saxpy"]["calls"] == 4 and rows["block_sum"]["calls"] == 1
    assert abs(sum(r["percent"] for r in rows.values()) - 100) < 1e-6
    assert rows["saxpy"]["min_us"] <= rows["saxpy"]["avg_us"] <= rows["saxpy"]["max_us"]
    kinds = {r["kind"]: r for r in copy_stats(trace)}
    assert kinds["HtoD"]["calls"] == 2 and kinds["HtoD"]["bytes"] == 2 * N * 4
    text = format_stats(trace)
    assert "saxpy" in text and "HtoD" in text


def test_event_timing_path(device):
    """Device times from events around the work (the GPU platforms' way), forced on every
    platform: kernels and asynchronous copies get device times in stream order, and results
    do not change."""
    mod = hip.Module(KERNELS.read_text(), name="profiler_kernels.hip")
    with pytest.raises(ValueError):
        hip.profile(None, timing="cupti")
    with hip.profile(None, timing="events") as session:
        results = _workload(mod)
    again = _workload(mod)
    for a, b in zip(results, again, strict=True):
        np.testing.assert_array_equal(a, b)
    trace = session.trace
    assert trace_event.validate(trace) == []
    kernels = _events(trace, "kernel")
    assert len(kernels) == 5 and all(k["args"]["timing"] == "device" for k in kernels)
    names = _lane_names(trace)
    stream_kernels = [k for k in kernels if "stream 1" in names[(k["pid"], k["tid"])]]
    assert len(stream_kernels) == 3
    for a, b in zip(stream_kernels, stream_kernels[1:], strict=False):
        assert b["ts"] >= a["ts"] + a["dur"] - 1e-3
    (async_set,) = [m for m in _events(trace, "memset") if m["args"]["async"]]
    assert async_set["args"]["timing"] == "device"
    assert async_set["ts"] >= stream_kernels[-1]["ts"] + stream_kernels[-1]["dur"] - 1e-3


def _hooked_functions():
    from openhip.runtime import compile as rt_compile
    from openhip.runtime import device as rt_device
    from openhip.runtime import memory, module, pool, stream

    return (module.Function.__call__, module.Function.launch, memory._copy, memory._memset,
            memory._drain, memory.malloc, hip.malloc, memory.DeviceBuffer.__dict__["_release"],
            pool.MemoryPool._allocate, pool.MemoryPool._give_back, module.cached_compile,
            rt_compile.cached_compile, stream.Stream.synchronize, stream.Event.synchronize,
            rt_device.Device.synchronize, *_array_launchers())


def _array_launchers():
    from openhip.numpy._kernels import Kernel

    return tuple(Kernel.__dict__[name] for name in
                 ("launch_ohargs", "launch_struct", "launch_packed", "launch_grid"))


def test_hooks_exist_only_during_a_session(device):
    before = _hooked_functions()
    with hip.profile(None) as session:
        during = _hooked_functions()
        assert all(a is not b for a, b in zip(before, during, strict=True))
        raw = hip.malloc(1000)
        raw.free()
    assert all(a is b for a, b in zip(before, _hooked_functions(), strict=True))
    memory_events = [(e["cat"], e["name"], e["args"]["bytes"])
                     for e in _events(session.trace) if e["cat"] in ("alloc", "free")]
    assert memory_events == [("alloc", "hipMalloc", 1000), ("free", "hipFree", 1000)]


def test_threads_get_their_own_lanes(device):
    """Four host threads, each launching on its own stream: one host lane per thread (named),
    one device lane per stream, every kernel with device times."""
    import threading

    mod = hip.Module(KERNELS.read_text(), name="profiler_kernels.hip")
    saxpy = mod.get_function("saxpy")
    errors = []

    def work(k):
        try:
            s = hip.Stream()
            x = hip.zeros(1024, np.float32)
            for _ in range(k + 2):
                saxpy(4, 256, (1.0, x, x, x, 1024), stream=s)
            s.synchronize()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    with hip.profile(None) as session:
        threads = [threading.Thread(target=work, args=(k,), name=f"worker-{k}")
                   for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    assert not errors and not any(t.is_alive() for t in threads)
    trace = session.trace
    names = _lane_names(trace)
    kernels = _events(trace, "kernel")
    assert len(kernels) == 2 + 3 + 4 + 5
    assert all(k["args"]["timing"] == "device" for k in kernels)
    per_stream = sorted(sum(1 for k in kernels if (k["pid"], k["tid"]) == lane)
                        for lane in {(k["pid"], k["tid"]) for k in kernels})
    assert per_stream == [2, 3, 4, 5]
    hosts = {names[(e["pid"], e["tid"])] for e in _events(trace, "launch")}
    assert hosts == {f"host: worker-{k}" for k in range(4)}


def test_ring_buffer_keeps_the_latest_and_warns(device):
    mod = hip.Module(KERNELS.read_text(), name="profiler_kernels.hip")
    saxpy = mod.get_function("saxpy")
    x = hip.zeros(256, np.float32)
    session = hip.profile(None, buffer=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with session:
            for k in range(30):
                saxpy(1, 256, (float(k), x, x, x, 256))
            hip.synchronize()
    assert sum("trace buffer is full" in str(w.message) for w in caught) == 1
    trace = session.trace
    assert trace["otherData"]["dropped"] == 30 + 1 - 10  # 30 launches and 1 synchronize
    kernels = _events(trace, "kernel")
    assert len(kernels) == 9 and len(_events(trace, "sync")) == 1  # the latest 10
    assert all(k["args"]["timing"] == "device" for k in kernels)


def test_one_session_at_a_time(device):
    with hip.profile(None) as s:
        assert hip.profile.active and hip.profile.current is s
        with pytest.raises(RuntimeError, match="already running"):
            hip.profile(None).start()
    assert not hip.profile.active
    with pytest.raises(RuntimeError, match="starts once"):
        s.start()


def test_bad_paths_fail_before_recording(tmp_path, device):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        hip.profile(tmp_path / "no" / "such" / "trace")
    (tmp_path / "d.json").mkdir()
    with pytest.raises(IsADirectoryError):
        hip.profile(tmp_path / "d.json")
    with pytest.raises(ValueError):
        hip.profile(None, buffer=0)
    assert not hip.profile.active


def test_files_written(tmp_path, device):
    with hip.profile(tmp_path / "run"):
        hip.zeros(10).get()
    assert (tmp_path / "run.json").is_file() and (tmp_path / "run.html").is_file()
    import json

    trace = json.loads((tmp_path / "run.json").read_text())
    assert trace_event.validate(trace) == []
    assert "<script" in (tmp_path / "run.html").read_text()


def test_ranges_and_marks_without_a_session(device):
    with hip.profile.range("nothing"):
        pass
    hip.profile.mark("nothing")
    assert hip.profile.pop_range() == -1
    assert hip.profile.push_range("a") == 0 and hip.profile.push_range("b") == 1
    assert hip.profile.nvtxRangePop() == 1 and hip.profile.roctxRangePop() == 0
    with pytest.raises(TypeError):
        hip.profile.mark(3)
    with pytest.raises(TypeError):
        with hip.profile.range(None):
            pass


def test_nvtx_style_ranges_recorded(device):
    with hip.profile(None) as s:
        hip.profile.nvtxRangePushA("epoch")
        hip.profile.push_range("step")
        hip.profile.pop_range()
        hip.profile.nvtxMarkA("tick")
        hip.profile.nvtxRangePop()
    names = [e["name"] for e in _events(s.trace) if e["cat"] in ("range", "mark")]
    assert sorted(names) == ["epoch", "step", "tick"]


def test_validator_reports_what_is_wrong():
    assert trace_event.validate([]) != []
    bad = {"traceEvents": [{"ph": "Q", "name": "x", "pid": 0, "tid": 0, "ts": 0},
                           {"ph": "X", "name": "x", "pid": 0, "tid": 0, "ts": 1.0, "dur": -1},
                           {"ph": "X", "name": "", "pid": "0", "tid": 0, "ts": "1", "dur": 1},
                           {"ph": "M", "name": "thread_name", "pid": 0, "tid": 0}]}
    problems = trace_event.validate(bad)
    assert len(problems) == 6, problems


def test_merge_puts_ranks_on_their_own_pid():
    def part(rank, pid, ts):
        return {"traceEvents": [
            {"ph": "M", "name": "process_name", "pid": rank, "tid": 0, "args": {"name": "r"}},
            {"ph": "X", "cat": "ccl", "name": "all_reduce", "pid": rank, "tid": 1, "ts": ts,
             "dur": 5.0, "args": {}}], "otherData": {"rank": rank, "pid": pid}}

    empty = {"traceEvents": [{"ph": "M", "name": "process_name", "pid": 9, "tid": 0,
                              "args": {"name": "launcher"}}], "otherData": {"rank": None,
                                                                          "pid": 9}}
    merged = trace_event.merge([part(1, 101, 2000.0), empty, part(0, 100, 1000.0)])
    xs = _events(merged)
    assert sorted((e["pid"], e["ts"]) for e in xs) == [(0, 0.0), (1, 1000.0)]
    assert trace_event.validate(merged) == []
    assert len(merged["otherData"]["processes"]) == 2


def test_array_library_kernels_recorded(device):
    """openhip.numpy launches its kernels without a Function call on the warm path: each is
    still one kernel record (name, grid, the device's timing), results unchanged, and the
    array methods are put back after the session."""
    import openhip.numpy as hnp

    before = _array_launchers()
    x_h = np.arange(3000, dtype=np.float32)
    x = hnp.asarray(x_h, device=device)
    (x * 2 + 1).get()  # warm: builds outside the session
    with hip.profile(None) as session:
        with hip.profile.range("array ops"):
            y = x * 2 + 1                  # two elementwise kernels (below fusion's size)
            total = float(hnp.sum(y))      # a reduction, a copy to the host
            y[:5].get()
    assert _array_launchers() == before
    np.testing.assert_allclose(total, float((x_h * 2 + 1).sum()), rtol=1e-6)
    kernels = _events(session.trace, cat="kernel", ph="X")
    names = [e["name"] for e in kernels]
    assert names[:2] == ["bi0<o_mul, float, float>", "bi0<o_add, float, float>"], names
    assert len(kernels) >= 3
    first = kernels[0]["args"]
    assert first["grid"] == [(3000 + 255) // 256, 1, 1] and first["block"] == [256, 1, 1]
    assert first["module"] == "elementwise.hip"
    assert all(e["dur"] >= 0 for e in kernels)
