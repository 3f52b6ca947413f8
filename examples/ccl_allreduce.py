"""All-reduce across processes with openhip.ccl.

    openhip launch -n 2 examples/ccl_allreduce.py      # or: python -m openhip launch ...
    mpiexec -n 2 python examples/ccl_allreduce.py      # the same script under MPI
    torchrun --nproc-per-node 2 examples/ccl_allreduce.py
"""

import numpy as np

from openhip import ccl


def main() -> None:
    comm = ccl.init_from_env()
    x = np.full(1 << 20, comm.rank + 1, dtype=np.float32)
    comm.all_reduce(x)                              # in place, sum over every rank
    expected = comm.size * (comm.size + 1) / 2
    assert np.all(x == expected), x[:4]

    g = ccl.zeros(1 << 22, dtype=np.float32)        # 16 MiB in shared memory the peers map:
    g[:] = comm.rank                                # collectives over such arrays copy nothing
    comm.all_reduce(g)
    assert np.all(g == comm.size * (comm.size - 1) / 2), g[:4]

    parts = np.empty(comm.size, dtype=np.int64)     # gather one number from each rank
    comm.all_gather(np.array([comm.rank * 10], dtype=np.int64), parts)

    with ccl.group():                               # a ring of send/recv, no deadlock
        right = np.full(4, comm.rank, dtype=np.float64)
        left = np.empty(4, dtype=np.float64)
        comm.send(right, (comm.rank + 1) % comm.size)
        comm.recv(left, (comm.rank - 1) % comm.size)

    if comm.rank == 0:
        print(f"{comm.size} ranks over {comm.transport}: sum={x[0]:g} gathered={parts.tolist()}"
              f" from-left={left[0]:g}")
    comm.destroy()


if __name__ == "__main__":
    main()
