"""Modules and kernels: compile HIP C++ once (cached), look kernels up, launch them.

::

    mod = openhip.Module(source, options=("-DN=4",), name_expressions=("scale<float>",))
    k = mod.get_function("scale<float>")
    k(grid, block, (x, 2.0, n), shared_mem=0, stream=None)

Arguments are converted to the kernel's parameter types, read from its signature (see
:mod:`openhip.runtime.kernel_args`). Launch configurations are checked against the device's
limits before anything runs: a bad one raises HipError ``hipErrorInvalidConfiguration``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..compiler.cache import cached_compile
from ..compiler.scan import Param, SourceScan, kernel_params, scan
from ..errors import HipError
from ..platforms.base import CompiledProgram, FunctionAttributes
from .bound import BoundLaunch
from .device import Device, get_device
from .kernel_args import ArgumentPacker, classify
from .stream import Stream, _stream_stack, resolve_stream

__all__ = ["Module", "Function", "normalize_dim3"]


@lru_cache(maxsize=256)
def _scan_cached(source: str) -> SourceScan:
    return scan(source)


def normalize_dim3(value: Any, what: str) -> tuple[int, int, int]:
    """``256`` or ``(16, 16)`` -> ``(256, 1, 1)`` / ``(16, 16, 1)``; errors for bad input."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        dims = [int(value)]
    elif isinstance(value, (tuple, list)) and 1 <= len(value) <= 3 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        dims = [int(v) for v in value]
    else:
        raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints, not {value!r}")
    if any(d < 1 for d in dims):
        raise HipError("hipErrorInvalidConfiguration",
                       f"{what} {tuple(dims)} has a dimension below 1",
                       routine="hipModuleLaunchKernel")
    while len(dims) < 3:
        dims.append(1)
    return dims[0], dims[1], dims[2]


