"""Whole CUDA and HIP programs on the CPU platform: the driver behind ``openhip hipcc`` and
``openhip run``.

Each source file is one translation unit, compiled the way kernels loaded from Python are
(``compiler.py``'s pipeline: the tree-sitter scan, ``extern __shared__`` rewriting, kernels
split at their barriers where that is provably right, fibers otherwise) plus two host-side
steps: kernel launches in host code are rewritten into launches of the kernels' entry points
(``host_launch.py``), and a footer registers every kernel and ``__device__``/``__constant__``
variable in the program's tables (``hipLaunchCooperativeKernel((void*)k, ...)``,
``hipMemcpyToSymbol``). The source is compiled with ``OPENHIP_HOST_PROGRAM`` defined, which
makes ``<hip/hip_runtime.h>`` declare the host API (``include/openhip_cpu/host_api.h``). CUDA
input (``.cu``, ``-x cu``) goes through hipify first, with the local headers it includes
(``openhip.runtime.cuda_headers``). The objects are linked with the native runtime
(``src/runtime.cpp``) and the host API (``src/host_api.cpp``) into an executable.

Every object, the runtime's object and the linked executable go through the compile cache
(``openhip.compiler.cache``: complete keys, included files re-checked, entries MAC'd under the
user's key), so a second build or run of an unchanged program compiles nothing.

User options reach the host compiler only through ``compiler.normalize_options``' allow-list
(plus ``-l``/``-L`` for the link and ``-fopenmp``/``-pthread``); options that pass options to
another tool or name files (``-Wl,``, ``-Xcompiler``, ``-Wp,``, ``-fplugin``) are refused.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import struct
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import CompileError
from ..base import CompiledProgram
from . import compiler as _cc
from .host_launch import (
    KernelRef,
    deduced_helper,
    kernel_defaults,
    launch_edits,
    template_kernel_ends,
)
from .limits import limit_message, run_tool
from .runtime_lib import INCLUDE_DIR, SOURCE_DIR

__all__ = ["ProgramOptions", "parse_hipcc_args", "build_program", "HIPCC_USAGE"]

CUDA_SUFFIXES = (".cu", ".cuh")
HIP_SUFFIXES = (".hip", ".cpp", ".cc", ".cxx", ".c++", ".C")
OBJECT_SUFFIXES = (".o", ".a", ".so")
_LANGS = {"cu": "cuda", "cuda": "cuda", "hip": "hip", "c++": "hip", "cpp": "hip", "c": "c",
          "none": None}
_LIB = re.compile(r"^[A-Za-z0-9_.+-]+$")
#: GPU-only options of hipcc/nvcc taking a separate value (accepted, ignored).
_IGNORED_WITH_VALUE = {"-gencode", "--generate-code", "-arch", "--gpu-architecture",
                       "--offload-arch", "-code", "--gpu-code", "-maxrregcount", "-ccbin",
                       "--compiler-bindir"}
_IGNORED_FLAGS = {"-m64", "--extended-lambda", "--expt-extended-lambda",
                  "--expt-relaxed-constexpr", "-cudart=static", "--cudart=static",
                  "-cudart=shared", "--cudart=shared", "-Xptxas=-v", "--resource-usage",
                  "-fno-gpu-rdc", "-fgpu-rdc", "-rdc=true", "-rdc=false", "--threads=0",
                  "-allow-unsupported-compiler", "--allow-unsupported-compiler"}
_OPENMP = {"-fopenmp", "-pthread"}

HIPCC_USAGE = """usage: openhip hipcc [options] sources... [-o output]

