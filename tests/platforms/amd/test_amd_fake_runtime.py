"""The amd platform's Python layer against a stand-in for libamdhip64 (no GPU needed): device
properties from hipDeviceGetAttribute and the arch name found in hipDeviceProp_t, memory, streams,
events, modules and launches, and hipError_t codes turned into HipError."""

from __future__ import annotations

import ctypes

import pytest

from openhip.errors import HipError, PlatformUnavailable
from openhip.platforms.amd import lib as hiplib
from openhip.platforms.amd import platform as amd
from openhip.platforms.base import CompiledProgram, PackedArgs

VALUES = {5: 1700000, 26: 1024, 27: 1024, 28: 1024, 29: 2147483647, 30: 65536, 31: 65536,
          56: 1024, 63: 104, 74: 65536, 87: 64}


def _set(ref, value):
    ref._obj.value = value


class FakeHip:
    """What openhip calls in libamdhip64, answering as a one-GPU ROCm 5.2 would."""

    def __init__(self, devices=1):
        self.devices = devices
        self.calls = []
        self.fail = {}

    def __getattr__(self, name):
        if not name.startswith("hip") or name.endswith("R0600"):  # ROCm 5: no R0600 symbols
            raise AttributeError(name)

        def fn(*args):
            self.calls.append((name, args))
            if name in self.fail:
                return self.fail[name]
            return getattr(self, "_" + name, lambda *a: 0)(*args)

        return fn

    def _hipGetDeviceCount(self, ref):
        _set(ref, self.devices)
        return 0 if self.devices else 100

    def _hipGetErrorName(self, status):
        return {2: b"hipErrorOutOfMemory", 100: b"hipErrorNoDevice",
                500: b"hipErrorNotFound"}.get(status, b"hipErrorUnknown")

    def _hipDeviceGetAttribute(self, ref, attr, device):
        _set(ref, VALUES.get(attr, 3))
        return 0

    def _hipDeviceGetName(self, buf, size, device):
        buf.value = b"AMD Instinct MI210"
        return 0

    def _hipDeviceTotalMem(self, ref, device):
        _set(ref, 64 << 30)
        return 0

    def _hipGetDeviceProperties(self, buf, device):
        ctypes.memmove(ctypes.addressof(buf) + 396, b"gfx90a:sramecc+:xnack-\0", 23)
        return 0

    def _hipMalloc(self, ref, size):
        _set(ref, 0x7F0000001000)
        return 0

    def _hipStreamCreate(self, ref):
        _set(ref, 0x55)
        return 0

    def _hipEventCreate(self, ref):
        _set(ref, 0x66)
        return 0

    def _hipEventElapsedTime(self, ref, a, b):
        _set(ref, 2.5)
        return 0

    def _hipModuleLoadData(self, ref, image):
        _set(ref, 0x77)
        return 0

    def _hipModuleGetFunction(self, ref, module, name):
        _set(ref, 0x88)
        return 0

    def _hipModuleGetGlobal(self, ptr, size, module, name):
        _set(ptr, 0x9000)
        _set(size, 16)
        return 0

    def _hipFuncGetAttribute(self, ref, attr, fn):
        _set(ref, 256 if attr == amd.FUNC_MAX_THREADS else 0)
        return 0


@pytest.fixture
def fake(monkeypatch):
    hip = FakeHip()
    libs = hiplib.HipLibraries(hip, hip, "/fake/libamdhip64.so.5", "/fake/libamdhip64.so.5",
                               50221153)
    monkeypatch.setattr(amd.hiplib, "load", lambda: libs)
    return hip, amd.AmdPlatform()


def test_properties(fake):
    _, platform = fake
    (props,) = platform.device_properties()
    assert props.name == "AMD Instinct MI210" and props.arch == "gfx90a:sramecc+:xnack-"
    assert platform.default_arch(0) == "gfx90a"
    assert props.warp_size == 64 and props.multiprocessor_count == 104
    assert props.max_grid_dim == (2147483647, 65536, 65536)
    assert props.total_memory == 64 << 30 and props.supports_bf16 and not props.supports_fp8


def test_memory_streams_events_modules_launch(fake):
    hip, platform = fake
    ptr = platform.malloc(0, 1024)
    assert ptr == 0x7F0000001000
    host = (ctypes.c_char * 1024)()
    s = platform.stream_create(0)
    assert s.handle_int == 0x55
    platform.copy_htod(0, ptr, ctypes.addressof(host), 1024, None)
    platform.copy_dtoh(0, ctypes.addressof(host), ptr, 1024, s)
    assert ("hipMemcpyAsync", (ctypes.addressof(host), ptr, 1024, amd.HIP_MEMCPY_D2H,
                               s.handle)) in hip.calls
    platform.memset(0, ptr, 0x101, 1024, None)
    assert ("hipMemset", (ptr, 1, 1024)) in hip.calls
    e0, e1 = platform.event_create(0), platform.event_create(0)
    platform.event_record(0, e0, s)
    platform.event_record(0, e1, None)
    assert platform.event_elapsed_ms(0, e0, e1) == 2.5
    hip.fail["hipStreamQuery"] = amd.HIP_ERROR_NOT_READY
    assert not platform.stream_query(0, s)
    mod = platform.load_module(0, CompiledProgram(b"\x7fELF", "amd", "gfx90a"))
    fn = platform.get_function(0, mod, "k")
    assert platform.get_global(0, mod, "g") == (0x9000, 16)
    assert platform.function_attributes(0, fn).max_threads_per_block == 256
    args = PackedArgs((ctypes.c_char * 8)(), [0], [8])
    platform.launch(0, fn, (4, 1, 1), (64, 1, 1), 128, s, args)
    name, call = hip.calls[-1]
    assert name == "hipModuleLaunchKernel" and call[1:8] == (4, 1, 1, 64, 1, 1, 128)
    assert call[9] is args.pointers
    platform.unload_module(0, mod)
    platform.stream_destroy(0, s)
    platform.free(0, ptr)


def test_errors(fake):
    hip, platform = fake
    hip.fail["hipMalloc"] = 2
    with pytest.raises(HipError) as info:
        platform.malloc(0, 1 << 50)
    assert info.value.status == "hipErrorOutOfMemory" and info.value.routine == "hipMalloc"


def test_no_device_is_unavailable(monkeypatch):
    hip = FakeHip(devices=0)
    libs = hiplib.HipLibraries(hip, hip, "/fake/libamdhip64.so.5", "/fake/libamdhip64.so.5",
                               50221153)
    monkeypatch.setattr(amd.hiplib, "load", lambda: libs)
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "")
    with pytest.raises(PlatformUnavailable) as info:
        amd.AmdPlatform()
    assert "hipErrorNoDevice" in info.value.reason and "HIP_VISIBLE_DEVICES" in info.value.reason
