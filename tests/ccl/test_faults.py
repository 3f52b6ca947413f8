"""Faults: a killed rank, a rank that stops answering, abort() from another thread, mismatched
calls; each finishes in seconds. Also: no shm segment left behind."""

from __future__ import annotations

import glob
import os
import time

import pytest
from conftest import all_ok, have_mpi, launch, mpirun, spawn

pytestmark = pytest.mark.timeout(60)


def _segments() -> set[str]:
    return set(glob.glob("/dev/shm/ohccl-*"))


@pytest.mark.parametrize("n", [2, 3])
def test_kill9_names_the_dead_rank(tmp_path, n):
    before = _segments()
    t = time.monotonic()
    codes, results = spawn(tmp_path, n, "kill")
    assert codes[-1] == -9
    all_ok(results[:-1])
    assert time.monotonic() - t < 20
    assert _segments() - before == set()


@pytest.mark.parametrize("n", [2, 3])
def test_unresponsive_rank_times_out(tmp_path, n):
    codes, results = spawn(tmp_path, n, "hang")
    assert codes == [0] * n
    all_ok(results)


@pytest.mark.parametrize("n", [2, 3])
def test_abort_from_another_thread(tmp_path, n):
    before = _segments()
    codes, results = spawn(tmp_path, n, "abort_thread")
    assert codes == [0] * n
    all_ok(results)
    assert _segments() - before == set()


@pytest.mark.parametrize("scenario", ["mismatch", "dtype_mismatch"])
@pytest.mark.parametrize("n", [2, 3])
def test_mismatch_reported_on_every_rank(tmp_path, scenario, n):
    codes, results = spawn(tmp_path, n, scenario)
    assert codes == [0] * n
    all_ok(results)


def test_mismatch_mpi_with_check(tmp_path):
    if have_mpi():
        pytest.skip(have_mpi())
    rc, results, err = mpirun(tmp_path, 2, "mismatch",
                              env={"OPENHIP_CCL_TRANSPORT": "mpi", "OPENHIP_CCL_CHECK": "1"})
    assert rc == 0, err[-2000:]
    all_ok(results)


def test_segments_removed_after_normal_exit(tmp_path):
    before = _segments()
    rc, results, err = launch(tmp_path, 3, "split")
    assert rc == 0, err
    all_ok(results)
    assert _segments() - before == set()


def test_rank_that_never_joins(tmp_path):
    """Rank 1 of 2 never starts: rank 0 raises naming it, and the segment name is gone."""
    from openhip.ccl import Communicator, get_unique_id
    from openhip.errors import CclError

    before = _segments()
    t = time.monotonic()
    with pytest.raises(CclError, match="rank 1") as info:
        Communicator(2, get_unique_id(), 0, timeout=1.0)
    assert info.value.peer == 1
    assert time.monotonic() - t < 5
    assert _segments() - before == set()


def test_launcher_removes_segments_of_killed_job(tmp_path):
    """A leftover segment with the job's token (a rank killed before every rank joined) goes."""
    from openhip.ccl import launcher

    token = "ab" * 16
    path = f"/dev/shm/ohccl-{token}-s0c1"
    with open(path, "wb") as f:
        f.write(b"x")
    assert launcher.remove_segments(token) == [path]
    assert not os.path.exists(path)


def test_mpi_transport_times_out(tmp_path):
    """MPI cannot tell which rank is missing; the call still ends with CclError on time."""
    if have_mpi():
        pytest.skip(have_mpi())
    rc, results, err = mpirun(tmp_path, 2, "hang", env={"OPENHIP_CCL_TRANSPORT": "mpi"})
    assert rc == 0, err[-2000:]
    assert "no answer" in results[0]["hang"] and "OPENHIP_CCL_TIMEOUT" in results[0]["hang"]
    assert results[1]["hang"] == "ok"
