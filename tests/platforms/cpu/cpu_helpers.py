"""Helpers for testing the CPU platform through its hooks (no public runtime needed)."""

from __future__ import annotations

import ctypes
import re

import numpy as np

from openhip.platforms.base import PackedArgs


def pack(*values: ctypes._SimpleCData) -> PackedArgs:
    """Lay ctypes values out at their natural alignment, as the runtime's packer does."""
    offsets: list[int] = []
    end = 0
    for v in values:
        align = ctypes.alignment(v)
        end = (end + align - 1) // align * align
        offsets.append(end)
        end += ctypes.sizeof(v)
    buf = (ctypes.c_char * max(end, 1))()
    for v, off in zip(values, offsets, strict=True):
        ctypes.memmove(ctypes.addressof(buf) + off, ctypes.addressof(v), ctypes.sizeof(v))
    return PackedArgs(buf, offsets, [ctypes.sizeof(v) for v in values])


def ptr(address: int) -> ctypes.c_void_p:
    return ctypes.c_void_p(address)


class Dev:
    """Device buffers of one platform, freed on close."""

    def __init__(self, platform) -> None:
        self.p = platform
        self.ptrs: list[int] = []

    def put(self, array: np.ndarray) -> int:
        array = np.ascontiguousarray(array)
        address = self.p.malloc(0, max(array.nbytes, 1))
        self.ptrs.append(address)
        self.p.copy_htod(0, address, array.ctypes.data, array.nbytes, None)
        return address

    def empty(self, nbytes: int) -> int:
        address = self.p.malloc(0, max(nbytes, 1))
        self.ptrs.append(address)
        return address

    def get(self, address: int, shape, dtype) -> np.ndarray:
        out = np.empty(shape, dtype)
        self.p.device_synchronize(0)
        self.p.copy_dtoh(0, out.ctypes.data, address, out.nbytes, None)
        return out

    def close(self) -> None:
        self.p.device_synchronize(0)
        for address in self.ptrs:
            self.p.free(0, address)
        self.ptrs.clear()


def build(platform, source: str, name_expressions=(), options=()):
    """Compile and load; returns (program, module, function getter)."""
    program = platform.compile(source, arch=platform.default_arch(0), options=options,
                               name_expressions=name_expressions)
    module = platform.load_module(0, program)

    def fn(name: str):
        return platform.get_function(0, module, program.kernels[name])

    return program, module, fn


def cpu_device():
    """The first device of the CPU platform (the test skips where there is none)."""
    import pytest

    import openhip as hip

    devs = [d for d in hip.devices() if d.platform == "cpu"]
    if not devs:
        pytest.skip("no CPU platform")
    return devs[0]


def vectorised_lines(source: str, name: str) -> tuple[set[int], object]:
    """``source`` built split at its barriers with GCC's ``-fopt-info-vec-optimized``: the lines
    of ``name`` that GCC reports "loop vectorized" at, and the module (OPENHIP_CPU_REGIONS set for
    the build only). The caller skips under Clang (the report is GCC's)."""
    import pytest

    import openhip as hip

    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("OPENHIP_CPU_REGIONS", "1")
        with cpu_device():
            mod = hip.Module(source, name=name, options=["-fopt-info-vec-optimized"])
    finally:
        mp.undo()
    pattern = re.escape(name) + r":(\d+):\d+: optimized: loop vectorized"
    return {int(m) for m in re.findall(pattern, mod.program.log)}, mod


def split_and_fibers_modules(source: str, name: str):
    """``{"regions": module, "fibers": module}``: ``source`` built on the CPU device split at its
    barriers and as fibers (OPENHIP_CPU_REGIONS set per build, restored afterwards)."""
    import pytest

    import openhip as hip

    mp = pytest.MonkeyPatch()
    out = {}
    try:
        with cpu_device():
            for mode in ("regions", "fibers"):
                mp.setenv("OPENHIP_CPU_REGIONS", "1" if mode == "regions" else "0")
                out[mode] = hip.Module(source, name=name)
    finally:
        mp.undo()
    return out


def run_split_and_fibers(mods, kernel: str, grid, block, make_args, out_index: int = 1):
    """The kernel's output (argument ``out_index``) split and as fibers, asserted bit-identical."""
    import openhip as hip

    res = {}
    with cpu_device():
        for mode, mod in mods.items():
            args = make_args()
            mod.get_function(kernel)(grid, block, args)
            hip.synchronize()
            res[mode] = args[out_index].get()
    assert res["regions"].tobytes() == res["fibers"].tobytes(), kernel
    return res["regions"]


def run_block_scan(mods, kernel: str, x: np.ndarray, blocks: int, block):
    """A per-block scan ``kernel(data, sums)`` over ``x`` split and as fibers: ``(data, sums)``,
    the block sums asserted bit-identical between the modes (``sums`` starts as 77s, so a block
    that writes none shows) and ``data`` as the last run left it."""
    import openhip as hip

    out = {}

    def args():
        out["data"] = hip.asarray(x)
        out["sums"] = hip.full(blocks, 77, x.dtype)
        return out["data"], out["sums"]

    sums = run_split_and_fibers(mods, kernel, blocks, block, args, 1)
    return out["data"].get(), sums
