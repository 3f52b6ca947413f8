"""Every collective x dtype x reduction, in and out of place, against numpy.

One job per configuration runs all its cases (ranks.py matrix); each case is reported here.
"""

from __future__ import annotations

import pytest
from conftest import case_params, have_mpi, launch, mpirun

CONFIGS = {
    # name: (ranks, args, env, how)
    "shm-2": (2, [], {}, "launch"),
    "shm-3": (3, [], {}, "launch"),
    "shm-4-oversubscribed": (4, ["37", "subset"], {}, "launch"),
    # tiny shared slots: many windows, uneven slices, the rsag algorithm at every size
    "shm-2-windows": (2, ["3001"], {"OPENHIP_CCL_SHM_SLOT": "4096"}, "launch"),
    "shm-3-windows": (3, ["3001"], {"OPENHIP_CCL_SHM_SLOT": "4096"}, "launch"),
    "shm-3-rsag": (3, ["101", "subset"], {"OPENHIP_CCL_ALGO": "rsag"}, "launch"),
    # large all-reduces read/write the peers' memory directly (process_vm_readv/writev)
    "shm-2-cma": (2, ["3001", "subset"], {"OPENHIP_CCL_ALGO": "cma",
                                         "OPENHIP_CCL_CMA_CHUNK": "4096"}, "launch"),
    "shm-3-cma": (3, ["101", "subset"], {"OPENHIP_CCL_ALGO": "cma"}, "launch"),
    # where CMA is not allowed the engine falls back to rsag on every rank alike
    "shm-2-cma-off": (2, ["101", "subset"], {"OPENHIP_CCL_ALGO": "cma", "OPENHIP_CCL_CMA": "0"},
                      "launch"),
    "mpi-2": (2, ["37", "subset"], {"OPENHIP_CCL_TRANSPORT": "mpi"}, "mpi"),
    "mpi-3": (3, ["37", "subset"], {"OPENHIP_CCL_TRANSPORT": "mpi"}, "mpi"),
}

_results: dict[str, tuple] = {}


def _run(config: str, tmp_path_factory) -> tuple:
    if config not in _results:
        n, args, env, how = CONFIGS[config]
        if how == "mpi" and have_mpi():
            _results[config] = ("skip", have_mpi())
        else:
            tmp = tmp_path_factory.mktemp(config)
            run = mpirun if how == "mpi" else launch
            rc, results, err = run(tmp, n, "matrix", *args, env=env, timeout=240)
            _results[config] = (rc, results, err)
    return _results[config]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("config,case", case_params(
    {config: len(args) > 1 and args[1] == "subset" for config, (_, args, _, _) in CONFIGS.items()}))
def test_case(config, case, tmp_path_factory):
    res = _run(config, tmp_path_factory)
    if res[0] == "skip":
        pytest.skip(res[1])
    rc, results, err = res
    assert rc == 0, err[-3000:]
    for r, d in enumerate(results):
        assert d.get(case) == "ok", f"rank {r}: {d.get(case, d)}"
