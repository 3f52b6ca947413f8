"""openhip.ccl: NCCL/RCCL-style collectives across processes and machines.

    from openhip import ccl
    comm = ccl.init_from_env()          # under `openhip launch`, mpiexec or torchrun
    comm.all_reduce(x)                  # in place, sum
    y = ccl.empty(n, np.float32)        # shared memory: collectives over it copy nothing

Transports: shared memory within a machine (a C++ engine built at first use), MPI across
machines (mpi4py), NCCL/RCCL for GPU buffers. See openhip/ccl/communicator.py for the API.
"""

from openhip.errors import CclError

from .bootstrap import init_from_env
from .communicator import Communicator
from .grouping import group
from .shared import empty, empty_like, is_shared, shared_copy, zeros
from .types import DTYPES, OPS, CclArgumentError, PreMulSum, premul_sum
from .uid import get_unique_id
from .work import Work

__all__ = ["CclArgumentError", "CclError", "Communicator", "DTYPES", "OPS", "PreMulSum",
           "Work", "empty", "empty_like", "get_unique_id", "group", "init_from_env", "is_shared",
           "premul_sum", "shared_copy", "zeros"]
