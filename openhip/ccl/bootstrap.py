"""``init_from_env``: build the world communicator from what the launcher left in the environment.

Recognised, in this order:

1. ``openhip launch``: OPENHIP_CCL_UID (hex), RANK, WORLD_SIZE.
2. ``mpiexec`` (MPICH/Hydra: PMI_RANK/PMI_SIZE; Open MPI: OMPI_COMM_WORLD_*; PMIx): rank 0
   makes the id and MPI broadcasts it; the transport is shm when every rank is on one machine,
   MPI otherwise (OPENHIP_CCL_TRANSPORT overrides).
3. torchrun's variables: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT: the id travels over TCP
   (through torch's TCPStore when torchrun's agent holds MASTER_PORT).
4. Nothing: a world of one rank.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from typing import Any

from openhip.errors import CclError

from . import settings
from .uid import SIZE, get_unique_id

_MPI_VARS = (("PMI_RANK", "PMI_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
             ("PMIX_RANK", "PMIX_SIZE"), ("MPI_LOCALRANKID", None))


def under_mpi() -> bool:
    """True when this process was started by an MPI launcher."""
    return any(os.environ.get(r) is not None for r, _ in _MPI_VARS)


def mpi_world() -> Any:
    """``MPI.COMM_WORLD`` when started by mpiexec and mpi4py imports, else None."""
    if not under_mpi():
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        return None
    return MPI.COMM_WORLD


def init_from_env(timeout: float | None = None) -> Any:
    """The world communicator of a job started by ``openhip launch``, ``mpiexec`` or torchrun."""
    from .communicator import Communicator

    env = os.environ
    if env.get("OPENHIP_CCL_UID") and env.get("RANK") and env.get("WORLD_SIZE"):
        return Communicator(int(env["WORLD_SIZE"]), env["OPENHIP_CCL_UID"], int(env["RANK"]),
                            timeout=timeout)
    if under_mpi():
        try:
            from mpi4py import MPI
        except ImportError as exc:
            raise CclError("started by mpiexec but mpi4py is not installed "
                           "(pip install 'openhip[mpi]')") from exc
        world = MPI.COMM_WORLD
        uid = world.bcast(get_unique_id() if world.Get_rank() == 0 else None, root=0)
        return Communicator(world.Get_size(), uid, world.Get_rank(), timeout=timeout)
    if env.get("RANK") and env.get("WORLD_SIZE"):
        rank, size = int(env["RANK"]), int(env["WORLD_SIZE"])
        if size == 1:
            return Communicator(1, get_unique_id(), 0, timeout=timeout)
        if not env.get("MASTER_ADDR") or not env.get("MASTER_PORT"):
            raise CclError("RANK and WORLD_SIZE are set but MASTER_ADDR/MASTER_PORT are not", rank)
        t = settings.timeout() if timeout is None else timeout
        uid = _tcp_share(rank, size, env["MASTER_ADDR"], int(env["MASTER_PORT"]), min(t, 120.0))
        return Communicator(size, uid, rank, timeout=timeout)
    return Communicator(1, get_unique_id(), 0, timeout=timeout)


def _tcp_share(rank: int, size: int, addr: str, port: int, timeout: float) -> bytes:
    """Rank 0's new id, delivered to every rank over MASTER_ADDR:MASTER_PORT."""
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true":
        return _torch_store_share(rank, addr, port, timeout)
    deadline = time.monotonic() + timeout
    if rank == 0:
        uid = get_unique_id()
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as srv:
            srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                srv.bind(("", port))
            except OSError:
                return _torch_store_share(rank, addr, port, timeout)
            srv.listen(size)
            for _ in range(size - 1):
                srv.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    conn, _ = srv.accept()
                except TimeoutError:
                    raise CclError(f"not every rank connected to {addr}:{port} within "
                                   f"{timeout:g} s", rank) from None
                with conn:
                    conn.sendall(struct.pack("!I", SIZE) + uid)
        return uid
    while True:
        try:
            with socket.create_connection((addr, port), timeout=5) as conn:
                data = b""
                while len(data) < 4 + SIZE:
                    chunk = conn.recv(4 + SIZE - len(data))
                    if not chunk:
                        break
                    data += chunk
                if len(data) == 4 + SIZE:
                    return data[4:]
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise CclError(f"rank 0 did not answer at {addr}:{port} within {timeout:g} s", rank,
                           0)
        time.sleep(0.05)


def _torch_store_share(rank: int, addr: str, port: int, timeout: float) -> bytes:
    try:
        from datetime import timedelta

        from torch.distributed import TCPStore
    except ImportError as exc:
        raise CclError(f"MASTER_PORT {port} is taken and torch is not importable to use the "
                       "store there", rank) from exc
    store = TCPStore(addr, port, is_master=False, timeout=timedelta(seconds=timeout))
    key = "openhip/ccl/uid/" + os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    if rank == 0:
        store.set(key, get_unique_id().hex())
    return bytes.fromhex(store.get(key).decode())
