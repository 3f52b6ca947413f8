"""Warp reduction and scan loops split once as a whole on the CPU platform's split path
(openhip/platforms/cpu/idioms.py, rewrite.expand_warp_calls, warp.h wc_chain).

Every kernel (warp_idioms.hip, per element type) runs split and as fibers -- the same bits --
and against numpy, which repeats HIP's shuffle arithmetic step by step (the source lane, a lane
outside the width reading its own value, a non-participant source reading 0): the recognised
forms (halving and doubling distances, butterflies, widths 8 and 16, plain shuffles, scans with
a conditional update, tile members, cg::reduce / cg::inclusive_scan with several operators),
block sizes 32 to 1024 and a partial last warp, warp-uniform and per-lane guards, a partial mask
and exited lanes; and near misses, which must not be recognised and still agree with fibers.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from cpu_helpers import run_split_and_fibers, split_and_fibers_modules

import openhip as hip

TYPES = {"f32": ("float", np.float32), "f64": ("double", np.float64),
         "i32": ("int", np.int32), "u32": ("unsigned", np.uint32)}
INTS = {"i32": ("int", np.int32), "u32": ("unsigned", np.uint32), "i64": ("long long", np.int64)}

_TEXT = Path(__file__).with_name("warp_idioms.hip").read_text()
_HEAD, _REST = _TEXT.split("// ---- recognised", 1)
_TYPED, _REST = _REST.split("// ---- integer-only forms", 1)
_INTS, _OTHER = _REST.split("extern \"C\" __global__ void float_max", 1)
_TYPED, _INTS = "//" + _TYPED, "//" + _INTS  # the marker lines' rest


def _source() -> str:
    parts = [_HEAD]
    for name, (ctype, _) in TYPES.items():
        parts.append(re.sub(r"_T\b", "_" + name, re.sub(r"\bT\b", ctype, _TYPED)))
    for name, (ctype, _) in INTS.items():
        parts.append(re.sub(r"_I\b", "_" + name, re.sub(r"\bI\b", ctype, _INTS)))
    parts.append("extern \"C\" __global__ void float_max" + _OTHER)
    return "\n".join(parts)


SRC = _source()
RECOGNISED = {"down_add": 1, "down_plus": 1, "xor_add": 1, "down_up16": 1, "plain8": 1,
              "scan_up": 1, "scan_up16": 1, "scan_lane": 1, "block_sum": 2, "tile_members": 2, "cg_reduce": 3,
              "cg_reduce16": 2, "cg_exclusive": 2}
MISSES = ("miss_store", "miss_other", "miss_index", "miss_cond")


@pytest.fixture(scope="module")
def mods():
    return split_and_fibers_modules(SRC, "warp_idioms.hip")


def run(mods, kernel, grid, block, make_args, out_index=1):
    """The kernel's output split and as fibers (asserted bit-identical)."""
    return run_split_and_fibers(mods, kernel, grid, block, make_args, out_index)