Compiles CUDA (.cu, -x cu; through hipify) and HIP (.hip, .cpp) programs for the CPU platform
into a native executable. With a .cu source on the command line, the .cpp files are taken as
CUDA too (hipified), as nvcc builds them against CUDA's headers. Options: -o FILE, -c, -I DIR, -D NAME[=V], -U NAME, -O0..3/-Os, -g,
-std=c++17|20|23, -w, -W<warning>, -l LIB, -L DIR, -x cu|hip|c++|c (applies to the sources after
it), -fopenmp, -pthread, -v; GPU-only options (--offload-arch=, -arch, -gencode, -rdc, -lineinfo,
-use_fast_math...) are accepted and ignored. --platform amd|nvidia hands the command to hipcc or
nvcc. Inputs ending in .o/.a/.so are linked."""


@dataclass
class ProgramOptions:
    """A parsed hipcc command line."""

    sources: list[tuple[str, str]] = field(default_factory=list)  # (path, "cuda"|"hip"|"c")
    inputs: list[str] = field(default_factory=list)               # objects and libraries
    output: str | None = None
    compile_only: bool = False
    compile_flags: list[str] = field(default_factory=list)        # for normalize_options
    link_flags: list[str] = field(default_factory=list)           # -l, -L (validated)
    extra_flags: list[str] = field(default_factory=list)          # -fopenmp, -pthread
    platform: str = "cpu"
    verbose: bool = False


def parse_hipcc_args(argv: Sequence[str]) -> ProgramOptions:
    """Parse hipcc-style arguments; ValueError naming an option that is not accepted."""
    opts = ProgramOptions()
    lang: str | None = None
    host_cpp: list[int] = []  # .cpp/.cc/... sources whose language was not given with -x
    it = iter(list(argv))
    for arg in it:
        if arg in ("-o", "--output-file"):
            value = next(it, None)
            if value is None:
                raise ValueError(f"option {arg!r} needs a file name")
            opts.output = value
        elif arg.startswith("-o") and len(arg) > 2:
            opts.output = arg[2:]
        elif arg in ("-c", "--compile", "-dc"):
            opts.compile_only = True
        elif arg in ("-v", "--verbose"):
            opts.verbose = True
        elif arg == "--platform" or arg.startswith("--platform="):
            value = arg.split("=", 1)[1] if "=" in arg else next(it, None)
            if value not in ("cpu", "amd", "nvidia"):
                raise ValueError(f"--platform takes cpu, amd or nvidia, not {value!r}")
            opts.platform = value
        elif arg == "-x" or (arg.startswith("-x") and len(arg) > 2 and not arg.startswith("-X")):
            value = arg[2:] if len(arg) > 2 else next(it, None)
            if value not in _LANGS:
                raise ValueError(f"-x {value}: the language is cu, cuda, hip, c++ or c")
            lang = _LANGS[value]
        elif arg in ("-I", "-D", "-U", "--include-path", "--define-macro"):
            value = next(it, None)
            if value is None:
                raise ValueError(f"option {arg!r} needs a value")
            flag = {"--include-path": "-I", "--define-macro": "-D"}.get(arg, arg)
            opts.compile_flags.append(flag + value)
        elif arg.startswith(("--include-path=", "--define-macro=")):
            flag = "-I" if arg.startswith("--include-path=") else "-D"
            opts.compile_flags.append(flag + arg.split("=", 1)[1])
        elif arg in ("-l", "-L"):
            value = next(it, None)
            if value is None:
                raise ValueError(f"option {arg!r} needs a value")
            opts.link_flags.append(_link_flag(arg + value))
        elif arg.startswith(("-l", "-L")):
            opts.link_flags.append(_link_flag(arg))
        elif arg in _OPENMP:
            opts.extra_flags.append(arg)
        elif arg in _IGNORED_WITH_VALUE:
            next(it, None)
        elif arg in _IGNORED_FLAGS or arg.startswith(("--offload-arch=", "-arch=", "-gencode=",
                                                      "--generate-code=", "--gpu-architecture=",
                                                      "-code=", "--gpu-code=", "-ccbin=",
                                                      "--default-stream", "-Xptxas",
                                                      "--ptxas-options")):
            continue
        elif arg.startswith("-Xcompiler") or arg.startswith("--compiler-options") \
                or arg.startswith("-Xlinker") or arg.startswith("--linker-options"):
            raise ValueError(f"option {arg!r} is refused: options are not passed through to "
                             f"the host compiler or linker (use -D, -I, -O, -l, -L instead)")
        elif arg.startswith("-"):
            if arg == "-":
                raise ValueError("reading the source from stdin is not supported")
            try:
                _cc.normalize_options([arg])
            except ValueError as exc:
                raise ValueError(str(exc)) from None
            opts.compile_flags.append(arg)
        else:
            suffix = os.path.splitext(arg)[1]
            if suffix in OBJECT_SUFFIXES and lang is None:
                opts.inputs.append(arg)
            elif lang is not None:
                opts.sources.append((arg, lang))
            elif suffix in CUDA_SUFFIXES:
                opts.sources.append((arg, "cuda"))
            elif suffix in HIP_SUFFIXES:
                opts.sources.append((arg, "hip"))
                if suffix != ".hip":
                    host_cpp.append(len(opts.sources) - 1)
            elif suffix == ".c":
                opts.sources.append((arg, "c"))
            else:
                raise ValueError(f"{arg}: unknown input type (a .cu, .hip, .cpp, .c, .o or .a "
                                 f"file; -x cu|hip before it names the language)")
    if not opts.sources and not opts.inputs:
        raise ValueError("no input files")
    if any(language == "cuda" for _path, language in opts.sources):
        # a CUDA project: its C++ files include <cuda_runtime.h> and use CUDA's names too (nvcc
        # compiles them against CUDA's headers); hipify leaves plain C++ as it is
        for i in host_cpp:
            opts.sources[i] = (opts.sources[i][0], "cuda")
    if opts.compile_only and opts.output and len(opts.sources) > 1:
        raise ValueError("-c with -o takes one source file")
    _cc.normalize_options(opts.compile_flags)  # the allow-list, once more as a whole
    return opts


def _link_flag(flag: str) -> str:
    value = flag[2:]
    if flag.startswith("-l"):
        if not _LIB.match(value):
            raise ValueError(f"option {flag!r}: a library name is letters, digits and _.+-")
        return flag
    if not value or "\n" in value or "\0" in value:
        raise ValueError(f"option {flag!r}: -L needs a directory")
    return "-L" + os.path.abspath(value)


# ---- compiling one translation unit ---------------------------------------------------------------
def _modes(result, plans: dict, cooperative: bool,
           defaults: dict[str, tuple[str | None, ...]]) -> dict[str, KernelRef]:
    """Each kernel's execution mode, as ``compiler.build_footer`` chooses it, and its default
    arguments (``host_launch.kernel_defaults``)."""
    refs: dict[str, KernelRef] = {}
    for qname, decl in result.kernels.items():
        plan = plans.get(decl.name)
        if not decl.uses_sync:
            mode = 3 if decl.wide else 0
            split = None
        elif plan is not None and plan.function and not cooperative:
            mode, split = 2, plan.function
        else:
            mode, split = 1, None
        written = defaults.get(qname.rsplit("::", 1)[-1], ())
        typed: tuple[str | None, ...] = ()
        if written and decl.template_params is None and len(written) == len(decl.params):
            # cast to the parameter's type: a forwarded NULL would lose its null-pointer-ness
            typed = tuple(None if d is None else f"static_cast<{p.type}>({d})"
                          for p, d in zip(decl.params, written, strict=True))
        refs[qname] = KernelRef(qname, mode, cooperative and mode == 1, split,
                                decl.template_params is not None, typed)
    return refs


def _deduced_helpers(source: str, refs: dict[str, KernelRef],
                     split_edits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """For each template kernel, an edit defining its deduced-launch helper (``host_launch.
    deduced_helper``) in the kernel's own namespace: right after the kernel, or after its
    barrier-split form (which regions.py inserts after the kernel) when it runs split."""
    ends = template_kernel_ends(source)
    edits: list[tuple[int, int, str]] = []
    for qname, ref in refs.items():
        short = qname.rsplit("::", 1)[-1]
        if not ref.template or short not in ends:
            continue
        pos = ends[short]
        entry = short
        if ref.split is not None:
            entry = ref.split.rsplit("::", 1)[-1]
            found = [e for e in split_edits if entry in e[2]]
            if not found:
                continue  # no launch can then name the helper: the compiler reports it
            pos = found[-1][1]
        helper = deduced_helper(short)
        edits.append((pos, pos, f" template <class... __openhip_A> void {helper}("
                      f"__openhip_A... __openhip_a) {{ {entry}(__openhip_a...); }}"))
    return edits


def _footer(result, refs: dict[str, KernelRef]) -> str:
    lines = ["", '#line 1 "<openhip generated kernel table>"']
    for i, (qname, ref) in enumerate(refs.items()):
        if ref.template:
            continue  # instantiations register at their first launch
        entry = "::" + (ref.split or qname).lstrip(":")
        label = qname.replace("\\", "\\\\").replace('"', '\\"')
        coop = "true" if ref.coop else "false"
        lines.append(f'OPENHIP_HOST_KERNEL({i}, {ref.mode}, {coop}, "{label}", &{entry}, '
                     f"&::{qname.lstrip(':')})")
    for i, g in enumerate(result.globals):
        lines.append(f"OPENHIP_HOST_GLOBAL({i}, ::{g.name.lstrip(':')})")
    return "\n".join(lines) + "\n"


def _program_flags(std: str, march: str, unit: int) -> list[str]:
    """The host compiler's flags for source file number ``unit`` of a program. The engine's
    headers keep per-module state (thread coordinates, the fiber scheduler) that their inline
    functions reach: each file's copy lives in a namespace of its own (``openhip`` renamed), so
    the linker never merges two files' inline engine functions into one."""
    flags = [std, *[f for f in _cc.BASE_FLAGS if f != "-shared"], march, "-DOPENHIP_HOST_PROGRAM"]
    if unit:
        flags.append(f"-Dopenhip=openhip_unit{unit}")
    return flags


