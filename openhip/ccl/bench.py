"""The rank side of ``openhip ccl-bench`` (nccl-tests style), and its formulas.

``python -m openhip.ccl.bench KIND OUT CONFIG_JSON`` runs as one rank of a job; KIND is
``openhip`` (started by ``openhip launch``), ``mpich`` (started by mpiexec: mpi4py
``Allreduce`` with ``IN_PLACE``) or ``gloo`` (torch.distributed, started by ``openhip launch``).
Rank 0 writes one JSON object per measured (collective, size) to OUT.

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


def _openhip_case(comm: Any, coll: str, size: int) -> tuple[Callable[[], None], Callable[[], int]]:
    """(the timed call, a correctness check returning the number of wrong elements)."""
    n, r = comm.size, comm.rank
    count = max(1, size // 4)
    per = max(1, count // n)
    f32 = np.float32
    if coll == "all_reduce":
        x = np.ones(count, f32)

        def check() -> int:
            x[:] = r + 1
            comm.all_reduce(x)
            return int(np.count_nonzero(x != n * (n + 1) / 2))
        return (lambda: comm.all_reduce(x)), check
    if coll == "broadcast":
        x = np.ones(count, f32)

        def check() -> int:
            x[:] = r + 7
            comm.broadcast(x, 0)
            return int(np.count_nonzero(x != 7))
        return (lambda: comm.broadcast(x, 0)), check
    if coll == "reduce":
        x, y = np.ones(count, f32), np.zeros(count, f32)

        def check() -> int:
            x[:] = r + 1
            comm.reduce(x, y, "sum", 0)
            return int(np.count_nonzero(y != n * (n + 1) / 2)) if r == 0 else 0
        return (lambda: comm.reduce(x, y, "sum", 0)), check
    if coll == "all_gather":
        x, y = np.ones(per, f32), np.zeros(per * n, f32)

        def check() -> int:
            x[:] = r
            comm.all_gather(x, y)
            return int(np.count_nonzero(y != np.repeat(np.arange(n, dtype=f32), per)))
        return (lambda: comm.all_gather(x, y)), check
    if coll == "gather":
        x, y = np.ones(per, f32), np.zeros(per * n, f32)

        def check() -> int:
            x[:] = r
            comm.gather(x, y, 0)
            want = np.repeat(np.arange(n, dtype=f32), per)
            return int(np.count_nonzero(y != want)) if r == 0 else 0
        return (lambda: comm.gather(x, y, 0)), check
    if coll == "reduce_scatter":
        x, y = np.ones(per * n, f32), np.zeros(per, f32)

        def check() -> int:
            x[:] = np.repeat(np.arange(n, dtype=f32), per) + r
            comm.reduce_scatter(x, y)
            return int(np.count_nonzero(y != n * r + n * (n - 1) / 2))
        return (lambda: comm.reduce_scatter(x, y)), check
    if coll == "all_to_all":
        x, y = np.ones(per * n, f32), np.zeros(per * n, f32)

        def check() -> int:
            x[:] = np.repeat(np.arange(n, dtype=f32), per) + 100 * r
            comm.all_to_all(x, y)
            want = np.repeat(np.arange(n, dtype=f32) * 100, per) + r
            return int(np.count_nonzero(y != want))
        return (lambda: comm.all_to_all(x, y)), check
    if coll == "scatter":
        x, y = np.ones(per * n, f32), np.zeros(per, f32)

        def check() -> int:
            x[:] = np.repeat(np.arange(n, dtype=f32), per)
            comm.scatter(x, y, 0)
            return int(np.count_nonzero(y != r))
        return (lambda: comm.scatter(x, y, 0)), check
    if coll == "sendrecv":
        from .grouping import group

        x, y = np.ones(count, f32), np.zeros(count, f32)

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


def run_openhip(cfg: dict, out: str) -> None:
    from . import init_from_env

    comm = init_from_env()

    def reduce_max(v: float) -> float:
        a = np.array([v])
        comm.all_reduce(a, op="max")
        return float(a[0])

    rows = []
    for coll in cfg["collectives"]:
        for size in sizes(cfg["minbytes"], cfg["maxbytes"], cfg["factor"]):
            run, check = _openhip_case(comm, coll, size)
            t = _time(run, comm.barrier, reduce_max, cfg["target"], cfg["repeats"])
            wrong = np.array([check()], np.int64)
            comm.all_reduce(wrong)
            rows.append({"impl": "openhip", "coll": coll, "size": size, "time": t,
                         "wrong": int(wrong[0]), "n": comm.size, "transport": comm.transport})
            del run, check
    if comm.rank == 0:
        _write(out, rows)
    comm.destroy()


def run_mpich(cfg: dict, out: str) -> None:
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    n, r = world.Get_size(), world.Get_rank()

    def reduce_max(v: float) -> float:
        return world.allreduce(v, op=MPI.MAX)

    rows = []
    for size in sizes(cfg["minbytes"], cfg["maxbytes"], cfg["factor"]):
        x = np.ones(max(1, size // 4), np.float32)
        t = _time(lambda x=x: world.Allreduce(MPI.IN_PLACE, x), world.Barrier, reduce_max,
                  cfg["target"], cfg["repeats"])
        x[:] = r + 1
        world.Allreduce(MPI.IN_PLACE, x)
        wrong = world.allreduce(int(np.count_nonzero(x != n * (n + 1) / 2)))
        rows.append({"impl": "mpich", "coll": "all_reduce", "size": size, "time": t,
                     "wrong": wrong, "n": n, "transport": MPI.Get_library_version().split()[2]})
        del x
    if r == 0:
        _write(out, rows)


def run_gloo(cfg: dict, out: str) -> None:
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    n, r = dist.get_world_size(), dist.get_rank()

    def reduce_max(v: float) -> float:
        t = torch.tensor([v], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return float(t[0])

    rows = []
    for size in sizes(cfg["minbytes"], cfg["maxbytes"], cfg["factor"]):
        x = torch.ones(max(1, size // 4), dtype=torch.float32)
        t = _time(lambda x=x: dist.all_reduce(x), dist.barrier, reduce_max, cfg["target"],
                  cfg["repeats"])
        x.fill_(r + 1)
        dist.all_reduce(x)
        wrong = torch.tensor([int((x != n * (n + 1) / 2).sum())])
        dist.all_reduce(wrong)
        rows.append({"impl": "gloo", "coll": "all_reduce", "size": size, "time": t,
                     "wrong": int(wrong[0]), "n": n, "transport": "torch " + torch.__version__})
        del x
    if r == 0:
        _write(out, rows)
    dist.destroy_process_group()


def _write(out: str, rows: list[dict]) -> None:
    with open(out, "w") as f:
        json.dump(rows, f)


def main(argv: list[str]) -> None:
    kind, out, cfg = argv[0], argv[1], json.loads(argv[2])
    {"openhip": run_openhip, "mpich": run_mpich, "gloo": run_gloo}[kind](cfg, out)


if __name__ == "__main__":
    main(sys.argv[1:])
