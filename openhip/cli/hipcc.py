"""``openhip hipcc``: compile CUDA/HIP programs into native executables for the CPU platform.

``openhip hipcc vectorAdd.cu -o vectorAdd`` (CUDA input through hipify); ``-c`` makes objects;
``--platform amd|nvidia`` hands the same command to hipcc or nvcc. See
:mod:`openhip.platforms.cpu.program` for what the driver does and which options it accepts.
"""

from __future__ import annotations

import os
import sys

__all__ = ["run"]


def run(argv: list[str]) -> int:
    """Entry point: returns the exit code (0, 1 for a failed build, 2 for a bad command line)."""
    from ..errors import CompileError
    from ..platforms.cpu import program

    if not argv or argv[0] in ("-h", "--help"):
        print(program.HIPCC_USAGE)
        return 0 if argv else 2
    try:
        opts = program.parse_hipcc_args(argv)
        if opts.platform != "cpu":
            cmd = program.vendor_command(opts.platform, argv)
            sys.stdout.flush()
            os.execv(cmd[0], cmd)
    except ValueError as exc:
        print(f"openhip hipcc: error: {exc}", file=sys.stderr)
        return 2
    try:
        program.build_program(opts)
    except CompileError as exc:
        print(exc.log if getattr(exc, "log", "") else str(exc), file=sys.stderr)
        return 1
    return 0