#: symbols the engine's headers define outside any namespace (an assembler routine, a TLS
#: alias): made local to each object, so that several source files link.
_LOCAL_SYMBOLS = ("openhip_cpu_switch", "openhip_cpu_threadIdx_alias",
                  "_ZN7openhip6detail11device_trapEPKc")


def _localize(compiler: _cc.Compiler, obj: Path) -> None:
    objcopy = shutil.which("objcopy")
    if objcopy is None:
        return  # one source file links without it
    cmd = [objcopy, *[f"--localize-symbol={s}" for s in _LOCAL_SYMBOLS], str(obj)]
    proc = run_tool(cmd)
    if proc.returncode != 0:
        raise CompileError(f"objcopy failed on {obj.name}:\n{proc.output}", "", (),
                           platform="cpu", name=obj.name)


def transform_source(source: str, filename: str, user_flags: Sequence[str],
                     regions: bool = True) -> list[str]:
    """The texts to try compiling, best first: kernels split at their barriers with every
    launch rewritten, then (should that fail to compile) without the splits."""
    from ... import config
    from ...compiler.scan import apply_edits, extern_shared_edits, scan
    from ...hipify.launch import LaunchSyntaxError
    from .regions import split_kernels

    result = scan(source)
    _cc._mark_header_sync(result, source, user_flags, filename)
    rel = _cc._safe_relative(filename)
    shared = extern_shared_edits(result, source)
    cooperative = _cc.uses_grid_sync(source)
    plans: dict = {}
    split_edits: list = []
    if regions and config.cpu_regions():
        synchronising = [k.name for k in result.kernels.values() if k.uses_sync]
        split_edits, plans = split_kernels(source, result, rel, synchronising)
    attempts = [(split_edits, plans)] if split_edits else []
    attempts.append(([], {}))
    defaults = kernel_defaults(source)
    texts = []
    for edits, attempt_plans in attempts:
        refs = _modes(result, attempt_plans, cooperative, defaults)
        try:
            launches = launch_edits(source, refs)
        except LaunchSyntaxError as exc:
            line = source.count("\n", 0, exc.offset) + 1
            raise CompileError(f"{filename}:{line}: error: {exc}", source, (), platform="cpu",
                               name=filename) from None
        helper_edits = _deduced_helpers(source, refs, edits)
        body = apply_edits(source, shared + edits + helper_edits + launches)
        texts.append(body + ("" if body.endswith("\n") else "\n") + _footer(result, refs))
    return texts


