"""The rank side of ``openhip ccl-bench`` (nccl-tests style), and its formulas.

``python -m openhip.ccl.bench OUT CONFIG_JSON`` runs as one rank of a job started by mpiexec
(then MPICH's all-reduce is measured too) or by ``openhip launch``. For the all-reduce every
size alternates between openhip, MPICH (mpi4py ``Allreduce`` with ``IN_PLACE``) and torch
gloo inside the same processes. Rank 0 writes the rows to OUT.

Sizes are bytes of the whole buffer as in nccl-tests: for all_gather and gather the
gathered buffer, for reduce_scatter the send buffer, for all_to_all and scatter the full
buffer. algbw = size / time; busbw = algbw x the collective's factor (below).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

COLLECTIVES = ("all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter",
               "all_to_all", "gather", "scatter", "sendrecv")


def bus_factor(coll: str, n: int) -> float:
    """nccl-tests' busbw / algbw for ``coll`` on ``n`` ranks."""
    if coll == "all_reduce":
        return 2 * (n - 1) / n
    if coll in ("all_gather", "reduce_scatter", "all_to_all", "gather", "scatter"):
        return (n - 1) / n
    return 1.0


def sizes(lo: int, hi: int, factor: int) -> list[int]:
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= factor
    return out


def _time(run: Callable[[], None], barrier: Callable[[], None], reduce_max: Callable[[float],
          float], target: float, repeats: int) -> float:
    """Median over ``repeats`` of the mean time of one call (slowest rank), seconds."""
    run()
    barrier()
    t = time.perf_counter()
    run()
    one = reduce_max(time.perf_counter() - t)
    iters = int(max(3, min(2000, target / max(one, 1e-7))))
    per = []
    for _ in range(repeats):
        barrier()
        t = time.perf_counter()
        for _ in range(iters):
            run()
        per.append(reduce_max((time.perf_counter() - t) / iters))
    return statistics.median(per)


