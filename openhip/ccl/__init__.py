"""openhip.ccl: NCCL/RCCL-style collectives across processes and machines.

    from openhip import ccl
    comm = ccl.init_from_env()          # under `openhip launch`, mpiexec or torchrun
    comm.all_reduce(x)                  # in place, sum

Transports: shared memory within a machine (a C++ engine built at first use), MPI across
machines (mpi4py), NCCL/RCCL for GPU buffers. See openhip/ccl/communicator.py for the API.
"""

from openhip.errors import CclError

from .bootstrap import init_from_env
from .communicator import Communicator
from .grouping import group
from .types import DTYPES, OPS, CclArgumentError, PreMulSum, premul_sum
from .uid import get_unique_id
from .work import Work

__all__ = ["CclArgumentError", "CclError", "Communicator", "DTYPES", "OPS", "PreMulSum",
           "Work", "get_unique_id", "group", "init_from_env", "premul_sum"]
