"""Finding and loading libamdhip64 and hiprtc with ctypes (only when first asked for).

Search order for libamdhip64: ``$ROCM_PATH/lib``, ``/opt/rocm/lib``, then the loader's path
(``libamdhip64.so``, ``.so.6``, ``.so.5``; Debian puts ROCm 5.2.3 there). hiprtc is
``libhiprtc.so`` beside it (ROCm >= 6) or, on ROCm 5.x, exported by libamdhip64 itself.
Raw functions here return status codes; callers check them (see ``errors.check``).
"""

from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass
from pathlib import Path

_lock = threading.Lock()
_loaded: HipLibraries | None = None
_failure: str | None = None

c_int_p = ctypes.POINTER(ctypes.c_int)
c_size_t_p = ctypes.POINTER(ctypes.c_size_t)
c_void_pp = ctypes.POINTER(ctypes.c_void_p)


@dataclass
class HipLibraries:
    """The loaded libraries: ``hip`` (libamdhip64) and ``rtc`` (hiprtc's exporter)."""

    hip: ctypes.CDLL
    rtc: ctypes.CDLL
    hip_path: str
    rtc_path: str
    runtime_version: int  # HIP_VERSION: major * 10_000_000 + minor * 100_000 + patch

    @property
    def version(self) -> tuple[int, int]:
        return self.runtime_version // 10_000_000, self.runtime_version // 100_000 % 100


def _candidates(stem: str, versions: tuple[str, ...]) -> list[str]:
    dirs = []
    rocm = os.environ.get("ROCM_PATH")
    if rocm:
        dirs += [Path(rocm) / "lib", Path(rocm) / "lib64"]
    dirs += [Path("/opt/rocm/lib")]
    out: list[str] = []
    for d in dirs:
        for v in versions:
            p = d / f"{stem}.so{v}"
            if p.exists():
                out.append(str(p))
    out += [f"{stem}.so{v}" for v in versions]
    return out


def _load_first(names: list[str]) -> tuple[ctypes.CDLL, str] | None:
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        return lib, _library_path(lib, name)
    return None


def _library_path(lib: ctypes.CDLL, fallback: str) -> str:
    """The file a loaded library came from (via dladdr on one of its symbols)."""
    try:
        class DlInfo(ctypes.Structure):
            _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                        ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]

        libdl = ctypes.CDLL(None)
        info = DlInfo()
        for sym in ("hipGetDeviceCount", "hiprtcCreateProgram"):
            if hasattr(lib, sym):
                addr = ctypes.cast(getattr(lib, sym), ctypes.c_void_p)
                if libdl.dladdr(addr, ctypes.byref(info)) and info.fname:
                    return os.path.realpath(info.fname.decode())
    except (AttributeError, OSError):
        pass
    return fallback