def _openhip_case(comm: Any, coll: str, size: int, shared: bool = False
                  ) -> tuple[Callable[[], None], Callable[[], int]]:
    """(the timed call, a correctness check returning the number of wrong elements).

    ``shared``: the buffers come from ``ccl.empty`` (memory the peers map: no staging copy).
    """
    n, r = comm.size, comm.rank
    if shared:
        from .shared import empty

        def filled(count: int, value: float) -> np.ndarray:
            a = empty(count, np.float32)
            a[:] = value
            return a
    else:
        def filled(count: int, value: float) -> np.ndarray:
            return np.full(count, value, np.float32)
    count = max(1, size // 4)
    per = max(1, count // n)
    f32 = np.float32
    if coll == "all_reduce":
        x = filled(count, 1)

        def check() -> int:
            x[:] = r + 1
            comm.all_reduce(x)
            return int(np.count_nonzero(x != n * (n + 1) / 2))
        return (lambda: comm.all_reduce(x)), check
    if coll == "broadcast":
        x = filled(count, 1)

        def check() -> int:
            x[:] = r + 7
            comm.broadcast(x, 0)
            return int(np.count_nonzero(x != 7))
        return (lambda: comm.broadcast(x, 0)), check
    if coll == "reduce":
        x, y = filled(count, 1), filled(count, 0)

        def check() -> int:
            x[:] = r + 1
            comm.reduce(x, y, "sum", 0)
            return int(np.count_nonzero(y != n * (n + 1) / 2)) if r == 0 else 0
        return (lambda: comm.reduce(x, y, "sum", 0)), check
    if coll == "all_gather":
        x, y = filled(per, 1), filled(per * n, 0)

        def check() -> int:
            x[:] = r
            comm.all_gather(x, y)
            return int(np.count_nonzero(y != np.repeat(np.arange(n, dtype=f32), per)))
        return (lambda: comm.all_gather(x, y)), check
    if coll == "gather":
        x, y = filled(per, 1), filled(per * n, 0)

        def check() -> int:
            x[:] = r
            comm.gather(x, y, 0)
            want = np.repeat(np.arange(n, dtype=f32), per)
            return int(np.count_nonzero(y != want)) if r == 0 else 0
        return (lambda: comm.gather(x, y, 0)), check
    if coll == "reduce_scatter":
        x, y = filled(per * n, 1), filled(per, 0)

        def check() -> int:
            x[:] = np.repeat(np.arange(n, dtype=f32), per) + r
            comm.reduce_scatter(x, y)
            return int(np.count_nonzero(y != n * r + n * (n - 1) / 2))
        return (lambda: comm.reduce_scatter(x, y)), check
    if coll == "all_to_all":
        x, y = filled(per * n, 1), filled(per * n, 0)

        def check() -> int:
            x[:] = np.repeat(np.arange(n, dtype=f32), per) + 100 * r
            comm.all_to_all(x, y)
            want = np.repeat(np.arange(n, dtype=f32) * 100, per) + r
            return int(np.count_nonzero(y != want))
        return (lambda: comm.all_to_all(x, y)), check
    if coll == "scatter":
        x, y = filled(per * n, 1), filled(per, 0)

        def check() -> int:
            x[:] = np.repeat(np.arange(n, dtype=f32), per)
            comm.scatter(x, y, 0)
            return int(np.count_nonzero(y != r))
        return (lambda: comm.scatter(x, y, 0)), check
    if coll == "sendrecv":
        from .grouping import group

        x, y = filled(count, 1), filled(count, 0)

        def ring() -> None:
            with group():
                comm.send(x, (r + 1) % n)
                comm.recv(y, (r - 1) % n)

        def check() -> int:
            x[:] = r
            ring()
            return int(np.count_nonzero(y != (r - 1) % n))
        return ring, check
    raise ValueError(f"unknown collective {coll}")


class _Peers:
    """The all-reduce of MPICH (mpi4py ``Allreduce`` with ``IN_PLACE``) and of torch gloo,
    set up in the same processes so every size alternates between the implementations
    (a fair comparison on a busy machine)."""

    def __init__(self, wanted: list[str], comm: Any) -> None:
        self.calls: dict[str, Callable[[Any], None]] = {}
        self.info: dict[str, str] = {}
        self.skipped: dict[str, str] = {}
        self.make: dict[str, Callable[[int], Any]] = {}
        if "mpich" in wanted:
            self._mpich()
        if "gloo" in wanted:
            self._gloo(comm)

    def _mpich(self) -> None:
        from .bootstrap import mpi_world

        world = mpi_world()
        if world is None:
            self.skipped["mpich"] = "not started by mpiexec (or mpi4py missing)"
            return
        from mpi4py import MPI

        self.calls["mpich"] = lambda x: world.Allreduce(MPI.IN_PLACE, x)
        self.make["mpich"] = lambda count: np.ones(count, np.float32)
        self.info["mpich"] = " ".join(MPI.Get_library_version().split()[:3])

    def _gloo(self, comm: Any) -> None:
        try:
            import torch
            import torch.distributed as dist
        except ImportError:
            self.skipped["gloo"] = "torch is not installed"
            return
        port = np.array([0], np.int64)
        if comm.rank == 0:
            from .launcher import free_port
            port[0] = free_port()
        comm.broadcast(port, 0)
        torch.set_num_threads(1)  # no idle OpenMP threads spinning next to the other runs
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{int(port[0])}",
                                rank=comm.rank, world_size=comm.size)
        self.calls["gloo"] = lambda x: dist.all_reduce(x)
        self.make["gloo"] = lambda count: torch.ones(count, dtype=torch.float32)
        self.info["gloo"] = "torch " + torch.__version__

    def check(self, name: str, x: Any, rank: int, n: int) -> int:
        if name == "gloo":
            x.fill_(rank + 1)
            self.calls[name](x)
            return int((x != n * (n + 1) / 2).sum())
        x[:] = rank + 1
        self.calls[name](x)
        return int(np.count_nonzero(x != n * (n + 1) / 2))


def run(cfg: dict, out: str) -> None:
    """One rank of the benchmark job (under ``openhip launch`` or ``mpiexec``)."""
    from . import init_from_env

    comm = init_from_env()
    n, r = comm.size, comm.rank
    peers = _Peers(cfg.get("peers", []), comm)

    def reduce_max(v: float) -> float:
        a = np.array([v])
        comm.all_reduce(a, op="max")
        return float(a[0])

    rows = []
    for coll in cfg["collectives"]:
        for size in sizes(cfg["minbytes"], cfg["maxbytes"], cfg["factor"]):
            run_one, check = _openhip_case(comm, coll, size)
            impls = {"openhip": run_one}
            checks = {"openhip": check}
            if cfg.get("shared"):
                impls["openhip-shared"], checks["openhip-shared"] = _openhip_case(
                    comm, coll, size, shared=True)
            bufs = {}
            if coll == "all_reduce":
                for name, call in peers.calls.items():
                    bufs[name] = peers.make[name](max(1, size // 4))
                    impls[name] = (lambda call=call, x=bufs[name]: call(x))
            times: dict[str, list[float]] = {name: [] for name in impls}
            order = list(impls.items())
            for rep in range(cfg["repeats"]):  # each repeat times every implementation, and
                k = rep % len(order)            # the order rotates so none always goes first
                for name, fn in order[k:] + order[:k]:
                    times[name].append(_time(fn, comm.barrier, reduce_max, cfg["target"], 1))
            for name in impls:
                wrong = checks[name]() if name in checks else peers.check(name, bufs[name], r, n)
                w = np.array([wrong], np.int64)
                comm.all_reduce(w)
                rows.append({"impl": name, "coll": coll, "size": size,
                             "time": statistics.median(times[name]), "wrong": int(w[0]),
                             "n": n, "transport": comm.transport if name in checks
                             else peers.info[name]})
            del run_one, check, impls, checks, bufs
    if r == 0:
        _write(out, {"rows": rows, "skipped": peers.skipped})
    comm.destroy()


def _write(out: str, data: dict) -> None:
    with open(out, "w") as f:
        json.dump(data, f)


def main(argv: list[str]) -> None:
    run(json.loads(argv[1]), argv[0])


if __name__ == "__main__":
    main(sys.argv[1:])
