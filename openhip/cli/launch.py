"""``openhip launch -n N [--hosts h1,h2] script.py args``: start N ranks (torchrun-style)."""

from __future__ import annotations

import argparse
import sys


def run(argv: list[str]) -> int:
    """Entry point of ``openhip launch``; returns the worst rank's exit code."""
    parser = argparse.ArgumentParser(
        prog="openhip launch",
        description="Start N ranks of a Python script (or a program) with torchrun's variables "
        "(RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT); "
        "ccl.init_from_env() joins them. Signals are forwarded; a failing rank takes the job "
        "down; the exit code is the worst rank's.")
    parser.add_argument("-n", "--nproc", "--nproc-per-node", "--nproc_per_node", type=int,
                        required=True, dest="n", help="number of ranks")
    parser.add_argument("--hosts", help="comma-separated hosts: run through mpiexec -hosts "
                        "(MPI transport across machines)")
    parser.add_argument("--mpiexec-arg", action="append", default=[],
                        help="extra argument for mpiexec (with --hosts; repeatable)")
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    parser.add_argument("--master-port", "--master_port", type=int, default=None)
    parser.add_argument("--grace", type=float, default=5.0,
                        help="seconds between SIGTERM and SIGKILL when a rank fails")
    parser.add_argument("-m", dest="module", action="store_true",
                        help="run the target as a module (python -m)")
    parser.add_argument("--no-python", action="store_true",
                        help="run the target as a program, not a Python script")
    parser.add_argument("target", help="script (or module / program)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the script")
    ns = parser.parse_args(argv)
    if ns.n < 1:
        parser.error("-n must be at least 1")
    if ns.no_python:
        command = [ns.target, *ns.args]
    elif ns.module:
        command = [sys.executable, "-m", ns.target, *ns.args]
    else:
        command = [sys.executable, ns.target, *ns.args]
    from openhip.ccl import launcher

    if ns.hosts:
        return launcher.launch_mpi(ns.n, command, ns.hosts, ns.mpiexec_arg)
    return launcher.launch(ns.n, command, master_addr=ns.master_addr,
                           master_port=ns.master_port, grace=ns.grace)
