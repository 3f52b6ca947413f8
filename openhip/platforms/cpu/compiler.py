"""The CPU platform's compiler driver: HIP C++ source -> a shared object of kernel entry points.

Steps: scan the source (``openhip.compiler.scan``) for kernels, globals and ``extern __shared__``
arrays; rewrite those arrays line-preservingly; split synchronising kernels at their barriers
where that is provably right (``regions.py``; the others run as fibers); append a footer that exports, per kernel (name
or template name expression), an entry point ``openhip_kernel_<i>`` and its parameter sizes,
and per global an accessor ``openhip_global_<i>``; compile with the host compiler from a
temporary directory, under the user's file name, so diagnostics name the user's file and lines.

Compiler: ``CXX``, else ``g++``, else ``clang++``. Flags (chosen to give GPU-like results fast):
``-std=c++17 -O3 -march=native -fPIC -shared``; ``-ffp-contract=fast`` (GPUs contract a*b+c into
FMA); ``-fno-trapping-math`` (GPUs have no FP traps; lets the vectoriser if-convert guarded
stores); ``-fno-math-errno`` (device math never sets errno); ``-fvisibility=hidden``. No
``-ffast-math``: NaN, infinities and rounding stay IEEE.

User options: ``-D``/``-U``/``-I`` (also split: ``-I dir``), ``-std=c++17|20|23`` (or gnu++),
``-O0..3``/``-Os``, ``-g``, ``-w``, warning flags only as ``-W[no-]name[=value]``,
``-ffp-contract=off|on|fast``, ``-fno-fast-math``, ``-fopt-info[-kinds]`` (to stderr, no
``=file``); GPU-only options of nvcc/hipcc/hiprtc (``--gpu-architecture``, ``--offload-arch``,
``-arch``, ``-lineinfo``, ``-use_fast_math``, ``-rdc``, ``-G``, ``--device-debug``,
``-default-device``, ``-fgpu-rdc``, ``-ftz=``, ``-prec-div=``, ``-prec-sqrt=``, ``-fmad=``) are
accepted and ignored. Anything else raises ValueError naming the accepted list: options reach a
compiler driver that loads plugins and writes files, so an option that names a file or passes
options to another tool (``-Wl,-plugin,x.so``, ``-Wp,-MD,path``, ``-fopt-info-all=path``) is
refused rather than passed on. The compiler runs with stdin from /dev/null and under a time and
a memory limit (``limits.py``: ``OPENHIP_COMPILE_TIMEOUT``, ``OPENHIP_COMPILE_MEMORY``).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform as _platform
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ... import config
from ...errors import CompileError
from ..base import CompiledProgram
from .limits import limit_message, run_tool
from .runtime_lib import INCLUDE_DIR

if TYPE_CHECKING:
    from ...compiler.scan import SourceScan

__all__ = ["BASE_FLAGS", "Compiler", "find_compiler", "compile_program", "host_arch",
           "normalize_options", "build_footer"]

BASE_FLAGS = ("-O3", "-fPIC", "-shared", "-ffp-contract=fast", "-fno-trapping-math",
              "-fno-math-errno", "-fvisibility=hidden", "-fno-semantic-interposition", "-fno-plt")
DEFAULT_STD = "-std=c++17"

_PASS_EXACT = {"-w", "-g", "-O0", "-O1", "-O2", "-O3", "-Os", "-fno-fast-math",
               "-ffp-contract=off", "-ffp-contract=on", "-ffp-contract=fast"}
#: a warning flag: ``-Wname``, ``-Wno-name``, ``-Wname=value`` (no ``,``/``/``/``.``: ``-Wl,``,
#: ``-Wa,`` and ``-Wp,`` pass options to the linker, assembler and preprocessor, which load
#: plugins and write files).
_WARNING = re.compile(r"^-W(?:no-)?[A-Za-z][A-Za-z0-9_+-]*(?:=[A-Za-z0-9_+-]+)?$")
#: ``-fopt-info`` with its kinds (``-fopt-info-vec-missed``) but no ``=file``.
_OPT_INFO = re.compile(r"^-fopt-info(?:-[a-z]+)*$")
_ACCEPTED = ("-D, -U, -I, -std=c++17/20/23 (or gnu++), -O0..-O3, -Os, -g, -w, warning flags "
             "-W[no-]name[=value], -ffp-contract=off|on|fast, -fno-fast-math, "
             "-fopt-info[-kinds] (to stderr); GPU-only options such as --gpu-architecture are "
             "ignored; options that name an output file or pass options to another tool "
             "(-Wl,, -Wp,, -Wa,, -o, -fplugin, =file forms) are refused")
_IGNORED_PREFIXES = ("--gpu-architecture", "-arch", "--offload-arch", "-ftz=", "--ftz=",
                     "-prec-div=", "--prec-div=", "-prec-sqrt=", "--prec-sqrt=", "-fmad=",
                     "--fmad=", "-rdc=", "--relocatable-device-code=", "--gpu-max-threads-per-block",
                     "-maxrregcount", "--maxrregcount")
_IGNORED_EXACT = {"-lineinfo", "--generate-line-info", "-use_fast_math", "--use_fast_math",
                  "-G", "--device-debug", "-default-device", "-fgpu-rdc", "-fno-gpu-rdc",
                  "--device-as-default-execution-space", "-dw", "-dc"}
_STD = re.compile(r"^--?std=(c|gnu)\+\+(17|1z|20|2a|23|2b|26|2c)$")


@dataclass(frozen=True)
class Compiler:
    """A usable host C++ compiler."""

    path: str
    version: str  # first line of ``--version``

    @property
    def is_clang(self) -> bool:
        return "clang" in self.version.lower()


@lru_cache(maxsize=8)
def _probe(path: str) -> Compiler | None:
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return Compiler(path, (proc.stdout.splitlines() or ["unknown"])[0].strip())


def find_compiler() -> tuple[Compiler | None, str]:
    """The compiler to use and, when there is none, why."""
    wanted = config.cxx()
    if wanted:
        parts = wanted.split()
        path = shutil.which(parts[0]) if parts else None
        if path is None:
            return None, f"CXX={wanted!r} is not an executable on PATH"
        found = _probe(path)
        return (found, "") if found else (None, f"CXX={wanted!r} does not run ({path} --version)")
    for name in ("g++", "clang++"):
        path = shutil.which(name)
        if path and (found := _probe(path)):
            return found, ""
    return None, "no C++ compiler: install g++ or clang++, or set CXX"


@lru_cache(maxsize=1)
def _cpu_flags() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return _platform.processor()
    for key in ("flags", "Features"):
        m = re.search(rf"^{key}\s*:\s*(.*)$", text, re.MULTILINE)
        if m:
            return " ".join(sorted(m.group(1).split()))
    return _platform.processor()


def host_arch() -> str:
    """``<machine>-<hash of the CPU's ISA features>``: what ``-march=native`` compiles for."""
    digest = hashlib.sha256(_cpu_flags().encode()).hexdigest()[:10]
    return f"{_platform.machine() or 'cpu'}-{digest}"


