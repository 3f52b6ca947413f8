"""Background builds of likely-next kernel groups (openhip/numpy/_prefetch.py, Family.hints):
started only when a build misses the compile cache (a warm cache starts none), a prefetched
module is the one the program then gets (and computes right), a queued build asked for is
built in the foreground instead, two threads asking for one under way share it, a failing
background build raises at the point of use (once), a corrupt cache entry written by a
background build is still detected, a forked child does not wait for its parent's builds,
OPENHIP_PREFETCH=0; and the elementwise hints."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import openhip.numpy as hnp
from openhip.compiler import cache
from openhip.errors import CompileError
from openhip.numpy import _elementwise, _prefetch
from openhip.numpy._kernels import Family, OhArgs
from openhip.runtime.device import get_device

ADD = "bi0<o_add, float, float>"
SUB = "bi0<o_sub, float, float>"
MUL = "bi0<o_mul, float, float>"
BAD = "bi0<o_no_such_op, float, float>"


def _family(hints=None):
    fam = Family("prefetch_test", "elementwise.hip", options=("-std=c++17",))
    fam.hints = hints
    return fam


def _run(fam, variant, expr, x, y):
    """``expr`` (a float32 bi0 kernel) of ``variant`` on x and y."""
    k = fam.kernel(variant, (expr,), expr, get_device())
    out = hnp.empty(x.shape, dtype=hnp.float32)
    a = OhArgs()
    a.ptr[0], a.ptr[1], a.ptr[2] = out.data.ptr, x.data.ptr, y.data.ptr
    a.n = x.size
    k.launch_flat(x.size, a, (4, 4, 4))
    return out.get()


@pytest.fixture
def data():
    rng = np.random.default_rng(5)
    hx, hy = rng.standard_normal(1000, np.float32), rng.standard_normal(1000, np.float32)
    return hx, hy, hnp.asarray(hx), hnp.asarray(hy)


def _after(variant, device, fam, seen):
    seen.append(variant)
    if variant == "add":
        fam.prefetch("sub", (SUB,), device)


def test_cold_build_prefetches_and_the_program_gets_that_module(isolated_cache, data):
    hx, hy, x, y = data
    seen: list[str] = []
    fam = _family()
    fam.hints = lambda v, d: _after(v, d, fam, seen)
    np.testing.assert_array_equal(_run(fam, "add", ADD, x, y), hx + hy)
    assert seen[0] == "add"
    assert _prefetch.wait_idle(120)
    job = fam._jobs[("sub", get_device().id)]
    assert job.state == "done" and job.result is not None  # built in the background
    np.testing.assert_array_equal(_run(fam, "sub", SUB, x, y), hx - hy)
    assert fam._modules[("sub", get_device().id)] is job.result
    assert not fam._jobs


def test_warm_cache_starts_no_background_build(isolated_cache, data):
    hx, hy, x, y = data
    _run(_family(), "add", ADD, x, y)  # into the (disk) cache
    seen: list[str] = []
    fam = _family()
    fam.hints = lambda v, d: _after(v, d, fam, seen)
    np.testing.assert_array_equal(_run(fam, "add", ADD, x, y), hx + hy)
    assert seen == [] and not fam._jobs  # a cache hit: no hint at all


def test_prefetch_of_a_cached_group_builds_nothing(isolated_cache, data):
    _, _, x, y = data
    _run(_family(), "sub", SUB, x, y)
    fam = _family()
    fam.prefetch("sub", (SUB,), get_device())
    assert _prefetch.wait_idle(120)
    job = fam._jobs[("sub", get_device().id)]
    assert job.state == "done" and job.result is None  # left for the foreground to load
    assert fam.module("sub", (SUB,), get_device()) is not None and not fam._jobs


def test_a_queued_build_asked_for_is_built_in_the_foreground(isolated_cache, data,
                                                             monkeypatch):
    hx, hy, x, y = data
    monkeypatch.setattr(_prefetch, "_capacity", 0)  # no background build can start
    fam = _family()
    fam.prefetch("mul", (MUL,), get_device())
    job = fam._jobs[("mul", get_device().id)]
    np.testing.assert_array_equal(_run(fam, "mul", MUL, x, y), hx * hy)
    assert job.state == "taken" and not fam._jobs and job not in _prefetch._queue


def test_two_threads_share_a_build_under_way(isolated_cache, data):
    hx, hy, x, y = data
    fam = _family()
    fam.prefetch("add", (ADD,), get_device())
    got, errors = [], []

    def use():
        try:
            got.append(fam.module("add", (ADD,), get_device()))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
    threads = [threading.Thread(target=use) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and len(got) == 2 and got[0] is got[1]
    np.testing.assert_array_equal(_run(fam, "add", ADD, x, y), hx + hy)


def test_a_failing_background_build_raises_at_its_use_once(isolated_cache):
    fam = _family()
    fam.prefetch("bad", (BAD,), get_device())
    assert _prefetch.wait_idle(120)
    job = fam._jobs[("bad", get_device().id)]
    assert job.state == "done" and job.error is not None  # kept, not lost
    with pytest.raises(CompileError, match="o_no_such_op"):
        fam.module("bad", (BAD,), get_device())
    assert job.error is None and not fam._jobs  # reported once: the job is gone
    with pytest.raises(CompileError, match="o_no_such_op"):  # a new build, its own error
        fam.module("bad", (BAD,), get_device())


def test_corrupt_entry_of_a_background_build_is_rebuilt(isolated_cache, data):
    hx, hy, x, y = data
    fam = _family()
    fam.prefetch("sub", (SUB,), get_device())
    assert _prefetch.wait_idle(120)
    assert fam._jobs[("sub", get_device().id)].result is not None
    entries = list((isolated_cache / "cpu").rglob("*.ohc"))
    assert len(entries) == 1
    raw = bytearray(entries[0].read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    entries[0].write_bytes(bytes(raw))
    cache.clear_memory_cache()
    fresh = _family()
    np.testing.assert_array_equal(_run(fresh, "sub", SUB, x, y), hx - hy)
    assert entries[0].read_bytes() != bytes(raw)  # the corrupt entry was replaced


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_builds_what_its_parent_had_queued(isolated_cache, monkeypatch):
    monkeypatch.setattr(_prefetch, "_capacity", 0)  # the job stays queued in the parent
    fam = _family()
    fam.prefetch("mul", (MUL,), get_device())
    pid = os.fork()
    if pid == 0:  # the child: its copy of the job ends unbuilt, so it builds the group itself
        code = 1
        try:
            job = fam._jobs[("mul", get_device().id)]
            code = 0 if job.state == "done" and fam.module("mul", (MUL,), get_device()) else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 180
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung on its parent's background build")
        time.sleep(0.05)
    job = fam._jobs[("mul", get_device().id)]
    assert job.state == "queued" and job.take()  # the parent's, untouched (now dropped)
    assert os.waitstatus_to_exitcode(status) == 0


def test_switch_off(isolated_cache, monkeypatch):
    monkeypatch.setenv("OPENHIP_PREFETCH", "0")
    fam = _family()
    fam.prefetch("add", (ADD,), get_device())
    assert not fam._jobs


def test_elementwise_hints_name_real_groups(monkeypatch):
    asked: list[tuple[str, str, tuple[str, ...]]] = []
    monkeypatch.setattr(Family, "prefetch",
                        lambda self, v, exprs, device: asked.append((self.name, v, tuple(exprs))))
    dev = get_device()
    _elementwise._prefetch_after("create.basic.float32", dev)
    _elementwise._prefetch_after("arith.int32.c", dev)
    _elementwise._prefetch_after("compare.float64.c", dev)
    _elementwise._prefetch_after("arith.float32.20", dev)  # strided: no hint
    _elementwise._prefetch_after("cast.float32.float64.c", dev)  # no hint for casts
    names = [(f, v) for f, v, _ in asked]
    assert names == [
        ("elementwise", "arith.float32.c"), ("elementwise", "compare.float32.c"),
        ("elementwise", "compare.int32.c"), ("elementwise", "select.int32.c"),  # no exp: ints
        ("elementwise", "select.float64.c"), ("index", "mask"), ("index", "gather.8")]
    for family, variant, exprs in asked:
        if family == "elementwise":  # the very expressions a use of the group builds
            group, dt, _ = variant.split(".")
            assert exprs == _elementwise._group_exprs(group, np.dtype(dt), 0)


def test_cold_script_ops_with_prefetch_match_numpy(isolated_cache):
    """A cold first use of several groups (their hints building the next ones meanwhile)."""
    hx = np.arange(3000, dtype=np.float32)
    x = hnp.arange(3000, dtype=hnp.float32)
    z = x * 2.0 + 1.0
    m = z > 100.0
    w = hnp.where(m, z, 0.0)
    e = hnp.exp(-x / 3000.0)
    assert _prefetch.wait_idle(300)
    np.testing.assert_array_equal(w.get(), np.where(hx * 2 + 1 > 100, hx * 2 + 1, 0))
    np.testing.assert_allclose(e.get(), np.exp(-hx / 3000), rtol=2e-7)
    np.testing.assert_array_equal(x[m].get(), hx[hx * 2 + 1 > 100])


def test_no_speculative_builds_without_the_disk_cache(isolated_cache, data, monkeypatch):
    """OPENHIP_DISABLE_CACHE=1: every group compiles when used and nothing is kept, so a
    cold build's hints start no background build (nor does a direct prefetch)."""
    monkeypatch.setenv("OPENHIP_DISABLE_CACHE", "1")
    hx, hy, x, y = data
    seen: list[str] = []
    fam = _family()
    fam.hints = lambda v, d: _after(v, d, fam, seen)
    np.testing.assert_array_equal(_run(fam, "add", ADD, x, y), hx + hy)
    fam.prefetch("mul", (MUL,), get_device())
    assert not fam._jobs and not _prefetch._queue
    assert not _prefetch.enabled()
    np.testing.assert_array_equal(_run(fam, "sub", SUB, x, y), hx - hy)  # built when used
    monkeypatch.setenv("OPENHIP_DISABLE_CACHE", "0")
    assert _prefetch.enabled()
