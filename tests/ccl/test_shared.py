"""Shared arrays (ccl.empty): the arrays themselves, and zero-copy collectives over them.

Every collective x dtype x reduction runs over shared arrays on 2 and 3 ranks with the
zero-copy threshold lowered to one byte (so every case runs zero-copy, in chunks and uneven
shares), and with only rank 0 holding shared arrays (every rank must take the staged path);
large all-reduces and reduces at the default threshold, also with both ranks on one CPU (then
a rank claims chunks of the other's share); arrays allocated and freed in a loop; a rank
killed -9 during zero-copy all-reduces.
"""

from __future__ import annotations

import os
import time

import ml_dtypes
import numpy as np
import pytest
from conftest import all_ok, case_params, have_mpi, launch, mpirun, ranks, spawn

from openhip import ccl

# ------------------------------------------------------------------ the arrays


def test_empty_is_a_writable_contiguous_array():
    a = ccl.empty((3, 5), np.float64)
    assert a.shape == (3, 5) and a.dtype == np.float64 and a.flags.c_contiguous
    assert a.flags.writeable and np.all(a == 0)
    a[:] = 2.5
    assert float(a.sum()) == 37.5
    assert ccl.is_shared(a)


@pytest.mark.parametrize("dtype", [np.int8, np.uint64, np.float16, ml_dtypes.bfloat16,
                                   ml_dtypes.float8_e4m3fn])
def test_dtypes(dtype):
    a = ccl.zeros(1000, dtype)
    assert a.dtype == np.dtype(dtype) and a.nbytes == 1000 * np.dtype(dtype).itemsize
    assert ccl.is_shared(a)


def test_views_keep_the_memory_alive():
    a = ccl.empty(1 << 16, np.int32)
    a[:] = np.arange(1 << 16)
    v = a[100:200]
    del a
    assert np.array_equal(v, np.arange(100, 200)) and ccl.is_shared(v)
    assert ccl.is_shared(v[::-1]) and ccl.is_shared(v[::3])


def test_like_and_copy():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    c = ccl.shared_copy(src)
    assert np.array_equal(c, src) and c.dtype == src.dtype and ccl.is_shared(c)
    e = ccl.empty_like(src)
    assert e.shape == src.shape and e.dtype == src.dtype and ccl.is_shared(e)


def test_plain_arrays_are_not_shared():
    assert not ccl.is_shared(np.zeros(100))
    assert not ccl.is_shared([1, 2, 3])
    assert not ccl.is_shared(ccl.empty(0))  # nothing to share


def test_bad_shapes():
    with pytest.raises(ValueError):
        ccl.empty((-1, 4))
    with pytest.raises(TypeError):
        ccl.empty(4, "not a dtype")
    for shape in (2.5, "3", (2, 1.5), None):
        with pytest.raises(TypeError, match="shape"):
            ccl.empty(shape)
    assert ccl.empty(np.int64(3)).shape == (3,) and ccl.empty([2, 3]).shape == (2, 3)


def test_freeing_releases_the_descriptor():
    before = len(os.listdir("/proc/self/fd"))
    arrays = [ccl.empty(4096, np.uint8) for _ in range(50)]
    assert len(os.listdir("/proc/self/fd")) >= before + 50
    del arrays
    assert len(os.listdir("/proc/self/fd")) <= before


# ------------------------------------------------------------------ collectives over them

MATRIX = {
    # name: (ranks, args, env, expect zero-copy)
    "shared-2": (2, ["37", "all"], {"OPENHIP_CCL_ZC_MIN": "1"}, True),
    "shared-3": (3, ["37", "all"], {"OPENHIP_CCL_ZC_MIN": "1"}, True),
    # many 64 KiB chunks per share, shares of uneven length
    "shared-2-chunks": (2, ["40003", "all", "subset"], {"OPENHIP_CCL_ZC_MIN": "1"}, True),
    "shared-3-chunks": (3, ["40003", "all", "subset"], {"OPENHIP_CCL_ZC_MIN": "1"}, True),
    # only rank 0 has shared arrays: the staged algorithms, chosen alike on every rank
    "shared-first-only-2": (2, ["101", "first", "subset"], {"OPENHIP_CCL_ZC_MIN": "1"}, False),
    "shared-first-only-3": (3, ["101", "first", "subset"], {"OPENHIP_CCL_ZC_MIN": "1"}, False),
    # zero copy switched off
    "shared-off": (2, ["101", "all", "subset"], {"OPENHIP_CCL_ZC_MIN": "1",
                                                 "OPENHIP_CCL_ZERO_COPY": "0"}, False),
    # the MPI transport (under the mpich wheel's mpiexec): shared arrays are plain arrays there
    "shared-mpi-2": (2, ["101", "all", "subset"], {"OPENHIP_CCL_TRANSPORT": "mpi"}, False),
}

_results: dict[str, tuple] = {}


