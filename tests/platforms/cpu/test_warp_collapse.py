"""Warp functions, cooperative groups, synchronising helpers and multi-declarator lines on the
CPU platform's fast path (regions mode, warp-level split points: rewrite.py + regions.py).

Every kernel runs split and as fibers: the two give the same bits, and both the answer numpy
gives.  What cannot be split provably runs as fibers, with the reason in program.metadata.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import openhip as hip
from openhip.compiler.scan import apply_edits, scan
from openhip.platforms.cpu import regions
from openhip.platforms.cpu.regions import split_kernels

CORPUS = Path(__file__).resolve().parents[2] / "kernels" / "corpus"
RNG = np.random.default_rng(11)


@pytest.fixture
def cpu_device():
    devs = [d for d in hip.devices() if d.platform == "cpu"]
    if not devs:
        pytest.skip("no CPU platform")
    with devs[0]:
        yield devs[0]


def plans(src: str) -> dict[str, tuple[bool, str]]:
    result = scan(src)
    _, found = split_kernels(src, result, "k.hip",
                             [k.name for k in result.kernels.values() if k.uses_sync])
    return {name: (p.function is not None, p.reason) for name, p in found.items()}


def both(src: str, monkeypatch, expect: dict[str, str], name: str = "k.hip"):
    """The module compiled split and as fibers; checks each kernel's mode."""
    out = {}
    for mode in ("regions", "fibers"):
        monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1" if mode == "regions" else "0")
        mod = hip.Module(src, name=name)
        meta = mod.program.metadata["kernels"]
        for k, want in expect.items():
            got = meta[k]["mode"]
            assert got == (want if mode == "regions" else "fibers"), (k, meta[k])
            if got == "fibers" and mode == "regions":
                assert meta[k].get("regions_refused")
        out[mode] = mod
    return out


def run_both(mods, kernel: str, grid, block, make_args, outputs=1):
    """Runs ``kernel`` in both modules on fresh arguments; returns the split run's outputs
    (the last ``outputs`` arguments, or the arguments at the indices ``outputs`` lists), after
    checking that the fibers gave the same bits."""
    res = {}
    for mode, mod in mods.items():
        args = make_args()
        mod.get_function(kernel)(grid, block, args)
        hip.synchronize()
        idx = range(len(args) - outputs, len(args)) if isinstance(outputs, int) else outputs
        res[mode] = [args[i].get() for i in idx]
    for a, b in zip(res["regions"], res["fibers"], strict=True):
        assert a.tobytes() == b.tobytes(), f"{kernel}: regions and fibers differ"
    return res["regions"]


def test_regions_digest_covers_rewrite(tmp_path):
    # the compile cache keys on the splitter's code: a change of rewrite.py (or of the other
    # transformation modules) changes the digest
    from openhip.platforms.cpu import platform as cpu_platform
    src = Path(regions.__file__).parent
    here = tmp_path / "platforms" / "cpu"
    here.mkdir(parents=True)
    (tmp_path / "compiler").mkdir()
    for name in ("regions.py", "rewrite.py", "idioms.py", "static_shared.py", "compiler.py"):
        (here / name).write_bytes((src / name).read_bytes())
    (tmp_path / "compiler" / "scan.py").write_bytes((src.parent.parent / "compiler" /
                                                     "scan.py").read_bytes())
    first = cpu_platform._transform_digest(str(here))
    assert first == cpu_platform._regions_digest()
    seen = {first}
    for f in (here / "rewrite.py", here / "regions.py", here / "idioms.py",
              here / "static_shared.py", here / "compiler.py", tmp_path / "compiler" / "scan.py"):
        f.write_bytes(f.read_bytes() + b"\n# changed\n")
        d = cpu_platform._transform_digest(str(here))
        assert d not in seen, f.name
        seen.add(d)


# ---- multi-declarator lines ---------------------------------------------------------------------------
def test_multi_declarator_line_splits_like_two_lines():
    one = """__global__ void k(const float* in, float* out) {
      __shared__ float s[256];
      unsigned t = threadIdx.x, i = blockIdx.x * 256 + t, *unused = 0;
      s[t] = in[i];
      __syncthreads();
      for (unsigned k = 128; k > 0; k >>= 1) { if (t < k) s[t] += s[t + k]; __syncthreads(); }
      if (t == 0) out[blockIdx.x] = s[0];
    }"""
    result = scan(one)
    edits, found = split_kernels(one, result, "k.hip", ["k"])
    assert found["k"].function
    text = apply_edits(one, edits)
    generated = text[text.index("__openhip_rg_k"):]
    # t is recomputed in each region (no per-thread array), the line is split on the same line
    assert "__oh_T0" not in generated
    assert "unsigned t = threadIdx.x;\n#line 3" in generated
    assert "unsigned *unused = 0;" in generated


