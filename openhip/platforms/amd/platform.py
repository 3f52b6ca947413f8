"""The amd platform: AMD GPUs through libamdhip64 (ctypes) and hiprtc.

Properties come from ``hipDeviceGetAttribute`` (whose CUDA-compatible enum values are the same in
ROCm 5.x and 6.x), not from the versioned ``hipDeviceProp_t``; only the arch name
(``gcnArchName``) is read from the properties struct, by finding its "gfx..." string, which
works with either ABI. HIP_VISIBLE_DEVICES (and ROCR_VISIBLE_DEVICES) are applied by the HIP
runtime itself when it initialises. Streams and events are small wrappers whose ``handle_int``
is the raw hipStream_t/hipEvent_t as an int.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import HipError, PlatformUnavailable
from ..base import CompiledProgram, DeviceProperties, FunctionAttributes, PackedArgs, Platform
from . import lib as hiplib
from .errors import check, error_name

# hipDeviceAttribute_t values (identical in ROCm 5.2 and 6.x headers).
ATTR = {
    "clock_rate": 5, "l2_cache_size": 19, "cc_major": 23,
    "max_block_dim_x": 26, "max_block_dim_y": 27, "max_block_dim_z": 28,
    "max_grid_dim_x": 29, "max_grid_dim_y": 30, "max_grid_dim_z": 31,
    "max_threads_per_block": 56, "memory_bus_width": 59, "memory_clock_rate": 60,
    "cc_minor": 61, "multiprocessor_count": 63, "pci_bus_id": 67, "pci_device_id": 68,
    "pci_domain_id": 69, "max_shared_memory_per_block": 74, "warp_size": 87,
}
# hipFunction_attribute values.
FUNC_MAX_THREADS, FUNC_SHARED_SIZE, FUNC_NUM_REGS = 0, 1, 4
HIP_MEMCPY_H2D, HIP_MEMCPY_D2H, HIP_MEMCPY_D2D = 1, 2, 3
HIP_ERROR_NOT_READY = 600

_BF16 = ("gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")
_FP8 = ("gfx940", "gfx941", "gfx942", "gfx950")


def fp_support(arch: str) -> tuple[bool, bool, bool]:
    """(fp16, bf16, fp8) support of a gfx processor: fp16 from gfx8 on; bf16 on CDNA 1+ and
    RDNA 3+; fp8 on CDNA 3+ and RDNA 4."""
    proc = arch.split(":", 1)[0]
    fp16 = not proc.startswith(("gfx6", "gfx7"))
    bf16 = proc in _BF16 or proc.startswith(("gfx11", "gfx12"))
    fp8 = proc in _FP8 or proc.startswith("gfx12")
    return fp16, bf16, fp8


def kernel_driver_state() -> str | None:
    """Why the amdgpu compute driver is not reachable here, or None when /dev/kfd exists."""
    if os.path.exists("/dev/kfd"):
        return None
    if os.path.exists("/dev/dxg"):
        return ("WSL2 detected (/dev/dxg, no /dev/kfd): ROCm on WSL needs AMD's WSL driver "
                "and the ROCm-on-WSL runtime (libamdhip64 from ROCm >= 6.1 with librocdxg)")
    return "no /dev/kfd (the amdgpu kernel driver is not loaded or there is no AMD GPU)"


@dataclass(eq=False)
class HipStream:
    """A HIP stream; ``handle_int`` is the hipStream_t as an int."""

    handle: ctypes.c_void_p
    device: int

    @property
    def handle_int(self) -> int:
        return int(self.handle.value or 0)


@dataclass(eq=False)
class HipEvent:
    """A HIP event; ``handle_int`` is the hipEvent_t as an int."""

    handle: ctypes.c_void_p
    device: int

    @property
    def handle_int(self) -> int:
        return int(self.handle.value or 0)


@dataclass(eq=False)
class HipModule:
    handle: ctypes.c_void_p
    device: int
    image: bytes  # kept alive while the module is loaded


@dataclass(eq=False)
class HipFunction:
    handle: ctypes.c_void_p
    name: str


class AmdPlatform(Platform):
    """AMD GPUs via libamdhip64 and hiprtc."""

    name = "amd"

    def __init__(self) -> None:
        try:
            self._libs = hiplib.load()
        except OSError as exc:
            raise PlatformUnavailable("amd", str(exc)) from None
        self._hip = self._libs.hip
        count = ctypes.c_int(0)
        status = self._hip.hipGetDeviceCount(ctypes.byref(count))
        if status != 0 or count.value == 0:
            why = error_name(self._hip, status) if status else "0 devices"
            parts = [f"hipGetDeviceCount -> {why} (ROCm {self._libs.version[0]}."
                     f"{self._libs.version[1]}, {self._libs.hip_path})"]
            driver = kernel_driver_state()
            if driver:
                parts.append(driver)
            visible = os.environ.get("HIP_VISIBLE_DEVICES")
            if visible is not None:
                parts.append(f"HIP_VISIBLE_DEVICES={visible!r}")
            raise PlatformUnavailable("amd", "; ".join(parts))
        self._count = count.value
        self._props: list[DeviceProperties] | None = None
        self._local = threading.local()

    def _ok(self, status: int, routine: str) -> None:
        check(self._hip, status, routine)

    def _dev(self, device: int) -> None:
        if getattr(self._local, "device", None) == device:
            return
        if not 0 <= device < self._count:
            raise HipError("hipErrorInvalidDevice", f"device {device}", routine="hipSetDevice")
        self._ok(self._hip.hipSetDevice(device), "hipSetDevice")
        self._local.device = device

    @staticmethod
    def _stream(stream: Any) -> ctypes.c_void_p | None:
        return None if stream is None else stream.handle

    # ---- devices -----------------------------------------------------------------------------
    def device_properties(self) -> list[DeviceProperties]:
        if self._props is None:
            self._props = [self._query(i) for i in range(self._count)]
        return self._props

    def _attr(self, device: int, name: str) -> int:
        value = ctypes.c_int(0)
        self._ok(self._hip.hipDeviceGetAttribute(ctypes.byref(value), ATTR[name], device),
                 f"hipDeviceGetAttribute({name})")
        return value.value

    def _arch_name(self, device: int) -> str:
        """gcnArchName ("gfx90a:sramecc+:xnack-") from hipDeviceProp_t, found by content."""
        buf = ctypes.create_string_buffer(8192)
        fn = getattr(self._hip, "hipGetDevicePropertiesR0600", None) or \
            self._hip.hipGetDeviceProperties
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self._ok(fn(buf, device), "hipGetDeviceProperties")
        raw = buf.raw
        at = raw.find(b"gfx", 256)  # the name (char[256]) comes first
        if at < 0:
            return "gfx000"
        return raw[at:raw.index(b"\0", at)].decode("ascii", "replace")

    def _query(self, i: int) -> DeviceProperties:
        name = ctypes.create_string_buffer(256)
        self._ok(self._hip.hipDeviceGetName(name, 256, i), "hipDeviceGetName")
        total = ctypes.c_size_t(0)
        self._ok(self._hip.hipDeviceTotalMem(ctypes.byref(total), i), "hipDeviceTotalMem")
        arch = self._arch_name(i)
        fp16, bf16, fp8 = fp_support(arch)
        a = lambda n: self._attr(i, n)  # noqa: E731
        return DeviceProperties(
            name=name.value.decode(errors="replace"),
            platform="amd",
            arch=arch,
            warp_size=a("warp_size"),
            max_threads_per_block=a("max_threads_per_block"),
            max_block_dim=(a("max_block_dim_x"), a("max_block_dim_y"), a("max_block_dim_z")),
            max_grid_dim=(a("max_grid_dim_x"), a("max_grid_dim_y"), a("max_grid_dim_z")),
            shared_mem_per_block=a("max_shared_memory_per_block"),
            multiprocessor_count=a("multiprocessor_count"),
            total_memory=total.value,
            supports_fp16=fp16,
            supports_bf16=bf16,
            supports_fp8=fp8,
            clock_rate_khz=a("clock_rate"),
            compute_capability=None,
            pci_bus_id=f"{a('pci_domain_id'):04x}:{a('pci_bus_id'):02x}:{a('pci_device_id'):02x}.0",
            extra={"l2_cache_size": a("l2_cache_size"),
                   "memory_bus_width": a("memory_bus_width"),
                   "memory_clock_rate_khz": a("memory_clock_rate")},
        )

    def default_arch(self, device: int) -> str:
        """The device's gcnArchName without feature suffixes is what hiprtc is given."""
        return self.device_properties()[device].arch.split(":", 1)[0]

    def compiler_identity(self, device: int | None = None) -> str:
        return self.toolchain().compiler_identity()

    def describe(self) -> dict[str, Any]:
        return {"library": self._libs.hip_path, "hiprtc": self._libs.rtc_path,
                "hip_version": self._libs.runtime_version,
                "HIP_VISIBLE_DEVICES": os.environ.get("HIP_VISIBLE_DEVICES")}

    @staticmethod
    def toolchain():
        from .toolchain import toolchain

        return toolchain()

    # ---- memory ------------------------------------------------------------------------------
    def malloc(self, device: int, nbytes: int) -> int:
        self._dev(device)
        ptr = ctypes.c_void_p()
        self._ok(self._hip.hipMalloc(ctypes.byref(ptr), nbytes), "hipMalloc")
        return int(ptr.value or 0)

    def free(self, device: int, ptr: int) -> None:
        self._dev(device)
        self._ok(self._hip.hipFree(ptr), "hipFree")

    def _copy(self, device: int, dst: int, src: int, nbytes: int, kind: int,
              stream: Any) -> None:
        self._dev(device)
        if stream is None:
            self._ok(self._hip.hipMemcpy(dst, src, nbytes, kind), "hipMemcpy")
        else:
            self._ok(self._hip.hipMemcpyAsync(dst, src, nbytes, kind, stream.handle),
                     "hipMemcpyAsync")

    def copy_htod(self, device: int, dst: int, src_host: int, nbytes: int, stream: Any) -> None:
        self._copy(device, dst, src_host, nbytes, HIP_MEMCPY_H2D, stream)

    def copy_dtoh(self, device: int, dst_host: int, src: int, nbytes: int, stream: Any) -> None:
        self._copy(device, dst_host, src, nbytes, HIP_MEMCPY_D2H, stream)

    def copy_dtod(self, device: int, dst: int, src: int, nbytes: int, stream: Any) -> None:
        self._copy(device, dst, src, nbytes, HIP_MEMCPY_D2D, stream)

    def memset(self, device: int, dst: int, value: int, nbytes: int, stream: Any) -> None:
        self._dev(device)
        if stream is None:
            self._ok(self._hip.hipMemset(dst, value & 0xFF, nbytes), "hipMemset")
        else:
            self._ok(self._hip.hipMemsetAsync(dst, value & 0xFF, nbytes, stream.handle),
                     "hipMemsetAsync")

    # ---- streams and events ------------------------------------------------------------------
    def stream_create(self, device: int) -> HipStream:
        self._dev(device)
        handle = ctypes.c_void_p()
        self._ok(self._hip.hipStreamCreate(ctypes.byref(handle)), "hipStreamCreate")
        return HipStream(handle, device)

    def stream_from_handle(self, device: int, handle: int) -> HipStream:
        """Wrap a hipStream_t made elsewhere (torch, CuPy-ROCm, a DLPack consumer) without owning
        it; never pass the result to :meth:`stream_destroy`."""
        return HipStream(ctypes.c_void_p(handle), device)

    def stream_destroy(self, device: int, stream: HipStream) -> None:
        self._dev(device)
        self._ok(self._hip.hipStreamDestroy(stream.handle), "hipStreamDestroy")

    def stream_synchronize(self, device: int, stream: Any) -> None:
        self._dev(device)
        self._ok(self._hip.hipStreamSynchronize(self._stream(stream)), "hipStreamSynchronize")

    def stream_query(self, device: int, stream: Any) -> bool:
        self._dev(device)
        status = self._hip.hipStreamQuery(self._stream(stream))
        if status == HIP_ERROR_NOT_READY:
            return False
        self._ok(status, "hipStreamQuery")
        return True

    def stream_wait_event(self, device: int, stream: Any, event: HipEvent) -> None:
        self._dev(device)
        self._ok(self._hip.hipStreamWaitEvent(self._stream(stream), event.handle, 0),
                 "hipStreamWaitEvent")

    def device_synchronize(self, device: int) -> None:
        self._dev(device)
        self._ok(self._hip.hipDeviceSynchronize(), "hipDeviceSynchronize")

    def event_create(self, device: int) -> HipEvent:
        self._dev(device)
        handle = ctypes.c_void_p()
        self._ok(self._hip.hipEventCreate(ctypes.byref(handle)), "hipEventCreate")
        return HipEvent(handle, device)

    def event_destroy(self, device: int, event: HipEvent) -> None:
        self._dev(device)
        self._ok(self._hip.hipEventDestroy(event.handle), "hipEventDestroy")

    def event_record(self, device: int, event: HipEvent, stream: Any) -> None:
        self._dev(device)
        self._ok(self._hip.hipEventRecord(event.handle, self._stream(stream)), "hipEventRecord")

    def event_synchronize(self, device: int, event: HipEvent) -> None:
        self._dev(device)
        self._ok(self._hip.hipEventSynchronize(event.handle), "hipEventSynchronize")

    def event_query(self, device: int, event: HipEvent) -> bool:
        self._dev(device)
        status = self._hip.hipEventQuery(event.handle)
        if status == HIP_ERROR_NOT_READY:
            return False
        self._ok(status, "hipEventQuery")
        return True

    def event_elapsed_ms(self, device: int, start: HipEvent, end: HipEvent) -> float:
        self._dev(device)
        ms = ctypes.c_float(0.0)
        self._ok(self._hip.hipEventElapsedTime(ctypes.byref(ms), start.handle, end.handle),
                 "hipEventElapsedTime")
        return float(ms.value)

    # ---- code --------------------------------------------------------------------------------
    def compile(self, source: str, *, arch: str, options: Sequence[str] = (),
                name_expressions: Sequence[str] = (),
                filename: str = "kernel.hip") -> CompiledProgram:
        return self.toolchain().compile(source, arch=arch, options=options,
                                        name_expressions=name_expressions, filename=filename)

    def load_module(self, device: int, program: CompiledProgram) -> HipModule:
        self._dev(device)
        handle = ctypes.c_void_p()
        image = bytes(program.binary)
        self._ok(self._hip.hipModuleLoadData(ctypes.byref(handle), image), "hipModuleLoadData")
        return HipModule(handle, device, image)

    def unload_module(self, device: int, module: HipModule) -> None:
        self._dev(device)
        self._ok(self._hip.hipModuleUnload(module.handle), "hipModuleUnload")

    def get_function(self, device: int, module: HipModule, symbol: str) -> HipFunction:
        self._dev(device)
        handle = ctypes.c_void_p()
        self._ok(self._hip.hipModuleGetFunction(ctypes.byref(handle), module.handle,
                                                symbol.encode()),
                 f"hipModuleGetFunction({symbol!r})")
        return HipFunction(handle, symbol)

    def get_global(self, device: int, module: HipModule, symbol: str) -> tuple[int, int]:
        self._dev(device)
        ptr, size = ctypes.c_void_p(), ctypes.c_size_t(0)
        self._ok(self._hip.hipModuleGetGlobal(ctypes.byref(ptr), ctypes.byref(size),
                                              module.handle, symbol.encode()),
                 f"hipModuleGetGlobal({symbol!r})")
        return int(ptr.value or 0), size.value

    def function_attributes(self, device: int, function: HipFunction) -> FunctionAttributes:
        self._dev(device)

        def attr(which: int) -> int:
            value = ctypes.c_int(0)
            self._ok(self._hip.hipFuncGetAttribute(ctypes.byref(value), which, function.handle),
                     "hipFuncGetAttribute")
            return value.value

        return FunctionAttributes(max_threads_per_block=attr(FUNC_MAX_THREADS),
                                  static_shared_bytes=attr(FUNC_SHARED_SIZE),
                                  num_regs=attr(FUNC_NUM_REGS))

    def launch(self, device: int, function: HipFunction, grid: tuple[int, int, int],
               block: tuple[int, int, int], shared_mem: int, stream: Any,
               args: PackedArgs) -> None:
        self._dev(device)
        params = args.pointers if args.count else None
        self._ok(self._hip.hipModuleLaunchKernel(function.handle, grid[0], grid[1], grid[2],
                                                 block[0], block[1], block[2], shared_mem,
                                                 self._stream(stream), params, None),
                 "hipModuleLaunchKernel")