_PRAGMA_ONCE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+once\b.*$", re.MULTILINE)
_MAX_HEADERS = 256


def inline_local_headers(text: str, filename: str, include_dirs: Sequence[str]) -> str:
    """``text`` with every local header it includes (``#include "x.cuh"`` found next to the
    including file or in the working directory, or ``"..."``/``<...>`` found under a ``-I``
    directory; recursively) spliced in place between ``#line`` directives, so that the whole
    translation unit is one text: kernels, ``extern __shared__`` arrays and launches in the
    program's own headers (the CUDA samples' ``*_kernel.cuh``) get the same treatment as those
    of the source file, and diagnostics still name each header and line. A header is wrapped
    in a guard of its own, which also stands for its ``#pragma once``. System headers (found
    nowhere among those directories) are left to the compiler; so are absolute paths, except
    the translated copies of local headers that ``openhip.runtime.cuda_headers`` points a CUDA
    source at."""
    from ...hipify.includes import split_include
    from ...hipify.lexer import INCLUDE, tokenize
    from ...runtime.cuda_headers import _headers_dir

    idirs = [os.path.abspath(d) for d in include_dirs]
    translated = os.path.realpath(_headers_dir()) + os.sep  # hipify's copies of local headers
    count = [0]

    def find(target: str, angled: bool, includer_dir: str | None) -> str | None:
        if target and os.path.isabs(target) and not angled:
            real = os.path.realpath(target)
            return real if real.startswith(translated) and os.path.isfile(real) else None
        if not target or os.path.isabs(target):
            return None
        dirs = [] if angled else [d for d in (includer_dir, os.getcwd()) if d]
        for d in dirs + idirs:
            path = os.path.join(d, target)
            if os.path.isfile(path):
                real = os.path.realpath(path)
                return None if real.startswith(str(INCLUDE_DIR)) else real
        return None

    def expand(body: str, name: str, includer_dir: str | None, depth: int) -> str:
        parts: list[str] = []
        last = 0
        for tok in tokenize(body):
            if tok.kind != INCLUDE:
                continue
            _head, target, angled = split_include(tok.text)
            found = find(target, angled, includer_dir)
            if found is None or depth > 32 or count[0] >= _MAX_HEADERS:
                continue
            count[0] += 1
            try:
                with open(found, encoding="utf-8", errors="replace") as f:
                    header = f.read()
            except OSError:
                continue
            line = body.count("\n", 0, tok.start) + 1
            guard = "__OPENHIP_LOCAL_HEADER_" + hashlib.sha256(found.encode()).hexdigest()[:16]
            label = found.replace("\\", "/").replace('"', "")
            inner = expand(_PRAGMA_ONCE.sub("", header), label, os.path.dirname(found),
                           depth + 1)
            parts.append(body[last:tok.start])
            parts.append(f'\n#ifndef {guard}\n#define {guard}\n#line 1 "{label}"\n{inner}'
                         f'\n#endif\n#line {line} "{name}"\n')
            last = tok.end
        parts.append(body[last:])
        return "".join(parts)

    main = os.path.abspath(filename)
    out = expand(text, main.replace('"', ""), os.path.dirname(main), 0)
    if count[0] == 0:
        return text
    # diagnostics name the user's files, whose lines the compiler shows
    return f'#line 1 "{main}"\n' + out


