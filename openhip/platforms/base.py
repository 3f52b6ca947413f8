"""The platform interface: what every backend (cpu, nvidia, amd) provides.

The runtime (``openhip.runtime``) validates arguments, keeps objects alive and wraps errors once;
a platform only does the primitive work. Handles (streams, events, modules, functions) are opaque
objects the platform chooses. Device pointers are plain ``int`` addresses. ``stream=None`` means
the device's default (null) stream.

Every hook raises :class:`openhip.errors.HipError` on failure (the platform's own ``check()``
turns its status codes into HipError with the hipError_t name and the routine).
"""

from __future__ import annotations

import ctypes
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import HipError

Dim3 = tuple[int, int, int]


@dataclass(frozen=True)
class DeviceProperties:
    """What a device is and what it can do (the names of ``hipDeviceProp_t`` that matter)."""

    name: str
    platform: str  # "cpu" | "nvidia" | "amd"
    arch: str  # "sm_90", "gfx90a", or the CPU's ISA description
    warp_size: int
    max_threads_per_block: int
    max_block_dim: Dim3
    max_grid_dim: Dim3
    shared_mem_per_block: int  # bytes of static + dynamic shared memory a block may use
    multiprocessor_count: int
    total_memory: int  # bytes
    supports_fp16: bool
    supports_bf16: bool
    supports_fp8: bool
    clock_rate_khz: int = 0
    compute_capability: tuple[int, int] | None = None  # nvidia only
    pci_bus_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict[str, Any]:
        """The properties as a plain dict (for printing and JSON)."""
        from dataclasses import asdict

        return asdict(self)


@dataclass
class CompiledProgram:
    """The result of compiling one source for one platform and arch.

    ``binary`` is what :meth:`Platform.load_module` takes (a shared object for the CPU, a cubin
    for NVIDIA, a code object for AMD). ``kernels`` maps every kernel name or name expression the
    user may ask for to the symbol to look up; ``globals`` likewise for ``__constant__`` and
    ``__device__`` variables. ``metadata`` is JSON-serialisable platform data kept with the
    binary in the cache (e.g. the CPU platform's per-kernel execution mode).
    """

    binary: bytes
    platform: str
    arch: str
    kernels: dict[str, str] = field(default_factory=dict)
    globals: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    log: str = ""  # compiler warnings of a successful build


class PackedArgs:
    """Kernel arguments laid out for a launch.

    ``buffer`` holds every argument's bytes at its natural alignment; ``offsets[i]`` and
    ``sizes[i]`` locate argument ``i``; ``pointers`` is a ``void*[]`` whose element ``i`` points
    at argument ``i`` inside ``buffer`` (the ``kernelParams`` array of cuLaunchKernel and
    hipModuleLaunchKernel). Platforms that launch asynchronously without copying at call time
    copy ``bytes(buffer)`` together with ``offsets``.
    """

    __slots__ = ("buffer", "offsets", "sizes", "pointers", "keepalive")

    def __init__(self, buffer: ctypes.Array, offsets: Sequence[int], sizes: Sequence[int],
                 keepalive: Sequence[Any] = ()) -> None:
        self.buffer = buffer
        self.offsets = tuple(offsets)
        self.sizes = tuple(sizes)
        base = ctypes.addressof(buffer)
        n = len(self.offsets)
        self.pointers = (ctypes.c_void_p * max(n, 1))(*[base + o for o in self.offsets])
        self.keepalive = tuple(keepalive)

    @property
    def count(self) -> int:
        return len(self.offsets)

    @property
    def nbytes(self) -> int:
        return ctypes.sizeof(self.buffer)


@dataclass(frozen=True)
class FunctionAttributes:
    """Per-kernel limits (``hipFuncGetAttributes``)."""

    max_threads_per_block: int
    static_shared_bytes: int = 0
    num_regs: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