def test_declarations_that_must_stay_whole():
    src = """__global__ void k(int* o) {
      struct { int a; } x, y;
      x.a = 1; __syncthreads(); y.a = 2;
      for (int i = 0, j = 1; i < 2; ++i) { __syncthreads(); o[threadIdx.x] = i + j; }
    }"""
    result = scan(src)
    edits, found = split_kernels(src, result, "k.hip", ["k"])
    if found["k"].function:
        text = apply_edits(src, edits)
        assert "struct { int a; } x, y;" in text and "int i = 0, j = 1;" in text


# ---- synchronising helpers ----------------------------------------------------------------------------
HELPERS = r"""
#define FULL 0xffffffffu
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
  return v;  // lane 0 has the sum
}
template <typename T>
__device__ T warp_max(T v) {
  // a butterfly: every lane has the max
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(FULL, v, o));
  return v;
}
__device__ void block_tree(float* s, unsigned t) {
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
}
__device__ void swap_halves(int& a, int& b) { int t = a; a = b; b = t; __syncthreads(); }
__device__ int early(int* p) { if (p[0]) return 1; __syncthreads(); return 0; }

__global__ void helpers(const float* in, float* sums, int* maxes, float* tree) {
  __shared__ float s[128];
  const unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  float v = in[g];
  float w = warp_sum(v) + 1.0f;
  int m = (int)v;
  m = warp_max(m);
  s[t] = v;
  __syncthreads();
  block_tree(s, t);
  sums[g] = w;
  maxes[g] = m;
  if (t == 0) tree[blockIdx.x] = s[0];
}
__global__ void swapped(int* a, int* b) {
  int x = a[threadIdx.x], y = b[threadIdx.x];
  swap_halves(x, y);
  a[threadIdx.x] = x;
  b[threadIdx.x] = y;
}
__global__ void not_inlined(int* p) {
  int r = early(p);
  __syncthreads();
  p[threadIdx.x + 1] = r;
}
"""


def test_helpers_inlined(cpu_device, monkeypatch):
    ok, reason = plans(HELPERS)["not_inlined"]
    assert not ok and "uses early where it cannot be split" in reason, reason
    mods = both(HELPERS, monkeypatch, {"helpers": "regions", "swapped": "regions",
                                       "not_inlined": "fibers"})
    x = RNG.integers(0, 100, 4 * 128).astype(np.float32)
    sums, maxes, tree = run_both(
        mods, "helpers", 4, 128,
        lambda: (hip.asarray(x), hip.zeros(x.size, np.float32), hip.zeros(x.size, np.int32),
                 hip.zeros(4, np.float32)), outputs=3)
    w = x.reshape(-1, 32)
    lane0 = np.arange(x.size) % 32 == 0
    np.testing.assert_array_equal(sums[lane0], w.sum(axis=1) + 1)
    np.testing.assert_array_equal(maxes, np.repeat(w.max(axis=1), 32).astype(np.int32))
    np.testing.assert_array_equal(tree, x.reshape(4, 128).sum(axis=1))
    a = np.arange(64, dtype=np.int32)
    b = -a
    got = run_both(mods, "swapped", 1, 64, lambda: (hip.asarray(a), hip.asarray(b)), outputs=2)
    np.testing.assert_array_equal(got[0], b)
    np.testing.assert_array_equal(got[1], a)


# ---- warp functions at their edges --------------------------------------------------------------------
def _edges(monkeypatch):
    src = (CORPUS / "warp_edges.hip").read_text()
    return both(src, monkeypatch, {k: "regions" for k in (
        "shfl_widths", "partial_and_exited", "half_masks", "rows_2d", "match_nested",
        "syncwarp_exchange")}, name="corpus/warp_edges.hip")


def _ref_lanes(v: np.ndarray, src) -> np.ndarray:
    """Per warp of 32: out[l] = v[src(l)] (src(l) None: v[l])."""
    out = v.copy()
    for base in range(0, v.size, 32):
        for lane in range(32):
            s = src(lane)
            out[base + lane] = v[base + (lane if s is None else s)]
    return out