def _declare(hip: ctypes.CDLL, rtc: ctypes.CDLL) -> None:
    """Give every function openhip calls its C signature."""
    i, sz, vp, cp = ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
    u = ctypes.c_uint
    sig = {
        "hipInit": (i, [u]),
        "hipGetDeviceCount": (i, [c_int_p]),
        "hipSetDevice": (i, [i]),
        "hipRuntimeGetVersion": (i, [c_int_p]),
        "hipDriverGetVersion": (i, [c_int_p]),
        "hipGetErrorName": (cp, [i]),
        "hipGetErrorString": (cp, [i]),
        "hipDeviceGetAttribute": (i, [c_int_p, i, i]),
        "hipDeviceGetName": (i, [cp, i, i]),
        "hipDeviceTotalMem": (i, [c_size_t_p, i]),
        "hipDeviceGetPCIBusId": (i, [cp, i, i]),
        "hipGetDeviceProperties": (i, [vp, i]),
        "hipMalloc": (i, [c_void_pp, sz]),
        "hipFree": (i, [vp]),
        "hipMemcpy": (i, [vp, vp, sz, i]),
        "hipMemcpyAsync": (i, [vp, vp, sz, i, vp]),
        "hipMemset": (i, [vp, i, sz]),
        "hipMemsetAsync": (i, [vp, i, sz, vp]),
        "hipStreamCreate": (i, [c_void_pp]),
        "hipStreamDestroy": (i, [vp]),
        "hipStreamSynchronize": (i, [vp]),
        "hipStreamQuery": (i, [vp]),
        "hipStreamWaitEvent": (i, [vp, vp, u]),
        "hipDeviceSynchronize": (i, []),
        "hipEventCreate": (i, [c_void_pp]),
        "hipEventDestroy": (i, [vp]),
        "hipEventRecord": (i, [vp, vp]),
        "hipEventSynchronize": (i, [vp]),
        "hipEventQuery": (i, [vp]),
        "hipEventElapsedTime": (i, [ctypes.POINTER(ctypes.c_float), vp, vp]),
        "hipModuleLoadData": (i, [c_void_pp, vp]),
        "hipModuleUnload": (i, [vp]),
        "hipModuleGetFunction": (i, [c_void_pp, vp, cp]),
        "hipModuleGetGlobal": (i, [c_void_pp, c_size_t_p, vp, cp]),
        "hipFuncGetAttribute": (i, [c_int_p, i, vp]),
        "hipModuleLaunchKernel": (i, [vp, u, u, u, u, u, u, u, vp, c_void_pp, c_void_pp]),
    }
    rtc_sig = {
        "hiprtcCreateProgram": (i, [c_void_pp, cp, cp, i, ctypes.POINTER(cp),
                                    ctypes.POINTER(cp)]),
        "hiprtcCompileProgram": (i, [vp, i, ctypes.POINTER(cp)]),
        "hiprtcDestroyProgram": (i, [c_void_pp]),
        "hiprtcGetProgramLogSize": (i, [vp, c_size_t_p]),
        "hiprtcGetProgramLog": (i, [vp, cp]),
        "hiprtcGetCodeSize": (i, [vp, c_size_t_p]),
        "hiprtcGetCode": (i, [vp, cp]),
        "hiprtcAddNameExpression": (i, [vp, cp]),
        "hiprtcGetLoweredName": (i, [vp, cp, ctypes.POINTER(cp)]),
        "hiprtcGetErrorString": (cp, [i]),
    }
    for table, lib in ((sig, hip), (rtc_sig, rtc)):
        for name, (restype, argtypes) in table.items():
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = restype
                fn.argtypes = argtypes


def load() -> HipLibraries:
    """Load (once) libamdhip64 and hiprtc; OSError with every place tried when absent."""
    global _loaded, _failure
    with _lock:
        if _loaded is not None:
            return _loaded
        if _failure is not None:
            raise OSError(_failure)
        found = _load_first(_candidates("libamdhip64", ("", ".6", ".7", ".5")))
        if found is None:
            _failure = ("libamdhip64 not found (looked in $ROCM_PATH/lib, /opt/rocm/lib and the "
                        "loader path; install ROCm or Debian's libamdhip64-dev)")
            raise OSError(_failure)
        hip, hip_path = found
        rtc_found = _load_first([str(Path(hip_path).with_name(n)) for n in
                                 ("libhiprtc.so", "libhiprtc.so.6", "libhiprtc.so.7")]
                                + _candidates("libhiprtc", ("", ".6", ".7")))
        if rtc_found is not None:
            rtc, rtc_path = rtc_found
        elif hasattr(hip, "hiprtcCreateProgram"):
            rtc, rtc_path = hip, hip_path  # ROCm 5.x: hiprtc lives inside libamdhip64
        else:
            _failure = f"hiprtc not found (no libhiprtc.so beside {hip_path}, none inside it)"
            raise OSError(_failure)
        _declare(hip, rtc)
        version = ctypes.c_int(0)
        if hip.hipRuntimeGetVersion(ctypes.byref(version)) != 0:
            version.value = 0
        _loaded = HipLibraries(hip, rtc, hip_path, rtc_path, int(version.value))
        return _loaded
