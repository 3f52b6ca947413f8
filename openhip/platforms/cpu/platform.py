"""The CPU platform: HIP kernels compiled with the host C++ compiler, run on the host's cores.

One device, named after the CPU model. Device memory is host memory (256-byte aligned), so
pointers are plain addresses on both sides. Streams, events and launches go through the host
runtime library (``src/runtime.cpp``, built on first use: see ``runtime_lib``); kernels come from
``compiler.compile_program`` and are loaded with dlopen from a uniquely named file on tmpfs, so two modules of
the same source have separate globals, as on a GPU.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import hashlib
import itertools
import os
import platform as _platform
import tempfile
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ... import config
from ...errors import HipError, PlatformUnavailable
from ...tools import memcheck as _memcheck
from ..base import CompiledProgram, DeviceProperties, FunctionAttributes, PackedArgs, Platform
from . import compiler as _cc
from .runtime_lib import INCLUDE_DIR, RuntimeLibrary, load_runtime

__all__ = ["CpuPlatform", "CpuModule", "CpuFunction"]

_MSG_CAP = 1024
#: how long one native wait lasts before Python looks at its signals again (Ctrl-C).
_WAIT_SLICE_MS = 100.0
_NOT_READY = 600
_shutdown_registered = False
_WARP_SIZE = 32  # see include/openhip_cpu/engine.h: CUDA's and RDNA's width
_STACK_RESERVE = 16 * 1024  # fiber stack kept free for the engine and small callees


class CpuModule:
    """A loaded kernel module: the dlopen'd shared object."""

    __slots__ = ("cdll", "program", "path", "__weakref__")

    def __init__(self, cdll: ctypes.CDLL, program: CompiledProgram, path: str) -> None:
        self.cdll = cdll
        self.program = program
        self.path = path


class CpuFunction:
    """A kernel entry point: its address, parameter sizes and execution mode."""

    __slots__ = ("module", "symbol", "entry", "param_sizes", "mode", "name", "stack_problem",
                 "static_shared", "argument_alignment")

    def __init__(self, module: CpuModule, symbol: str, entry: int, param_sizes: tuple[int, ...],
                 mode: str, name: str, stack_problem: str = "", static_shared: int = 0) -> None:
        self.module = module
        self.symbol = symbol
        self.entry = entry
        self.param_sizes = param_sizes
        self.mode = mode
        self.name = name
        self.stack_problem = stack_problem  # why it cannot run on fiber stacks ("" if it can)
        self.static_shared = static_shared  # bytes of static __shared__ arrays in the kernel
        # memcheck, a module built without per-access alignment checks: its pointer
        # parameters' (index, alignment, name, type), checked at each launch
        self.argument_alignment: tuple = ()


@functools.lru_cache(maxsize=1)
def _regions_digest() -> str:
    """A digest of the source transformations' code (read, not imported: this is on the path of
    a warm cache hit): regions.py, rewrite.py, idioms.py, static_shared.py, compiler.py (its
    edits of the source, e.g. checked mode's) and compiler/scan.py."""
    return _transform_digest(os.path.dirname(os.path.abspath(__file__)))


def _transform_digest(here: str) -> str:
    """_regions_digest of the tree whose platforms/cpu directory is ``here`` (not cached)."""
    h = hashlib.sha256()
    for path in (os.path.join(here, "regions.py"), os.path.join(here, "rewrite.py"),
                 os.path.join(here, "idioms.py"), os.path.join(here, "static_shared.py"),
                 os.path.join(here, "compiler.py"),
                 os.path.join(here, os.pardir, os.pardir, "compiler", "scan.py")):
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return _platform.processor() or _platform.machine() or "CPU"


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0


