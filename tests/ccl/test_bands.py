"""The all-reduce size bands of the shm engine: which algorithm each size gets, and results
against numpy at the sizes where the choice changes (odd counts, 2 and 3 ranks, ranks that
share one CPU, CMA not allowed)."""

from __future__ import annotations

import pytest
from conftest import launch

from openhip.ccl import algorithms
from openhip.ccl.transports.base import ALL_REDUCE_CMA, ALL_REDUCE_DIRECT, ALL_REDUCE_RSAG

MiB = 1 << 20


@pytest.fixture
def fresh(monkeypatch):
    """Algorithm settings re-read from a clean environment (and re-read again afterwards)."""
    for name in ("OPENHIP_CCL_ALGO", "OPENHIP_CCL_SHM_SMALL", "OPENHIP_CCL_SHM_SLOT",
                 "OPENHIP_CCL_CMA_MIN", "OPENHIP_CCL_CMA_DATA_MIN"):
        monkeypatch.delenv(name, raising=False)
    algorithms.refresh()
    yield monkeypatch
    monkeypatch.undo()
    algorithms.refresh()


@pytest.mark.parametrize("nbytes,kind", [
    (4096, ALL_REDUCE_DIRECT), (64 << 10, ALL_REDUCE_DIRECT), ((64 << 10) + 4, ALL_REDUCE_RSAG),
    (MiB, ALL_REDUCE_RSAG), (4 * MiB, ALL_REDUCE_RSAG), (8 * MiB, ALL_REDUCE_RSAG),
    (16 * MiB, ALL_REDUCE_RSAG), (32 * MiB - 4, ALL_REDUCE_RSAG), (32 * MiB, ALL_REDUCE_CMA),
    (256 * MiB, ALL_REDUCE_CMA)])
def test_all_reduce_band(fresh, nbytes, kind):
    assert algorithms.all_reduce_kind(nbytes, 2) == kind
    assert algorithms.all_reduce_kind(nbytes, 3) == kind


def test_cma_thresholds_are_settings(fresh):
    fresh.setenv("OPENHIP_CCL_CMA_MIN", str(4 * MiB))
    fresh.setenv("OPENHIP_CCL_CMA_DATA_MIN", str(MiB))
    algorithms.refresh()
    assert algorithms.all_reduce_kind(4 * MiB, 2) == ALL_REDUCE_CMA
    assert algorithms.all_reduce_kind(4 * MiB - 4, 2) == ALL_REDUCE_RSAG
    assert algorithms.data_kind(4, MiB) == 4 | algorithms.CMA_FLAG
    assert algorithms.data_kind(4, MiB - 1) == 4


def test_data_collectives_keep_their_threshold(fresh):
    """The other collectives read the peers' memory from 16 MiB, independent of all_reduce."""
    assert algorithms.data_kind(5, 16 * MiB - 1) == 5
    assert algorithms.data_kind(5, 16 * MiB) == 5 | algorithms.CMA_FLAG


CONFIGS = {
    # name: (ranks, args, env)
    "shm-2": (2, [], {}),
    "shm-3": (3, [], {}),
    # ranks taking turns on one CPU: the inner steps of rsag sleep instead of spinning
    "shm-2-one-cpu": (2, ["one-cpu"], {}),
    "shm-3-one-cpu": (3, ["one-cpu"], {}),
    # no cross memory attach: the 32 MiB sizes fall back to rsag on every rank alike
    "shm-2-cma-off": (2, [], {"OPENHIP_CCL_CMA": "0"}),
    # rsag with streaming stores into the slots on every call (by default a rank times both
    # kinds of store per size class and uses the faster; there the first two calls of a class
    # use one each), and with cached stores only
    "shm-2-nt": (2, [], {"OPENHIP_CCL_RSAG_NT": "1"}),
    "shm-3-nt": (3, [], {"OPENHIP_CCL_RSAG_NT": "1"}),
    "shm-3-nt-one-cpu": (3, ["one-cpu"], {"OPENHIP_CCL_RSAG_NT": "1"}),
    "shm-2-cached": (2, [], {"OPENHIP_CCL_RSAG_NT": "0"}),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("config", list(CONFIGS))
def test_bands_against_numpy(config, tmp_path):
    n, args, env = CONFIGS[config]
    rc, results, err = launch(tmp_path, n, "bands", *args, env=env, timeout=240)
    assert rc == 0, err[-3000:]
    for r, d in enumerate(results):
        assert d and all(v == "ok" for v in d.values()), f"rank {r}: {d}"
        assert len(d) == 17, d