def _compile_object(compiler: _cc.Compiler, text: str, filename: str, language: str,
                    flags: Sequence[str], extra: Sequence[str], source: str,
                    unit: int = 0) -> CompiledProgram:
    user_flags, std = _cc.normalize_options(flags)
    march = _cc._march_for(_cc.host_arch())
    include_dir = os.path.dirname(os.path.abspath(filename))
    if language == "c":
        texts = [source]
    else:
        texts = transform_source(text, filename, user_flags)
    rel = _cc._safe_relative(filename)
    last: CompileError | None = None
    for attempt in texts:
        with tempfile.TemporaryDirectory(prefix="openhip-hipcc-") as tmp:
            work = Path(tmp)
            src = work / rel
            src.parent.mkdir(parents=True, exist_ok=True)
            src.write_text(attempt, encoding="utf-8")
            out = work / "unit.o"
            depfile = work / "unit.d"
            if language == "c":
                cmd = [compiler.path, "-x", "c", "-O2", "-fPIC", march, *user_flags, *extra,
                       "-iquote", include_dir, "-c", "-MMD", "-MF", str(depfile), "-o",
                       str(out), rel]
            else:
                pflags = _program_flags(std, march, unit)
                pch = _cc._pch_header(compiler, pflags)
                cmd = [compiler.path, "-x", "c++", *pflags, "-isystem", str(INCLUDE_DIR),
                       *_cc._include_flags(compiler), "-include", pch or "hip/hip_runtime.h",
                       "-iquote", include_dir, "-iquote", os.getcwd(), *user_flags, *extra,
                       "-c", "-MMD", "-MF", str(depfile), "-o", str(out), rel]
            proc = run_tool(cmd, cwd=work)
            log = proc.output.replace(str(work) + os.sep, "")
            if proc.limit:
                raise CompileError(f"{rel}: {limit_message(proc)}\n{log}".rstrip(), source,
                                   tuple(flags), platform="cpu", name=filename)
            if proc.returncode != 0 or not out.is_file():
                last = CompileError(log or f"{compiler.path} exited with {proc.returncode}",
                                    source, tuple(flags), platform="cpu", name=filename)
                continue
            _localize(compiler, out)
            return CompiledProgram(binary=out.read_bytes(), platform="cpu-program",
                                   arch=_cc.host_arch(),
                                   metadata={"dependencies": _cc._dependencies(depfile, work),
                                             "compiler": compiler.version},
                                   log=log.strip())
    assert last is not None
    raise last