def _run(config: str, tmp_path_factory) -> tuple:
    if config not in _results:
        n, args, env, _ = MATRIX[config]
        mpi = env.get("OPENHIP_CCL_TRANSPORT") == "mpi"
        if mpi and have_mpi():
            pytest.skip(have_mpi())
        tmp = tmp_path_factory.mktemp(config)
        run = mpirun if mpi else launch
        _results[config] = run(tmp, n, "shared", *args, env=env, timeout=240)
    return _results[config]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("config,case", case_params(
    {config: len(args) > 2 and args[2] == "subset" for config, (_, args, _, _) in MATRIX.items()}))
def test_case(config, case, tmp_path_factory):
    rc, results, err = _run(config, tmp_path_factory)
    assert rc == 0, err[-3000:]
    for r, d in enumerate(results):
        assert d.get(case) == "ok", f"rank {r}: {d.get(case, d)}"


def _zero_copy_expected(config: str, index: int, case: tuple) -> bool:
    """Does this case run zero-copy? (run_case's root is index % n)"""
    n, args, env, _ = MATRIX[config]
    if env.get("OPENHIP_CCL_ZERO_COPY") == "0" or env.get("OPENHIP_CCL_TRANSPORT") == "mpi":
        return False
    coll, _, op, inplace = case
    if coll in ("broadcast", "scatter"):  # only the root's buffer is read by the peers
        return args[1] == "all" or index % n == 0
    if args[1] != "all":
        return False
    # premul_sum: all_reduce scales into its (shared) output and reduces that in place; reduce
    # and reduce_scatter reduce a scaled copy (a plain array); all_to_all in place reads a copy
    if op == "premul_sum" and coll != "all_reduce":
        return False
    return not (coll == "all_to_all" and inplace)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("config", list(MATRIX))
def test_zero_copy_taken_exactly_where_possible(config, tmp_path_factory):
    """The zero-copy path really ran where every buffer the peers touch is shared, and only
    there: not a silent fallback, not a wrong guess."""
    rc, results, err = _run(config, tmp_path_factory)
    assert rc == 0, err[-3000:]
    subset = len(MATRIX[config][1]) > 2
    want = [ranks.case_id(c) for i, c in enumerate(ranks.cases(subset))
            if _zero_copy_expected(config, i, c)]
    assert want or not MATRIX[config][3]
    for r, d in enumerate(results):
        assert d["zero-copy-cases"] == want, f"rank {r}"


BANDS = {"shared-bands-2": (2, []), "shared-bands-3": (3, []),
         "shared-bands-2-one-cpu": (2, ["one-cpu"])}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("config", list(BANDS))
def test_large_all_reduce_and_reduce(config, tmp_path):
    n, args = BANDS[config]
    rc, results, err = launch(tmp_path, n, "shared_bands", *args, timeout=240)
    assert rc == 0, err[-3000:]
    for r, d in enumerate(results):
        calls = d.pop("zero-copy-calls")
        assert d and all(v == "ok" for v in d.values()), f"rank {r}: {d}"
        assert len(d) == 18, d
        assert calls >= 15, f"rank {r}: only {calls} zero-copy calls"  # 1 MiB and up


@pytest.mark.timeout(300)
@pytest.mark.parametrize("n", [2, 3])
def test_arrays_freed_in_a_loop(n, tmp_path):
    rc, results, err = launch(tmp_path, n, "shared_churn", timeout=240)
    assert rc == 0, err[-3000:]
    all_ok(results)


@pytest.mark.parametrize("n", [2, 3])
def test_kill9_during_zero_copy(tmp_path, n):
    t = time.monotonic()
    codes, results = spawn(tmp_path, n, "kill", "shared")
    assert codes[-1] == -9
    for r, d in enumerate(results[:-1]):
        assert d == {"kill": "ok"}, f"rank {r}: {d}"
    assert time.monotonic() - t < 20


@pytest.mark.timeout(300)
def test_cpu_platform_devicearray_over_a_shared_array(tmp_path):
    rc, results, err = launch(tmp_path, 2, "shared_devicearray", timeout=240)
    assert rc == 0, err[-3000:]
    for r, d in enumerate(results):
        assert d == {"values": "ok", "zero-copy": "ok"}, f"rank {r}: {d}"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("n", [2, 3])
def test_send_recv_from_shared_arrays(n, tmp_path):
    rc, results, err = launch(tmp_path, n, "shared_p2p", timeout=240)
    assert rc == 0, err[-3000:]
    all_ok(results)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("n", [2, 3])
def test_ranks_with_different_settings_choose_alike(n, tmp_path):
    rc, results, err = launch(tmp_path, n, "mixed_settings", timeout=240)
    assert rc == 0, err[-3000:]
    all_ok(results)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("n,env", [(2, {"OPENHIP_CCL_ZC_MIN": "1"}), (3, {"OPENHIP_CCL_ZC_MIN": "1"}),
                                   (2, {})], ids=["2-every-size", "3-every-size", "2-default"])
def test_random_mix_of_shared_and_plain_buffers(n, env, tmp_path):
    rc, results, err = launch(tmp_path, n, "shared_random", "120", env=env, timeout=240)
    assert rc == 0, err[-3000:]
    for r, d in enumerate(results):
        bad = {k: v for k, v in d.items() if v != "ok"}
        assert len(d) == 120 and not bad, f"rank {r}: {bad}"