def _march_for(arch: str) -> str:
    """``-march=native`` for this host's arch; a plain ``-march`` name (``x86-64-v3``) is passed
    on; another host's ``<machine>-<hash>`` arch cannot be compiled for here."""
    if arch == host_arch() or arch in ("native", "host"):
        return "-march=native"
    if re.fullmatch(r"[a-z][a-z0-9_.+-]*", arch) and not re.fullmatch(r".+-[0-9a-f]{10}", arch):
        return f"-march={arch}"
    raise ValueError(f"cannot compile for CPU arch {arch!r} on this host (its arch is "
                     f"{host_arch()!r}; a -march name such as 'x86-64-v3' is also accepted)")


def normalize_options(options: Sequence[str]) -> tuple[list[str], str]:
    """Split user options into compiler flags and the -std flag; ValueError for refused ones.
    Relative ``-I`` paths are made absolute (compilation runs in a temporary directory)."""
    flags: list[str] = []
    std = DEFAULT_STD
    options = tuple(options)
    it = iter(options)
    for opt in options:
        if not isinstance(opt, str):
            raise TypeError(f"compile options must be str, not {type(opt).__name__}")
        if any(c in opt for c in "\n\r\0"):
            # a newline in -D's value would end the #define and start a directive of its own
            raise ValueError(f"compile option {opt!r}: line breaks and NUL are not accepted")
    for opt in it:
        if _STD.match(opt):
            std = "-std=" + opt.split("=", 1)[1]
        elif opt.startswith(("-std=", "--std=")):
            raise ValueError(f"option {opt!r}: the CPU platform needs C++17 or later")
        elif opt == "-I":
            path = next(it, None)
            if path is None:
                raise ValueError("option '-I' needs a directory")
            flags.append("-I" + os.path.abspath(path))
        elif opt.startswith("-I"):
            flags.append("-I" + os.path.abspath(opt[2:]))
        elif opt in ("-D", "-U"):
            value = next(it, None)
            if value is None:
                raise ValueError(f"option {opt!r} needs a value")
            flags.append(opt + value)
        elif opt.startswith(("-D", "-U")) or opt in _PASS_EXACT or _WARNING.match(opt) \
                or _OPT_INFO.match(opt):
            flags.append(opt)
        elif opt in _IGNORED_EXACT or opt.startswith(_IGNORED_PREFIXES):
            continue
        else:
            raise ValueError(f"compile option {opt!r} is not accepted by the CPU platform "
                             f"(accepted: {_ACCEPTED})")
    return flags, std