class _Toolchain:
    """What the compile cache needs of the program driver: an identity covering the compiler,
    openhip's headers and runtime sources and the source transformations."""

    def __init__(self, compiler: _cc.Compiler) -> None:
        self.compiler = compiler

    def compiler_identity(self) -> str:
        from ... import config
        from .platform import _regions_digest

        h = hashlib.sha256()
        for path in sorted(SOURCE_DIR.glob("*")) + [Path(__file__),
                                                      Path(__file__).with_name("host_launch.py")]:
            h.update(path.name.encode())
            h.update(path.read_bytes())
        return (f"{self.compiler.path} | {self.compiler.version} | include "
                f"{_cc._include_digest()} | sources {h.hexdigest()[:16]} | regions "
                f"{_regions_digest() if config.cpu_regions() else 0}")

    def compile(self, source: str, **kwargs) -> CompiledProgram:  # pragma: no cover - unused
        raise NotImplementedError


def _cached(toolchain: _Toolchain, source: str, filename: str, options: Sequence[str],
            build) -> CompiledProgram:
    from ...compiler.cache import cached_compile

    return cached_compile(toolchain, source, platform="cpu-program", arch=_cc.host_arch(),
                          options=tuple(options), filename=filename, build=build)


def _support_object(toolchain: _Toolchain) -> bytes:
    """runtime.cpp and host_api.cpp, compiled once per compiler and source version: the two
    objects, each preceded by its length."""
    compiler = toolchain.compiler
    sources = [SOURCE_DIR / "runtime.cpp", SOURCE_DIR / "host_api.cpp"]
    key_text = "\0".join(p.read_text(encoding="utf-8") for p in sources)

    def build() -> CompiledProgram:
        parts = []
        with tempfile.TemporaryDirectory(prefix="openhip-hipcc-rt-") as tmp:
            for path in sources:
                out = Path(tmp) / (path.stem + ".o")
                cmd = [compiler.path, "-std=c++17", "-O2", "-fPIC", "-pthread",
                       "-fvisibility=hidden", "-Dopenhip=openhip_runtime", "-isystem",
                       str(INCLUDE_DIR), "-c", str(path), "-o", str(out)]
                proc = run_tool(cmd)
                if proc.returncode != 0 or proc.limit or not out.is_file():
                    raise CompileError(f"building the CPU runtime for programs failed:\n"
                                       f"{limit_message(proc, 'the compiler')}\n{proc.output}",
                                       "", (), platform="cpu", name=path.name)
                _localize(compiler, out)
                data = out.read_bytes()
                parts.append(struct.pack("<Q", len(data)) + data)
        return CompiledProgram(binary=b"".join(parts), platform="cpu-program",
                               arch=_cc.host_arch(), metadata={})

    return _cached(toolchain, key_text, "<openhip program runtime>", (), build).binary


def _split_support(blob: bytes) -> list[bytes]:
    out = []
    pos = 0
    while pos < len(blob):
        (n,) = struct.unpack_from("<Q", blob, pos)
        out.append(blob[pos + 8:pos + 8 + n])
        pos += 8 + n
    return out


def compile_unit(toolchain: _Toolchain, path: str, language: str,
                 opts: ProgramOptions, unit: int = 0) -> bytes:
    """One source file's object (through the cache)."""
    from ...runtime.cuda_headers import translate_cuda

    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            source = f.read()
    except OSError as exc:
        raise CompileError(f"{path}: error: cannot read the source: {exc.strerror}", "", (),
                           platform="cpu", name=path) from None
    source = source.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    text = translate_cuda(source, path, opts.compile_flags) if language == "cuda" else source
    if language != "c":
        from ...runtime.cuda_headers import include_dirs

        text = inline_local_headers(text, path, include_dirs(opts.compile_flags))
    options = (*opts.compile_flags, *opts.extra_flags, f"lang={language}", f"unit={unit}",
               f"dir={os.path.dirname(os.path.abspath(path))}")

    def build() -> CompiledProgram:
        return _compile_object(toolchain.compiler, text, path, language, opts.compile_flags,
                               opts.extra_flags, source, unit)

    return _cached(toolchain, text, path, options, build).binary


