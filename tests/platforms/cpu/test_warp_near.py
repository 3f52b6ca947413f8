"""Fixed-distance shuffles (__shfl_down/__shfl_up by delta < width) on the CPU platform's split
path: they read a plain load at thread lt +/- delta (warp.h wc_get_near) instead of a gather.

Every kernel runs split and as fibers (same bits), and its answer is the one HIP's index
arithmetic gives (computed here in numpy): every delta (0, in range, width and past it, huge),
widths 1..32, non-power-of-two and 64, partial last warps, 2-D blocks, partial masks, lanes held
back by an if or exited, and every value size (1, 2, 4, 8 bytes).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import openhip as hip

TYPES = {"i8": ("signed char", np.int8), "u16": ("unsigned short", np.uint16),
         "i32": ("int", np.int32), "f32": ("float", np.float32), "f64": ("double", np.float64),
         "i64": ("long long", np.int64)}

SHFL = """
extern "C" __global__ void down_NAME(const T* in, T* out, unsigned delta, int width, unsigned mask) {
  const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  T v = in[t];
  T r = __shfl_down_sync(mask, v, delta, width);
  out[t] = r;
}
extern "C" __global__ void up_NAME(const T* in, T* out, unsigned delta, int width, unsigned mask) {
  const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  T v = in[t];
  T r = __shfl_up_sync(mask, v, delta, width);
  out[t] = r;
}
"""

SRC = "".join(SHFL.replace("NAME", k).replace("T", t[0]) for k, t in TYPES.items()) + r"""
// a shuffle chain in the style of CUDA's samples: a warp reduction by halving distances
extern "C" __global__ void chain(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// a partial mask, called by exactly the lanes it names (a caller outside its mask is undefined
// in CUDA)
extern "C" __global__ void masked(const int* in, int* out, unsigned delta, unsigned mask) {
  const unsigned t = threadIdx.x;
  int v = in[t];
  int r = -1;
  if ((mask >> (t % 32)) & 1u) r = __shfl_down_sync(mask, v, delta) + 1000 * __shfl_up_sync(mask, v, delta);
  out[t] = r;
}

// lanes held back by an if (they read 0 where they are a source) and exited lanes
extern "C" __global__ void guarded(const int* in, int* out, unsigned delta) {
  const unsigned t = threadIdx.x;
  if (t == 7 || t == 40) return;
  int v = in[t];
  int r = -1;
  if (t % 3 != 0) {
    r = __shfl_down_sync(0xffffffffu, v, delta);
    r += 1000 * __shfl_up_sync(0xffffffffu, v, delta);
  }
  out[t] = r;
}
"""


@pytest.fixture
def mods(monkeypatch):
    devs = [d for d in hip.devices() if d.platform == "cpu"]
    if not devs:
        pytest.skip("no CPU platform")
    out = {}
    with devs[0]:
        for mode in ("regions", "fibers"):
            monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1" if mode == "regions" else "0")
            mod = hip.Module(SRC, name="near.hip")
            kernels = mod.program.metadata["kernels"]
            for meta in kernels.values():
                assert meta["mode"] == ("regions" if mode == "regions" else "fibers"), meta
            out[mode] = mod
        yield out


def i32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def reference(x: np.ndarray, n: int, kind: str, delta: int, width: int, mask: int):
    """HIP's __shfl_down/up_sync (amd_warp_functions.h) for 1-D rows of n threads; a source
    that is not a participant (outside the mask, past the block's end) reads 0."""
    out = np.zeros_like(x)
    for t in range(n):
        lane, base = t % 32, t - t % 32
        if kind == "down":
            index = i32(lane + delta)
            src = lane if i32((lane & (width - 1)) + delta) >= width else index
        else:
            index = i32(lane - delta)
            src = lane if index < (lane & ~(width - 1)) else index
        g = base + (src & 31)
        ok = g == t or ((mask >> (src & 31)) & 1 and g < n)
        out[t] = x[g] if ok else 0
    return out


def run(mods, kernel, grid, block, args_fn, out_index=1):
    res = {}
    for mode, mod in mods.items():
        args = args_fn()
        mod.get_function(kernel)(grid, block, args)
        hip.synchronize()
        res[mode] = args[out_index].get()
    assert res["regions"].tobytes() == res["fibers"].tobytes(), kernel
    return res["regions"]


def values(np_type, n, rng):
    if np.issubdtype(np_type, np.floating):
        return (rng.standard_normal(n) * 100).astype(np_type)
    info = np.iinfo(np_type)
    return rng.integers(info.min, info.max, n, dtype=np_type, endpoint=True)


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("kind", ["down", "up"])
def test_fixed_distance_matches_hip(mods, name, kind):
    rng = np.random.default_rng(5)
    np_type = TYPES[name][1]
    cases = [(d, 32) for d in (0, 1, 5, 16, 31, 32, 33, 0xFFFFFFFF, 0x80000001)]
    cases += [(d, w) for w in (1, 2, 8, 16) for d in (0, 1, w - 1, w, w + 3)]
    for n in (96, 80, 17):
        x = values(np_type, n, rng)
        for delta, width in cases:
            for mask in (0xFFFFFFFF,):
                got = run(mods, f"{kind}_{name}", 1, n,
                          lambda x=x, n=n, d=delta, w=width, m=mask: (
                              hip.asarray(x), hip.zeros(n, np_type), np.uint32(d), np.int32(w),
                              np.uint32(m)))
                want = reference(x, n, kind, delta, width, mask)
                assert got.tobytes() == want.tobytes(), (n, delta, width, hex(mask))


@pytest.mark.parametrize("width", [24, 64, 3])
def test_other_widths_agree_with_fibers(mods, width):
    # widths HIP leaves unspecified: the general path, the same bits as the fibers
    x = np.arange(64, dtype=np.int32) * 7 + 1
    for kind in ("down", "up"):
        for delta in (0, 1, 5, 20, 40):
            run(mods, f"{kind}_i32", 1, 64, lambda d=delta: (
                hip.asarray(x), hip.zeros(64, np.int32), np.uint32(d), np.int32(width),
                np.uint32(0xFFFFFFFF)))


def test_two_dimensional_blocks(mods):
    # a 2-D block: the thread loop's rows (y) continue the linear thread index
    for block in ((8, 5), (20, 3), (32, 2)):
        n = block[0] * block[1]
        x = np.random.default_rng(n).integers(-1000, 1000, n).astype(np.int32)
        for kind in ("down", "up"):
            for delta in (1, 3, 9):
                got = run(mods, f"{kind}_i32", 1, block, lambda x=x, n=n, d=delta: (
                    hip.asarray(x), hip.zeros(n, np.int32), np.uint32(d), np.int32(32),
                    np.uint32(0xFFFFFFFF)))
                assert np.array_equal(got, reference(x, n, kind, delta, 32, 0xFFFFFFFF))


def test_shuffle_chain_sums_each_warp(mods):
    x = np.random.default_rng(3).integers(0, 9, 4 * 256).astype(np.float32)
    got = run(mods, "chain", 4, 256, lambda: (hip.asarray(x), hip.zeros(x.size, np.float32)))
    sums = x.reshape(-1, 32).sum(axis=1)
    assert np.array_equal(got[::32], sums)


def test_guarded_and_exited_lanes(mods):
    x = np.arange(1, 81, dtype=np.int32)
    for delta in (0, 1, 2, 3, 31):
        got = run(mods, "guarded", 1, 80, lambda d=delta: (
            hip.asarray(x), hip.full(80, -5, np.int32) if hasattr(hip, "full") else
            hip.asarray(np.full(80, -5, np.int32)), np.uint32(d)))
        part = [t % 3 != 0 and t not in (7, 40) for t in range(80)]
        for t in range(80):
            if t in (7, 40):
                assert got[t] == -5
                continue
            if not part[t]:
                assert got[t] == -1
                continue
            lane, base = t % 32, t - t % 32
            dn = base + lane + delta if lane + delta < 32 else t
            up = base + lane - delta if lane >= delta else t
            want = (x[dn] if dn < 80 and part[dn] else 0) + 1000 * (x[up] if part[up] else 0)
            assert got[t] == want, (delta, t)


def test_partial_masks(mods):
    n = 80
    x = np.arange(1, n + 1, dtype=np.int32)
    for mask in (0x0F0FF0F1, 0xFFFF0000, 0x80000001):
        for delta in (0, 1, 4, 16, 31, 32):
            got = run(mods, "masked", 1, n, lambda d=delta, m=mask: (
                hip.asarray(x), hip.zeros(n, np.int32), np.uint32(d), np.uint32(m)))
            dn = reference(x, n, "down", delta, 32, mask)
            up = reference(x, n, "up", delta, 32, mask)
            member = np.array([(mask >> (t % 32)) & 1 for t in range(n)], bool)
            want = np.where(member, dn + 1000 * up, -1)
            assert np.array_equal(got, want), (hex(mask), delta)


VEC_SRC = """extern "C" __global__ void chain2(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  v += __shfl_down_sync(0xffffffffu, v, 16);
  v += __shfl_down_sync(0xffffffffu, v, 8);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
"""


def test_fixed_distance_lane_loops_vectorise(mods, monkeypatch):
    # the deposit and read loops of a split shuffle are plain vector loops (GCC's report names
    # them at the kernel's lines); a regression to gathers or scalar loops shows here
    if "clang" in mods["regions"].program.metadata["compiler"]:
        pytest.skip("-fopt-info is GCC's")
    devs = [d for d in hip.devices() if d.platform == "cpu"]
    monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1")
    with devs[0]:
        mod = hip.Module(VEC_SRC, name="vec.hip", options=["-fopt-info-vec-optimized"])
        assert mod.program.metadata["kernels"]["chain2"]["mode"] == "regions"
        lines = {int(m) for m in re.findall(r"vec\.hip:(\d+):\d+: optimized: loop vectorized",
                                            mod.program.log)}
        assert lines & {4, 5, 6}, mod.program.log
        x = np.arange(512, dtype=np.float32)
        out = hip.zeros(512, np.float32)
        mod.get_function("chain2")(2, 256, (hip.asarray(x), out))
        hip.synchronize()
        w = x.reshape(-1, 32)
        lane = np.arange(32)
        a = w + np.where(lane + 16 < 32, np.roll(w, -16, axis=1), w)  # past the end: own v
        want = a + np.where(lane + 8 < 32, np.roll(a, -8, axis=1), a)
        assert np.array_equal(out.get(), want.ravel())
