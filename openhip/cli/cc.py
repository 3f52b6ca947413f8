"""``openhip cc``: compile a HIP kernel file for a platform and arch, no device needed.

Like ``hipcc --genco``: ``openhip cc --platform amd --arch gfx90a k.hip -o k.co`` writes an AMD
code object; ``--platform nvidia --arch sm_90`` a cubin (``--ptx``: PTX for compute_90);
``--platform cpu`` a shared object. Goes through the same compile cache as ``openhip.Module``.
Exit codes: 0 built, 1 compile error (the log goes to stderr), 2 bad usage or an arch the
toolchain cannot target.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

_SUFFIX = {"amd": ".co", "nvidia": ".cubin", "cpu": ".so"}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="openhip cc",
        description="Compile a HIP C++ kernel file for a platform and arch (no device needed).")
    p.add_argument("source", help="the kernel file ('-' reads standard input)")
    p.add_argument("--platform", required=True, choices=("nvidia", "amd", "cpu"))
    p.add_argument("--arch", help="target: sm_90 / gfx90a / ... (default: the device's)")
    p.add_argument("-o", "--output", help="output file, '-' for standard output (default: SOURCE with "
                   ".co/.cubin/.ptx/.so)")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a macro (repeatable)")
    p.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR",
                   help="add an include directory (repeatable)")
    p.add_argument("--options", action="append", default=[], metavar="'OPTS'",
                   help="extra compiler options, passed through (shell-split; repeatable)")
    p.add_argument("--name-expression", dest="name_expressions", action="append", default=[],
                   metavar="EXPR", help="a template instantiation to compile and name, e.g. "
                   "'scale<float>' (repeatable)")
    p.add_argument("--ptx", action="store_true", help="nvidia: emit PTX (compute_XY) instead "
                   "of a cubin")
    p.add_argument("--symbols", action="store_true",
                   help="print the kernel and global symbol maps as JSON on standard output")
    return p


def _arch(args: argparse.Namespace) -> str | None:
    arch = args.arch
    if args.ptx:
        if args.platform != "nvidia":
            raise ValueError("--ptx is for --platform nvidia")
        if arch is None:
            raise ValueError("--ptx needs --arch (e.g. sm_90)")
        if arch.startswith("sm_"):
            arch = "compute_" + arch[3:]
    return arch


def run(argv: list[str]) -> int:
    """Entry point of ``openhip cc``; returns the exit code."""
    args = _parser().parse_args(argv)
    from ..errors import CompileError, HipError
    from ..runtime.compile import compile_program

    if args.source == "-":
        source, filename, stem = sys.stdin.read(), "stdin.hip", Path("a")
    else:
        path = Path(args.source)
        try:
            source = path.read_text()
        except OSError as exc:
            print(f"openhip cc: cannot read {path}: {exc.strerror}", file=sys.stderr)
            return 2
        filename, stem = path.name, path.with_suffix("")
    options = [f"-D{d}" for d in args.defines]
    options += [f"-I{os.path.abspath(d)}" for d in args.includes]
    for chunk in args.options:
        options += shlex.split(chunk)
    try:
        arch = _arch(args)
        program = compile_program(source, platform=args.platform, arch=arch, options=options,
                                  name_expressions=args.name_expressions, filename=filename)
    except CompileError as exc:
        print(exc.log.rstrip(), file=sys.stderr)
        print(f"openhip cc: compiling {filename} for {args.platform} "
              f"({exc.arch or args.arch}) failed", file=sys.stderr)
        return 1
    except (ValueError, ImportError, OSError, HipError) as exc:
        print(f"openhip cc: {exc}", file=sys.stderr)
        return 2
    suffix = ".ptx" if program.metadata.get("format") == "ptx" else _SUFFIX[args.platform]
    binary = program.binary.rstrip(b"\0") if suffix == ".ptx" else program.binary
    if args.output == "-":
        output = "-"
        sys.stdout.buffer.write(binary)
        sys.stdout.buffer.flush()
    else:
        output = Path(args.output) if args.output else stem.with_suffix(suffix)
        output.write_bytes(binary)
    if program.log:
        print(program.log, file=sys.stderr)
    if args.symbols:
        json.dump({"platform": program.platform, "arch": program.arch, "output": str(output),
                   "kernels": program.kernels, "globals": program.globals}, sys.stdout,
                  indent=2)
        print()
    return 0