def link_objects(toolchain: _Toolchain, objects: list[bytes], opts: ProgramOptions) -> bytes:
    """The linked executable's bytes (through the cache: keyed by the objects and options)."""
    compiler = toolchain.compiler
    support = _split_support(_support_object(toolchain))
    inputs = [os.path.abspath(p) for p in opts.inputs]
    digest = hashlib.sha256()
    for blob in objects + support:
        digest.update(hashlib.sha256(blob).digest())
    for p in inputs:
        with open(p, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    key_text = f"link {digest.hexdigest()} {inputs}"

    def build() -> CompiledProgram:
        with tempfile.TemporaryDirectory(prefix="openhip-hipcc-ld-") as tmp:
            names = []
            for i, blob in enumerate(objects + support):
                name = os.path.join(tmp, f"part{i}.o")
                with open(name, "wb") as f:
                    f.write(blob)
                names.append(name)
            out = os.path.join(tmp, "a.out")
            cmd = [compiler.path, *names, *inputs, *opts.extra_flags, *opts.link_flags,
                   "-pthread", "-ldl", "-lm", "-o", out]
            proc = run_tool(cmd, cwd=tmp)
            if proc.returncode != 0 or proc.limit or not os.path.isfile(out):
                log = proc.output.replace(tmp + os.sep, "")
                raise CompileError(f"linking failed:\n{limit_message(proc, 'the linker')}\n{log}"
                                   .replace("\n\n", "\n"), "", tuple(opts.link_flags),
                                   platform="cpu", name=opts.output or "a.out")
            with open(out, "rb") as f:
                return CompiledProgram(binary=f.read(), platform="cpu-program",
                                       arch=_cc.host_arch(), metadata={})

    return _cached(toolchain, key_text, "<openhip program link>",
                   (*opts.link_flags, *opts.extra_flags), build).binary


def _toolchain() -> _Toolchain:
    found, reason = _cc.find_compiler()
    if found is None:
        raise CompileError(f"error: {reason}", "", (), platform="cpu", name="hipcc")
    return _Toolchain(found)


def build_program(opts: ProgramOptions) -> bytes | None:
    """Compile (and unless ``-c``, link) ``opts``; writes ``opts.output`` when given and
    returns the executable's bytes (None for ``-c``). CompileError on failure."""
    toolchain = _toolchain()
    if opts.compile_only:
        # objects compiled by separate commands get the unit of their path (see
        # _program_flags), so that they still link together; 60 bits: two paths collide
        # (and their objects then fail to link) with probability 2**-60
        units = [1 + int(hashlib.sha256(os.path.abspath(p).encode()).hexdigest(), 16) % (1 << 60)
                 for p, _ in opts.sources]
    else:
        units = list(range(len(opts.sources)))
    objects = [compile_unit(toolchain, path, lang, opts, unit)
               for unit, (path, lang) in zip(units, opts.sources, strict=True)]
    if opts.compile_only:
        for (path, _lang), blob in zip(opts.sources, objects, strict=True):
            target = opts.output or os.path.splitext(os.path.basename(path))[0] + ".o"
            _write(target, blob, executable=False)
        return None
    exe = link_objects(toolchain, objects, opts)
    _write(opts.output or "a.out", exe, executable=True)
    return exe


def _write(path: str, data: bytes, executable: bool) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.chmod(tmp, 0o755 if executable else 0o644)
    os.replace(tmp, path)


def vendor_command(platform: str, argv: Sequence[str]) -> list[str]:
    """The same command for the GPU vendor's compiler (hipcc for amd, nvcc for nvidia), without
    ``--platform``; ValueError when that compiler is not installed."""
    tool = "hipcc" if platform == "amd" else "nvcc"
    path = shutil.which(tool)
    if path is None:
        raise ValueError(f"--platform {platform}: {tool} is not installed (not on PATH); "
                         f"without it openhip hipcc builds for the CPU platform "
                         f"(--platform cpu, the default)")
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "--platform":
            next(it, None)
        elif not arg.startswith("--platform="):
            out.append(arg)
    return [path, *out]