def test_shuffle_widths_and_lanes(cpu_device, monkeypatch):
    mods = _edges(monkeypatch)
    x = RNG.integers(-1000, 1000, 2 * 64).astype(np.int32)
    for sel in (0, 1):
        got = run_both(mods, "shfl_widths", 2, 64,
                       lambda sel=sel: (hip.asarray(x), hip.zeros(x.size * 6, np.int32),
                                        np.int32(sel)), outputs=(1,))[0].reshape(-1, 6)
        t = np.arange(x.size) % 64

        def seg(lane, w):
            return lane - lane % w

        want_a = np.array([x[(i - i % 32) + seg(i % 32, 8) + (((t[i] * 7 + 3) % 41 - 4) % 8)]
                           for i in range(x.size)], np.int32)
        want_b = _ref_lanes(x, lambda lane: None if lane % 16 < 3 else lane - 3)
        want_c = _ref_lanes(x, lambda lane: None if lane % 16 + 5 >= 16 else lane + 5)
        want_d = _ref_lanes(x, lambda lane: lane ^ 9)
        want_e = _ref_lanes(x, lambda lane: None if (lane ^ 6) >= seg(lane, 4) + 4 else lane ^ 6)
        w = 2 if sel == 0 else 32
        want_f = _ref_lanes(x, lambda lane, w=w: None if lane % w + 1 >= w else lane + 1)
        for col, want in enumerate((want_a, want_b, want_c, want_d, want_e, want_f)):
            np.testing.assert_array_equal(got[:, col], want, err_msg=f"column {col}")


def test_partial_warps_and_exited_lanes(cpu_device, monkeypatch):
    mods = _edges(monkeypatch)
    x = RNG.integers(0, 1 << 40, 3 * 48).astype(np.int64)
    out, votes = run_both(mods, "partial_and_exited", 3, 48,
                          lambda: (hip.asarray(x), hip.zeros(x.size, np.int64),
                                   hip.zeros(2 * x.size, np.uint32)), outputs=2)
    t = np.arange(48)
    alive = t % 11 != 10
    for blk in range(3):
        v = x[blk * 48:(blk + 1) * 48]
        for i in np.flatnonzero(alive):
            base, lane = i - i % 32, i % 32

            def read(src, i=i, base=base, v=v):
                g = base + src
                return v[g] if g == i or (g < 48 and alive[g]) else 0
            down = read(lane + 4) if lane + 4 < 32 else v[i]
            assert out[blk * 48 + i] == down + read(lane ^ 1), (blk, i)
            live = [g for g in range(base, min(base + 32, 48)) if alive[g]]
            ballot = sum(1 << (g - base) for g in live if v[g] & 1)
            assert votes[2 * (blk * 48 + i)] == ballot
            assert votes[2 * (blk * 48 + i) + 1] == sum(1 << (g - base) for g in live)