def _cpp_name(decl_name: str, expression: str) -> str:
    """The C++ expression naming a kernel: the scanner's qualified name plus any template
    arguments of the expression."""
    args = expression[expression.index("<"):] if "<" in expression else ""
    return "::" + decl_name.lstrip(":") + args


def uses_grid_sync(source: str) -> bool:
    """Whether the source may synchronise a grid (``this_grid()`` / ``grid_group``): its
    synchronising kernels then get cooperative-capable entry points (grid_sync.h) and run as
    fibers."""
    return re.search(r"\b(this_grid|grid_group)\b", source) is not None


def build_footer(scan_result, name_expressions: Sequence[str],
                 regions: dict | None = None, shared_structs: dict | None = None,
                 cooperative: bool = False):
    """The generated footer, and the kernels/globals/metadata maps. Raises CompileError-ready
    messages as ValueError for name expressions naming no kernel. ``regions``: the
    :class:`~openhip.platforms.cpu.regions.RegionPlan` of each synchronising kernel, if the
    kernels were split at their barriers; ``shared_structs``: per kernel, the struct that
    measures its static shared memory (static_shared.py); ``cooperative``: the source may use
    grid sync (:func:`uses_grid_sync`).

    Everything the footer introduces in the user's translation unit has a reserved name, so
    user macros (``#define W 32``) cannot change it."""
    regions = regions or {}
    shared_structs = shared_structs or {}
    lines = ["", '#line 1 "<openhip generated entry points>"']
    kernels: dict[str, str] = {}
    meta: dict[str, dict] = {}
    exprs: list[tuple[str, object, str]] = []  # (expression, decl, c++ name)
    seen: dict[str, int] = {}
    modes: dict[int, str] = {}
    decls = scan_result.kernels
    short_count: dict[str, int] = {}
    for qname in decls:
        short = qname.rsplit("::", 1)[-1]
        short_count[short] = short_count.get(short, 0) + 1
    for qname, decl in decls.items():
        if decl.template_params:
            continue  # templates exist only through name expressions
        exprs.append((qname, decl, _cpp_name(qname, qname)))
    for expr in name_expressions:
        expr = expr.strip()
        base = expr[: expr.index("<")].strip() if "<" in expr else expr
        decl = scan_result.kernel(base.lstrip(":"))
        if decl is None:
            raise ValueError(f"name expression {expr!r} names no __global__ function of the "
                             f"source (kernels: {sorted(decls)})")
        if decl.template_params and "<" not in expr:
            raise ValueError(f"name expression {expr!r}: kernel {decl.name!r} is a template; "
                             f"give its template arguments, e.g. {decl.name}<float>")
        exprs.append((expr, decl, _cpp_name(decl.name, expr)))
    for expr, decl, cpp in exprs:
        key = re.sub(r"\s+", "", cpp)
        if key in seen:
            ident = seen[key]
        else:
            ident = seen[key] = len(seen)
            plan = regions.get(decl.name)
            mode = ("loop" if not decl.uses_sync else
                    "regions" if plan is not None and plan.function and not cooperative
                    else "fibers")
            if mode == "regions":
                cpp = _cpp_name(plan.function, cpp[len(_cpp_name(decl.name, "")):])
            label = expr.replace("\\", "\\\\").replace('"', '\\"')
            code = {"loop": 0, "fibers": 1, "regions": 2}[mode]
            if mode == "loop" and (decl.wide or re.search(
                    r"\b(size_t|u?int64_t|long|ptrdiff_t)\b", expr)):
                code = 3  # 64-bit indices possible: both loop forms, chosen by timing
            entry = f'({ident}, {code}, "{label}", &{cpp})'
            if cooperative and mode == "fibers":
                # grid_sync.h (reached through the cooperative groups header) defines it
                lines += ["#ifdef __OPENHIP_CPU_KERNEL_COOP", f"__OPENHIP_CPU_KERNEL_COOP{entry}",
                          "#else", f"OPENHIP_CPU_KERNEL{entry}", "#endif"]
            else:
                lines.append(f"OPENHIP_CPU_KERNEL{entry}")
            modes[ident] = mode
            struct = shared_structs.get(decl.name)
            if struct is not None:
                args = expr[expr.index("<"):] if "<" in expr else ""
                lines.append(f"OPENHIP_CPU_EXPORT unsigned long long openhip_shared_{ident}() "
                             f"{{ return sizeof(::{struct}{args}); }}")
        symbol = f"openhip_kernel_{ident}"
        kernels[expr] = symbol
        meta[expr] = {"mode": modes[ident], "symbol": symbol, "index": ident}
        plan = regions.get(decl.name)
        if decl.uses_sync and plan is not None and not plan.function:
            meta[expr]["regions_refused"] = plan.reason
        if modes[ident] == "regions" and getattr(plan, "stride_loops", 0):
            meta[expr]["stride_loops"] = plan.stride_loops  # interchanged (regions.py)
        if modes[ident] == "regions" and getattr(plan, "warp_idioms", None):
            meta[expr]["warp_idioms"] = list(plan.warp_idioms)  # split once (idioms.py)
        short = decl.name.rsplit("::", 1)[-1]
        if expr == decl.name and short != expr and short_count.get(short) == 1:
            kernels.setdefault(short, symbol)
            meta.setdefault(short, meta[expr])
    globals_: dict[str, str] = {}
    for i, g in enumerate(scan_result.globals):
        lines.append(f"OPENHIP_CPU_GLOBAL({i}, ::{g.name.lstrip(':')})")
        globals_[g.name] = f"openhip_global_{i}"
    return "\n".join(lines) + "\n", kernels, globals_, meta


