"""The nvidia platform's Python layer against a stand-in for the CUDA driver: every driver call
it makes is checked against the real cuda-bindings function's arity, and the values flow through
(pointers as ints, handles wrapped, errors mapped to HipError). Needs cuda-bindings, not a GPU."""

from __future__ import annotations

import ctypes
import re

import pytest

from openhip.errors import HipError
from openhip.platforms.base import CompiledProgram, PackedArgs

driver = pytest.importorskip("cuda.bindings.driver")
platform_mod = pytest.importorskip("openhip.platforms.nvidia.platform")

OK = driver.CUresult.CUDA_SUCCESS
ATTRS = {
    "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR": 9,
    "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR": 0,
    "CU_DEVICE_ATTRIBUTE_WARP_SIZE": 32,
    "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK": 1024,
    "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024,
    "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 227 * 1024,
    "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT": 132,
}


def _arity(name: str) -> int:
    first = getattr(driver, name).__doc__.splitlines()[0]
    inside = re.match(r"\w+\((.*)\)", first).group(1).strip()
    return 0 if not inside else len(inside.split(","))


class FakeDriver:
    """Returns what the real bindings return, records the calls, checks argument counts."""

    CUresult = driver.CUresult
    CUdevice_attribute = driver.CUdevice_attribute
    CUfunction_attribute = driver.CUfunction_attribute
    CUstream_flags = driver.CUstream_flags
    CUevent_flags = driver.CUevent_flags
    CUstream = driver.CUstream

    def __init__(self):
        self.calls: list[tuple] = []
        self.fail: dict[str, object] = {}
        self.memory = 0x7F0000000000

    def __getattr__(self, name):
        if not name.startswith("cu"):
            raise AttributeError(name)
        expected = _arity(name)

        def fn(*args):
            assert len(args) == expected, f"{name}: {len(args)} args, the driver takes {expected}"
            self.calls.append((name, args))
            result = self._result(name, args)
            if name in self.fail:  # like the bindings: the status, then None per output
                return (self.fail[name],) + (None,) * (len(result) - 1)
            return result

        fn.__name__ = name
        return fn

    def _result(self, name, args):
        values = {
            "cuDeviceGetCount": (1,), "cuDeviceGet": (driver.CUdevice(0),),
            "cuDevicePrimaryCtxRetain": (driver.CUcontext(0x1234),),
            "cuDeviceGetName": (b"Fake H200\0\0",), "cuDeviceTotalMem": (141 << 30,),
            "cuMemAlloc": (driver.CUdeviceptr(self.memory),),
            "cuStreamCreate": (driver.CUstream(0x55),), "cuEventCreate": (driver.CUevent(0x66),),
            "cuEventElapsedTime": (1.5,), "cuModuleLoadData": (driver.CUmodule(0x77),),
            "cuModuleGetFunction": (driver.CUfunction(0x88),),
            "cuModuleGetGlobal": (driver.CUdeviceptr(0x9000), 16),
            "cuDriverGetVersion": (13000,), "cuFuncGetAttribute": (1024,),
        }
        if name == "cuDeviceGetAttribute":
            return (OK, ATTRS.get(args[0].name, 7))
        return (OK, *values.get(name, ()))


@pytest.fixture
def fake(monkeypatch):
    drv = FakeDriver()
    monkeypatch.setattr(platform_mod, "_start_driver", lambda: drv)
    return drv, platform_mod.NvidiaPlatform()


def test_properties(fake):
    _, nv = fake
    (props,) = nv.device_properties()
    assert props.arch == "sm_90" and props.compute_capability == (9, 0)
    assert props.name == "Fake H200" and props.total_memory == 141 << 30
    assert props.shared_mem_per_block == 227 * 1024 and props.warp_size == 32
    assert (props.supports_fp16, props.supports_bf16, props.supports_fp8) == (True, True, True)


def test_memory_streams_events(fake):
    drv, nv = fake
    ptr = nv.malloc(0, 4096)
    assert ptr == drv.memory and isinstance(ptr, int)
    host = (ctypes.c_char * 4096)()
    s = nv.stream_create(0)
    assert s.handle_int == 0x55
    nv.copy_htod(0, ptr, ctypes.addressof(host), 4096, None)
    nv.copy_htod(0, ptr, ctypes.addressof(host), 4096, s)
    nv.copy_dtoh(0, ctypes.addressof(host), ptr, 4096, s)
    nv.copy_dtod(0, ptr, ptr, 4096, None)
    nv.memset(0, ptr, 0x1FF, 4096, s)
    assert ("cuMemsetD8Async", (ptr, 0xFF, 4096, s.handle)) in drv.calls
    e0, e1 = nv.event_create(0), nv.event_create(0)
    nv.event_record(0, e0, s)
    nv.event_record(0, e1, None)
    nv.stream_wait_event(0, None, e0)
    assert nv.event_elapsed_ms(0, e0, e1) == 1.5
    assert nv.stream_query(0, s) and nv.event_query(0, e1)
    drv.fail["cuStreamQuery"] = driver.CUresult.CUDA_ERROR_NOT_READY
    assert not nv.stream_query(0, s)
    nv.stream_synchronize(0, s)
    nv.device_synchronize(0)
    nv.stream_destroy(0, s)
    nv.event_destroy(0, e0)
    nv.free(0, ptr)
    assert nv.stream_from_handle(0, 0xABC).handle_int == 0xABC


def test_modules_and_launch(fake):
    drv, nv = fake
    program = CompiledProgram(binary=b"\x7fELF", platform="nvidia", arch="sm_90",
                              kernels={"k": "k"})
    mod = nv.load_module(0, program)
    fn = nv.get_function(0, mod, "k")
    assert nv.get_global(0, mod, "g") == (0x9000, 16)
    assert nv.function_attributes(0, fn).max_threads_per_block == 1024
    buf = (ctypes.c_char * 16)()
    args = PackedArgs(buf, [0, 8], [8, 4])
    nv.launch(0, fn, (2, 1, 1), (128, 1, 1), 0, None, args)
    name, call_args = drv.calls[-1]
    assert name == "cuLaunchKernel" and call_args[1:8] == (2, 1, 1, 128, 1, 1, 0)
    assert call_args[9] == ctypes.addressof(args.pointers)
    nv.launch(0, fn, (1, 1, 1), (32, 1, 1), 100 * 1024, None, args)  # opts in past 48 KiB
    assert any(c[0] == "cuFuncSetAttribute" for c in drv.calls)
    nv.unload_module(0, mod)


def test_driver_errors_become_hip_errors(fake):
    drv, nv = fake
    drv.fail["cuMemAlloc"] = driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY
    with pytest.raises(HipError) as info:
        nv.malloc(0, 1 << 50)
    assert info.value.status == "hipErrorOutOfMemory" and info.value.routine == "cuMemAlloc"
    drv.fail["cuModuleGetFunction"] = driver.CUresult.CUDA_ERROR_NOT_FOUND
    with pytest.raises(HipError) as info:
        nv.get_function(0, platform_mod.CudaModule(driver.CUmodule(1), 0), "nope")
    assert info.value.status == "hipErrorNotFound"
    drv.fail["cuLaunchKernel"] = driver.CUresult.CUDA_ERROR_INVALID_VALUE
    with pytest.raises(HipError, match="cuLaunchKernel"):
        nv.launch(0, platform_mod.CudaFunction(driver.CUfunction(1), "k"), (1, 1, 1),
                  (1, 1, 1), 0, None, PackedArgs((ctypes.c_char * 1)(), [], []))
