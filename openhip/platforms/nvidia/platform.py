"""The nvidia platform: NVIDIA GPUs through the CUDA driver API (``cuda.bindings.driver``).

One primary context per device, made current on the calling thread before each call. Device
pointers are plain ints; streams, events, modules and functions are small wrappers around the
driver handles (``.handle_int`` gives the raw CUstream/CUevent value as an int, for
``__cuda_array_interface__``'s ``stream`` field and DLPack). CUDA_VISIBLE_DEVICES is applied by
the driver itself when it initialises.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ... import config
from ...errors import HipError, PlatformUnavailable
from ..base import CompiledProgram, DeviceProperties, FunctionAttributes, PackedArgs, Platform
from .arch import arch_for_capability
from .errors import call, check

#: bytes of shared memory a block gets without opting in (cuFuncSetAttribute) on every NVIDIA GPU.
_DEFAULT_SHARED = 48 * 1024


@dataclass(eq=False)
class CudaStream:
    """A CUDA stream; ``handle_int`` is the CUstream as an int."""

    handle: Any
    device: int

    @property
    def handle_int(self) -> int:
        return int(self.handle)


@dataclass(eq=False)
class CudaEvent:
    """A CUDA event; ``handle_int`` is the CUevent as an int."""

    handle: Any
    device: int

    @property
    def handle_int(self) -> int:
        return int(self.handle)


@dataclass(eq=False)
class CudaModule:
    handle: Any
    device: int


@dataclass(eq=False)
class CudaFunction:
    handle: Any
    name: str
    dynamic_shared_limit: int = _DEFAULT_SHARED


def fp_support(major: int, minor: int) -> tuple[bool, bool, bool]:
    """(fp16, bf16, fp8) arithmetic support of compute capability ``major.minor``: fp16 from
    5.3, bf16 from 8.0, fp8 (e4m3/e5m2 tensor cores) from 8.9."""
    cc = major * 10 + minor
    return cc >= 53, cc >= 80, cc >= 89


def _start_driver():
    """Import the driver bindings and cuInit; PlatformUnavailable with the reason otherwise."""
    try:
        from cuda.bindings import driver
    except ImportError as exc:
        raise PlatformUnavailable(
            "nvidia", f"cuda-bindings is not installed (pip install 'openhip[nvidia]'): {exc}"
        ) from None
    try:
        (err,) = driver.cuInit(0)
    except Exception as exc:  # noqa: BLE001 - DynamicLibNotFoundError, RuntimeError, ...
        raise PlatformUnavailable(
            "nvidia", f"no CUDA driver (libcuda.so not found): {type(exc).__name__}: {exc}"
        ) from None
    if int(err) != 0:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        extra = f" (CUDA_VISIBLE_DEVICES={visible!r})" if visible is not None else ""
        name = getattr(err, "name", str(err))
        if int(err) == 100:
            raise PlatformUnavailable("nvidia", f"no NVIDIA device{extra}: cuInit -> {name}")
        raise PlatformUnavailable("nvidia", f"cuInit failed{extra}: {name}")
    return driver


class NvidiaPlatform(Platform):
    """NVIDIA GPUs via the CUDA driver API and NVRTC."""

    name = "nvidia"

    def __init__(self) -> None:
        self._drv = _start_driver()
        d = self._drv
        count = call(d.cuDeviceGetCount)
        if count == 0:
            raise PlatformUnavailable("nvidia", "the CUDA driver reports no device")
        self._devices = [call(d.cuDeviceGet, i) for i in range(count)]
        self._contexts: list[Any] = [None] * count
        self._props: list[DeviceProperties] | None = None
        self._local = threading.local()
        self._lock = threading.Lock()

    # ---- contexts ----------------------------------------------------------------------------
    def _ctx(self, device: int) -> None:
        """Make ``device``'s primary context current on this thread."""
        if getattr(self._local, "device", None) == device:
            return
        if not 0 <= device < len(self._devices):
            raise HipError("hipErrorInvalidDevice", f"device {device}", routine="cuCtxSetCurrent")
        with self._lock:
            if self._contexts[device] is None:
                self._contexts[device] = call(self._drv.cuDevicePrimaryCtxRetain,
                                              self._devices[device])
        call(self._drv.cuCtxSetCurrent, self._contexts[device])
        self._local.device = device

    @staticmethod
    def _stream(stream: Any) -> Any:
        return 0 if stream is None else stream.handle

    # ---- devices -----------------------------------------------------------------------------
    def device_properties(self) -> list[DeviceProperties]:
        if self._props is None:
            self._props = [self._query(i) for i in range(len(self._devices))]
        return self._props

    def _query(self, index: int) -> DeviceProperties:
        d = self._drv
        dev = self._devices[index]
        A = d.CUdevice_attribute

        def attr(name: str) -> int:
            return int(call(d.cuDeviceGetAttribute, getattr(A, name), dev))

        major = attr("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
        minor = attr("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
        fp16, bf16, fp8 = fp_support(major, minor)
        name = call(d.cuDeviceGetName, 256, dev)
        name = name.split(b"\0", 1)[0].decode(errors="replace")
        pci = (f"{attr('CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID'):04x}:"
               f"{attr('CU_DEVICE_ATTRIBUTE_PCI_BUS_ID'):02x}:"
               f"{attr('CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID'):02x}.0")
        optin = attr("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
        return DeviceProperties(
            name=name,
            platform="nvidia",
            arch=arch_for_capability(major, minor),
            warp_size=attr("CU_DEVICE_ATTRIBUTE_WARP_SIZE"),
            max_threads_per_block=attr("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
            max_block_dim=(attr("CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X"),
                           attr("CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y"),
                           attr("CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z")),
            max_grid_dim=(attr("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X"),
                          attr("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y"),
                          attr("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z")),
            shared_mem_per_block=max(optin, attr("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK")),
            multiprocessor_count=attr("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
            total_memory=int(call(d.cuDeviceTotalMem, dev)),
            supports_fp16=fp16,
            supports_bf16=bf16,
            supports_fp8=fp8,
            clock_rate_khz=attr("CU_DEVICE_ATTRIBUTE_CLOCK_RATE"),
            compute_capability=(major, minor),
            pci_bus_id=pci,
            extra={
                "shared_mem_per_block_default": _DEFAULT_SHARED,
                "shared_mem_per_block_optin": optin,
                "l2_cache_size": attr("CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE"),
                "memory_bus_width": attr("CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH"),
                "memory_clock_rate_khz": attr("CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE"),
            },
        )

    def compiler_identity(self, device: int | None = None) -> str:
        return self.toolchain().compiler_identity()

    def describe(self) -> dict[str, Any]:
        version = call(self._drv.cuDriverGetVersion)
        out: dict[str, Any] = {
            "driver_version": f"{version // 1000}.{version % 1000 // 10}",
            "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),
        }
        try:
            out["compiler"] = self.toolchain().compiler_identity()
        except ImportError as exc:
            out["compiler"] = f"unavailable: {exc}"
        return out

    @staticmethod
    def toolchain():
        from .toolchain import toolchain

        return toolchain()

    # ---- memory ------------------------------------------------------------------------------
    def malloc(self, device: int, nbytes: int) -> int:
        self._ctx(device)
        return int(call(self._drv.cuMemAlloc, nbytes))

    def free(self, device: int, ptr: int) -> None:
        self._ctx(device)
        call(self._drv.cuMemFree, ptr)

    def copy_htod(self, device: int, dst: int, src_host: int, nbytes: int, stream: Any) -> None:
        self._ctx(device)
        if stream is None:
            call(self._drv.cuMemcpyHtoD, dst, src_host, nbytes)
        else:
            call(self._drv.cuMemcpyHtoDAsync, dst, src_host, nbytes, stream.handle)

    def copy_dtoh(self, device: int, dst_host: int, src: int, nbytes: int, stream: Any) -> None:
        self._ctx(device)
        if stream is None:
            call(self._drv.cuMemcpyDtoH, dst_host, src, nbytes)
        else:
            call(self._drv.cuMemcpyDtoHAsync, dst_host, src, nbytes, stream.handle)

    def copy_dtod(self, device: int, dst: int, src: int, nbytes: int, stream: Any) -> None:
        self._ctx(device)
        if stream is None:
            call(self._drv.cuMemcpyDtoD, dst, src, nbytes)
        else:
            call(self._drv.cuMemcpyDtoDAsync, dst, src, nbytes, stream.handle)

    def memset(self, device: int, dst: int, value: int, nbytes: int, stream: Any) -> None:
        self._ctx(device)
        if stream is None:
            call(self._drv.cuMemsetD8, dst, value & 0xFF, nbytes)
        else:
            call(self._drv.cuMemsetD8Async, dst, value & 0xFF, nbytes, stream.handle)

    # ---- streams and events ------------------------------------------------------------------
    def stream_create(self, device: int) -> CudaStream:
        self._ctx(device)
        flags = int(self._drv.CUstream_flags.CU_STREAM_DEFAULT)
        return CudaStream(call(self._drv.cuStreamCreate, flags), device)

    def stream_from_handle(self, device: int, handle: int) -> CudaStream:
        """Wrap a CUstream made elsewhere (CuPy, torch, a DLPack consumer) without owning it;
        never pass the result to :meth:`stream_destroy`."""
        return CudaStream(self._drv.CUstream(handle), device)

    def stream_destroy(self, device: int, stream: CudaStream) -> None:
        self._ctx(device)
        call(self._drv.cuStreamDestroy, stream.handle)

    def stream_synchronize(self, device: int, stream: Any) -> None:
        self._ctx(device)
        call(self._drv.cuStreamSynchronize, self._stream(stream))

    def stream_query(self, device: int, stream: Any) -> bool:
        self._ctx(device)
        (err,) = self._drv.cuStreamQuery(self._stream(stream))
        if int(err) == 600:  # CUDA_ERROR_NOT_READY
            return False
        check(err, "cuStreamQuery")
        return True

    def stream_wait_event(self, device: int, stream: Any, event: CudaEvent) -> None:
        self._ctx(device)
        call(self._drv.cuStreamWaitEvent, self._stream(stream), event.handle, 0)

    def device_synchronize(self, device: int) -> None:
        self._ctx(device)
        call(self._drv.cuCtxSynchronize)

    def event_create(self, device: int) -> CudaEvent:
        self._ctx(device)
        flags = int(self._drv.CUevent_flags.CU_EVENT_DEFAULT)
        return CudaEvent(call(self._drv.cuEventCreate, flags), device)

    def event_destroy(self, device: int, event: CudaEvent) -> None:
        self._ctx(device)
        call(self._drv.cuEventDestroy, event.handle)

    def event_record(self, device: int, event: CudaEvent, stream: Any) -> None:
        self._ctx(device)
        call(self._drv.cuEventRecord, event.handle, self._stream(stream))

    def event_synchronize(self, device: int, event: CudaEvent) -> None:
        self._ctx(device)
        call(self._drv.cuEventSynchronize, event.handle)

    def event_query(self, device: int, event: CudaEvent) -> bool:
        self._ctx(device)
        (err,) = self._drv.cuEventQuery(event.handle)
        if int(err) == 600:
            return False
        check(err, "cuEventQuery")
        return True

    def event_elapsed_ms(self, device: int, start: CudaEvent, end: CudaEvent) -> float:
        self._ctx(device)
        return float(call(self._drv.cuEventElapsedTime, start.handle, end.handle))

    # ---- code --------------------------------------------------------------------------------
    def compile(self, source: str, *, arch: str, options: Sequence[str] = (),
                name_expressions: Sequence[str] = (),
                filename: str = "kernel.hip") -> CompiledProgram:
        return self.toolchain().compile(source, arch=arch, options=options,
                                        name_expressions=name_expressions, filename=filename)

    def load_module(self, device: int, program: CompiledProgram) -> CudaModule:
        self._ctx(device)
        return CudaModule(call(self._drv.cuModuleLoadData, program.binary), device)

    def unload_module(self, device: int, module: CudaModule) -> None:
        self._ctx(device)
        call(self._drv.cuModuleUnload, module.handle)

    def get_function(self, device: int, module: CudaModule, symbol: str) -> CudaFunction:
        self._ctx(device)
        err, handle = self._drv.cuModuleGetFunction(module.handle, symbol.encode())
        if int(err) != 0:
            check(err, f"cuModuleGetFunction({symbol!r})")
        return CudaFunction(handle, symbol)

    def get_global(self, device: int, module: CudaModule, symbol: str) -> tuple[int, int]:
        self._ctx(device)
        ptr, size = call(self._drv.cuModuleGetGlobal, module.handle, symbol.encode())
        return int(ptr), int(size)

    def function_attributes(self, device: int, function: CudaFunction) -> FunctionAttributes:
        self._ctx(device)
        A = self._drv.CUfunction_attribute

        def attr(name: str) -> int:
            return int(call(self._drv.cuFuncGetAttribute, getattr(A, name), function.handle))

        return FunctionAttributes(
            max_threads_per_block=attr("CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
            static_shared_bytes=attr("CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES"),
            num_regs=attr("CU_FUNC_ATTRIBUTE_NUM_REGS"),
        )

    def launch(self, device: int, function: CudaFunction, grid: tuple[int, int, int],
               block: tuple[int, int, int], shared_mem: int, stream: Any,
               args: PackedArgs) -> None:
        """cuLaunchKernel with ``args.pointers`` as kernelParams (the hot path: kept short)."""
        if getattr(self._local, "device", None) != device:
            self._ctx(device)
        if shared_mem > function.dynamic_shared_limit:
            # Past 48 KiB a kernel must opt in to more dynamic shared memory.
            d = self._drv
            call(d.cuFuncSetAttribute, function.handle,
                 d.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                 shared_mem)
            function.dynamic_shared_limit = shared_mem
        params = ctypes.addressof(args.pointers) if args.count else 0
        (err,) = self._drv.cuLaunchKernel(
            function.handle, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_mem,
            0 if stream is None else stream.handle, params, 0)
        if err:
            check(err, "cuLaunchKernel")

def visible_devices() -> list[int] | None:
    """CUDA_VISIBLE_DEVICES as parsed by openhip (the driver applies it at cuInit)."""
    return config.visible_devices("CUDA_VISIBLE_DEVICES")