def _safe_relative(filename: str) -> str:
    name = filename.replace("\\", "/")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or os.path.isabs(name) or ".." in parts:
        return os.path.basename(name) or "kernel.hip"
    return "/".join(parts)


#: Directories of GPU vendor headers under a system include directory (ROCm's and CUDA's
#: libraries), and CUDA's top-level device-side headers: on the CPU platform they must never
#: resolve to the system's copy, which is for the AMD/NVIDIA compilers (it fails with
#: "Must define exactly one of __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__" or worse).
_VENDOR_DIRS = ("hip", "hipcub", "rocprim", "hiprand", "rocrand", "rocblas", "hipblas",
                "hipblaslt", "hipfft", "rocfft", "hipsparse", "rocsparse", "hipsolver",
                "rocsolver", "miopen", "rocwmma", "roctracer", "rocthrust", "thrust", "cub",
                "cuda", "crt", "cooperative_groups", "nv", "cccl")
_VENDOR_FILES = ("cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "cuda_fp16.h",
                 "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h", "cuda_fp8.hpp",
                 "cooperative_groups.h", "cuComplex.h", "math_constants.h",
                 "device_launch_parameters.h", "vector_types.h", "vector_functions.h",
                 "device_functions.h", "device_types.h", "driver_types.h", "builtin_types.h",
                 "host_defines.h", "cuda_profiler_api.h", "curand_kernel.h", "mma.h",
                 "sm_20_intrinsics.h", "sm_30_intrinsics.h", "sm_32_intrinsics.h",
                 "sm_35_intrinsics.h", "sm_60_atomic_functions.h", "sm_61_intrinsics.h",
                 "texture_fetch_functions.h", "surface_functions.h", "cuda_texture_types.h",
                 "cuda_surface_types.h", "library_types.h", "nvrtc.h", "nvfunctional")