def test_half_warp_masks_and_2d_blocks(cpu_device, monkeypatch):
    mods = _edges(monkeypatch)
    x = RNG.integers(0, 50, 2 * 64).astype(np.float32)
    got = run_both(mods, "half_masks", 2, 64,
                   lambda: (hip.asarray(x), hip.zeros(x.size, np.float32)))[0]
    want = np.empty_like(x)
    for base in range(0, x.size, 32):
        w = x[base:base + 32].copy()
        lo = w[:16] + w[np.arange(16) ^ 1]
        lo = lo + np.where(np.arange(16) + 2 < 16, lo[np.minimum(np.arange(16) + 2, 15)], lo)
        want[base:base + 16] = lo
        want[base + 16:base + 32] = w[16:] * w[31]
    np.testing.assert_array_equal(got, want)
    y = RNG.integers(0, 1000, 3 * 128).astype(np.int32)
    got = run_both(mods, "rows_2d", 3, (16, 8),
                   lambda: (hip.asarray(y), hip.zeros(y.size, np.int32)))[0]
    sums = np.repeat(y.reshape(-1, 32).sum(axis=1), 32)
    rows = (np.arange(y.size) % 128) // 16
    shifted = sums.copy()  # lanes of even row pairs read lane threadIdx.x of their 16-segment
    np.testing.assert_array_equal(got, np.where((rows // 2) % 2 == 0, shifted, sums))


def test_match_nested_and_syncwarp(cpu_device, monkeypatch):
    mods = _edges(monkeypatch)
    keys = RNG.integers(0, 8, 64).astype(np.int32)
    keys[32:] = keys[32:] % 4  # warp 1: key / 4 all equal
    got = run_both(mods, "match_nested", 1, 64,
                   lambda: (hip.asarray(keys), hip.zeros(4 * 64, np.uint32)))[0].reshape(64, 4)
    for warp in range(2):
        k = keys[warp * 32:(warp + 1) * 32]
        same = bool(np.all(k // 4 == k[0] // 4))
        assert np.all(got[warp * 32:(warp + 1) * 32, 0] == (0xFFFFFFFF if same else 0))
        assert np.all(got[warp * 32:(warp + 1) * 32, 1] == int(same))
        assert np.all(got[warp * 32:(warp + 1) * 32, 2] == sum(1 << i for i in range(32)
                                                               if k[i] > 3))
        assert np.all(got[warp * 32:(warp + 1) * 32, 3] == (int(7 in k) | 2))
    x = RNG.integers(0, 100, 128).astype(np.int32)
    got = run_both(mods, "syncwarp_exchange", 1, 128,
                   lambda: (hip.asarray(x), hip.zeros(128, np.int32)))[0]
    want = np.where((np.arange(128) // 32) != 1, np.repeat(x.reshape(4, 32).sum(axis=1), 32), x)
    np.testing.assert_array_equal(got, want)


# ---- cooperative groups -------------------------------------------------------------------------------
def test_cooperative_groups_spellings(cpu_device, monkeypatch):
    src = (CORPUS / "cg_styles.hip").read_text()
    mods = both(src, monkeypatch, {"sum_kernel_block": "regions", "cg_reduce4": "regions",
                                   "tile16_votes": "regions", "tile_collectives": "regions",
                                   "tile64_sync": "fibers"}, name="corpus/cg_styles.hip")
    x = RNG.integers(0, 100, 3 * 256).astype(np.int32)
    got = run_both(mods, "sum_kernel_block", 3, 256,
                   lambda: (hip.zeros(3, np.int32), hip.asarray(x)), outputs=(0,))[0]
    np.testing.assert_array_equal(got, x.reshape(3, 256).sum(axis=1))
    f = RNG.integers(0, 8, 5 * 512 - 7).astype(np.float32)
    got = run_both(mods, "cg_reduce4", 5, 256,
                   lambda: (hip.asarray(f), hip.zeros(5, np.float32), np.uint32(f.size)),
                   outputs=(1,))[0]
    np.testing.assert_array_equal(got, np.add.reduceat(f, np.arange(5) * 512))
    v = RNG.integers(0, 100, 2 * 128).astype(np.int32)
    outs = run_both(mods, "tile16_votes", 2, 128,
                    lambda: (hip.asarray(v), hip.zeros(256, np.int32), hip.zeros(256, np.int32),
                             hip.zeros(256, np.uint32), hip.zeros(256, np.float64)), outputs=4)
    staged = np.concatenate([np.roll(v[b * 128:(b + 1) * 128], -5) for b in range(2)])
    seg = staged.reshape(-1, 16)
    np.testing.assert_array_equal(outs[0], np.repeat((seg > 90).any(axis=1), 16))
    np.testing.assert_array_equal(outs[1], np.repeat((seg > 5).all(axis=1), 16))
    bits = (seg % 2 == 0) * (1 << np.arange(16))
    np.testing.assert_array_equal(outs[2], np.repeat(bits.sum(axis=1), 16).astype(np.uint32))
    d = staged * 0.5
    lane = np.arange(256) % 16
    d = d + d[(np.arange(256) - lane) + (lane ^ 3)]
    np.testing.assert_array_equal(outs[3], d + d[(np.arange(256) - lane) + 15])
    k = RNG.integers(-50, 50, 2 * 64).astype(np.int32)
    sums, maxes, scans = run_both(
        mods, "tile_collectives", 2, 64,
        lambda: (hip.asarray(k), hip.zeros(128, np.int32), hip.zeros(128, np.int32),
                 hip.zeros(128, np.int32)), outputs=3)
    w = k.reshape(-1, 32)
    np.testing.assert_array_equal(sums, np.repeat(w.sum(axis=1), 32))
    np.testing.assert_array_equal(maxes, np.repeat(w.max(axis=1), 32))
    np.testing.assert_array_equal(scans, np.cumsum(w, axis=1).ravel())


# ---- what is not split, and why -----------------------------------------------------------------------
@pytest.mark.parametrize("body,words", [
    ("while (__any_sync(0xffffffffu, o[threadIdx.x] > 0)) o[threadIdx.x]--;", "__any_sync"),
    ("if (o[threadIdx.x] > 0 && __all_sync(0xffffffffu, 1)) o[0] = 1;", "__all_sync"),
    ("if (o[threadIdx.x]) o[threadIdx.x] = __shfl_down(o[threadIdx.x], 1);",
     "without a mask"),
    ("if (o[threadIdx.x]) o[threadIdx.x] = __activemask();", "without a mask"),
    ("for (int i = threadIdx.x; i < 64; i += 32) o[i] = __shfl_xor_sync(~0u, o[i], 1);",
     "for loop"),
    ("o[threadIdx.x] = o[0] ? __shfl_sync(~0u, 1, 0) : 0;", "__shfl_sync"),
    ("auto f = [&](int v) { return __shfl_sync(~0u, v, 0); }; o[threadIdx.x] = f(1);",
     "__shfl_sync"),
])
def test_warp_shapes_that_stay_fibers(body, words):
    ok, reason = plans(f"__global__ void k(int* o) {{ {body} }}\n")["k"]
    assert not ok and words in reason, reason


def test_cooperative_group_calls_left_to_fibers():
    src = """#include <hip/hip_cooperative_groups.h>
    namespace cg = cooperative_groups;
    __global__ void k(int* o) {
      auto g = cg::coalesced_threads();
      o[threadIdx.x] = g.shfl(o[threadIdx.x], 0);
    }
    __global__ void k2(int* o) {
      cg::thread_block b = cg::this_thread_block();
      auto t = cg::tiled_partition(b, 32);
      t.sync();
      o[threadIdx.x] = 1;
    }"""
    found = plans(src)
    assert not found["k"][0] and "coalesced_threads" in found["k"][1]
    assert not found["k2"][0] and "tiled_partition" in found["k2"][1]


# ---- random warp kernels, split against fibers --------------------------------------------------------
def _random_warp_kernel(rng: np.random.Generator, index: int) -> str:
    ops = []
    for _ in range(rng.integers(3, 7)):
        kind = rng.integers(0, 7)
        w = int(rng.choice([4, 8, 16, 32]))
        d = int(rng.integers(0, 33))
        if kind == 0:
            ops.append(f"v += __shfl_down_sync(0xffffffffu, v, {d}, {w});")
        elif kind == 1:
            ops.append(f"v ^= __shfl_up_sync(0xffffffffu, v * 3, {d}, {w});")
        elif kind == 2:
            ops.append(f"v = __shfl_sync(0xffffffffu, v + {d}, (lane * {d} + 1) % 37, {w});")
        elif kind == 3:
            ops.append(f"for (int o = 1; o < {w}; o <<= 1) v += __shfl_xor_sync(~0u, v, o, {w});")
        elif kind == 4:
            ops.append(f"v += __popc(__ballot_sync(0xffffffffu, (v & {1 + d % 7}) != 0));")
        elif kind == 5:
            ops.append(f"if (warp % 2 == {d % 2}) {{ v -= __shfl_xor_sync(~0u, v, {1 + d % 31}); }}")
        else:
            ops.append(f"if (__any_sync(~0u, v % {3 + d} == 0)) v += {d}; "
                       f"s[threadIdx.x] = v; __syncthreads(); v += s[threadIdx.x ^ {1 + d % 63}];"
                       " __syncthreads();")
    body = "\n    ".join(ops)
    return textwrap.dedent(f"""
    __global__ void rw{index}(const int* in, int* out) {{
      __shared__ int s[128];
      const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
      int v = in[blockIdx.x * blockDim.x + threadIdx.x];
      {body}
      out[blockIdx.x * blockDim.x + threadIdx.x] = v;
    }}""")


_CHILD = r"""
import os, sys, json
import numpy as np
import openhip as hip
src = sys.stdin.read()
names = json.loads(sys.argv[1])
x = np.random.default_rng(5).integers(-1000, 1000, 2 * 128).astype(np.int32)
res = {}
for mode in ("regions", "fibers"):
    os.environ["OPENHIP_CPU_REGIONS"] = "1" if mode == "regions" else "0"
    mod = hip.Module(src, name="random_warp.hip")
    meta = mod.program.metadata["kernels"]
    outs = []
    for n in names:
        out = hip.zeros(x.size, np.int32)
        mod.get_function(n)(2, 128, (hip.asarray(x), out))
        outs.append(out.get().tolist())
    res[mode] = {"modes": {n: meta[n]["mode"] for n in names},
                 "why": {n: meta[n].get("regions_refused", "") for n in names}, "outs": outs}
print(json.dumps(res))
"""


def test_random_warp_kernels_agree_with_fibers(cpu_device):
    import json

    rng = np.random.default_rng(2025)
    kernels = [_random_warp_kernel(rng, i) for i in range(14)]
    names = [f"rw{i}" for i in range(14)]
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(names)],
                          input="\n".join(kernels), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout)
    split = [n for n in names if res["regions"]["modes"][n] == "regions"]
    assert len(split) == len(names), res["regions"]["why"]
    for i, n in enumerate(names):
        assert res["regions"]["outs"][i] == res["fibers"]["outs"][i], (n, kernels[i])


def test_reasons_name_lines():
    src = "__global__ void k(int* o) {\n  int v = o[threadIdx.x];\n" \
          "  if (v) v = __shfl_xor(v, 1);\n  o[threadIdx.x] = v;\n}\n"
    ok, reason = plans(src)["k"]
    assert not ok and re.search(r"line 3\b", reason), reason


def test_helper_names_are_not_captured(cpu_device, monkeypatch):
    # the helper's own locals are renamed (the kernel's `acc` and `i` are not touched); a
    # helper naming a global the kernel shadows with a local is not inlined
    src = r"""
    __constant__ int bias[1];
    __device__ int shifted(int v) {
      int acc = 0;
      for (int i = 0; i < 3; ++i) { acc += __shfl_xor_sync(0xffffffffu, v + i, 1); }
      __syncwarp();
      return acc + bias[0];
    }
    __global__ void uses(const int* in, int* out) {
      int acc = in[threadIdx.x], i = 100;
      acc = shifted(acc) + i;
      out[threadIdx.x] = acc;
    }
    __global__ void shadows(const int* in, int* out) {
      int bias = 7;
      out[threadIdx.x] = shifted(in[threadIdx.x]) + bias;
    }
    """
    found = plans(src)
    assert found["uses"][0], found["uses"]
    assert not found["shadows"][0] and "shifted" in found["shadows"][1]
    mods = both(src, monkeypatch, {"uses": "regions", "shadows": "fibers"})
    mods["regions"].get_global("bias").set(np.array([5], np.int32))
    mods["fibers"].get_global("bias").set(np.array([5], np.int32))
    x = RNG.integers(-9, 9, 64).astype(np.int32)
    got = run_both(mods, "uses", 1, 64, lambda: (hip.asarray(x), hip.zeros(64, np.int32)))[0]
    partner = x[np.arange(64) ^ 1]
    np.testing.assert_array_equal(got, 3 * partner + 3 + 5 + 100)
    got = run_both(mods, "shadows", 1, 64, lambda: (hip.asarray(x), hip.zeros(64, np.int32)))[0]
    np.testing.assert_array_equal(got, 3 * partner + 3 + 5 + 7)


def test_lanes_that_skip_a_full_mask_shuffle_read_as_fibers_read_them(cpu_device, monkeypatch):
    # undefined on a GPU (the mask names lanes that never arrive): the split kernel gives what
    # the fibers give (the missing lanes read as 0), never a stale value of another block
    src = r"""
    __global__ void k(const int* in, int* out) {
      const int lane = threadIdx.x & 31;
      int v = in[blockIdx.x * blockDim.x + threadIdx.x];
      if (lane < 16) {
        v += __shfl_xor_sync(0xffffffffu, v, 16);
      }
      out[blockIdx.x * blockDim.x + threadIdx.x] = v;
    }"""
    mods = both(src, monkeypatch, {"k": "regions"})
    x = RNG.integers(1, 100, 4 * 64).astype(np.int32)
    got = run_both(mods, "k", 4, 64, lambda: (hip.asarray(x), hip.zeros(x.size, np.int32)))[0]
    want = x  # lanes 0-15 add 0 from the lanes that left, lanes 16-31 keep their value
    np.testing.assert_array_equal(got, want)