class Platform(ABC):
    """One backend. Construct it to start it; the constructor raises
    :class:`openhip.errors.PlatformUnavailable` with the reason when it cannot start here."""

    name: ClassVar[str]

    # ---- devices -------------------------------------------------------------------------
    @abstractmethod
    def device_properties(self) -> list[DeviceProperties]:
        """Properties of every visible device of this platform (index = device ordinal)."""

    @abstractmethod
    def compiler_identity(self, device: int | None = None) -> str:
        """Compiler name and version (and anything else that changes its output), for the
        compile cache key."""

    def default_arch(self, device: int) -> str:
        """The arch to compile for when running on ``device``."""
        return self.device_properties()[device].arch

    def describe(self) -> dict[str, Any]:
        """Extra facts for ``openhip info`` (library paths, driver versions...)."""
        return {}

    # ---- memory --------------------------------------------------------------------------
    @abstractmethod
    def malloc(self, device: int, nbytes: int) -> int:
        """Allocate ``nbytes`` (> 0) of device memory; raise HipError hipErrorOutOfMemory."""

    @abstractmethod
    def free(self, device: int, ptr: int) -> None:
        """Free memory from :meth:`malloc`. The runtime guarantees no queued work uses it."""

    @abstractmethod
    def copy_htod(self, device: int, dst: int, src_host: int, nbytes: int, stream: Any) -> None:
        """Copy host memory at address ``src_host`` to device ``dst``. ``stream`` None:
        synchronous; else ordered on the stream (the runtime keeps the host buffer alive)."""

    @abstractmethod
    def copy_dtoh(self, device: int, dst_host: int, src: int, nbytes: int, stream: Any) -> None:
        """Copy device ``src`` to host memory at ``dst_host`` (see :meth:`copy_htod`)."""

    @abstractmethod
    def copy_dtod(self, device: int, dst: int, src: int, nbytes: int, stream: Any) -> None:
        """Copy device to device (see :meth:`copy_htod`)."""

    @abstractmethod
    def memset(self, device: int, dst: int, value: int, nbytes: int, stream: Any) -> None:
        """Set ``nbytes`` bytes at ``dst`` to the byte ``value``."""

    # ---- streams and events --------------------------------------------------------------
    @abstractmethod
    def stream_create(self, device: int) -> Any: ...

    @abstractmethod
    def stream_destroy(self, device: int, stream: Any) -> None: ...

    @abstractmethod
    def stream_synchronize(self, device: int, stream: Any) -> None:
        """Wait for all work queued on ``stream`` (None: the default stream)."""

    @abstractmethod
    def stream_query(self, device: int, stream: Any) -> bool:
        """True when all work queued on ``stream`` has finished."""

    def stream_busy(self, device: int, stream: Any) -> bool:
        """True while work queued on ``stream`` has not finished; unlike :meth:`stream_query`
        it never consumes (or raises) the stream's pending error, so asking whether memory may
        be released cannot hide a kernel's failure from the next synchronisation. The default
        asks :meth:`stream_query`, which on the GPU platforms reports errors without clearing
        them; a failed stream counts as busy (its memory is freed at the next sync)."""
        try:
            return not self.stream_query(device, stream)
        except HipError as exc:
            if exc.status == "hipErrorInvalidHandle":
                raise
            return True

    @abstractmethod
    def stream_wait_event(self, device: int, stream: Any, event: Any) -> None:
        """Make later work on ``stream`` wait until ``event`` has completed."""

    @abstractmethod
    def device_synchronize(self, device: int) -> None:
        """Wait for all work on every stream of ``device``."""

    @abstractmethod
    def event_create(self, device: int) -> Any: ...

    @abstractmethod
    def event_destroy(self, device: int, event: Any) -> None: ...

    @abstractmethod
    def event_record(self, device: int, event: Any, stream: Any) -> None: ...

    @abstractmethod
    def event_synchronize(self, device: int, event: Any) -> None: ...

    @abstractmethod
    def event_query(self, device: int, event: Any) -> bool: ...

    @abstractmethod
    def event_elapsed_ms(self, device: int, start: Any, end: Any) -> float:
        """Milliseconds between two completed events."""

    # ---- code ----------------------------------------------------------------------------
    @abstractmethod
    def compile(
        self,
        source: str,
        *,
        arch: str,
        options: Sequence[str] = (),
        name_expressions: Sequence[str] = (),
        filename: str = "kernel.hip",
    ) -> CompiledProgram:
        """Compile HIP C++ ``source`` for ``arch``; raise CompileError with the log (line
        numbers of the user's source) on failure. Needs no device (``openhip.compile``)."""

    @abstractmethod
    def load_module(self, device: int, program: CompiledProgram) -> Any: ...

    @abstractmethod
    def unload_module(self, device: int, module: Any) -> None: ...

    @abstractmethod
    def get_function(self, device: int, module: Any, symbol: str) -> Any:
        """Look a kernel up by the symbol in ``CompiledProgram.kernels``; HipError
        hipErrorNotFound if absent."""

    @abstractmethod
    def get_global(self, device: int, module: Any, symbol: str) -> tuple[int, int]:
        """(device pointer, size in bytes) of a ``__constant__``/``__device__`` variable."""

    def function_attributes(self, device: int, function: Any) -> FunctionAttributes:
        """Per-kernel limits; by default the device's."""
        props = self.device_properties()[device]
        return FunctionAttributes(max_threads_per_block=props.max_threads_per_block)

    @abstractmethod
    def launch(
        self,
        device: int,
        function: Any,
        grid: Dim3,
        block: Dim3,
        shared_mem: int,
        stream: Any,
        args: PackedArgs,
    ) -> None:
        """Queue a kernel launch. The runtime has validated the configuration already."""

    def launcher(
        self,
        device: int,
        function: Any,
        grid: Dim3,
        block: Dim3,
        shared_mem: int,
        args: PackedArgs,
    ) -> Any:
        """A prepared :meth:`launch` of ``function`` over ``grid`` with ``args`` for a launch
        repeated many times: ``go(stream)``, reading ``args``' buffer at each call. None (the
        default) where the platform has none: callers then use :meth:`launch`."""
        return None