@lru_cache(maxsize=8)
def _system_include_dirs(compiler_path: str) -> tuple[str, ...]:
    """The compiler's own ``#include <...>`` search directories (``-E -v``)."""
    try:
        proc = subprocess.run([compiler_path, "-x", "c++", "-E", "-v", "-"], input="",
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ()
    text = proc.stderr
    start = text.find("#include <...> search starts here:")
    end = text.find("End of search list.", start)
    if start < 0 or end < 0:
        return ()
    lines = text[start:end].splitlines()[1:]
    return tuple(os.path.realpath(ln.strip().split(" (")[0]) for ln in lines if ln.strip())


def _guard_headers(compiler_path: str) -> dict[str, str]:
    """Relative header name -> the system file it would resolve to, for every GPU vendor
    header on the compiler's search path that openhip's include directory does not provide."""
    found: dict[str, str] = {}
    for root in _system_include_dirs(compiler_path):
        if os.path.realpath(root).startswith(str(INCLUDE_DIR)):
            continue
        names: list[str] = [n for n in _VENDOR_FILES if os.path.isfile(os.path.join(root, n))]
        for sub in _VENDOR_DIRS:
            top = os.path.join(root, sub)
            if not os.path.isdir(top):
                continue
            for dirpath, _dirs, files in os.walk(top):
                names += [os.path.relpath(os.path.join(dirpath, f), root) for f in files]
        for name in names:
            if name not in found and not (INCLUDE_DIR / name).exists():
                found[name] = os.path.join(root, name)
    return found


_guard_lock = threading.Lock()


@lru_cache(maxsize=8)
def _header_guard_dir(compiler_path: str) -> str | None:
    """A directory of stand-ins, searched after openhip's include directory and before the
    system's, for the GPU vendor headers found on the compiler's search path: each one stops
    the compile with an error that names the header (see ``_VENDOR_DIRS``)."""
    headers = _guard_headers(compiler_path)
    if not headers:
        return None
    key = hashlib.sha256("\0".join(f"{k}={v}" for k, v in sorted(headers.items())).encode())
    from ...compiler import trust

    # The directory is on the kernel's include path: only a trusted cache directory
    # (trust.py) and only the stand-ins' exact texts (checked once per process; anything else
    # found there is removed).
    root = trust.cache_root()
    if root is None:
        return None
    directory = root.path / "cpu-header-guard" / key.hexdigest()[:16]
    with _guard_lock:
        try:
            wanted = {}
            for name, system in headers.items():
                msg = (f"openhip: <{name}> is not provided by the CPU platform (the system "
                       f"copy {system} is for the AMD/NVIDIA GPU compilers and is not used)")
                wanted[str(directory / name)] = f'#error "{msg}"\n'.encode()
            for path, text in wanted.items():
                if trust.read_artifact(Path(path)) != text:
                    root.subdir(*Path(path).relative_to(root.path).parent.parts)
                    trust.write_artifact(Path(path), text)
            for dirpath, _dirs, files in os.walk(directory):
                for f in files:
                    if os.path.join(dirpath, f) not in wanted:
                        os.unlink(os.path.join(dirpath, f))
        except OSError:  # read-only cache directory: no guard (the system header's own error)
            return None
    return str(directory)


def _include_flags(compiler: Compiler) -> list[str]:
    """``-isystem`` flags after openhip's include directory: the vendor-header guard."""
    guard = _header_guard_dir(compiler.path)
    return ["-isystem", guard] if guard else []


_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)


def _local_headers(source: str, user_flags: Sequence[str], filename: str,
                   limit: int = 64) -> list[str]:
    """The texts of the local headers the source includes with ``#include "..."`` (found as
    the compiler finds them: next to the including file, in the working directory, under
    ``-I``), transitively, the deepest first.  The source scan sees their functions, so a
    kernel whose barrier or warp function is in such a header is known to synchronise."""
    idirs = [f[2:] for f in user_flags if f.startswith("-I")]
    first_dir = os.path.dirname(os.path.abspath(filename)) if os.path.dirname(filename) else None
    seen: set[str] = set()
    texts: list[str] = []

    def visit(text: str, includer_dir: str | None) -> None:
        for m in _QUOTED_INCLUDE.finditer(text):
            name = m.group(1)
            dirs = [""] if os.path.isabs(name) else [d for d in (includer_dir, os.getcwd())
                                                      if d] + idirs
            for d in dirs:
                path = os.path.realpath(os.path.join(d, name))
                if os.path.isfile(path):
                    break
            else:
                continue
            if path in seen or path.startswith(str(INCLUDE_DIR)) or len(seen) >= limit:
                continue
            seen.add(path)
            try:
                if os.path.getsize(path) > (4 << 20):
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    body = f.read()
            except OSError:
                continue
            visit(body, os.path.dirname(path))
            texts.append(body)

    visit(source, first_dir)
    return texts


def _mark_header_sync(result, source: str, user_flags: Sequence[str], filename: str) -> None:
    """Kernels that reach a barrier or warp function only through functions of local headers
    synchronise too (see :func:`_local_headers`)."""
    from ...compiler.scan import scan

    headers = _local_headers(source, user_flags, filename)
    if not headers or all(k.uses_sync for k in result.kernels.values()):
        return
    combined = scan("\n".join(headers) + "\n" + source)
    for qname, decl in result.kernels.items():
        other = combined.kernels.get(qname)
        if other is not None and other.uses_sync:
            decl.uses_sync = True


def _dependencies(depfile: Path, workdir: Path) -> list[str]:
    try:
        text = depfile.read_text(errors="replace")
    except OSError:
        return []
    text = text.replace("\\\n", " ")
    _, _, deps = text.partition(": ")
    out: list[str] = []
    include = str(INCLUDE_DIR)
    for token in re.split(r"(?<!\\)\s+", deps.strip()):
        if not token:
            continue
        path = os.path.abspath(os.path.join(workdir, token.replace("\\ ", " ")))
        if (path.startswith(str(workdir) + os.sep) or path.startswith(include)
                or os.path.basename(path).startswith("openhip_pch.h")):
            continue
        if path not in out:
            out.append(path)
    return out


