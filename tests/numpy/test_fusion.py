"""Elementwise fusion (openhip/numpy/_fusion.py): fused results are bit for bit the unfused
ones (random chains of 1-10 operations over float32/float64/int32/int64, bool results of a
comparison, nan/inf/-0 in the data, scalars and 0-d operands); a dead temporary is never
computed; a pending array gives its value to every kind of consumer; writes to a leaf after
a pending result was made from it (in-place operators, setitem, a raw kernel, a custom
kernel's out=) do not change that result; streams and threads; the OPENHIP_FUSION=0 switch;
bad input raises as unfused."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import openhip as hip
import openhip.numpy as hnp
from openhip.numpy import _fusion

N = 3000  # more than one CPU chunk of every dtype, not a multiple of one


@pytest.fixture(autouse=True)
def _fuse_small(monkeypatch):
    """Small arrays fuse too here (by default results under MIN_ELEMENTS run unfused)."""
    monkeypatch.setattr(_fusion, "MIN_ELEMENTS", 1)
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-30, 1e30, 0.5]


def _data(dt, rng, n=N):
    if np.dtype(dt).kind == "f":
        v = rng.standard_normal(n).astype(dt) * 3
        v[rng.integers(0, n, 40)] = rng.choice(SPECIAL, 40)
        return v
    return rng.integers(-1000, 1000, n).astype(dt)


def _bits(a):
    h = a.get() if isinstance(a, hnp.ndarray) else a
    return h.view(np.uint8) if h.dtype == np.bool_ else h.view(f"u{h.dtype.itemsize}")


FLOAT_UN = ["negative", "abs", "square", "exp", "log", "sqrt"]
INT_UN = ["negative", "abs"]
BIN = ["add", "subtract", "multiply", "maximum", "minimum"]
FLOAT_BIN = BIN + ["divide"]
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


def _random_expr(rng, dt, leaves, size):
    """A function building a random expression of ``size`` operations over ``leaves`` (arrays
    and scalars), the same each call (so it can run with fusion on and off)."""
    isf = np.dtype(dt).kind == "f"
    un, bi = (FLOAT_UN, FLOAT_BIN) if isf else (INT_UN, BIN)
    plan = []
    for _ in range(size):
        if rng.random() < 0.3:
            plan.append(("u", str(rng.choice(un))))
        else:
            plan.append(("b", str(rng.choice(bi)), int(rng.integers(0, len(leaves))),
                         bool(rng.random() < 0.5)))

    def build():
        v = leaves[0]
        for step in plan:
            if step[0] == "u":
                v = getattr(hnp, step[1])(v)
            else:
                other = leaves[step[2]]
                a, b = (other, v) if step[3] else (v, other)
                v = getattr(hnp, step[1])(a, b)
        return v
    return build


def _fused_and_unfused(build):
    got = build()
    with _fusion.enabled(False):
        want = build()
    return got, want


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64])
def test_random_chains_bit_identical(dt):
    rng = np.random.default_rng(int(np.dtype(dt).num))
    x, y = hnp.asarray(_data(dt, rng)), hnp.asarray(_data(dt, rng))
    w = hnp.asarray(_data(dt, rng, 1).reshape(()))  # a 0-d array (broadcast)
    s = 1.5 if np.dtype(dt).kind == "f" else 3
    leaves = [x, y, w, s, -2]
    for size in (1, 2, 3, 5, 7, 10):
        for _ in range(3):
            build = _random_expr(rng, dt, leaves, size)
            with np.errstate(all="ignore"):
                got, want = _fused_and_unfused(build)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("cmp", COMPARE)
def test_comparison_root_bit_identical(dt, cmp):
    rng = np.random.default_rng(5)
    hx, hy = _data(dt, rng), _data(dt, rng)
    x, y = hnp.asarray(hx), hnp.asarray(hy)

    def build():
        return getattr(hnp, cmp)(x * 2 + y, hnp.maximum(y, x) - 1)
    got = build()
    assert got.dtype == hnp.bool and got._pend is not None  # one tree, not computed yet
    with _fusion.enabled(False):
        want = build()
    np.testing.assert_array_equal(got.get(), want.get())


def test_axpy_is_one_pending_tree():
    x = hnp.asarray(np.arange(10, dtype=np.float32))
    y = hnp.ones(10, dtype=hnp.float32)
    z = 2.0 * x + y
    p = z._pend
    assert p is not None and p.nodes == 2 and len(p.leaves) == 2
    assert p.name() == "fused: (c0*x0)+x1"
    np.testing.assert_array_equal(z.get(), 2.0 * np.arange(10, dtype=np.float32) + 1)
    assert z._pend is None


def test_dead_temporary_is_not_computed(monkeypatch):
    computed = []
    real = _fusion._compute
    monkeypatch.setattr(_fusion, "_compute", lambda a: (computed.append(a._pend.key), real(a)))
    hx = np.arange(5000, dtype=np.float32)
    x = hnp.asarray(hx)
    z = x * 3 + 1  # x * 3 dies at once
    _fusion.flush()
    assert computed == [("add", ("multiply", "L", "C"), "C")]
    t = x * 3
    z2 = t + 1  # t is kept: both are computed, in creation order
    _fusion.flush()
    assert computed[1:] == [("multiply", "L", "C"), ("add", ("multiply", "L", "C"), "C")]
    for a, want in [(z, hx * 3 + 1), (t, hx * 3), (z2, hx * 3 + 1)]:
        np.testing.assert_array_equal(a.get(), want)


def test_temporary_kept_and_read_later():
    hx = np.linspace(-3, 3, N, dtype=np.float32)
    x = hnp.asarray(hx)
    t = hnp.exp(x) * 2
    u = t + x
    v = t * t
    with _fusion.enabled(False):
        t0 = hnp.exp(x) * 2
        u0, v0 = t0 + x, t0 * t0
    for a, b in [(t, t0), (u, u0), (v, v0)]:
        np.testing.assert_array_equal(_bits(a), _bits(b))


def _fresh():
    hx = np.arange(N, dtype=np.float32)
    return hx, hnp.asarray(hx)


def test_inplace_after_pending():
    hx, x = _fresh()
    t = x * 2
    x += 1
    np.testing.assert_array_equal(t.get(), hx * 2)
    np.testing.assert_array_equal(x.get(), hx + 1)
    t = x - 1
    t += 5  # in place on a pending array
    np.testing.assert_array_equal(t.get(), hx + 5)


def test_setitem_after_pending():
    hx, x = _fresh()
    t = x + 0.5
    x[0] = 5
    x[1:4] = hnp.zeros(3, dtype=hnp.float32)
    got = t.get()
    np.testing.assert_array_equal(got, hx + 0.5)
    assert x[0] == 5


def test_raw_kernel_write_after_pending():
    hx, x = _fresh()
    k = hnp.RawKernel(r'''
extern "C" __global__ void bump(float* p, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) p[i] = 100.0f;
}
''', "bump")
    t = x * 3
    k(((N + 255) // 256,), (256,), (x, np.int32(N)))
    np.testing.assert_array_equal(t.get(), hx * 3)
    np.testing.assert_array_equal(x.get(), np.full(N, 100, np.float32))
    # a pending array given to a raw kernel is computed first
    u = x - 1
    out = hnp.zeros(N, dtype=hnp.float32)
    copy = hnp.RawKernel(r'''
extern "C" __global__ void cp(const float* a, float* b, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) b[i] = a[i];
}
''', "cp")
    copy(((N + 255) // 256,), (256,), (u, out, np.int32(N)))
    np.testing.assert_array_equal(out.get(), np.full(N, 99, np.float32))


def test_custom_kernel_out_after_pending():
    hx, x = _fresh()
    t = hnp.negative(x) + 1
    fill = hnp.ElementwiseKernel("float32 a", "float32 b", "b = a * 0.0f - 7.0f", "seven")
    fill(x, x)  # writes x through out
    np.testing.assert_array_equal(t.get(), -hx + 1)
    np.testing.assert_array_equal(x.get(), np.full(N, -7, np.float32))


def test_consumers_of_pending_arrays():
    hx = np.arange(N, dtype=np.float32) - 100
    x = hnp.asarray(hx)
    want = hx * 2 + 1
    assert float((x * 2 + 1).sum()) == pytest.approx(float(want.sum()), rel=1e-6)
    assert float(hnp.max(x * 2 + 1)) == want.max()
    np.testing.assert_array_equal((x * 2 + 1)[5:9].get(), want[5:9])
    np.testing.assert_array_equal((x * 2 + 1)[::7].get(), want[::7])
    m = (x * 2 + 1) > 0
    np.testing.assert_array_equal((x * 2 + 1)[m].get(), want[want > 0])
    np.testing.assert_array_equal(np.asarray(x * 2 + 1), want)
    np.testing.assert_array_equal(np.from_dlpack(x * 2 + 1), want)
    assert "array([-199., -197." in repr(x * 2 + 1)
    z = hnp.asarray(np.float32(3)).reshape(()) * 2 + 1
    assert float(z) == 7.0 and bool(z) and int(z) == 7
    r = hnp.reshape(x * 2 + 1, (N // 3, 3)).T
    np.testing.assert_array_equal(r.get(), want.reshape(N // 3, 3).T)
    np.testing.assert_array_equal((x * 2 + 1).astype(hnp.float64).get(), want.astype(np.float64))
    np.testing.assert_array_equal(hnp.where(m, x * 2 + 1, 0.0).get(),
                                  np.where(want > 0, want, 0))
    arr = x * 2 + 1
    iface = "__array_interface__" if arr.device.platform == "cpu" else \
        "__cuda_array_interface__"
    assert getattr(arr, iface)["data"][0] == arr._data.ptr
    assert arr._pend is None
    np.testing.assert_array_equal(np.asarray(arr), want)


def test_stream_switch():
    hx, x = _fresh()
    s1, s2 = hip.Stream(), hip.Stream()
    with s1:
        t = x * 4 + 1
        pt = t._pend  # (None only if something flushed meanwhile: always allowed)
        assert pt is None or pt.stream is s1
        v = t * 2  # kept pending on s1
    with s2:  # a host read after switching streams: computed on s1, then read
        np.testing.assert_array_equal(t.get(), hx * 4 + 1)
    with s1:
        w = x - 3
    s1.synchronize()  # (as unfused: the work of s1 done before s2 reads it)
    with s2:
        u = w + t  # t, w computed: leaves read on s2
        pu = u._pend
        assert pu is None or (pu.stream is s2 and pu.nodes == 1)
        assert t._pend is None and w._pend is None
        z = u * 2 + 1  # s2's own chain
    np.testing.assert_array_equal(z.get(), ((hx - 3) + (hx * 4 + 1)) * 2 + 1)
    np.testing.assert_array_equal(v.get(), (hx * 4 + 1) * 2)


def test_synchronize_flushes():
    hx, x = _fresh()
    z = x * 2 - 3
    assert z._pend is not None
    hip.synchronize()
    assert z._pend is None and _fusion.pending_count() == 0
    np.testing.assert_array_equal(z.get(), hx * 2 - 3)


def test_threads():
    hx, x = _fresh()
    errors: list[BaseException] = []
    results: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        try:
            acc = []
            for j in range(20):
                acc.append((x * (k + j) + k) - j)
            results[k] = np.stack([a.get() for a in acc])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    for k in range(2):
        want = np.stack([(hx * np.float32(k + j) + np.float32(k)) - np.float32(j)
                         for j in range(20)])
        np.testing.assert_array_equal(results[k], want)


def test_limits_split_the_tree():
    hx, x = _fresh()
    v = x
    for i in range(60):  # more operations than one program holds
        v = v + (i % 3)
    assert v._pend is not None and v._pend.nodes <= _fusion.MAXNODES
    want = hx.copy()
    for i in range(60):
        want = want + np.float32(i % 3)
    np.testing.assert_array_equal(v.get(), want)
    # many distinct leaves
    arrs = [hnp.asarray(hx + k) for k in range(12)]
    s = arrs[0]
    for a in arrs[1:]:
        s = s + a
    with _fusion.enabled(False):
        s0 = arrs[0]
        for a in arrs[1:]:
            s0 = s0 + a
    np.testing.assert_array_equal(_bits(s), _bits(s0))


def test_unfusable_operands_run_unfused():
    hx = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = hnp.asarray(hx)
    assert (m.T * 2)._pend is None  # strided
    assert (m + hnp.asarray(hx[0]))._pend is None  # a broadcast row
    assert (m.astype(hnp.float16) + 1)._pend is None  # dtype outside the set
    i = hnp.asarray(np.arange(5, dtype=np.int32))
    assert (i + 1.5)._pend is None  # an int array with a float scalar: float64
    assert (i / 2)._pend is None
    np.testing.assert_array_equal((i + 1.5).get(), np.arange(5) + 1.5)


def test_memory_of_plain_device_arrays_is_not_deferred():
    hx = np.arange(N, dtype=np.float32)
    d = hip.asarray(hx)  # a plain DeviceArray: its writes do not flush
    t = d * 2
    assert t._pend is None
    d.set(np.zeros(N, np.float32))
    np.testing.assert_array_equal(t.get(), hx * 2)
    shared = np.arange(N, dtype=np.float32)
    a = hnp.from_dlpack(shared)
    assert (a + 1)._pend is None and (a[1:] + 1)._pend is None


def test_bad_input_still_raises():
    x = hnp.ones(5, dtype=hnp.float32)
    i = hnp.ones(5, dtype=hnp.int32)
    with pytest.raises(ValueError, match="broadcast"):
        x + hnp.ones(4, dtype=hnp.float32)
    with pytest.raises(OverflowError):
        i + 2**40
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        hnp.subtract(hnp.ones(3, dtype=hnp.bool), True)
    t = x * 2
    with pytest.raises(ValueError, match="broadcast"):
        t + hnp.ones(4, dtype=hnp.float32)
    np.testing.assert_array_equal(t.get(), np.full(5, 2, np.float32))


def test_fusion_off_switch():
    code = ("import numpy as np, openhip.numpy as hnp\n"
            "from openhip.numpy import _fusion\n"
            "_fusion.MIN_ELEMENTS = 1\n"
            "x = hnp.asarray(np.arange(10, dtype=np.float32))\n"
            "z = 2 * x + 1\n"
            "assert z._pend is None\n"
            "assert z.get().tolist() == (2 * np.arange(10) + 1).tolist()\n"
            "print('ok')\n")
    env = dict(os.environ, OPENHIP_FUSION="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("ok")
    with _fusion.enabled(False):
        assert (hnp.ones(3) * 2)._pend is None
    assert (hnp.ones(3) * 2)._pend is not None


def test_small_results_run_unfused(monkeypatch):
    monkeypatch.undo()  # the module's own threshold
    limit = _fusion.MIN_ELEMENTS
    small = hnp.ones(limit - 1, dtype=hnp.float32)
    big = hnp.ones(limit, dtype=hnp.float32)
    assert (small * 2)._pend is None
    z = big * 2 + 1
    assert z._pend is not None and z._pend.nodes == 2
    np.testing.assert_array_equal(z.get(), np.full(limit, 3, np.float32))


def test_a_result_not_taken_in_is_launched():
    hx, x = _fresh()
    t = x * 2 + 1
    u = x - 5  # does not embed t: t is launched now, u stays pending
    assert t._pend is None and u._pend is not None
    z = u * 3  # embeds u
    assert u._pend is not None and z._pend is not None and z._pend.nodes == 2
    np.testing.assert_array_equal(z.get(), (hx - 5) * 3)
    np.testing.assert_array_equal(t.get(), hx * 2 + 1)
    np.testing.assert_array_equal(u.get(), hx - 5)


def test_fusion_env_read_per_operation(monkeypatch):
    x = hnp.ones(3)
    monkeypatch.setenv("OPENHIP_FUSION", "0")
    assert (x * 2)._pend is None
    monkeypatch.setenv("OPENHIP_FUSION", "1")
    assert (x * 2)._pend is not None


def test_cupy_fuse_decorator():
    @hnp.fuse
    def axpy(a, x, y):
        return a * x + y

    @hnp.fuse(kernel_name="squared_diff")
    def squared_diff(x, y):
        return (x - y) * (x - y)
    hx, x = _fresh()
    np.testing.assert_array_equal(axpy(3.0, x, x).get(), 3 * hx + hx)
    np.testing.assert_array_equal(squared_diff(x, x * 2).get(), hx * hx)
    assert axpy.__name__ == "axpy"
    with pytest.raises(TypeError):
        hnp.fuse(1, 2)


def test_profiler_sees_fused_launches():
    hx, x = _fresh()
    y = hnp.ones(N, dtype=hnp.float32)
    with hip.profile(None) as session:
        z = 2.0 * x + y
        hip.synchronize()
    names = [e["name"] for e in session.trace["traceEvents"] if e.get("cat") == "kernel"]
    assert "fused: (c0*x0)+x1" in names, names
    np.testing.assert_array_equal(z.get(), 2 * hx + 1)


TARGETS = [("nvidia", "sm_90"), ("amd", "gfx90a")]


@pytest.mark.parametrize("platform,arch", TARGETS, ids=[f"{p}-{a}" for p, a in TARGETS])
def test_fused_kernel_compiles_for_gpus(gpu_toolchain, platform, arch):
    from openhip.numpy._kernels import source

    tool = gpu_toolchain(platform)
    exprs = [f"fused<{c}, {o}>" for c in ("float", "double", "int", "long long")
             for o in (c, "bool")]
    program = tool.compile(source("fused.hip"), arch=arch, options=("-std=c++17",),
                           name_expressions=exprs, filename="fused.hip")
    assert program.binary[:4] == b"\x7fELF"
    missing = [e for e in exprs if e not in program.kernels]
    assert not missing, missing
