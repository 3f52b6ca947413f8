"""All-reduce of freshly written buffers: each rank rewrites its whole buffer before every call.

nccl-tests (and ``openhip ccl-bench``) reduce the same untouched buffer again and again, where
data a rank handled last time may still sit in its cache; between training steps the buffer is
rewritten instead. This times (write + all-reduce) and the write alone, per buffer kind, and
reports the all-reduce's share against MPICH's in the same processes:

    mpiexec -n 2 python bench/bench_ccl_fresh.py        # the mpich wheel's mpiexec

(``python -c "from openhip.ccl.launcher import mpiexec; print(mpiexec())"`` prints its path.)
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from mpi4py import MPI

from openhip import ccl


def main() -> None:
    comm = ccl.init_from_env()
    world = MPI.COMM_WORLD

    def timed(fn, iters: int) -> float:
        comm.barrier()
        t = time.perf_counter()
        for _ in range(iters):
            fn()
        a = np.array([(time.perf_counter() - t) / iters])
        comm.all_reduce(a, op="max")
        return float(a[0])

    if comm.rank == 0:
        print(f"# {comm.size} ranks, float32 sum in place, median of 9; µs per call "
              "(write + all-reduce) and the all-reduce's share (minus the write alone)")
    for size in (1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20):
        n = size // 4
        src = (np.arange(n, dtype=np.float32) % 7) + comm.rank
        bufs = {"openhip": np.ones(n, np.float32), "openhip-shared": ccl.zeros(n, np.float32),
                "mpich": np.ones(n, np.float32)}
        ops = {"openhip": lambda x: comm.all_reduce(x),
               "openhip-shared": lambda x: comm.all_reduce(x),
               "mpich": lambda x: world.Allreduce(MPI.IN_PLACE, x)}
        iters = max(3, (64 << 20) // size)
        write: dict[str, list[float]] = {k: [] for k in bufs}
        total: dict[str, list[float]] = {k: [] for k in bufs}
        for _ in range(9):
            for k, x in bufs.items():
                write[k].append(timed(lambda x=x, s=src: np.copyto(x, s), iters))
                total[k].append(timed(lambda x=x, s=src, op=ops[k]: (np.copyto(x, s), op(x)), iters))
        op_only = {k: statistics.median(total[k]) - statistics.median(write[k]) for k in bufs}
        want = sum((np.arange(n, dtype=np.float32) % 7) + q for q in range(comm.size))
        wrong = sum(int(np.count_nonzero(x != want)) for x in bufs.values())
        if comm.rank == 0:
            cells = " | ".join(f"{k} {statistics.median(total[k]) * 1e6:7.0f} "
                               f"({op_only[k] * 1e6:6.0f})" for k in bufs)
            ratios = " ".join(f"{k} {op_only['mpich'] / op_only[k]:.2f}x"
                              for k in ("openhip", "openhip-shared"))
            print(f"{size >> 20:3d}M | {cells} | vs MPICH: {ratios} | wrong {wrong}", flush=True)
    comm.destroy()


if __name__ == "__main__":
    main()
