"""The ``openhip`` command.

Each subcommand lives in its own module under ``openhip.cli`` and exposes
``run(argv: list[str]) -> int`` (argv: the arguments after the subcommand; returns the exit
code); the module is imported only when its subcommand runs (``--help`` lists
them all). Subcommands: info, hipify, cc, launch, ccl-bench, hipcc, run, prof, memcheck, llm.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "info": ("openhip.cli.info", "show every platform, its devices and the compile cache"),
    "hipify": ("openhip.cli.hipify", "translate CUDA sources to HIP"),
    "cc": ("openhip.cli.cc", "compile a HIP kernel file for a platform and arch (no device needed)"),
    "launch": ("openhip.cli.launch", "start N ranks of a script (torchrun-style variables)"),
    "ccl-bench": ("openhip.cli.ccl_bench", "benchmark the collectives (nccl-tests style)"),
    "hipcc": ("openhip.cli.hipcc", "compile CUDA/HIP programs into native executables (CPU)"),
    "run": ("openhip.cli.run", "build a CUDA/HIP program for the CPU platform and run it"),
    "prof": ("openhip.cli.prof", "run a command under the profiler (trace JSON, HTML timeline, "
             "--stats)"),
    "memcheck": ("openhip.cli.memcheck", "run a command with checked kernel memory accesses "
                 "(CPU platform; compute-sanitizer style reports, --leak-check full)"),
    "llm": ("openhip.cli.llm", "run a GGUF language model (llm run) or quantize one (llm quantize)"),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``openhip`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        parser = argparse.ArgumentParser(prog="openhip", description=__doc__.splitlines()[0])
        sub = parser.add_subparsers(dest="command", metavar="COMMAND")
        for name, (_, text) in SUBCOMMANDS.items():
            sub.add_parser(name, help=text)
        parser.print_help()
        return 0 if argv else 2
    name = argv[0]
    if name not in SUBCOMMANDS:
        print(f"openhip: unknown command {name!r}; try 'openhip --help'", file=sys.stderr)
        return 2
    module = importlib.import_module(SUBCOMMANDS[name][0])
    return int(module.run(argv[1:]) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
