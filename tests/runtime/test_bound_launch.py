"""Bound launches (Function.bind) and launch sequences: the same results as plain launches,
arguments patched one at a time, bad input refused when binding or patching."""

import numpy as np
import pytest

import openhip as hip
from openhip.runtime.bound import BoundLaunch, LaunchSequence

SRC = r'''
#include <hip/hip_runtime.h>
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void scale_add(float* y, float s, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] * s + b;
}
extern "C" __global__ void vec_store(float* out, float4 v, __hip_bfloat16 w, int k) {
    out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = v.w;
    out[4] = (float)w; out[5] = (float)k;
}
'''


@pytest.fixture
def mod(device):
    return hip.Module(SRC, device=device)


def test_bound_equals_plain(device, mod):
    n = 1000
    rng = np.random.default_rng(0)
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    k = mod.get_function("saxpy")
    dx = hip.asarray(x)
    plain, bound = hip.asarray(y), hip.asarray(y)
    b = k.bind((n + 127) // 128, 128, (3, dx, bound, n))  # an int for a float: converted
    assert isinstance(b, BoundLaunch) and b.grid == (8, 1, 1) and b.block == (128, 1, 1)
    for _ in range(3):
        k((n + 127) // 128, 128, (3, dx, plain, n))
        b()
    assert np.array_equal(plain.get(), bound.get())
    np.testing.assert_allclose(bound.get(), y + 9 * x, rtol=1e-5)


def test_set_arg_by_index_and_name(device, mod):
    k = mod.get_function("scale_add")
    y = hip.asarray(np.ones(64, np.float32))
    b = k.bind(1, 64, (y, 2.0, 0.0, 64))
    b()
    b.set_arg(1, 1.0)
    b.set_arg("b", 5.0)
    b()
    assert np.array_equal(y.get(), np.full(64, 7.0, np.float32))
    assert b.args[1:3] == (1.0, 5.0)
    other = hip.zeros(64, np.float32)
    b.set_arg("y", other)  # a pointer: another array
    b()
    assert np.array_equal(other.get(), np.full(64, 5.0, np.float32))
    b.set_arg("n", 10)
    b()
    assert other.get()[:10].tolist() == [10.0] * 10 and other.get()[10] == 5.0


def test_non_simple_parameters(device, mod):
    k = mod.get_function("vec_store")
    out = hip.zeros(6, np.float32)
    b = k.bind(1, 1, (out, (1.0, 2.0, 3.0, 4.0), 1.5, 7))
    b()
    assert out.get().tolist() == [1, 2, 3, 4, 1.5, 7]
    b.set_arg("v", [5, 6, 7, 8])
    b.set_arg("w", 0.25)
    b()
    assert out.get().tolist() == [5, 6, 7, 8, 0.25, 7]
    with pytest.raises(TypeError):
        b.set_arg("v", (1.0, 2.0))  # a float4 needs 4 numbers


def test_bad_input(device, mod):
    k = mod.get_function("scale_add")
    y = hip.zeros(8, np.float32)
    with pytest.raises(TypeError, match="takes 4 argument"):
        k.bind(1, 8, (y, 1.0, 2.0))
    with pytest.raises(TypeError):
        k.bind(1, 8, (y, "two", 2.0, 8))
    with pytest.raises(TypeError, match="needs device memory"):
        k.bind(1, 8, (np.zeros(8, np.float32), 1.0, 2.0, 8))
    with pytest.raises(hip.HipError, match="InvalidConfiguration"):
        k.bind(1, 4096, (y, 1.0, 2.0, 8))
    with pytest.raises(hip.HipError, match="InvalidConfiguration"):
        k.bind(0, 8, (y, 1.0, 2.0, 8))
    b = k.bind(1, 8, (y, 1.0, 2.0, 8))
    with pytest.raises(TypeError):
        b.set_arg("n", 2.5)  # a float for an int
    with pytest.raises(TypeError, match="does not fit"):
        b.set_arg(3, 2**40)
    with pytest.raises(KeyError):
        b.set_arg("nope", 1)
    with pytest.raises(IndexError):
        b.set_arg(4, 1)
    with pytest.raises(TypeError):
        b.set_arg(1.0, 1)
    b()  # a refused patch leaves the launch as it was
    assert np.array_equal(y.get(), np.full(8, 2.0, np.float32))


def test_sequence_replays_in_order(device, mod):
    k = mod.get_function("scale_add")
    y = hip.asarray(np.ones(32, np.float32))
    seq = LaunchSequence([k.bind(1, 32, (y, 2.0, 0.0, 32))])
    seq.append(k.bind(1, 32, (y, 1.0, 1.0, 32)))  # (y * 2) + 1, not (y + 1) * 2
    assert len(seq) == 2 and seq[1].args[2] == 1.0
    seq()
    seq()
    assert np.array_equal(y.get(), np.full(32, 7.0, np.float32))
    with pytest.raises(TypeError, match="BoundLaunch"):
        seq.append(lambda: None)


def test_bound_stream(device, mod):
    k = mod.get_function("scale_add")
    y = hip.asarray(np.ones(16, np.float32))
    s = hip.Stream()
    b = k.bind(1, 16, (y, 3.0, 0.0, 16), stream=s)
    b()
    s.synchronize()
    assert np.array_equal(y.get(), np.full(16, 3.0, np.float32))
    with s:  # unbound: the thread's current stream, as a plain launch
        k.bind(1, 16, (y, 1.0, 1.0, 16))()
    s.synchronize()
    assert np.array_equal(y.get(), np.full(16, 4.0, np.float32))


def test_bound_launches_seen_by_the_profiler(device, mod, tmp_path):
    k = mod.get_function("scale_add")
    y = hip.asarray(np.ones(16, np.float32))
    b = k.bind(1, 16, (y, 2.0, 0.0, 16))
    with hip.profile(str(tmp_path / "t.json")):
        b()
        b()
    b()  # after the session: the direct path again
    assert np.array_equal(y.get(), np.full(16, 8.0, np.float32))
    import json

    events = json.loads((tmp_path / "t.json").read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    assert sum(1 for e in events if e.get("name") == "scale_add" and e.get("ph") == "X") == 2


def test_generated_packer_equals_the_converters(device, mod):
    """The packer made for a signature (exact common types taken as they are) writes the bytes
    the per-parameter converters give, and falls back to them for everything else (their
    conversions and their errors)."""
    k = mod.get_function("saxpy")
    p = k._packer
    x = hip.zeros(4, np.float32)
    cases = [(2.0, x, x, 4), (np.float32(2.5), x, None, np.int32(7)), (3, x.data, x, True),
             (1e-3, None, None, -2**31), (0.5, x, x, 2**31 - 1)]
    for args in cases:
        got = bytes(p.pack(args).buffer)
        vals = [conv(a) for conv, a in zip(p._converters, args, strict=True)]
        buf = bytearray(len(got))
        p._struct.pack_into(buf, 0, *vals)
        assert got == bytes(buf), args
    for bad, match in (((2.0, x, x, 2**31), "does not fit"), (("a", x, x, 4), "takes a number"),
                       ((2.0, np.zeros(4), x, 4), "needs device memory"),
                       ((2.0, x, x, 4.0), "takes an integer"), ((True, x, x, 4), "got bool")):
        with pytest.raises(TypeError, match=match):
            p.pack(bad)
