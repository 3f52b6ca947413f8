"""``openhip run prog.cu [args...]``: build a CUDA or HIP program for the CPU platform (through
the compile cache: a second run compiles nothing) and run it, passing the arguments and the exit
status through.

Driver options come before the program (``openhip run -I common -DN=4 prog.cu arg1``); several
source files are given before ``--`` (``openhip run a.cu b.cpp -- arg1``). A program killed by a
signal is reported with the signal's name and exits with 128 + the signal number, as a shell
reports it; a fault in a kernel is reported by the program's HIP calls (the kernel, block,
thread and address on stderr) and the program decides how to exit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

__all__ = ["run", "split_argv"]


def split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """(driver arguments, program arguments): up to ``--``, else up to the first source file."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    from ..platforms.cpu.program import CUDA_SUFFIXES, HIP_SUFFIXES

    takes_value = {"-I", "-D", "-U", "-l", "-L", "-x", "--platform", "-o"}
    skip = False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg in takes_value:
            skip = True
            continue
        if not arg.startswith("-") and os.path.splitext(arg)[1] in (*CUDA_SUFFIXES,
                                                                      *HIP_SUFFIXES, ".c"):
            return argv[:i + 1], argv[i + 1:]
    return argv, []


def run(argv: list[str]) -> int:
    """Entry point: the program's exit status (or 1/2 when it cannot be built)."""
    from ..compiler import trust
    from ..errors import CompileError
    from ..platforms.cpu import program

    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    driver, args = split_argv(argv)
    try:
        opts = program.parse_hipcc_args(driver)
        if opts.compile_only or opts.output:
            raise ValueError("-c and -o are hipcc's; openhip run builds and runs the program")
        if opts.platform != "cpu":
            raise ValueError("openhip run builds for the CPU platform; use openhip hipcc "
                             "--platform amd|nvidia to build with a GPU toolchain")
    except ValueError as exc:
        print(f"openhip run: error: {exc}", file=sys.stderr)
        return 2
    opts.output = None
    try:
        toolchain = program._toolchain()
        objects = [program.compile_unit(toolchain, p, lang, opts, i)
                   for i, (p, lang) in enumerate(opts.sources)]
        exe = program.link_objects(toolchain, objects, opts)
    except CompileError as exc:
        print(exc.log if getattr(exc, "log", "") else str(exc), file=sys.stderr)
        return 1
    name = os.path.splitext(os.path.basename(opts.sources[0][0] if opts.sources else "a.out"))[0]
    directory = trust.private_dir().path
    path = os.path.join(directory, f"{name}-{os.getpid()}")
    with open(path, "wb") as f:
        f.write(exe)
    os.chmod(path, 0o700)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        proc = subprocess.Popen([path, *args], executable=path)
        try:
            rc = proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            rc = proc.wait()
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    if rc < 0:
        sig = -rc
        try:
            what = f"{signal.Signals(sig).name} ({signal.strsignal(sig)})"
        except ValueError:
            what = f"signal {sig}"
        print(f"openhip run: {name} was terminated by {what}", file=sys.stderr)
        return 128 + sig
    return rc