class Module:
    """HIP C++ source compiled for a device (``hipModuleLoadData`` of hiprtc's output).

    ``options`` are compiler options (``-DNAME=1``, ``-I dir``, ``-std=c++20``...),
    ``name_expressions`` the template instantiations to compile (``"k<float, 4>"``),
    ``name`` the file name used in compiler messages, ``language`` ``"hip"`` or ``"cuda"``
    (CUDA source goes through :func:`openhip.hipify.translate` first, and so do the local
    headers it includes, found next to ``name``, in the working directory or under ``-I``).
    """

    def __init__(self, source: str, options: Sequence[str] = (),
                 name_expressions: Sequence[str] = (), *, name: str = "kernel.hip",
                 language: str = "hip", device: Device | int | None = None) -> None:
        if not isinstance(source, str):
            raise TypeError(f"source must be str, not {type(source).__name__}")
        if isinstance(options, str) or not all(isinstance(o, str) for o in options):
            raise TypeError("options must be a sequence of str (e.g. ('-DN=4',))")
        if isinstance(name_expressions, str) or not all(
                isinstance(e, str) for e in name_expressions):
            raise TypeError("name_expressions must be a sequence of str")
        if language not in ("hip", "cuda"):
            raise ValueError(f"language must be 'hip' or 'cuda', not {language!r}")
        if language == "cuda":
            from .cuda_headers import translate_cuda

            source = translate_cuda(source, name, options)
        self.device = get_device() if device is None else (
            device if isinstance(device, Device) else Device(device))
        self.source = source
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions)
        self.name = name
        platform = self.device._platform
        self.arch = platform.default_arch(self.device._index)
        self.program: CompiledProgram = cached_compile(
            platform, source, platform=platform.name, arch=self.arch, options=self.options,
            name_expressions=self.name_expressions, filename=name)
        self._handle = platform.load_module(self.device._index, self.program)
        self._functions: dict[str, Function] = {}
        self._lock = threading.Lock()

    @property
    def scan(self) -> SourceScan:
        """What the source declares (kernels, globals), as :func:`openhip.compiler.scan.scan`
        finds it."""
        return _scan_cached(self.source)

    @property
    def kernel_names(self) -> list[str]:
        """Names and name expressions of the kernels this module can launch."""
        return sorted(self.program.kernels)

    def get_function(self, name: str) -> Function:
        """The kernel ``name`` (a plain name, or a name expression given at construction)."""
        if not isinstance(name, str):
            raise TypeError(f"kernel name must be str, not {type(name).__name__}")
        with self._lock:
            fn = self._functions.get(name)
            if fn is None:
                fn = self._functions[name] = Function(self, name)
            return fn

    def get_global(self, name: str):
        """A ``__constant__``/``__device__`` variable as a DeviceArray view of its memory."""
        from .array import DeviceArray, dtype_for_type
        from .memory import DeviceBuffer

        if not isinstance(name, str):
            raise TypeError(f"global name must be str, not {type(name).__name__}")
        symbol = self.program.globals.get(name)
        if symbol is None:
            raise HipError("hipErrorNotFound", f"no __constant__ or __device__ variable named "
                           f"{name!r} in {self.name} (globals: {sorted(self.program.globals)})",
                           routine="hipModuleGetGlobal")
        ptr, size = self.device._platform.get_global(self.device._index, self._handle, symbol)
        decl = next((g for g in self.scan.globals if g.name == name), None)
        dtype = dtype_for_type(decl.type, self.scan.typedefs) if decl is not None else None
        if dtype is None or size % dtype.itemsize:
            dtype = np.dtype(np.uint8)
        buf = DeviceBuffer(ptr, size, self.device, owner=False)
        arr = DeviceArray._wrap(buf, (size // dtype.itemsize,), dtype)
        arr._base = self  # keep the module loaded while the view lives
        return arr

    def __repr__(self) -> str:
        return f"<openhip.Module {self.name} on device {self.device.id}: {self.kernel_names}>"

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is None:
            return
        try:
            self.device._platform.unload_module(self.device._index, handle)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


class Function:
    """A kernel of a :class:`Module`. Call it to launch:
    ``k(grid, block, (args...), shared_mem=0, stream=None)``."""

    def __init__(self, module: Module, name: str) -> None:
        self.module = module
        self.name = name
        program = module.program
        symbol = program.kernels.get(name)
        if symbol is None:
            raise HipError("hipErrorNotFound",
                           f"no kernel {name!r} in {module.name}; available: "
                           f"{sorted(program.kernels)} (templates need name_expressions)",
                           routine="hipModuleGetFunction")
        dev = module.device
        self._platform = dev._platform
        self._index = dev._index
        self._handle = self._platform.get_function(dev._index, module._handle, symbol)
        meta = program.metadata.get("kernels", {}).get(name, {})
        size_hints = meta.get("param_sizes") or []
        recorded = program.metadata.get("signatures", {}).get(name)
        if recorded is not None:  # recorded at compile time: no source scan on a warm hit
            params = [Param(n, t) for n, t in recorded]
            typedefs = program.metadata.get("typedefs", {})
        else:
            found = kernel_params(module.scan, name)
            if found is None:
                raise HipError("hipErrorNotFound",
                               f"cannot read the signature of kernel {name!r}",
                               routine="hipModuleGetFunction")
            params, typedefs = found[1], module.scan.typedefs
        specs = [classify(p, typedefs, size_hints[i] if i < len(size_hints) else None)
                 for i, p in enumerate(params)]
        self.params = specs
        self._packer = ArgumentPacker(name, specs, dev)
        self._pack_lock = threading.Lock()
        self.attributes: FunctionAttributes = self._platform.function_attributes(
            dev._index, self._handle)
        props = dev.properties
        self._max_threads = min(props.max_threads_per_block,
                                self.attributes.max_threads_per_block or
                                props.max_threads_per_block)
        self._max_block = props.max_block_dim
        self._max_grid = props.max_grid_dim
        self._max_shared = props.shared_mem_per_block - self.attributes.static_shared_bytes

    def __repr__(self) -> str:
        sig = ", ".join(f"{p.type} {p.name}".strip() for p in self.params)
        return f"<openhip.Function {self.name}({sig})>"

    def __call__(self, grid: Any, block: Any, args: Sequence[Any] = (), *, shared_mem: int = 0,
                 stream: Stream | None = None, cooperative: bool = False) -> None:
        """Launch. ``cooperative=True`` (``hipLaunchCooperativeKernel``): every block runs at
        the same time, which ``cooperative_groups::this_grid().sync()`` needs; a grid larger
        than the device can hold at once raises hipErrorCooperativeLaunchTooLarge."""
        if cooperative:
            self._launch_cooperative(grid, block, args, shared_mem, stream)
            return
        # Fast paths for the common shapes (an int or a full 3-tuple of ints); everything
        # else, and every error, goes through normalize_dim3 / _check.
        grid3 = (grid, 1, 1) if type(grid) is int and grid > 0 else normalize_dim3(grid, "grid")
        block3 = (block, 1, 1) if type(block) is int and block > 0 else normalize_dim3(
            block, "block")
        if type(shared_mem) is not int or not (
                block3[0] * block3[1] * block3[2] <= self._max_threads
                and block3[0] <= self._max_block[0] and block3[1] <= self._max_block[1]
                and block3[2] <= self._max_block[2] and grid3[0] <= self._max_grid[0]
                and grid3[1] <= self._max_grid[1] and grid3[2] <= self._max_grid[2]
                and 0 <= shared_mem <= self._max_shared):
            self._check(grid3, block3, shared_mem)
        if stream is None and not _stream_stack():
            handle = None
        else:
            handle = resolve_stream(stream, self.module.device)._handle
        with self._pack_lock:
            self._platform.launch(self._index, self._handle, grid3, block3, int(shared_mem),
                                  handle, self._packer.pack(args))

    launch = __call__
    # The plain launch, as defined here: a tool that wraps __call__ (the profiler) is seen by
    # bound launches, which then launch through the wrapper.
    _unwrapped_call = __call__

    def bind(self, grid: Any, block: Any, args: Sequence[Any] = (), *, shared_mem: int = 0,
             stream: Stream | None = None) -> BoundLaunch:
        """A :class:`~openhip.runtime.bound.BoundLaunch` of this kernel: the configuration
        checked and ``args`` converted and packed now (the errors a launch would raise), each
        call of it then the same launch as ``self(grid, block, args, ...)``."""
        grid3 = normalize_dim3(grid, "grid")
        block3 = normalize_dim3(block, "block")
        self._check(grid3, block3, shared_mem)
        if stream is not None:
            resolve_stream(stream, self.module.device)  # a stream of another device: refused
        return BoundLaunch(self, grid3, block3, int(shared_mem), stream, args)

    def _launch_cooperative(self, grid: Any, block: Any, args: Sequence[Any], shared_mem: int,
                            stream: Stream | None) -> None:
        grid3 = normalize_dim3(grid, "grid")
        block3 = normalize_dim3(block, "block")
        self._check(grid3, block3, shared_mem)
        launch = getattr(self._platform, "launch_cooperative", None)
        if launch is None:
            raise HipError("hipErrorNotSupported",
                           f"{self.name}: cooperative launches are not implemented on the "
                           f"{self._platform.name} platform yet",
                           routine="hipLaunchCooperativeKernel")
        limit = self._platform.cooperative_max_blocks(self._index, self._handle, block3,
                                                      int(shared_mem))
        blocks = grid3[0] * grid3[1] * grid3[2]
        if blocks > limit:
            raise HipError("hipErrorCooperativeLaunchTooLarge",
                           f"{self.name}: a cooperative launch of {blocks} blocks; at most "
                           f"{limit} can run at once on this device",
                           routine="hipLaunchCooperativeKernel")
        handle = None if stream is None and not _stream_stack() else resolve_stream(
            stream, self.module.device)._handle
        with self._pack_lock:
            launch(self._index, self._handle, grid3, block3, int(shared_mem), handle,
                   self._packer.pack(args))

    def _check(self, grid3, block3, shared_mem) -> None:
        threads = block3[0] * block3[1] * block3[2]
        problem = None
        if threads > self._max_threads:
            problem = f"block {block3} has {threads} threads; the limit is {self._max_threads}"
        elif any(b > m for b, m in zip(block3, self._max_block, strict=True)):
            problem = f"block {block3} exceeds the maximum block dimensions {self._max_block}"
        elif any(g > m for g, m in zip(grid3, self._max_grid, strict=True)):
            problem = f"grid {grid3} exceeds the maximum grid dimensions {self._max_grid}"
        if problem is None:
            if not isinstance(shared_mem, (int, np.integer)) or isinstance(shared_mem, bool):
                raise TypeError(f"shared_mem must be an int, not {type(shared_mem).__name__}")
            if shared_mem < 0:
                problem = f"shared_mem={shared_mem} is negative"
            elif shared_mem > self._max_shared:
                static = self.attributes.static_shared_bytes
                problem = (f"{shared_mem} bytes of dynamic shared memory requested"
                           + (f" on top of the kernel's {static} bytes of static shared memory"
                              if static else "")
                           + f"; a block may use {self._max_shared + static} in all")
        if problem is not None:
            raise HipError("hipErrorInvalidConfiguration", f"{self.name}: {problem}",
                           routine="hipModuleLaunchKernel")
