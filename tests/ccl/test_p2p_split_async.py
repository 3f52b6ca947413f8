"""Grouped send/recv rings, split, async handles — on shm (2, 3, 4 ranks) and MPI."""

from __future__ import annotations

import pytest
from conftest import all_ok, have_mpi, launch, mpirun

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("scenario", ["ring", "split", "asyncops"])
def test_shm(tmp_path, scenario, n):
    rc, results, err = launch(tmp_path, n, scenario)
    assert rc == 0, err
    all_ok(results)


@pytest.mark.parametrize("scenario", ["ring", "split", "asyncops"])
def test_mpi(tmp_path, scenario):
    if have_mpi():
        pytest.skip(have_mpi())
    rc, results, err = mpirun(tmp_path, 3, scenario, env={"OPENHIP_CCL_TRANSPORT": "mpi"})
    assert rc == 0, err[-3000:]
    all_ok(results)
