"""The warm path of a small elementwise operation (_elementwise._apply's memoised plans, the
CPU platform's prepared launch, the pool's warm take): after a plan is warm, repeats with
other shapes, dtypes, strides, offsets, broadcasts and scalars give numpy's results (a plan
serves one layout only), in-place ops, scalars that do not fit, a freed operand, two threads
sharing a plan, a forked child, a freed and reused pool block, the stream a warm launch goes
to, and the profiler's hook (a wrapped Kernel.launch_packed sees every warm launch)."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import openhip as hip
import openhip.numpy as hnp
from openhip.numpy import _elementwise as ew
from openhip.numpy import _kernels


def _np(x):
    return x.get()


def test_repeats_with_other_layouts_after_a_warm_plan(device):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    x, y = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    for _ in range(3):  # warm: the plan of (16 float32, 16 float32)
        np.testing.assert_array_equal(_np(x[:16] + y[:16]), a[:16] + b[:16])
    # the same key with other pointers: offset views of the same shape and strides
    for off in (1, 7, 48):
        np.testing.assert_array_equal(_np(x[off:off + 16] + y[:16]), a[off:off + 16] + b[:16])
    # other shapes, strides, dtypes, broadcasts: their own plans
    np.testing.assert_array_equal(_np(x[:32] + y[:32]), a[:32] + b[:32])
    np.testing.assert_array_equal(_np(x[:32:2] + y[:16]), a[:32:2] + b[:16])
    np.testing.assert_array_equal(_np(x[15::-1] + y[:16]), a[15::-1] + b[:16])
    m, hm = x.reshape((8, 8)), a.reshape(8, 8)
    np.testing.assert_array_equal(_np(m + m.T), hm + hm.T)  # same shape, other strides
    np.testing.assert_array_equal(_np(m.T + m), hm.T + hm)
    np.testing.assert_array_equal(_np(m + m), hm + hm)
    np.testing.assert_array_equal(_np(m + x[:8]), hm + a[:8])  # a row vector
    np.testing.assert_array_equal(_np(m + x[:8].reshape((8, 1))), hm + a[:8].reshape(8, 1))
    xd, yi = x.astype(hnp.float64), hnp.asarray(np.arange(64, dtype=np.int32), device=device)
    np.testing.assert_array_equal(_np(xd[:16] + y[:16]), a[:16].astype(np.float64) + b[:16])
    np.testing.assert_array_equal(_np(yi[:16] + yi[:16]), np.arange(16, dtype=np.int32) * 2)
    np.testing.assert_array_equal(_np(x[:16] < y[:16]), a[:16] < b[:16])
    z0 = hnp.asarray(np.float32(2.5), device=device)
    np.testing.assert_array_equal(_np(x[:16] * z0), a[:16] * np.float32(2.5))
    np.testing.assert_array_equal(_np(x[:0] + y[:0]), a[:0] + b[:0])
    # and the first layout again, unchanged
    np.testing.assert_array_equal(_np(x[:16] + y[:16]), a[:16] + b[:16])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64"])
def test_scalars_of_a_warm_plan(device, dtype):
    h = (np.arange(16) % 7).astype(dtype)
    x = hnp.asarray(h, device=device)
    for s in (2, 3, 0, 1, 5, True):
        np.testing.assert_array_equal(_np(x * s), h * np.asarray(s, dtype=dtype))
        np.testing.assert_array_equal(_np(s + x), np.asarray(s, dtype=dtype) + h)
    if h.dtype.kind == "f":
        for s in (2.5, -0.0, float("inf"), float("nan"), 1e-300):
            with np.errstate(invalid="ignore"):
                got, want = _np(x * s), h * np.asarray(s, dtype=dtype)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        if dtype == "float32":
            with pytest.raises(OverflowError, match="multiply: Python scalar 1e\\+300 does not "
                                                    "fit in float32"):
                x * 1e300
    else:
        info = np.iinfo(dtype)
        np.testing.assert_array_equal(_np(x + int(info.max)), h + info.max)
        for bad in (int(info.max) + 1, int(info.min) - 1):
            with pytest.raises(OverflowError, match=f"add: Python scalar {bad} does not fit"):
                x + bad
        np.testing.assert_array_equal(_np(x + 1), h + 1)  # the plan still works after


def test_in_place_ops(device):
    h = np.arange(16, dtype=np.float32)
    x = hnp.asarray(h, device=device)
    y = hnp.asarray(h * 3, device=device)
    for _ in range(3):
        x += y
        h += h * 0 + np.arange(16, dtype=np.float32) * 3
    np.testing.assert_array_equal(_np(x), h)
    x *= 0.5
    np.testing.assert_array_equal(_np(x), h * np.float32(0.5))
    x += x  # the output aliases the operand
    np.testing.assert_array_equal(_np(x), h)
    v = x[::2]
    v -= 1.0
    want = h.copy()
    want[::2] -= 1
    np.testing.assert_array_equal(_np(x), want)
    with pytest.raises(TypeError, match="differs"):
        y2 = hnp.asarray(np.arange(16, dtype=np.int32), device=device)
        y2 += 1.5


def test_a_freed_operand_raises(device):
    x = hnp.ones(16, dtype=hnp.float32, device=device)
    y = hnp.ones(16, dtype=hnp.float32, device=device)
    for _ in range(2):
        x + y
    y.data.mem.free()
    with pytest.raises(hip.HipError, match="freed"):
        x + y


def test_mismatched_shapes_and_devices_keep_their_messages(device):
    x = hnp.ones(16, dtype=hnp.float32, device=device)
    x + x
    with pytest.raises(ValueError, match=r"could not be broadcast together with shapes \(16,\) "
                                         r"\(15,\)"):
        x + hnp.ones(15, dtype=hnp.float32, device=device)
    with pytest.raises(TypeError):
        x + "a"


def test_a_freed_and_reused_pool_block(device):
    h = np.arange(16, dtype=np.float32)
    x = hnp.asarray(h, device=device)
    z = x + x
    z.get()
    ptr = z.data.ptr
    del z
    w = x * x  # the same class on the same stream: the freed block
    assert w.data.ptr == ptr
    np.testing.assert_array_equal(_np(w), h * h)
    kept = [x + i for i in range(8)]  # several blocks out at once, then all back
    for i, k in enumerate(kept):
        np.testing.assert_array_equal(_np(k), h + i)
    ptrs = {k.data.ptr for k in kept}
    assert len(ptrs) == 8
    del kept, k
    again = [x - i for i in range(8)]
    assert {k.data.ptr for k in again} <= ptrs | {ptr}
    for i, k in enumerate(again):
        np.testing.assert_array_equal(_np(k), h - i)


def test_two_threads_share_a_plan(device):
    hs = [np.arange(16, dtype=np.float32) * (t + 1) for t in range(2)]
    xs = [hnp.asarray(h, device=device) for h in hs]
    ones = hnp.ones(16, dtype=hnp.float32, device=device)
    xs[0] + ones  # one plan for both threads
    results: list[list] = [[], []]
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            z = xs[t]
            for _ in range(200):
                z = z + ones
                results[t].append(z)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not errors
    for t in range(2):
        assert len(results[t]) == 200
        for i in (0, 99, 199):
            np.testing.assert_array_equal(_np(results[t][i]), hs[t] + (i + 1))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_warm_op_in_a_forked_child(device):
    h = np.arange(16, dtype=np.float32)
    x = hnp.asarray(h, device=device)
    y = x + 1.0
    y.get()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            z = x + 1.0  # the parent's plan, pool and launcher
            w = z * x
            code = 0 if np.array_equal(w.get(), (h + 1) * h) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    np.testing.assert_array_equal(_np(x + 1.0), h + 1)


def test_warm_launches_go_to_the_current_stream(device, monkeypatch):
    if device.platform != "cpu":
        pytest.skip("the CPU platform's prepared launch")
    plat = device._platform
    plat._lib()
    real = plat._raw_launch or plat._lib().cdll["ohcpu_launch"]
    seen: list = []

    def record(stream, *rest):
        seen.append(None if stream is None else stream.value)
        return real(stream, *rest)

    monkeypatch.setattr(plat, "_raw_launch", record)
    monkeypatch.setattr(ew, "_PLANS", {})
    x = hnp.ones(16, dtype=hnp.float32, device=device)
    x + x  # the plan (its launcher calls record)
    hip.synchronize()  # (x is filled on the default stream; another stream does not wait)
    s = hip.Stream(device)
    with s:
        z = x + x
    s.synchronize()
    w = x + x
    np.testing.assert_array_equal(_np(z), np.full(16, 2, np.float32))
    np.testing.assert_array_equal(_np(w), np.full(16, 2, np.float32))
    assert seen[-2:] == [s._handle, None]


def test_a_wrapped_launch_sees_warm_launches(device, monkeypatch):
    """What the profiler does: wrapping Kernel.launch_packed turns the prepared launch off."""
    x = hnp.ones(16, dtype=hnp.float32, device=device)
    x + x
    calls: list[int] = []
    orig = _kernels.Kernel.launch_packed

    def wrapped(self, n, packed, block=_kernels.BLOCK):
        calls.append(n)
        return orig(self, n, packed, block)

    monkeypatch.setattr(_kernels.Kernel, "launch_packed", wrapped)
    assert _kernels.hooked()
    z = x + x
    assert calls == [16]
    np.testing.assert_array_equal(_np(z), np.full(16, 2, np.float32))
    monkeypatch.undo()
    assert not _kernels.hooked()


def test_astype_plans_per_layout(device):
    h = np.arange(48, dtype=np.float32).reshape(6, 8) - 20.5
    x = hnp.asarray(h, device=device)
    for _ in range(2):
        np.testing.assert_array_equal(_np(x.astype(hnp.float64)), h.astype(np.float64))
    np.testing.assert_array_equal(_np(x[1:].astype(hnp.float64)), h[1:].astype(np.float64))
    np.testing.assert_array_equal(_np(x.T.astype(hnp.float64)), h.T.astype(np.float64))
    np.testing.assert_array_equal(_np(x[:, ::3].astype(hnp.int32)), h[:, ::3].astype(np.int32))
    row = hnp.broadcast_to(x[0], (6, 8))  # stride 0
    np.testing.assert_array_equal(_np(row.astype(hnp.float64)),
                                  np.broadcast_to(h[0], (6, 8)).astype(np.float64))
    np.testing.assert_array_equal(_np(x[:0].astype(hnp.float64)), h[:0].astype(np.float64))
    np.testing.assert_array_equal(_np(x.astype(hnp.float64)), h.astype(np.float64))
    with pytest.raises(TypeError, match="cannot cast complex"):
        x.astype(hnp.complex64).astype(hnp.float32)


def test_in_place_plans_per_layout(device):
    h = np.arange(32, dtype=np.float32)
    x = hnp.asarray(h, device=device)
    one = hnp.ones(32, dtype=hnp.float32, device=device)
    for _ in range(3):  # warm: (x, one) into x
        x += one
    h += 3
    v = x[::2]
    v += one[:16]  # a strided output: its own plan
    h[::2] += 1
    w = x[16:]
    w += one[:16]  # an offset output of another shape
    h[16:] += 1
    x += one
    h += 1
    np.testing.assert_array_equal(_np(x), h)
    m = hnp.asarray(h.reshape(4, 8), device=device)
    m += m.T.T  # aliasing operand
    np.testing.assert_array_equal(_np(m), h.reshape(4, 8) * 2)
    xi = hnp.asarray(np.arange(32, dtype=np.int32), device=device)
    xi += 1
    with pytest.raises(TypeError, match="in place: the result dtype float64 differs"):
        xi += 1.5
    with pytest.raises(TypeError, match="in place: the result dtype float64 differs"):
        xi /= 2
