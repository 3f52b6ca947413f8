"""A send or receive its peer does not match (issue #14 item 11b): a receive of another size, or a
collective instead, raises CclError on both ranks, each naming the other, instead of the send
returning success (the shm engine numbers every send and receive on its channel and a send
finishes only when its receive is posted with the same size; over MPI, with OPENHIP_CCL_CHECK=1,
the sizes are exchanged first). Matched point-to-point calls followed by collectives never report
a false mismatch."""

from __future__ import annotations

import pytest
from conftest import all_ok, have_mpi, launch, mpirun

pytestmark = pytest.mark.timeout(120)

CASES = ["size", "size_big", "send_vs_collective", "send_vs_collective_big",
         "recv_vs_collective", "group_vs_collective", "head_to_head", "head_to_head_big"]


@pytest.mark.parametrize("case", CASES)
def test_unmatched_point_to_point_fails_on_both_ranks(tmp_path, case):
    # a 60 s timeout: a mismatch that went undetected would show as "did not answer"
    rc, results, err = launch(tmp_path, 2, "p2p_mismatch", case,
                              env={"OPENHIP_CCL_TIMEOUT": "60"})
    for r, res in enumerate(results):
        assert "crash" not in res and "missing" not in res, (res, err)
        text = res["error"]
        assert text, f"rank {r} returned success"
        assert "did not answer" not in text, text
        other = 1 - r
        assert res["peer"] == other and f"with rank {other}" in text, text
    texts = [res["error"] for res in results]
    if case.startswith("size"):
        n = 3_000_000 if case.endswith("_big") else 1000
        assert all("message size mismatch" in t for t in texts)
        assert f"send(to rank 1, {4 * n} bytes)" in texts[0]
        assert f"recv(from rank 0, {4 * (n + 1)} bytes)" in texts[0]
        assert f"recv(from rank 0, {4 * (n + 1)} bytes)" in texts[1]
    elif case.startswith("head_to_head"):
        assert all("sends that wait for each other's receive" in t for t in texts)
        assert "send(to rank 1," in texts[0] and "send(to rank 0," in texts[0]
    else:
        assert all("a point-to-point call matched by a collective" in t for t in texts)
        collective = "broadcast" if case.startswith("group") else "all_reduce"
        assert all(collective + "(" in t for t in texts)
    assert rc == 0, err


@pytest.mark.parametrize("n", [2, 3])
def test_matched_point_to_point_then_collectives(tmp_path, n):
    rc, results, err = launch(tmp_path, n, "p2p_then_collective", "45")
    assert rc == 0, err
    for res in results:
        assert res.get("p2p_then_collective") == "ok", (res, err)


@pytest.mark.parametrize("case", ["size", "size_big"])
def test_mpi_transport_with_check_reports_size_mismatches(tmp_path, case):
    """Over MPI (OPENHIP_CCL_CHECK=1, as for its collectives) the sizes are exchanged first:
    MPI itself would truncate on one side only, or fill a larger receive partly."""
    if have_mpi():
        pytest.skip(have_mpi())
    rc, results, err = mpirun(tmp_path, 2, "p2p_mismatch", case,
                              env={"OPENHIP_CCL_TRANSPORT": "mpi", "OPENHIP_CCL_CHECK": "1",
                                   "OPENHIP_CCL_TIMEOUT": "60"})
    assert rc == 0, err[-2000:]
    n = 3_000_000 if case.endswith("_big") else 1000
    for r, res in enumerate(results):
        assert "crash" not in res and "missing" not in res, (res, err[-2000:])
        text = res["error"] or ""
        assert "message size mismatch" in text and res["peer"] == 1 - r, text
        assert f"recv(from rank 0, {4 * (n + 1)} bytes)" in text


def test_mpi_transport_with_check_passes_matched_groups(tmp_path):
    """The same check lets matched calls through: rings, plain pairs, an all-pairs exchange
    with a send to itself (ranks.py ring)."""
    if have_mpi():
        pytest.skip(have_mpi())
    rc, results, err = mpirun(tmp_path, 3, "ring",
                              env={"OPENHIP_CCL_TRANSPORT": "mpi", "OPENHIP_CCL_CHECK": "1"})
    assert rc == 0, err[-2000:]
    all_ok(results)
