"""``openhip launch``: start N ranks of a program on this machine (or on several via mpiexec).

Each rank gets torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
GROUP_RANK, ROLE_RANK, ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and OPENHIP_CCL_UID, the id
``ccl.init_from_env()`` joins; OMP_NUM_THREADS defaults to 1 as under torchrun. Signals sent to the launcher (SIGINT, SIGTERM, SIGHUP, SIGUSR1,
SIGUSR2) are forwarded to every rank; when a rank fails (non-zero exit or killed) the others
get SIGTERM, then SIGKILL after a grace period; the launcher exits with the worst rank's code
(128+N for a rank killed by signal N) and removes any shm segment the job left behind.
On Linux each rank also gets SIGKILL as its parent-death signal (``prctl(PR_SET_PDEATHSIG)``), so
a launcher that is itself killed (``kill -9``, OOM) takes its ranks with it instead of leaving
them running; a rank whose launcher died before the signal was armed exits at once.
"""

from __future__ import annotations

import ctypes
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

from .uid import get_unique_id, parse

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)
_PR_SET_PDEATHSIG = 1


def parent_death_hook():
    """A ``preexec_fn`` that arms SIGKILL as the child's parent-death signal (Linux), or None.

    The kernel sends it when the thread that started the child exits, so ranks must be started
    from the launcher's main thread. The launcher may die between fork and prctl: the child then
    has a new parent already, sees it, and kills itself. libc is loaded here, before any fork.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
    launcher = os.getpid()

    def arm() -> None:
        if prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            os.write(2, b"openhip launch: prctl(PR_SET_PDEATHSIG) failed\n")
            os._exit(126)
        if os.getppid() != launcher:  # the launcher died before the signal was armed
            os.kill(os.getpid(), signal.SIGKILL)

    return arm


def free_port(addr: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


def exit_code(returncode: int) -> int:
    """A rank's exit status as a shell reports it (signal N -> 128+N)."""
    return 128 - returncode if returncode < 0 else returncode


def rank_env(rank: int, nprocs: int, uid_hex: str, addr: str, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "RANK": str(rank), "WORLD_SIZE": str(nprocs), "LOCAL_RANK": str(rank),
        "LOCAL_WORLD_SIZE": str(nprocs), "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1",
        "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(nprocs), "ROLE_NAME": "default",
        "MASTER_ADDR": addr, "MASTER_PORT": str(port), "OPENHIP_CCL_UID": uid_hex,
        "TORCHELASTIC_RUN_ID": uid_hex[16:48],
    })
    if nprocs > 1:
        env.setdefault("OMP_NUM_THREADS", "1")  # as torchrun: no thread pool per rank by default
    return env


def remove_segments(token: str) -> list[str]:
    """Remove /dev/shm segments of the job with this token (ranks killed before joining)."""
    removed = []
    for path in glob.glob(f"/dev/shm/ohccl-{token}*"):
        try:
            os.unlink(path)
            removed.append(path)
        except OSError:
            pass
    return removed


def launch(nprocs: int, command: Sequence[str], *, master_addr: str = "127.0.0.1",
           master_port: int | None = None, grace: float = 5.0) -> int:
    """Run ``command`` (argv) as ``nprocs`` ranks on this machine; returns the job's exit code."""
    uid = get_unique_id()
    token = parse(uid).token
    port = master_port or free_port(master_addr)
    procs: list[subprocess.Popen] = []
    received: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        for p in procs:
            if p.poll() is None:
                try:
                    p.send_signal(signum)
                except ProcessLookupError:
                    pass

    old = {s: signal.signal(s, forward) for s in FORWARDED}
    arm = parent_death_hook()
    codes: dict[int, int] = {}
    killed_by_us: set[int] = set()
    try:
        for rank in range(nprocs):
            procs.append(subprocess.Popen(list(command), start_new_session=True,
                                          preexec_fn=arm,  # safe: the launcher runs no other thread
                                          env=rank_env(rank, nprocs, uid.hex(), master_addr,
                                                       port)))
        deadline = None
        while len(codes) < nprocs:
            for rank, p in enumerate(procs):
                if rank in codes:
                    continue
                rc = p.poll()
                if rc is None:
                    continue
                codes[rank] = rc
                if rc != 0 and deadline is None:
                    failed = f"killed by signal {-rc}" if rc < 0 else f"exited with {rc}"
                    print(f"openhip launch: rank {rank} {failed}; stopping the job",
                          file=sys.stderr, flush=True)
                    for other, q in enumerate(procs):
                        if other not in codes and q.poll() is None:
                            killed_by_us.add(other)
                            if not received:  # a forwarded signal is already on its way
                                q.send_signal(signal.SIGTERM)
                    deadline = time.monotonic() + grace
            if deadline is not None and time.monotonic() > deadline:
                for rank, p in enumerate(procs):
                    if rank not in codes and p.poll() is None:
                        p.kill()
                deadline = float("inf")
            time.sleep(0.02)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        remove_segments(token)
    if received:
        return 128 + received[0] if all(c == 0 for c in codes.values()) else \
            max(exit_code(c) for c in codes.values())
    own = [exit_code(c) for r, c in codes.items() if r not in killed_by_us]
    return max(own or [exit_code(c) for c in codes.values()] or [0])


def mpiexec() -> str:
    """The mpiexec to use (the mpich wheel's, next to this Python, or on PATH)."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = shutil.which("mpiexec")
    if not found:
        raise FileNotFoundError("mpiexec not found: pip install 'openhip[mpi]' (mpich wheel)")
    return found


def launch_mpi(nprocs: int, command: Sequence[str], hosts: str,
               extra: Sequence[str] = ()) -> int:
    """Run the job across ``hosts`` (comma separated, ``host[:slots]``) through mpiexec."""
    cmd = [mpiexec(), "-n", str(nprocs), "-hosts", hosts, *extra, *command]
    proc = subprocess.Popen(cmd, preexec_fn=parent_death_hook())  # mpiexec dies with us
    old = {s: signal.signal(s, lambda signum, _f: proc.send_signal(signum)) for s in FORWARDED}
    try:
        return exit_code(proc.wait())
    finally:
        for s, h in old.items():
            signal.signal(s, h)