def values(np_type, n, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(np_type, np.floating):
        return (rng.standard_normal(n) * 10).astype(np_type)
    return rng.integers(0, 1000, n).astype(np_type)


# ---- numpy: HIP's shuffles, step by step --------------------------------------------------------------
def _src(kind: str, lane: int, d: int, width: int) -> int:
    if kind == "down":
        return lane if (lane & (width - 1)) + d >= width else lane + d
    if kind == "up":
        return lane if lane - d < (lane & ~(width - 1)) else lane - d
    index = lane ^ d
    return lane if index >= ((lane + width) & ~(width - 1)) else index & 31


def chain(x, kind, width, offsets, op, cond=None, active=None, mask=0xFFFFFFFF, gcond=None):
    """Each warp of ``x`` after the loop: v = op(v, shfl(v, d)) per step (under ``cond(lane,
    d)``, or ``gcond(thread, d)``); ``active``: the lanes that run it (default: those that
    exist)."""
    x = np.asarray(x)
    n = x.size
    act = np.ones(n, bool) if active is None else np.asarray(active, bool)
    out = x.copy()
    for base in range(0, n, 32):
        lanes = range(min(32, n - base))
        v = {lane: x[base + lane] for lane in lanes}
        for d in offsets:
            new = dict(v)
            for lane in lanes:
                if not act[base + lane]:
                    continue
                s = _src(kind, lane, d, width)
                ok = s == lane or (s in v and act[base + s] and (mask >> s) & 1)
                y = v[s] if ok else x.dtype.type(0)
                if (cond is None or cond(lane, d)) and (gcond is None or gcond(base + lane, d)):
                    new[lane] = op(v[lane], y)
            v = new
        for lane in lanes:
            out[base + lane] = v[lane]
    return out


def add(a, b):
    with np.errstate(over="ignore"):
        return np.asarray(a + b).astype(np.asarray(a).dtype)[()]


# ---- recognised forms ---------------------------------------------------------------------------------
def test_recognised_in_metadata(mods):
    meta = mods["regions"].program.metadata["kernels"]
    for base, count in RECOGNISED.items():
        for name in TYPES:
            m = meta[f"{base}_{name}"]
            assert m["mode"] == "regions", (base, name, m)
            assert len(m.get("warp_idioms", [])) == count, (base, name, m.get("warp_idioms"))
    for name in INTS:
        assert len(meta[f"int_forms_{name}"]["warp_idioms"]) == 4, meta[f"int_forms_{name}"]
    assert len(meta["float_max"]["warp_idioms"]) == 1
    assert len(meta["guarded"]["warp_idioms"]) == 2
    assert len(meta["masked"]["warp_idioms"]) == 1
    assert "broadcast" in " ".join(meta["cg_reduce_f32"]["warp_idioms"])
    for miss in MISSES:
        assert meta[miss]["mode"] == "regions", meta[miss]
        assert "warp_idioms" not in meta[miss], meta[miss]
    for m in mods["fibers"].program.metadata["kernels"].values():
        assert m["mode"] == "fibers" and "warp_idioms" not in m


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("block", [32, 64, 256, 1024, 80])
def test_reductions_and_scans(mods, name, block):
    np_type = TYPES[name][1]
    x = values(np_type, block, block)

    def go(kernel):
        return run(mods, f"{kernel}_{name}", 1, block,
                   lambda: (hip.asarray(x), hip.zeros(block, np_type)))

    halving = [16, 8, 4, 2, 1]
    assert go("down_add").tobytes() == chain(x, "down", 32, halving, add).tobytes()
    assert go("down_plus").tobytes() == chain(x, "down", 32, halving, add).tobytes()
    assert go("xor_add").tobytes() == chain(x, "xor", 32, halving, add).tobytes()
    assert go("down_up16").tobytes() == chain(x, "down", 16, [1, 2, 4, 8],
                                              lambda v, y: add(y, v)).tobytes()
    assert go("plain8").tobytes() == chain(x, "down", 8, [4, 2, 1], add).tobytes()
    want = chain(x, "up", 32, [1, 2, 4, 8, 16], add, cond=lambda lane, d: lane >= d)
    assert go("scan_up").tobytes() == want.tobytes()
    want = chain(x, "up", 16, [1, 2, 4, 8], add, cond=lambda lane, d: (lane & 15) >= d)
    assert go("scan_up16").tobytes() == want.tobytes()
    if np.issubdtype(np_type, np.integer):
        # integer sums do not depend on the order: the scan is numpy's within each width
        got = go("scan_up")
        for base in range(0, block, 32):
            assert np.array_equal(got[base:base + 32], np.cumsum(x[base:base + 32]).astype(np_type))


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("block", [(256, 1), (80, 1), (16, 4), (48, 2), (8, 8)])
def test_scan_on_lane_of_x(mods, name, block):
    # `lane = threadIdx.x % 32`: in a 2-D block it is not the warp's lane (the bits path)
    np_type = TYPES[name][1]
    n = block[0] * block[1]
    x = values(np_type, n, n + 5)
    got = run(mods, f"scan_lane_{name}", 1, block,
              lambda: (hip.asarray(x), hip.zeros(n, np_type)))
    want = chain(x, "up", 32, [1, 2, 4, 8, 16], add,
                 gcond=lambda t, d: (t % block[0]) % 32 >= d)
    assert got.tobytes() == want.tobytes(), block


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("block", [64, 256, 1024, 96, 80])
def test_block_reduction(mods, name, block):
    np_type = TYPES[name][1]
    grid = 3
    x = values(np_type, grid * block, block + 1)
    got = run(mods, f"block_sum_{name}", grid, block,
              lambda: (hip.asarray(x), hip.zeros(grid, np_type)))
    halving = [16, 8, 4, 2, 1]
    for b in range(grid):
        part = chain(x[b * block:(b + 1) * block], "down", 32, halving, add)
        sums = part[::32]
        lanes = np.zeros(32, np_type)
        lanes[:sums.size] = sums
        assert got[b] == chain(lanes, "down", 32, halving, add)[0], (b, block)
        if np.issubdtype(np_type, np.integer):
            assert got[b] == x[b * block:(b + 1) * block].sum(dtype=np_type)


def _cg_reduce(x, n, op):
    """rewrite.py's cg::reduce over tiles of n: the tree by doubling distances, then lane 0."""
    rank = np.arange(x.size) % n
    steps = [1 << k for k in range(n.bit_length() - 1)]
    v = chain(x, "down", n, steps, op,
              cond=lambda lane, d: ((lane % n) & (2 * d - 1)) == 0 and (lane % n) + d < n)
    return v[np.arange(x.size) - rank]


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("block", [32, 256, 1024])
def test_tiles_and_cg(mods, name, block):
    np_type = TYPES[name][1]
    x = values(np_type, block, block + 7)

    def go(kernel):
        return run(mods, f"{kernel}_{name}", 1, block,
                   lambda: (hip.asarray(x), hip.zeros(block, np_type)))

    v = chain(x, "down", 16, [8, 4, 2, 1], add)
    w = chain(x, "xor", 16, [8, 4, 2, 1], add)
    assert go("tile_members").tobytes() == add(v, w).tobytes()
    plus = _cg_reduce(x, 32, add)
    with np.errstate(over="ignore"):
        want = plus + _cg_reduce(x, 32, np.maximum) * np_type(3) + \
            _cg_reduce(x, 32, np.minimum) * np_type(5)
    got = go("cg_reduce")
    if np.issubdtype(np_type, np.floating):
        assert np.allclose(got, want.astype(np_type), rtol=1e-5)
    else:
        assert np.array_equal(got, want.astype(np_type))
    scan = chain(x, "up", 16, [1, 2, 4, 8], lambda a, y: add(y, a),
                 cond=lambda lane, d: (lane & 15) >= d)
    assert go("cg_reduce16").tobytes() == add(_cg_reduce(x, 16, add), scan).tobytes()
    # cg::exclusive_scan: the inclusive scan of the lane before, T{} at lane 0 of each tile
    inc = [chain(x, "up", 32, [1, 2, 4, 8, 16], op, cond=lambda lane, d: lane >= d)
           for op in (lambda a, y: add(y, a), lambda a, y: np.maximum(y, a))]
    exc = [np.where(np.arange(block) % 32 == 0, np_type(0), np.roll(i, 1)) for i in inc]
    with np.errstate(over="ignore"):
        want = (exc[0] + exc[1] * np_type(2)).astype(np_type)
    assert go("cg_exclusive").tobytes() == want.tobytes()


@pytest.mark.parametrize("name", list(INTS))
def test_integer_forms(mods, name):
    np_type = INTS[name][1]
    for block in (32, 256, 80):
        x = values(np_type, block, block + 3)
        got = run(mods, f"int_forms_{name}", 1, block,
                  lambda x=x, block=block: (hip.asarray(x), hip.zeros(block, np_type)))
        halving = [16, 8, 4, 2, 1]
        a = chain(x, "down", 32, halving, np.maximum)
        b = chain(x, "xor", 32, halving, np.bitwise_xor)
        c = chain(x, "xor", 32, halving, lambda v, y: np.minimum(y, v))
        d = _cg_reduce(x, 32, np.bitwise_xor)
        with np.errstate(over="ignore"):
            want = (a + np_type(7) * b + np_type(13) * c + np_type(17) * d).astype(np_type)
        assert np.array_equal(got, want), block


def test_float_max(mods):
    x = values(np.float32, 256, 11)
    got = run(mods, "float_max", 1, 256, lambda: (hip.asarray(x), hip.zeros(256, np.float32)))
    assert np.array_equal(got, np.repeat(x.reshape(-1, 32).max(axis=1), 32))


def test_guarded_and_exited_lanes(mods):
    # lanes 5 and 40 exit; the others run the loops if the run-time mask names them
    n = 80
    x = np.arange(1, n + 1, dtype=np.int32)
    for runs_mask in (0xFFFFFFFF, 0x0F0FF0F1, 0xFFFF0000, 0x7FFFFFFE):
        got = run(mods, "guarded", 1, n, lambda m=runs_mask: (
            hip.asarray(x), hip.zeros(n, np.int32), np.uint32(m)))
        runs = np.array([t not in (5, 40) and (runs_mask >> (t % 32)) & 1 for t in range(n)],
                        bool)
        v = chain(x, "down", 32, [16, 8, 4, 2, 1], add, active=runs)
        s = chain(v, "up", 32, [1, 2, 4, 8, 16], add, cond=lambda lane, d: lane >= d,
                  active=runs)
        want = np.where(runs, v * 1000 + s, x)
        want[[5, 40]] = 0
        assert np.array_equal(got, want), hex(runs_mask)


def test_partial_mask(mods):
    for n in (32, 96, 80):
        x = np.arange(1, n + 1, dtype=np.int32) * 3
        got = run(mods, "masked", 1, n, lambda x=x, n=n: (hip.asarray(x), hip.zeros(n, np.int32)))
        mask = 0x0F0FF0F1
        runs = np.array([(mask >> (t % 32)) & 1 for t in range(n)], bool)
        want = chain(x, "xor", 32, [1, 2, 4, 8, 16], add, active=runs, mask=mask)
        assert np.array_equal(got, want), n


# ---- near misses --------------------------------------------------------------------------------------
def test_near_misses_agree_with_fibers(mods):
    x = values(np.float32, 96, 5)
    run(mods, "miss_store", 1, 64, lambda: (hip.asarray(x), hip.zeros(96, np.float32)))
    got = run(mods, "miss_other", 1, 64, lambda: (hip.asarray(x), hip.zeros(64, np.float32)))
    w = x[:64] * np.float32(2)
    want = x[:64].copy()
    for lane in range(64):  # v accumulates w's lanes: not a chain of v
        for o in (16, 8, 4, 2, 1):
            s = _src("down", lane % 32, o, 32)
            want[lane] = want[lane] + w[lane - lane % 32 + s]
    assert np.array_equal(got, want)
    xi = np.arange(64, dtype=np.int32)
    for mask in (0xFFFFFFFF, 0x0000FFFF):
        run(mods, "miss_index", 1, 64, lambda m=mask: (
            hip.asarray(xi), hip.zeros(64, np.int32), np.uint32(m)))
    run(mods, "miss_cond", 1, 64, lambda: (hip.asarray(xi), hip.zeros(64, np.int32)))


def test_unrecognised_forms_are_left(monkeypatch):
    # the matcher alone: forms it must refuse (a compile is not needed to see it)
    from openhip.compiler.scan import parse
    from openhip.platforms.cpu import idioms
    from openhip.platforms.cpu.rewrite import _declared_types

    def found(body_text: str) -> int:
        src = "__global__ void k(float* p, unsigned m) { float v = p[0]; int lane = 0; " + \
            body_text + " }"
        tree, _ = parse(src)
        func = next(n for n in tree.root_node.children if n.type == "function_definition")
        body = func.child_by_field_name("body")
        data = src.encode()
        return len(idioms.find_chains(data, body, {}, _declared_types(data, body)))

    assert found("for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);") == 1
    assert found("for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(m, v, o);") == 0
    assert found("for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(~0u, v, o, 24);") == 0
    assert found("for (int o = 16; o > 0; o -= 1) v += __shfl_down_sync(~0u, v, o);") == 0
    assert found("for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(~0u, v, o) * v;") == 0
    assert found("for (int o = 16; o > 0; o /= 2) v = v + v + __shfl_down_sync(~0u, v, o);") == 0
    assert found("for (int o = 16; o > 0; o /= 2) { v += __shfl_down_sync(~0u, v, o); "
                 "p[o] = v; }") == 0
    assert found("for (int o = 16; o > 0; o /= 2) v += __shfl_sync(~0u, v, o);") == 0
    assert found("for (int o = 16; o > 0; o /= 2) v = foo(v, __shfl_down_sync(~0u, v, o));") == 0
    assert found("for (int d = 1; d < 32; d *= 2) { float y = __shfl_up_sync(~0u, v, d); "
                 "if (lane >= d) v += y; }") == 1
    assert found("for (int d = 1; d < 32; d *= 2) { float y = __shfl_up_sync(~0u, v, d); "
                 "if (f(lane) >= d) v += y; }") == 0
    assert found("for (int d = 1; d < 32; d *= 2) { float y = __shfl_up_sync(~0u, v, d); "
                 "if (lane >= d) v += y; else v -= y; }") == 0
    assert found("for (auto o = 16; o > 0; o /= 2) v += __shfl_down_sync(~0u, v, o);") == 0