def _max_frame(workdir: Path) -> int:
    """The largest stack frame of any function of the module (from ``-fstack-usage``): a fiber
    kernel whose frame does not fit its fiber stack is refused at launch instead of crashing."""
    largest = 0
    for su in workdir.glob("*.su"):
        for line in su.read_text(errors="replace").splitlines():
            parts = line.rsplit("\t", 2)
            if len(parts) == 3 and parts[1].strip().isdigit():
                largest = max(largest, int(parts[1]))
    return largest


def _param_sizes(so_path: Path, indices: list[int]) -> dict[int, tuple[list[int], int]]:
    """Loads the built object once to read each entry point's parameter sizes and static
    shared memory bytes."""
    import _ctypes

    lib = ctypes.CDLL(str(so_path), mode=getattr(os, "RTLD_LOCAL", 0))
    out: dict[int, list[int]] = {}
    try:
        for i in indices:
            fn = getattr(lib, f"openhip_params_{i}")
            fn.restype = ctypes.c_uint
            fn.argtypes = [ctypes.c_void_p]
            buf = (ctypes.c_uint64 * 256)()
            n = fn(buf)
            shared = 0
            measure = getattr(lib, f"openhip_shared_{i}", None)
            if measure is not None:
                measure.restype = ctypes.c_ulonglong
                measure.argtypes = []
                shared = int(measure())
            out[i] = ([int(buf[j]) for j in range(min(n, 256))], shared)
    finally:
        _ctypes.dlclose(lib._handle)
    return out


_pch_lock = threading.Lock()
_pch_cache: dict[str, str | None] = {}


def _pch_lock_after_fork() -> None:
    # a PCH may be building on another thread (prebuild_pch) when the process forks: the
    # child has no such thread, so its lock starts free (the build's rename is atomic: the
    # child builds or finds the PCH itself)
    global _pch_lock
    _pch_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pch_lock_after_fork)


_PCH_TEXT = b"#include <hip/hip_runtime.h>\n"


def _pch_header(compiler: Compiler, flags: Sequence[str]) -> str | None:
    """A precompiled <hip/hip_runtime.h> for these flags (GCC only), built once into the cache
    directory; returns the header to ``-include`` (its ``.gch`` sits next to it), or None.

    Parsing the headers is most of a small kernel's compile time. GCC checks a PCH's validity
    itself (flags, macros defined on the command line that the headers use) and silently falls
    back to the plain header, so a stale or unusable PCH costs time, never correctness. What it
    does not check is who wrote it: the header and its ``.gch`` are used only when they match
    the MAC this user's process recorded (``openhip.compiler.trust``); otherwise they are
    rebuilt. No usable cache directory: no PCH.
    """
    if compiler.is_clang or os.environ.get("OPENHIP_CPU_PCH", "1") == "0":
        return None
    from ...compiler import trust

    # (the include directory's path too: a PCH records the headers by path, and one built from
    # another tree with the same headers -- a second checkout, a `git archive` -- made every
    # build here include engine.h twice: "redefinition of ...")
    key = hashlib.sha256("\0".join([compiler.path, compiler.version, _include_digest(),
                                     str(INCLUDE_DIR), *flags]).encode()).hexdigest()[:20]
    with _pch_lock:
        if key in _pch_cache:
            return _pch_cache[key]
        result: str | None = None
        root = trust.cache_root()
        if root is not None:
            directory = root.path / "cpu-pch" / key
            try:
                if _pch_valid(root, directory, key) or _pch_build(root, directory, key,
                                                                  compiler, flags):
                    result = str(directory / "openhip_pch.h")
            except OSError as exc:  # read-only or full: compile without a PCH
                trust.warn_once(root.path, f"cannot write the precompiled header into "
                                f"{directory} ({exc}); compiling without it")
        _pch_cache[key] = result
        return result


def prebuild_pch(compiler: Compiler) -> None:
    """Build the PCH of the default flags (``-std=c++17``, this host's arch) on a background
    thread: called while the runtime library is being built (a cold cache), so the first
    kernel compile finds it ready instead of building it after the library (no effect when it
    is valid already; a compile that needs it meanwhile waits for it under the PCH lock)."""
    def run() -> None:
        try:
            _pch_header(compiler, [DEFAULT_STD, *BASE_FLAGS, _march_for(host_arch())])
        except Exception:  # the first compile builds it (or reports why) as it always did
            pass

    threading.Thread(target=run, name="openhip-cpu-pch", daemon=True).start()