class CpuPlatform(Platform):
    """HIP on the host CPU (see the module docstring)."""

    name = "cpu"

    def __init__(self) -> None:
        found, reason = _cc.find_compiler()
        if found is None:
            raise PlatformUnavailable("cpu", reason)
        self._compiler = found
        self._lock = threading.Lock()
        self._rt: RuntimeLibrary | None = None
        self._props: list[DeviceProperties] | None = None
        self._identity: str | None = None
        self._launch_fn: Any = None
        self._raw_launch: Any = None  # ohcpu_launch without argtypes (launcher())
        self._free_lock = threading.RLock()
        self._free_msg = ctypes.create_string_buffer(_MSG_CAP)

    # ---- helpers ---------------------------------------------------------------------------
    @property
    def compiler(self) -> _cc.Compiler:
        return self._compiler

    def _lib(self) -> RuntimeLibrary:
        rt = self._rt
        if rt is None:
            with self._lock:
                if self._rt is None:
                    # (a cold cache: the first kernels' precompiled header meanwhile)
                    pch = None if _memcheck.enabled() else (
                        lambda: _cc.prebuild_pch(self._compiler))
                    rt = load_runtime(self._compiler.path, self._base_identity(), pch)
                    if _memcheck.enabled():
                        self._memcheck_start(rt)
                    self._launch_fn = rt.ohcpu_launch  # launch() skips the attribute lookups
                    _register_shutdown(rt)
                    self._rt = rt
                rt = self._rt
        return rt

    def _last_message(self) -> str:
        """The runtime's message for the last error it returned to this thread."""
        buf = ctypes.create_string_buffer(_MSG_CAP)
        self._lib().ohcpu_last_message(buf, _MSG_CAP)
        return buf.value.decode(errors="replace")

    def _check(self, rc: int, routine: str, message: str = "") -> None:
        if rc:
            message = message or self._last_message()
            if _memcheck.enabled() and (_memcheck.MARK in message or
                                        _memcheck.RACE_MARK in message):
                message = _memcheck.format_report(message, self._memcheck_describe)
            raise HipError(rc, message, routine=routine)

    # ---- memcheck mode (openhip/tools/memcheck) -----------------------------------------------
    def _memcheck_start(self, rt: RuntimeLibrary) -> None:
        """Maps the runtime's shadow (before any allocation) and registers the leak report."""
        offset = int(rt.ohcpu_memcheck_enable())
        if offset == 0:
            raise HipError("hipErrorOutOfMemory", "memcheck: cannot map the shadow memory "
                           "(2^44 bytes of address space, MAP_NORESERVE; vm.overcommit_memory=2 "
                           "refuses it)", routine="hipInit")
        self._memcheck_offset = offset
        rt.ohcpu_memcheck_racecheck(_memcheck.flags.TOOLS.index(_memcheck.flags.tool()))
        _memcheck.at_start(rt)

    def _memcheck_flags(self) -> list[str]:
        if self._compiler.is_clang:
            raise HipError("hipErrorNotSupported", f"memcheck mode needs GCC (its "
                           f"-fsanitize=kernel-address ABI); the CPU compiler is "
                           f"{self._compiler.version} (set CXX=g++)", routine="hipModuleLoadData")
        self._lib()
        return _memcheck.compile_flags(self._memcheck_offset)

    @staticmethod
    def _memcheck_source_flags(flags: list[str], source: str, options: Sequence[str],
                               filename: str) -> list[str]:
        """Memcheck's flags for this source: without the alignment checks where neither it nor
        its local headers (nor the options' macros) can make a misaligned access."""
        try:
            user_flags = _cc.normalize_options(options)[0]
        except ValueError:
            return list(flags)  # (compile_program reports the bad option)
        texts = [source, " ".join(options), *_cc._local_headers(source, user_flags, filename)]
        return _memcheck.flags.for_sources(flags, texts)

    def memcheck_pool(self, device: int, ptr: int, nbytes: int, freed: bool) -> None:
        """Memcheck mode: the memory pool cached the block at ``ptr`` (``freed``: its bytes are
        poisoned as freed memory) or hands it out again with ``nbytes`` addressable."""
        self._lib().ohcpu_memcheck_pool(ptr, nbytes, 1 if freed else 0)

    def _memcheck_arguments(self, function: CpuFunction, args: PackedArgs, routine: str
                            ) -> None:
        """memcheck: a pointer argument misaligned for its type, in a module whose accesses
        are not alignment-checked one by one (no cast in it can misalign: a misaligned pointer
        can only come in as an argument), stops the launch before it runs, in
        compute-sanitizer's shape."""
        for index, align, name, typ in function.argument_alignment:
            value = ctypes.c_uint64.from_buffer(args.buffer, args.offsets[index]).value
            if value % align == 0:
                continue
            where = self._memcheck_describe(value)
            defined = next((m.get("defined_at") for m in
                         function.module.program.metadata.get("kernels", {}).values()
                         if m.get("symbol") == function.symbol), None)
            text = (f"Invalid __global__ pointer argument '{name}' of type '{typ}' (misaligned "
                    f"address, {align}-byte alignment required)\n"
                    f"    passed to kernel '{function.name}'"
                    + (f" ({defined})" if defined else "")
                    + " at launch: nothing of the kernel ran\n"
                    + (f"    {where}" if where else f"    Address 0x{value:x}"))
            raise HipError("hipErrorIllegalAddress", text, routine=routine)

    def _memcheck_describe(self, address: int) -> str:
        buf = ctypes.create_string_buffer(_MSG_CAP)
        if self._lib().ohcpu_memcheck_describe(address, buf, _MSG_CAP):
            return buf.value.decode(errors="replace")
        return ""

    def _wait(self, wait: Any, cancel: Any, routine: str) -> None:
        """Runs ``wait(timeout_ms, buf)`` (a native wait that returns 600 when its time runs
        out) in slices, so that the interpreter handles signals in between: Ctrl-C raises
        KeyboardInterrupt within a slice, after ``cancel()`` has asked the work to stop (at
        its next block boundary) and marked it failed."""
        buf = ctypes.create_string_buffer(_MSG_CAP)
        try:
            rc = wait(_WAIT_SLICE_MS, buf)
            while rc == _NOT_READY:
                rc = wait(_WAIT_SLICE_MS, buf)
        except KeyboardInterrupt:
            cancel(b"interrupted (KeyboardInterrupt) while the host waited for it")
            raise
        self._check(rc, routine, buf.value.decode(errors="replace"))

    @staticmethod
    def _check_device(device: int, routine: str) -> None:
        if device != 0:
            raise HipError("hipErrorInvalidDevice", f"the CPU platform has one device (0), "
                           f"not {device}", routine=routine)

    # ---- devices -----------------------------------------------------------------------------
    def device_properties(self) -> list[DeviceProperties]:
        if self._props is None:
            threads = config.cpu_threads()
            self._props = [DeviceProperties(
                name=_cpu_model(), platform="cpu", arch=_cc.host_arch(), warp_size=_WARP_SIZE,
                max_threads_per_block=1024, max_block_dim=(1024, 1024, 64),
                max_grid_dim=(2147483647, 65535, 65535), shared_mem_per_block=65536,
                multiprocessor_count=threads, total_memory=_physical_memory(),
                supports_fp16=True, supports_bf16=True,
                supports_fp8=(INCLUDE_DIR / "hip" / "hip_fp8.h").is_file(),
                extra={"compiler": self._compiler.version, "isa": _platform.machine(),
                       "threads": threads,
                       # cooperative launches (grid_group::sync): one block per worker thread
                       "cooperative_launch": True, "cooperative_max_blocks": threads})]
        return self._props

    def compiler_identity(self, device: int | None = None) -> str:
        base = self._base_identity()
        if _memcheck.enabled():
            # checked modules: their own cache entries (the flags include the shadow offset)
            return f"{base} | memcheck {_memcheck.flags_digest(self._memcheck_flags())}"
        return base

    def _base_identity(self) -> str:
        if self._identity is None:
            self._identity = (f"{self._compiler.path} | {self._compiler.version} | "
                              f"include {_cc._include_digest()} | abi 1 | "
                              f"flags {' '.join(_cc.BASE_FLAGS)}")
        # The regions transformation is part of the compiler (and can be switched off).
        return f"{self._identity} | regions {_regions_digest() if config.cpu_regions() else 0}"

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"compiler": f"{self._compiler.path} ({self._compiler.version})",
                                "include_dir": str(INCLUDE_DIR),
                                "threads": config.cpu_threads()}
        if self._rt is not None:
            info["runtime_library"] = str(self._rt.path)
            info["fiber_stack_bytes"] = self._rt.stack_size
        return info

    # ---- memory ------------------------------------------------------------------------------
    def malloc(self, device: int, nbytes: int) -> int:
        self._check_device(device, "hipMalloc")
        ptr = self._lib().ohcpu_malloc(nbytes)
        if not ptr:
            raise HipError("hipErrorOutOfMemory", f"cannot allocate {nbytes} bytes "
                           f"(physical memory: {_physical_memory()} bytes)", routine="hipMalloc")
        return ptr

    def free(self, device: int, ptr: int) -> None:
        # The red zones are checked on the way (src/redzone.h); a free may come from the
        # garbage collector, so damage found here is a RuntimeWarning, not an exception.
        lib = self._lib()
        with self._free_lock:  # reentrant: a collection inside may free more
            rc = lib.ohcpu_free_checked(ptr, self._free_msg, _MSG_CAP)
            text = self._free_msg.value.decode(errors="replace") if rc else ""
        if rc:
            warnings.warn(f"hipFree: {text}", RuntimeWarning, stacklevel=2)

    def check_bounds(self, device: int, ptr: int) -> str | None:
        """What damage the red zones of the allocation holding ``ptr`` show (repaired on the
        way), or None when they are intact."""
        lib = self._rt or self._lib()  # (the pool's return of every block: no frame)
        with self._free_lock:
            rc = lib.ohcpu_redzone_check(ptr, self._free_msg, _MSG_CAP)
            return self._free_msg.value.decode(errors="replace") if rc == 700 else None

    def redzone_resize(self, device: int, ptr: int, nbytes: int) -> bool:
        """Move the tail red zone of the allocation at ``ptr`` to ``ptr + nbytes`` (within the
        block's capacity): the memory pool hands a cached block to a smaller request. False
        when ``ptr`` is not a live allocation or ``nbytes`` exceeds its capacity."""
        return self._lib().ohcpu_redzone_resize(ptr, nbytes) == 0

    # ---- the profiler's device timeline (src/trace.h) -----------------------------------
    def trace_enable(self, capacity: int) -> None:
        """Stamp every kernel, copy and memset queued from now on when its stream thread
        starts and ends it, keeping the latest ``capacity`` (0: stop)."""
        self._lib().ohcpu_trace_enable(capacity)

    def trace_read(self) -> tuple[list[tuple[int, int, int, int, int, float, float]], int]:
        """The records so far, oldest first, as (seq, stream handle, entry, bytes, kind
        0 kernel / 1 copy / 2 memset, start ms, end ms) on CLOCK_MONOTONIC; and how many were
        dropped. Empties the ring."""
        lib = self._lib()
        dropped = ctypes.c_uint64()
        cap = int(lib.ohcpu_trace_read(None, 0, None)) + 1024  # (streams may still add)
        buf = (_TraceRecord * cap)()
        n = lib.ohcpu_trace_read(buf, cap, ctypes.byref(dropped))
        return ([(r.seq, r.stream, r.entry, r.nbytes, r.kind, r.start_ms, r.end_ms)
                 for r in buf[:n]], int(dropped.value))

    def _copy(self, dst: int, src: int, nbytes: int, stream: Any, routine: str) -> None:
        if nbytes <= 0:
            return
        lib = self._lib()
        if stream is None:
            self._after_default_stream()
        self._check(lib.ohcpu_memcpy(stream, dst, src, nbytes, stream is not None), routine)

    def _after_default_stream(self) -> None:
        """A copy or memset given no stream runs on the host at once: first let the work
        queued on the default stream finish, so it is ordered after it (an ``_async`` copy on
        the default stream, and a kernel launched there just before, must not be reordered)."""
        if self._lib().ohcpu_stream_busy(None) == 1:
            self.stream_synchronize(0, None)

    def copy_htod(self, device: int, dst: int, src_host: int, nbytes: int, stream: Any) -> None:
        self._copy(dst, src_host, nbytes, stream, "hipMemcpyHtoD")

    def copy_dtoh(self, device: int, dst_host: int, src: int, nbytes: int, stream: Any) -> None:
        self._copy(dst_host, src, nbytes, stream, "hipMemcpyDtoH")

    def copy_dtod(self, device: int, dst: int, src: int, nbytes: int, stream: Any) -> None:
        self._copy(dst, src, nbytes, stream, "hipMemcpyDtoD")

    def memset(self, device: int, dst: int, value: int, nbytes: int, stream: Any) -> None:
        if nbytes <= 0:
            return
        if stream is None:
            self._after_default_stream()
        self._check(self._lib().ohcpu_memset(stream, dst, value & 0xFF, nbytes,
                                             stream is not None), "hipMemset")

    # ---- streams and events ---------------------------------------------------------------
    def stream_create(self, device: int) -> Any:
        self._check_device(device, "hipStreamCreate")
        return self._lib().ohcpu_stream_create()

    def stream_destroy(self, device: int, stream: Any) -> None:
        self._check(self._lib().ohcpu_stream_destroy(stream), "hipStreamDestroy")

    def stream_synchronize(self, device: int, stream: Any) -> None:
        lib = self._lib()
        self._wait(lambda ms, buf: lib.ohcpu_stream_synchronize_for(stream, ms, buf, _MSG_CAP),
                   lambda why: lib.ohcpu_stream_cancel(stream, why), "hipStreamSynchronize")

    def stream_query(self, device: int, stream: Any) -> bool:
        buf = ctypes.create_string_buffer(_MSG_CAP)
        rc = self._lib().ohcpu_stream_query(stream, buf, _MSG_CAP)
        if rc == 600:
            return False
        self._check(rc, "hipStreamQuery", buf.value.decode(errors="replace"))
        return True

    def stream_busy(self, device: int, stream: Any) -> bool:
        rc = (self._rt or self._lib()).ohcpu_stream_busy(stream)
        if rc < 0:
            self._check(-rc, "hipStreamQuery")
        return rc == 1

    def stream_wait_event(self, device: int, stream: Any, event: Any) -> None:
        self._check(self._lib().ohcpu_stream_wait_event(stream, event), "hipStreamWaitEvent")

    def device_synchronize(self, device: int) -> None:
        if self._rt is None:
            return  # nothing was ever queued
        lib = self._rt
        self._wait(lambda ms, buf: lib.ohcpu_device_synchronize_for(ms, buf, _MSG_CAP),
                   lib.ohcpu_device_cancel, "hipDeviceSynchronize")

    def device_reset(self, device: int) -> None:
        """Clears the failed state a fault in a kernel left (``hipDeviceReset``'s role here),
        every stream's cancelled state and pending errors. Raises hipErrorNotReady when a
        cancelled kernel still runs (one that never reaches a block boundary)."""
        self._check_device(device, "hipDeviceReset")
        if self._rt is not None:
            self._check(self._rt.ohcpu_reset_device(), "hipDeviceReset")

    def event_create(self, device: int) -> Any:
        return self._lib().ohcpu_event_create()

    def event_destroy(self, device: int, event: Any) -> None:
        self._lib().ohcpu_event_destroy(event)

    def event_record(self, device: int, event: Any, stream: Any) -> None:
        self._check(self._lib().ohcpu_event_record(event, stream), "hipEventRecord")

    def event_synchronize(self, device: int, event: Any) -> None:
        lib = self._lib()
        self._wait(lambda ms, buf: lib.ohcpu_event_synchronize_for(event, ms),
                   lambda why: None, "hipEventSynchronize")

    def event_query(self, device: int, event: Any) -> bool:
        rc = self._lib().ohcpu_event_query(event)
        if rc == 600:
            return False
        self._check(rc, "hipEventQuery")
        return True

    def event_elapsed_ms(self, device: int, start: Any, end: Any) -> float:
        ms = ctypes.c_double()
        rc = self._lib().ohcpu_event_elapsed(start, end, ctypes.byref(ms))
        if rc == 400:
            raise HipError(rc, "both events must have been recorded",
                           routine="hipEventElapsedTime")
        if rc == 600:
            raise HipError(rc, "an event has not completed yet", routine="hipEventElapsedTime")
        self._check(rc, "hipEventElapsedTime")
        return ms.value

    # ---- code --------------------------------------------------------------------------------
    def compile(self, source: str, *, arch: str, options: Sequence[str] = (),
                name_expressions: Sequence[str] = (),
                filename: str = "kernel.hip") -> CompiledProgram:
        checked = self._memcheck_flags() if _memcheck.enabled() else ()
        if checked:
            checked = self._memcheck_source_flags(checked, source, options, filename)
        # racecheck: synchronising kernels run as fibers (a split kernel's regions are not its
        # barrier intervals: a uniform loop without a barrier may be split per iteration)
        racecheck = bool(checked) and _memcheck.flags.tool() == "racecheck"
        return _cc.compile_program(self._compiler, source, arch=arch, options=options,
                                   name_expressions=name_expressions, filename=filename,
                                   checked_flags=checked, regions=False if racecheck else None)

    def load_module(self, device: int, program: CompiledProgram) -> Any:
        self._check_device(device, "hipModuleLoadData")
        if program.platform != "cpu":
            raise HipError("hipErrorInvalidImage", f"a {program.platform} binary cannot run on "
                           "the CPU platform", routine="hipModuleLoadData")
        if program.arch != _cc.host_arch() and program.arch not in ("native", "host"):
            raise HipError("hipErrorNoBinaryForGpu", f"binary built for {program.arch!r}, this "
                           f"host is {_cc.host_arch()!r}", routine="hipModuleLoadData")
        # Kernels run on the runtime's workers: start them first; and make sure the fault
        # handler is still first in line (faulthandler.enable() since would have replaced it).
        self._lib().ohcpu_install_fault_handlers()
        try:
            cdll, path = _dlopen_bytes(program.binary)
        except OSError as exc:
            raise HipError("hipErrorInvalidImage", f"cannot load the kernel module: {exc}",
                           routine="hipModuleLoadData") from None
        if _memcheck.enabled():  # its reports name the image's path (unlinked once loaded)
            _memcheck.remember_image(path, program.binary)
            self._memcheck_static_shared(cdll, program.binary)
        return CpuModule(cdll, program, path)

    @staticmethod
    def _memcheck_static_shared(cdll: ctypes.CDLL, binary: bytes) -> None:
        """Tell the module where its static ``__shared__`` arrays are in its thread-local
        storage (openhip/tools/memcheck/tls.py): the padding after them is poisoned, or, for
        racecheck, the arrays are tracked."""
        from ...tools.memcheck import tls

        if _memcheck.flags.tool() == "racecheck":
            arrays, anchor = tls.shared_arrays(binary)
        else:
            arrays, anchor = tls.shared_padding(binary)
        fn = getattr(cdll, "openhip_memcheck_static_shared", None)
        if fn is None or anchor is None or not arrays:
            return
        pairs = (ctypes.c_uint64 * (2 * len(arrays)))(*[v for a in arrays for v in a])
        fn.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_uint, ctypes.c_uint64]
        fn.restype = None
        fn(pairs, len(arrays), anchor)
        init = getattr(cdll, "openhip_memcheck_static_arrays", None)
        if init is not None:  # initcheck: the arrays, marked never written at each block
            tracked, _ = tls.shared_arrays(binary)
            if tracked:
                both = (ctypes.c_uint64 * (2 * len(tracked)))(*[v for a in tracked for v in a])
                init.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_uint]
                init.restype = None
                init(both, len(tracked))

    def unload_module(self, device: int, module: Any) -> None:
        if not isinstance(module, CpuModule) or module.cdll is None:
            return
        # Queued launches may still point into it (their errors stay for the next synchronize).
        # A cancelled kernel that still runs (or any, once the interpreter exits) keeps the
        # module loaded: unmapping code that a worker executes would crash the process.
        if self._rt is not None and self._rt.ohcpu_device_wait_idle() != 0:
            module.cdll = None
            return
        import _ctypes

        unmark = getattr(module.cdll, "openhip_memcheck_static_unmark", None)
        if unmark is not None:  # memcheck: its TLS blocks' shadow is cleared before they go
            unmark()
        handle = module.cdll._handle
        module.cdll = None
        _ctypes.dlclose(handle)

    def get_function(self, device: int, module: Any, symbol: str) -> Any:
        if not isinstance(module, CpuModule) or module.cdll is None:
            raise HipError("hipErrorInvalidHandle", "module is not loaded",
                           routine="hipModuleGetFunction")
        meta = next((m for m in module.program.metadata.get("kernels", {}).values()
                     if m.get("symbol") == symbol), None)
        try:
            fn = getattr(module.cdll, symbol)
        except AttributeError:
            raise HipError("hipErrorNotFound", f"no kernel entry point {symbol!r} in the module",
                           routine="hipModuleGetFunction") from None
        entry = ctypes.cast(fn, ctypes.c_void_p).value
        if meta is not None and "param_sizes" in meta:
            sizes = tuple(meta["param_sizes"])
        else:
            sizes = _query_param_sizes(module.cdll, symbol)
        name = next((k for k, v in module.program.kernels.items() if v == symbol), symbol)
        mode = meta.get("mode", "fibers") if meta else "fibers"
        problem = ""
        frame = int(module.program.metadata.get("max_frame_bytes", 0))
        stack = self._lib().stack_size
        if mode == "fibers" and frame + _STACK_RESERVE > stack:
            problem = (f"kernel {name!r} runs its threads as fibers with {stack // 1024} KiB "
                       f"stacks, but the module has a {frame}-byte stack frame (large local "
                       f"arrays?); set OPENHIP_CPU_STACK_SIZE to at least "
                       f"{(frame + _STACK_RESERVE + 1023) // 1024}k before the first launch")
        shared = int(meta.get("static_shared_bytes", 0)) if meta else 0
        self._lib().ohcpu_register_kernel(entry, name.encode())  # red-zone reports name it
        fn = CpuFunction(module, symbol, entry, sizes, mode, name, problem, shared)
        if meta and meta.get("argument_alignment"):
            fn.argument_alignment = tuple(tuple(c) for c in meta["argument_alignment"])
        return fn

    def get_global(self, device: int, module: Any, symbol: str) -> tuple[int, int]:
        if not isinstance(module, CpuModule) or module.cdll is None:
            raise HipError("hipErrorInvalidHandle", "module is not loaded",
                           routine="hipModuleGetGlobal")
        try:
            fn = getattr(module.cdll, symbol)
        except AttributeError:
            raise HipError("hipErrorNotFound", f"no global accessor {symbol!r} in the module",
                           routine="hipModuleGetGlobal") from None
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.POINTER(ctypes.c_uint64)]
        size = ctypes.c_uint64()
        ptr = fn(ctypes.byref(size))
        return int(ptr), int(size.value)

    def function_attributes(self, device: int, function: Any) -> FunctionAttributes:
        return FunctionAttributes(max_threads_per_block=1024,
                                  static_shared_bytes=getattr(function, "static_shared", 0),
                                  extra={"mode": getattr(function, "mode", "?")})

    def launch(self, device: int, function: Any, grid: tuple[int, int, int],
               block: tuple[int, int, int], shared_mem: int, stream: Any,
               args: PackedArgs) -> None:
        if function.stack_problem:
            raise HipError("hipErrorLaunchOutOfResources", function.stack_problem,
                           routine="hipModuleLaunchKernel")
        if args.sizes != function.param_sizes:
            raise HipError("hipErrorInvalidValue",
                           f"kernel {function.name!r} takes parameters of {list(function.param_sizes)} "
                           f"bytes, the launch packed {list(args.sizes)}",
                           routine="hipModuleLaunchKernel")
        if function.argument_alignment:
            self._memcheck_arguments(function, args, "hipModuleLaunchKernel")
        rc = self._launch_fn(stream, function.entry, grid[0], grid[1], grid[2], block[0],
                             block[1], block[2], shared_mem, args.buffer, args.nbytes,
                             args.pointers, len(args.sizes))
        if rc:
            raise HipError(rc, f"launching {function.name!r}: {self._last_message()}",
                           routine="hipModuleLaunchKernel")

    def launcher(self, device: int, function: Any, grid: tuple[int, int, int],
                 block: tuple[int, int, int], shared_mem: int, args: PackedArgs
                 ) -> Callable[[Any], None] | None:
        """``go(stream)``: :meth:`launch` of this function, grid and ``args`` (whose buffer is
        read at each call: a caller may rewrite its bytes between calls), for a launch
        repeated many times (openhip.numpy's memoised plans). The checks of :meth:`launch`
        run here, once; the arguments are converted to C once (ctypes converts a call's
        arguments through ``argtypes`` at every call: 1 us of the 1.7 us of a launch).
        None when every launch must go through :meth:`launch` (memcheck's argument checks,
        a kernel that cannot run, sizes that do not match: it raises there)."""
        if function.stack_problem or args.sizes != function.param_sizes or \
                function.argument_alignment:
            return None
        raw = self._raw_launch
        if raw is None:
            raw = self._lib().cdll["ohcpu_launch"]  # (a new foreign function: no argtypes)
            raw.restype = ctypes.c_int
            self._raw_launch = raw
        u32 = ctypes.c_uint32
        fixed = (ctypes.c_void_p(function.entry), u32(grid[0]), u32(grid[1]), u32(grid[2]),
                 u32(block[0]), u32(block[1]), u32(block[2]), ctypes.c_uint64(shared_mem),
                 ctypes.c_void_p(ctypes.addressof(args.buffer)), ctypes.c_uint64(args.nbytes),
                 ctypes.c_void_p(ctypes.addressof(args.pointers)), u32(len(args.sizes)))
        handles: dict[int, ctypes.c_void_p] = {}

        def go(stream: Any, _keep: PackedArgs = args) -> None:
            if stream is not None:
                h = handles.get(stream)
                if h is None:
                    if len(handles) > 64:
                        handles.clear()
                    h = handles[stream] = ctypes.c_void_p(stream)
                stream = h
            rc = raw(stream, *fixed)
            if rc:
                raise HipError(rc, f"launching {function.name!r}: {self._last_message()}",
                               routine="hipModuleLaunchKernel")

        return go

    def cooperative_max_blocks(self, device: int, function: Any, block: tuple[int, int, int],
                               shared_mem: int) -> int:
        """Blocks of a cooperative launch that can run at once: one per worker thread."""
        return int(self._lib().threads)

    def launch_cooperative(self, device: int, function: Any, grid: tuple[int, int, int],
                           block: tuple[int, int, int], shared_mem: int, stream: Any,
                           args: PackedArgs) -> None:
        """A launch whose blocks all run at the same time (``grid_group::sync``); grids larger
        than :meth:`cooperative_max_blocks` raise hipErrorCooperativeLaunchTooLarge."""
        if function.stack_problem:
            raise HipError("hipErrorLaunchOutOfResources", function.stack_problem,
                           routine="hipLaunchCooperativeKernel")
        if args.sizes != function.param_sizes:
            raise HipError("hipErrorInvalidValue",
                           f"kernel {function.name!r} takes parameters of {list(function.param_sizes)} "
                           f"bytes, the launch packed {list(args.sizes)}",
                           routine="hipLaunchCooperativeKernel")
        if function.argument_alignment:
            self._memcheck_arguments(function, args, "hipLaunchCooperativeKernel")
        rt = self._lib()
        fn = getattr(rt, "_coop_launch_fn", None)
        if fn is None:
            fn = rt.cdll.ohcpu_launch_cooperative
            fn.restype = rt.ohcpu_launch.restype
            fn.argtypes = rt.ohcpu_launch.argtypes
            rt._coop_launch_fn = fn
        rc = fn(stream, function.entry, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                shared_mem, args.buffer, args.nbytes, args.pointers, len(args.sizes))
        if rc:
            blocks = grid[0] * grid[1] * grid[2]
            raise HipError(rc, f"cooperative launch of {function.name!r} with {blocks} blocks "
                           f"(at most {rt.threads} run at once on the CPU platform: one per "
                           f"worker thread, OPENHIP_CPU_THREADS)",
                           routine="hipLaunchCooperativeKernel")


