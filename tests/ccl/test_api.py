"""Single-process checks of the API: ids, argument errors (raised before anything is sent),
buffers exposing __array_interface__, a world of one, the NCCL/RCCL binding's availability."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from conftest import all_ok, launch

from openhip import ccl
from openhip.errors import CclError

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def comm():
    c = ccl.Communicator(1, ccl.get_unique_id(), 0)
    yield c
    c.destroy()


def test_unique_id():
    uid = ccl.get_unique_id()
    assert isinstance(uid, bytes) and len(uid) == 128
    assert uid != ccl.get_unique_id()
    with pytest.raises(CclError):
        ccl.Communicator(2, b"nope", 0)


def test_bad_rank_and_size():
    with pytest.raises(ccl.CclArgumentError):
        ccl.Communicator(2, ccl.get_unique_id(), 2)
    with pytest.raises(ccl.CclArgumentError):
        ccl.Communicator(0, ccl.get_unique_id(), 0)


@pytest.mark.parametrize("call,match", [
    (lambda c: c.all_reduce(np.ones(4, np.complex64)), "not supported"),
    (lambda c: c.all_reduce(np.ones(8), np.ones(4)), "too small"),
    (lambda c: c.all_reduce(np.ones(8)[::2]), "not contiguous"),
    (lambda c: c.all_reduce(np.ones(8), np.ones(8, np.float32)), "float64"),
    (lambda c: c.broadcast(np.ones(4), root=1), "root 1"),
    (lambda c: c.reduce(np.ones(4), root=-1), "root -1"),
    (lambda c: c.send(np.ones(4), peer=3), "peer 3"),
    (lambda c: c.send(np.ones(4), peer=0), "oneself"),
    (lambda c: c.all_reduce(np.ones(4, ml_dtypes.float8_e4m3fn)), "not reduced"),
    (lambda c: c.all_reduce(np.ones(4), op="xor"), "unknown reduction"),
    (lambda c: c.all_reduce(np.ones(4), op="premul_sum"), "scalar"),
    (lambda c: c.all_reduce([1.0, 2.0]), "numpy array"),
    (lambda c: c.all_to_all(np.ones(3), np.ones(2)), "too small"),
    (lambda c: c.reduce_scatter(np.ones(3), np.ones(4)), "needs"),
    (lambda c: c.broadcast(np.ones(4)[::2], root=0), "not contiguous"),
])
def test_bad_arguments(comm, call, match):
    with pytest.raises(ccl.CclArgumentError, match=match):
        call(comm)
    x = np.ones(3)
    comm.all_reduce(x)  # the communicator is still fine
    assert np.all(x == 1)


def test_read_only_in_place(comm):
    x = np.ones(4)
    x.flags.writeable = False
    with pytest.raises(ccl.CclArgumentError, match="read-only"):
        comm.all_reduce(x)


class FakeDeviceArray:
    """Like openhip.DeviceArray on the CPU platform: memory visible via __array_interface__."""

    def __init__(self, arr):
        self._arr = arr
        self.__array_interface__ = arr.__array_interface__


def test_array_interface_objects_written_in_place(comm):
    base = np.arange(6, dtype=np.float32)
    dev = FakeDeviceArray(base)
    out = FakeDeviceArray(np.zeros(6, np.float32))
    comm.all_reduce(dev, out, op="max")
    assert np.array_equal(out._arr, base)
    comm.all_reduce(dev, op=ccl.premul_sum(2.0))
    assert np.array_equal(base, np.arange(6) * 2.0)


def test_world_of_one_all_collectives(comm):
    x = np.arange(4, dtype=np.int32)
    y = np.zeros(4, np.int32)
    comm.all_gather(x, y)
    comm.reduce_scatter(x, y, op="min")
    comm.all_to_all(x, y)
    comm.gather(x, y, 0)
    comm.scatter(x, y, 0)
    comm.broadcast(x, 0)
    comm.reduce(x, y, "prod", 0)
    comm.barrier()
    assert np.array_equal(y, x)
    w = comm.all_reduce(x, async_op=True)
    assert w.wait(10) and w.is_completed()


def test_group_send_to_self(comm):
    a, b = np.arange(5.0), np.zeros(5)
    with ccl.group():
        comm.send(a, 0)
        comm.recv(b, 0)
    assert np.array_equal(a, b)


def test_bad_args_send_nothing(tmp_path):
    rc, results, err = launch(tmp_path, 2, "badargs")
    assert rc == 0, err
    all_ok(results)


def test_nccl_binding_reason():
    from openhip.ccl.transports import nccl

    ok, why = nccl.available()
    if not ok:
        assert "NCCL" in why or "RCCL" in why
        pytest.skip(f"no GPU collectives library here: {why}")


def test_settings_errors(monkeypatch):
    from openhip.ccl import settings

    monkeypatch.setenv("OPENHIP_CCL_TRANSPORT", "carrier-pigeon")
    with pytest.raises(CclError, match="OPENHIP_CCL_TRANSPORT"):
        settings.transport()
    monkeypatch.setenv("OPENHIP_CCL_TIMEOUT", "-1")
    with pytest.raises(CclError, match="OPENHIP_CCL_TIMEOUT"):
        settings.timeout()


def test_openhip_devicearray(tmp_path):
    try:
        import openhip

        openhip.full, openhip.Stream  # noqa: B018 - the runtime may not be there yet
    except (ImportError, AttributeError) as exc:
        pytest.skip(f"openhip.DeviceArray is not available: {exc}")
    rc, results, err = launch(tmp_path, 2, "devicearray", env={"OPENHIP_PLATFORM": "cpu"})
    assert rc == 0, err[-3000:]
    all_ok(results)


@pytest.mark.parametrize("n", [2, 3])
def test_torch_cpu_tensors(tmp_path, n):
    """torch CPU tensors go through DLPack without a copy, like numpy arrays."""
    pytest.importorskip("torch", reason="torch is not installed")
    rc, results, err = launch(tmp_path, n, "torch_tensors", timeout=240)
    assert rc == 0, err[-3000:]
    all_ok(results)