def _pch_mac(root, key: str, gch: bytes) -> bytes:
    return root.mac(f"cpu-pch {key}", _PCH_TEXT, b"\0", gch)


def _pch_valid(root, directory: Path, key: str) -> bool:
    from ...compiler import trust

    if trust.read_artifact(directory / "openhip_pch.h") != _PCH_TEXT:
        return False
    gch = trust.read_artifact(directory / "openhip_pch.h.gch")
    mac = trust.read_artifact(directory / "openhip_pch.mac")
    return gch is not None and mac is not None and root.verify(mac, f"cpu-pch {key}",
                                                               _PCH_TEXT, b"\0", gch)


def _pch_build(root, directory: Path, key: str, compiler: Compiler,
               flags: Sequence[str]) -> bool:
    """Build the PCH into ``directory`` with its MAC; False when the compiler fails."""
    from ...compiler import trust

    root.subdir("cpu-pch", key)
    header = directory / "openhip_pch.h"
    trust.write_artifact(header, _PCH_TEXT)
    fd, tmp_gch = tempfile.mkstemp(dir=directory, prefix=".tmp-gch-")
    os.close(fd)
    try:
        cmd = [compiler.path, "-x", "c++-header", *flags, "-isystem", str(INCLUDE_DIR),
               str(header), "-o", tmp_gch]
        if run_tool(cmd).returncode != 0:
            return False
        gch = trust.read_artifact(Path(tmp_gch))
        if not gch:
            return False
        # the MAC first: a reader between the two sees a mismatch (a rebuild), never a PCH
        # without a valid MAC
        trust.write_artifact(directory / "openhip_pch.mac", _pch_mac(root, key, gch))
        os.replace(tmp_gch, directory / "openhip_pch.h.gch")
        return True
    finally:
        if os.path.exists(tmp_gch):
            os.unlink(tmp_gch)


@lru_cache(maxsize=1)
def _include_digest() -> str:
    h = hashlib.sha256()
    for root, _dirs, files in sorted(os.walk(INCLUDE_DIR)):
        for name in sorted(files):
            path = os.path.join(root, name)
            h.update(os.path.relpath(path, INCLUDE_DIR).encode())
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()[:16]


def compile_program(compiler: Compiler, source: str, *, arch: str,
                    options: Sequence[str] = (), name_expressions: Sequence[str] = (),
                    filename: str = "kernel.hip", regions: bool | None = None,
                    checked_flags: Sequence[str] = ()) -> CompiledProgram:
    """Compile ``source`` into a :class:`CompiledProgram` for the CPU platform.

    ``regions`` (default: ``config.cpu_regions()``): split synchronising kernels at their
    barriers (regions.py) where that is provably right; the others run as fibers.
    ``checked_flags``: memcheck mode's flags (``openhip.tools.memcheck.compile_flags``), added
    after the base flags (the caller keys the compile cache on them)."""
    from ...compiler.scan import apply_edits, extern_shared_edits, scan
    from .regions import split_kernels
    from .static_shared import shared_struct_edits

    user_flags, std = normalize_options(options)
    march = _march_for(arch)
    result = scan(source)
    _mark_header_sync(result, source, user_flags, filename)
    try:
        build_footer(result, name_expressions)  # validates the name expressions
    except ValueError as exc:
        raise CompileError(f"{filename}: error: {exc}", source, options, platform="cpu",
                           name=filename, arch=arch) from None
    rel = _safe_relative(filename)
    measure_edits, structs = shared_struct_edits(source, result, rel)
    shared_edits = extern_shared_edits(result, source) + measure_edits
    if regions is None:
        regions = config.cpu_regions()
    split_edits, plans = [], {}
    if regions:
        synchronising = [k.name for k in result.kernels.values() if k.uses_sync]
        split_edits, plans = split_kernels(source, result, rel, synchronising)
    attempts = [(split_edits, plans)] if split_edits else []
    attempts.append(([], {k: p for k, p in plans.items() if not p.function}))
    refused = ""
    for i, (edits, attempt_plans) in enumerate(attempts):
        footer, kernels, globals_, meta = build_footer(result, name_expressions, attempt_plans,
                                                       structs, uses_grid_sync(source))
        body = apply_edits(source, shared_edits + edits)
        if checked_flags:
            body = _checked_shared_specifiers(body)
        try:
            built = _build(compiler, body + ("" if body.endswith("\n") else "\n") + footer,
                           rel, std, march, user_flags, meta,
                           error=(source, options, filename, arch),
                           checked_flags=checked_flags)
        except CompileError as exc:
            if i + 1 < len(attempts):
                # the split kernels did not compile: build the file as written (its own
                # diagnostics, if any, are the user's)
                first = next((ln for ln in exc.log.splitlines() if "error" in ln), "")
                refused = f"the split source did not compile ({first.strip()[:200]})"
                continue
            raise
        if refused:
            for entry in meta.values():
                if entry["mode"] == "fibers" and "regions_refused" not in entry:
                    entry["regions_refused"] = refused
        break
    binary, sizes, deps, max_frame, log = built
    for entry in meta.values():
        entry["param_sizes"], entry["static_shared_bytes"] = sizes.get(entry["index"], ([], 0))
    if checked_flags and not any("alignment" in f for f in checked_flags):
        _argument_alignments(result, meta, rel)
    metadata = {"kernels": meta, "dependencies": deps, "compiler": compiler.version,
                "max_frame_bytes": max_frame,
                "flags": [std, *BASE_FLAGS, march, *checked_flags, *user_flags]}
    return CompiledProgram(binary=binary, platform="cpu", arch=arch, kernels=kernels,
                           globals=globals_, metadata=metadata, log=log.strip())


