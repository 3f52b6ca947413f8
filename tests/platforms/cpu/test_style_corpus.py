"""A corpus of kernels in the styles of public CUDA code (tests/kernels/corpus/*.hip: the CUDA
samples' reductions, scans, sorting networks, transposes, histograms, convolution, scalar
products and vote intrinsics; warp-shuffle reductions, softmax rows, aggregated atomics, and
one reduction written in several styles), each run split at its barriers and warp functions
("regions" mode) and as fibers: the two agree bit for bit, and both agree with numpy.

Every kernel's mode is pinned: a change of the splitter that sends one of them back to fibers
fails here, with the reason it gave.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import openhip as hip

CORPUS = Path(__file__).resolve().parents[2] / "kernels" / "corpus"


@pytest.fixture
def cpu_device():
    devs = [d for d in hip.devices() if d.platform == "cpu"]
    if not devs:
        pytest.skip("no CPU platform")
    with devs[0]:
        yield devs[0]


_MODULES: dict[tuple[str, str], hip.Module] = {}


def corpus_module(name: str, mode: str, monkeypatch) -> hip.Module:
    """tests/kernels/corpus/<name>.hip compiled with synchronising kernels split (``regions``)
    or as fibers, with the name expressions its first line lists."""
    key = (name, mode)
    if key not in _MODULES:
        src = (CORPUS / f"{name}.hip").read_text()
        m = re.match(r"//\s*openhip:\s*name_expressions\s*=\s*(.*)", src.splitlines()[0])
        exprs = [e.strip() for e in re.split(r",\s*(?![^<]*>)", m.group(1))] if m else []
        monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1" if mode == "regions" else "0")
        _MODULES[key] = hip.Module(src, name_expressions=exprs, name=f"corpus/{name}.hip")
    return _MODULES[key]


@dataclass
class Case:
    file: str
    kernel: str                          # as get_function names it
    mode: str                            # the mode it must get when splitting is on
    run: Callable                        # run(function) -> list of numpy arrays
    check: Callable                      # check(outputs) -> None (asserts against numpy)
    ordered: bool = True                 # False: compare sorted (atomics decide the order)
    needs_module: bool = False           # run(function, module)


RNG = np.random.default_rng(2024)


def _small_floats(n: int) -> np.ndarray:
    # small integers: every partial sum is exact in float32, so numpy's sum is the answer
    return RNG.integers(0, 8, n).astype(np.float32)


# ---- reductions -------------------------------------------------------------------------------------
N_RED = (1 << 16) + 300
X_RED = _small_floats(N_RED)
X_POW2 = _small_floats(1 << 16)


def _block_sums(x: np.ndarray, per_block: int) -> np.ndarray:
    nb = -(-x.size // per_block)
    return np.add.reduceat(x, np.arange(nb) * per_block).astype(np.float32)


def _reduce_case(kernel: str, per_block: int, grid: int | None = None, x=X_RED) -> Case:
    nb = grid or -(-x.size // per_block)

    def run(f):
        out = hip.zeros(nb, np.float32)
        f(nb, 256, (hip.asarray(x), out, np.uint32(x.size)), shared_mem=256 * 4)
        return [out.get()]

    def check(outs):
        if grid is None:
            np.testing.assert_array_equal(outs[0], _block_sums(x, per_block))
        else:
            assert outs[0].sum(dtype=np.float64) == x.sum(dtype=np.float64)
    return Case("reduction", kernel, "regions", run, check)


CASES = [
    _reduce_case("reduce0<float>", 256), _reduce_case("reduce1<float>", 256),
    _reduce_case("reduce2<float>", 256), _reduce_case("reduce3<float>", 512),
    _reduce_case("reduce4<float, 256>", 512), _reduce_case("reduce5<float, 256>", 512),
    _reduce_case("reduce6<float, 256, false>", 0, grid=40),
    _reduce_case("reduce6<float, 256, true>", 0, grid=16, x=X_POW2),
]


def _device_reduce(kernel: str, atomic: bool) -> Case:
    x = _small_floats(200_000)

    def run(f):
        out = hip.zeros(1 if atomic else 48, np.float32)
        f(48, 256, (hip.asarray(x), out, np.int32(x.size)))
        return [out.get()]

    def check(outs):
        assert outs[0].sum(dtype=np.float64) == x.sum(dtype=np.float64)
    return Case("warp_reduce", kernel, "regions", run, check)


CASES += [_device_reduce("deviceReduceKernel", False),
          _device_reduce("deviceReduceWarpAtomicKernel", True)]


def _softmax() -> Case:
    rows, cols = 37, 100
    x = RNG.standard_normal((rows, cols)).astype(np.float32)

    def run(f):
        y = hip.zeros(rows * cols, np.float32)
        f(-(-rows // 4), 128, (hip.asarray(x), y, np.int32(rows), np.int32(cols)))
        return [y.get().reshape(rows, cols)]

    def check(outs):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(outs[0], e / e.sum(axis=1, keepdims=True), rtol=2e-5)
    return Case("warp_reduce", "row_softmax", "regions", run, check)


def _legacy_sums() -> Case:
    x = RNG.integers(-100, 100, 4 * 128).astype(np.int32)

    def run(f):
        out = hip.zeros(x.size, np.int32)
        f(4, 128, (hip.asarray(x), out))
        return [out.get()]

    def check(outs):
        w = x.reshape(-1, 32)
        warp_in_block = np.arange(w.shape[0]) % 4
        want = np.where((warp_in_block < 2)[:, None], w.sum(axis=1, keepdims=True), w)
        np.testing.assert_array_equal(outs[0], want.ravel())
    return Case("warp_reduce", "warp_sums_legacy", "regions", run, check)


CASES += [_softmax(), _legacy_sums()]


# ---- one reduction, many styles ---------------------------------------------------------------------
def _style_case(kernel: str) -> Case:
    x = _small_floats(256 * 64)

    def run(f):
        out = hip.zeros(64, np.float32)
        f(64, 256, (hip.asarray(x), out))
        return [out.get()]

    def check(outs):
        np.testing.assert_array_equal(outs[0], _block_sums(x, 256))
    return Case("styles", kernel, "regions", run, check)


CASES += [_style_case(k) for k in (
    "red_two_lines", "red_one_line", "red_const", "red_helper", "red_hip_macros",
    "red_template_helper", "red_syncwarp_tail")]


# ---- scans ------------------------------------------------------------------------------------------
def _shfl_scan() -> Case:
    n, block = 256 * 24, 256
    x = RNG.integers(0, 50, n).astype(np.int32)

    def run(f):
        d = hip.asarray(x)
        partial = hip.zeros(n // block, np.int32)
        f(n // block, block, (d, np.int32(32), partial), shared_mem=(block // 32) * 4)
        return [d.get(), partial.get()]

    def check(outs):
        want = np.cumsum(x.reshape(-1, block), axis=1)
        np.testing.assert_array_equal(outs[0], want.ravel())
        np.testing.assert_array_equal(outs[1], want[:, -1])
    return Case("scan", "shfl_scan_test", "regions", run, check)


def _exclusive_warps() -> Case:
    x = RNG.integers(0, 1000, 96 * 8).astype(np.uint32)

    def run(f):
        out = hip.zeros(x.size, np.uint32)
        f(8, 96, (hip.asarray(x), out))
        return [out.get()]

    def check(outs):
        w = x.reshape(-1, 32)
        np.testing.assert_array_equal(outs[0], (np.cumsum(w, axis=1) - w).ravel())
    return Case("scan", "exclusive_scan_warps", "regions", run, check)


def _uniform_add() -> Case:
    x = RNG.integers(0, 9, 128 * 6 + 1).astype(np.int32)
    parts = RNG.integers(0, 99, 7).astype(np.int32)

    def run(f):
        d = hip.asarray(x)
        f(6, 128, (d, hip.asarray(parts), np.int32(128 * 6)))
        return [d.get()]

    def check(outs):
        want = x.copy()
        want[:768] += np.repeat(parts[:6], 128)  # the last element is past the grid
        np.testing.assert_array_equal(outs[0], want)
    return Case("scan", "uniform_add", "regions", run, check)


CASES += [_shfl_scan(), _exclusive_warps(), _uniform_add()]


# ---- sorting networks -------------------------------------------------------------------------------
def _sort_case(kernel: str) -> Case:
    keys = RNG.integers(0, 1 << 20, 4 * 1024).astype(np.uint32)
    vals = np.arange(keys.size, dtype=np.uint32)

    def run(f):
        dk, dv = hip.zeros(keys.size, np.uint32), hip.zeros(keys.size, np.uint32)
        f(4, 512, (dk, dv, hip.asarray(keys), hip.asarray(vals), np.uint32(1024), np.uint32(1)))
        return [dk.get(), dv.get()]

    def check(outs):
        k, v = outs[0].reshape(4, 1024), outs[1].reshape(4, 1024)
        np.testing.assert_array_equal(k, np.sort(keys.reshape(4, 1024), axis=1))
        np.testing.assert_array_equal(keys[v.ravel()], k.ravel())  # values moved with keys
    return Case("sort", kernel, "regions", run, check)


def _warp_sort() -> Case:
    x = RNG.integers(-1000, 1000, 128 * 3).astype(np.int32)

    def run(f):
        out = hip.zeros(x.size, np.int32)
        f(3, 128, (hip.asarray(x), out))
        return [out.get()]

    def check(outs):
        np.testing.assert_array_equal(outs[0], np.sort(x.reshape(-1, 32), axis=1).ravel())
    return Case("sort", "warp_bitonic_sort", "regions", run, check)


CASES += [_sort_case("bitonicSortShared"), _sort_case("oddEvenMergeSortShared"), _warp_sort()]


# ---- transposes -------------------------------------------------------------------------------------
def _transpose_case(kernel: str, copy: bool = False) -> Case:
    w = h = 128
    a = RNG.standard_normal((h, w)).astype(np.float32)

    def run(f):
        out = hip.zeros(w * h, np.float32)
        f((w // 32, h // 32), (32, 8), (out, hip.asarray(a), np.int32(w), np.int32(h)))
        return [out.get().reshape(w, h)]

    def check(outs):
        np.testing.assert_array_equal(outs[0], a if copy else a.T)
    return Case("transpose", kernel, "regions", run, check)


CASES += [_transpose_case("copySharedMem", copy=True), _transpose_case("transposeCoalesced"),
          _transpose_case("transposeNoBankConflicts")]


# ---- histograms -------------------------------------------------------------------------------------
def _hist256() -> Case:
    x = RNG.integers(0, 256, 100_003).astype(np.uint8)

    def run(f):
        out = hip.zeros(256, np.uint32)
        f(24, 192, (hip.asarray(x), np.int32(x.size), out))
        return [out.get()]

    def check(outs):
        np.testing.assert_array_equal(outs[0], np.bincount(x, minlength=256))
    return Case("histogram", "histogram_smem_atomics", "regions", run, check)


def _hist64() -> Case:
    x = RNG.integers(0, 1 << 30, 50_000).astype(np.uint32)
    blocks = 20

    def run(f):
        partial = hip.zeros(blocks * 64, np.uint32)
        f(blocks, (16, 8), (hip.asarray(x), np.int32(x.size), partial))
        return [partial.get()]

    def check(outs):
        np.testing.assert_array_equal(outs[0].reshape(blocks, 64).sum(axis=0),
                                      np.bincount(x & 63, minlength=64))
    return Case("histogram", "histogram64_blocks", "regions", run, check)


def _merge64() -> Case:
    blocks = 300
    partial = RNG.integers(0, 1000, blocks * 64).astype(np.uint32)

    def run(f):
        out = hip.zeros(64, np.uint32)
        f(64, 256, (hip.asarray(partial), np.int32(blocks), out))
        return [out.get()]

    def check(outs):
        np.testing.assert_array_equal(outs[0], partial.reshape(blocks, 64).sum(axis=0))
    return Case("histogram", "merge_histogram64", "regions", run, check)


CASES += [_hist256(), _hist64(), _merge64()]


# ---- convolution, scalar products -------------------------------------------------------------------
def _convolution() -> Case:
    w, h = 16 * 8 * 4, 12
    img = RNG.standard_normal((h, w)).astype(np.float32)
    taps = RNG.standard_normal(17).astype(np.float32)

    def run(f, mod):
        mod.get_global("c_Kernel").set(taps)
        out = hip.zeros(w * h, np.float32)
        f((w // (8 * 16), h // 4), (16, 4), (out, hip.asarray(img), np.int32(w), np.int32(h),
                                           np.int32(w)))
        return [out.get().reshape(h, w)]

    def check(outs):
        pad = np.pad(img, ((0, 0), (8, 8)))
        want = np.zeros_like(img)
        for j in range(-8, 9):
            want += taps[8 - j] * pad[:, 8 + j:8 + j + w]
        np.testing.assert_allclose(outs[0], want, rtol=1e-4, atol=1e-4)
    return Case("convolution", "convolutionRowsKernel", "regions", run, check, needs_module=True)


def _scalar_prod() -> Case:
    vectors, elements = 20, 3000
    a = RNG.integers(-3, 4, vectors * elements).astype(np.float32)
    b = RNG.integers(-3, 4, vectors * elements).astype(np.float32)

    def run(f):
        out = hip.zeros(vectors, np.float32)
        f(7, 256, (out, hip.asarray(a), hip.asarray(b), np.int32(vectors), np.int32(elements)))
        return [out.get()]

    def check(outs):
        want = (a * b).reshape(vectors, elements).sum(axis=1)
        np.testing.assert_array_equal(outs[0], want)
    return Case("scalarprod", "scalarProdGPU", "regions", run, check)


CASES += [_convolution(), _scalar_prod()]


# ---- votes, matches, aggregated atomics -------------------------------------------------------------
def _vote_any_all(kernel: str, op) -> Case:
    x = np.zeros(128, np.uint32)
    x[5] = 1          # warp 0: one lane set
    x[32:64] = 1      # warp 1: all set
    x[70] = 0         # warp 2: none
    x[96:127] = 7     # warp 3: all but one

    def run(f):
        out = hip.zeros(128, np.uint32)
        f(1, 128, (hip.asarray(x), out, np.int32(128)))
        return [out.get()]

    def check(outs):
        want = np.repeat(op(x.reshape(4, 32) != 0, axis=1), 32).astype(np.uint32)
        np.testing.assert_array_equal(outs[0], want)
    return Case("vote", kernel, "regions", run, check)


def _vote3() -> Case:
    def run(f):
        info = hip.zeros(96 * 3, np.bool_)
        f(1, 96, (info, np.int32(32)))
        return [info.get().reshape(96, 3)]

    def check(outs):
        tx = np.arange(96)
        np.testing.assert_array_equal(outs[0][:, 0], tx >= 32)
        np.testing.assert_array_equal(outs[0][:, 1], tx >= 48)
        np.testing.assert_array_equal(outs[0][:, 2], tx >= 64)
    return Case("vote", "VoteAnyKernel3", "regions", run, check)


def _ballot_rank() -> Case:
    x = RNG.integers(0, 100, 160).astype(np.int32)

    def run(f):
        count, rank = hip.zeros(160, np.int32), hip.zeros(160, np.int32)
        f(1, 160, (hip.asarray(x), count, rank, np.int32(60)))
        return [count.get(), rank.get()]

    def check(outs):
        p = (x > 60).reshape(-1, 32)
        np.testing.assert_array_equal(outs[0], np.repeat(p.sum(axis=1), 32))
        np.testing.assert_array_equal(outs[1], np.where(p, np.cumsum(p, axis=1) - 1, -1).ravel())
    return Case("vote", "ballot_rank", "regions", run, check)


def _match_reduce() -> Case:
    keys = RNG.integers(0, 5, 64).astype(np.int32)

    def run(f):
        peers = hip.zeros(64, np.uint32)
        sums, mins = hip.zeros(64, np.int32), hip.zeros(64, np.int32)
        f(1, 64, (hip.asarray(keys), peers, sums, mins))
        return [peers.get(), sums.get(), mins.get()]

    def check(outs):
        w = keys.reshape(2, 32)
        bits = (1 << np.arange(32, dtype=np.uint64))
        want = [int(((w[i] == w[i, j]) * bits).sum()) for i in range(2) for j in range(32)]
        np.testing.assert_array_equal(outs[0], np.array(want, np.uint32))
        np.testing.assert_array_equal(outs[1], np.repeat(w.sum(axis=1), 32))
        np.testing.assert_array_equal(outs[2], np.repeat(w.min(axis=1), 32))
    return Case("vote", "match_and_reduce", "regions", run, check)


def _active_lanes() -> Case:
    def run(f):
        out = hip.zeros(96, np.uint32)
        f(1, 96, (hip.asarray(np.array([70], np.int32)), out))
        return [out.get()]

    def check(outs):
        want = np.zeros(96, np.uint32)
        want[:64] = 0xFFFFFFFF
        want[64:70] = (1 << 6) - 1
        np.testing.assert_array_equal(outs[0], want)
    return Case("vote", "active_lanes", "regions", run, check)


def _slots() -> Case:
    def run(f):
        slots, counter = hip.zeros(100, np.int32), hip.zeros(1, np.int32)
        f(2, 50, (slots, counter))
        return [slots.get(), counter.get()]

    def check(outs):
        np.testing.assert_array_equal(np.sort(outs[0]), np.arange(100))
        assert outs[1][0] == 100
    return Case("atomics_agg", "take_slots", "regions", run, check, ordered=False)


def _filter(kernel: str, mode: str) -> Case:
    src = RNG.integers(-5, 5, 1000).astype(np.int32)

    def run(f):
        dst, n = hip.zeros(1000, np.int32), hip.zeros(1, np.int32)
        f(8, 128, (dst, n, hip.asarray(src), np.int32(src.size)))
        return [np.sort(dst.get()[:n.get()[0]]), n.get()]

    def check(outs):
        np.testing.assert_array_equal(outs[0], np.sort(src[src > 0]))
    return Case("atomics_agg", kernel, mode, run, check, ordered=False)


CASES += [_vote_any_all("VoteAnyKernel1", np.any), _vote_any_all("VoteAllKernel2", np.all),
          _vote3(), _ballot_rank(), _match_reduce(), _active_lanes(), _slots(),
          _filter("filter_k", "fibers"), _filter("filter_ballot", "regions")]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.file}:{c.kernel}")
def test_corpus_kernel(cpu_device, monkeypatch, case: Case):
    results = {}
    for mode in ("regions", "fibers"):
        mod = corpus_module(case.file, mode, monkeypatch)
        meta = mod.program.metadata["kernels"]
        entry = next(v for k, v in meta.items() if k.replace(" ", "") ==
                     case.kernel.replace(" ", "") or k.split("<")[0] == case.kernel)
        want = case.mode if mode == "regions" else "fibers"
        assert entry["mode"] == want, (case.kernel, entry.get("regions_refused"))
        if want == "fibers" and mode == "regions":
            assert entry.get("regions_refused"), "a kernel left to fibers says why"
        f = mod.get_function(case.kernel)
        outs = case.run(f, mod) if case.needs_module else case.run(f)
        case.check(outs)
        results[mode] = outs
    for a, b in zip(results["regions"], results["fibers"], strict=True):
        if case.ordered:
            assert a.tobytes() == b.tobytes(), f"{case.kernel}: regions and fibers differ"
        else:
            np.testing.assert_array_equal(np.sort(a, axis=None), np.sort(b, axis=None))
