"""Transports of openhip.ccl: ``shm`` (one machine), ``mpi`` (across machines), ``nccl``
(GPU buffers through NCCL or RCCL). Each is imported only when used."""