def _argument_alignments(result: SourceScan, meta: dict, filename: str) -> None:
    """A checked module built without per-access alignment checks (no cast can misalign)
    checks its kernels' pointer arguments at launch instead: ``meta[k]["argument_alignment"]``
    (tools/memcheck/flags.py ``pointer_alignments``) for each kernel and template
    instantiation."""
    from ...compiler.scan import kernel_params
    from ...tools.memcheck.flags import pointer_alignments

    for name, entry in meta.items():
        # a template's instantiation (a name expression) with its arguments substituted
        found = kernel_params(result, name)
        if found is None:
            continue
        decl, params = found
        checks = pointer_alignments((p.name, p.type) for p in params)
        if checks:
            entry["argument_alignment"] = checks
            entry["defined_at"] = f"{filename}:{decl.line}"


_CV_BEFORE_SHARED = re.compile(r"\b(volatile|const)(\s+)__shared__\b")


def _checked_shared_specifiers(body: str) -> str:
    """Checked mode's ``__shared__`` (tools/memcheck's header) starts with a guard
    declaration, which would take a qualifier written before it (``volatile __shared__ T x``
    made the guard volatile, not ``x``): the qualifier moves after ``__shared__``, in as many
    characters (line and column mapping unchanged)."""
    if "__shared__" not in body:
        return body
    return _CV_BEFORE_SHARED.sub(lambda m: f"__shared__{m.group(2)}{m.group(1)}", body)


def _build(compiler: Compiler, text: str, rel: str, std: str, march: str,
           user_flags: list[str], meta: dict, *, error: tuple, checked_flags: Sequence[str] = ()):
    """Compile ``text`` as the file ``rel`` in a temporary directory: (binary, parameter sizes
    per entry index, dependencies, largest stack frame, log); CompileError on failure."""
    source, options, filename, arch = error
    with tempfile.TemporaryDirectory(prefix="openhip-cc-") as tmp:
        work = Path(tmp)
        src = work / rel
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(text, encoding="utf-8")
        out = work / "module.so"
        depfile = work / "module.d"
        # (memcheck's flags end with the -include of its header, which must follow the PCH's)
        checked = list(checked_flags)
        pch_extra = checked[:-2] if checked[-2:-1] == ["-include"] else checked
        pch = _pch_header(compiler, [std, *BASE_FLAGS, march, *pch_extra])
        cmd = [compiler.path, "-x", "c++", std, *BASE_FLAGS, march,
               "-isystem", str(INCLUDE_DIR), *_include_flags(compiler),
               "-include", pch or "hip/hip_runtime.h", *checked,
               "-iquote", os.getcwd(), *user_flags,
               "-fstack-usage", "-MMD", "-MF", str(depfile), "-o", str(out), rel]
        proc = run_tool(cmd, cwd=work)  # no stdin, time and memory limits (limits.py)
        log = proc.output.replace(str(work) + os.sep, "")
        if proc.limit:
            raise CompileError(f"{rel}: {limit_message(proc)}\n{log}".rstrip(), source, options,
                               platform="cpu", name=filename, arch=arch)
        if proc.returncode != 0 or not out.is_file():
            raise CompileError(log or f"{compiler.path} exited with {proc.returncode}", source,
                               options, platform="cpu", name=filename, arch=arch)
        indices = sorted({m["index"] for m in meta.values()})
        sizes = _param_sizes(out, indices) if indices else {}
        return out.read_bytes(), sizes, _dependencies(depfile, work), _max_frame(work), log