class _TraceRecord(ctypes.Structure):
    """openhip_trace::Record (src/trace.h)."""

    _fields_ = [("seq", ctypes.c_uint64), ("stream", ctypes.c_uint64),
                ("entry", ctypes.c_uint64), ("nbytes", ctypes.c_uint64),
                ("kind", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("start_ms", ctypes.c_double), ("end_ms", ctypes.c_double)]


def _register_shutdown(rt: RuntimeLibrary) -> None:
    """At interpreter exit, cancel the work still queued or running (a runaway kernel must not
    keep the process from exiting; modules it runs stay loaded)."""
    global _shutdown_registered
    if not _shutdown_registered:
        import atexit

        atexit.register(rt.ohcpu_shutdown)
        _shutdown_registered = True


def _query_param_sizes(cdll: ctypes.CDLL, symbol: str) -> tuple[int, ...]:
    ident = symbol.rsplit("_", 1)[-1]
    fn = getattr(cdll, f"openhip_params_{ident}", None)
    if fn is None:
        return ()
    fn.restype = ctypes.c_uint
    fn.argtypes = [ctypes.c_void_p]
    buf = (ctypes.c_uint64 * 256)()
    n = fn(buf)
    return tuple(int(buf[i]) for i in range(min(n, 256)))


_load_counter = itertools.count()


#: where module images are written for dlopen, in order: tmpfs, then (None) the process's
#: private directory (``openhip.compiler.trust.private_dir``), used when /dev/shm is missing,
#: full or not executable.
_LOAD_DIRS: tuple[str | None, ...] = ("/dev/shm", None)


def _load_dir():
    """The directories module images may be written to for dlopen, best first (the private
    directory is only made when it is reached)."""
    for candidate in _LOAD_DIRS:
        if candidate is None:
            from ...compiler import trust

            yield str(trust.private_dir().path)
        elif os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
            yield candidate


def _dlopen_bytes(binary: bytes) -> tuple[ctypes.CDLL, str]:
    """dlopen a shared object held in memory. The image is written to a file whose name is
    unique for the life of the process (dlopen returns an already loaded object of the same
    name, so two modules must never share one; memfd paths /proc/self/fd/N do get reused),
    loaded, and unlinked at once. Every load is a separate object with its own globals, as on a
    GPU. A directory that is full (ENOSPC) or refuses the load (noexec) passes to the next one;
    no partial file is left behind. Raises HipError (hipErrorOutOfMemory when every place is
    full, naming each) or, for an image that no place can load, the loader's OSError."""
    mode = getattr(os, "RTLD_LOCAL", 0) | getattr(os, "RTLD_NOW", 2)
    name = f"openhip-{os.getpid()}-{next(_load_counter)}-"
    failures: list[str] = []
    write_errors: list[OSError] = []
    load_error: OSError | None = None
    for directory in _load_dir():
        try:
            fd, path = tempfile.mkstemp(prefix=name, suffix=".so", dir=directory)
        except OSError as exc:
            failures.append(f"{directory}: {exc}")
            write_errors.append(exc)
            continue
        try:
            try:
                _write_all(fd, binary)
            finally:
                os.close(fd)
        except OSError as exc:
            _unlink_quietly(path)
            failures.append(f"writing {len(binary)} bytes to {directory}: {exc}")
            write_errors.append(exc)
            continue
        try:
            return ctypes.CDLL(path, mode=mode), path
        except OSError as exc:
            load_error = exc
            failures.append(f"{directory}: {exc}")
        finally:
            _unlink_quietly(path)
    if load_error is not None:
        raise OSError(f"{load_error} (tried: {'; '.join(failures)})")
    full = any(e.errno in (errno.ENOSPC, errno.EDQUOT) for e in write_errors)
    raise HipError("hipErrorOutOfMemory" if full else "hipErrorOperatingSystem",
                   "cannot write the kernel module image for dlopen"
                   + (" (no space left: ENOSPC)" if full else "") + ": " + "; ".join(failures),
                   routine="hipModuleLoadData")


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[n:]

