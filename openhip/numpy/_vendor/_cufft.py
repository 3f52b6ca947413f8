"""cuFFT (``libcufft.so.12``, NVIDIA's ``nvidia-cufft`` wheel): the nvidia platform's FFT.

One-dimensional batched transforms on device memory (C2C/R2C/C2R in single precision,
Z2Z/D2Z/Z2D in double): the batches are contiguous rows of length ``n`` (input) and ``n``,
``n // 2 + 1`` (output), given to ``cufftPlanMany`` as an explicit advanced layout. Plans are
cached per (device, stream, n, type, batch), a few dozen at most (cufftDestroy on eviction),
each bound to its stream with ``cufftSetStream``. Any length (cuFFT handles every n). cuFFT's
transforms are unnormalised; the caller scales with an openhip.numpy kernel. C2R may overwrite
its input: the caller hands it a copy.
"""

from __future__ import annotations

import collections
import ctypes
from typing import Any

from . import _common
from ._loader import Library, check

SYMBOLS = ("cufftPlanMany", "cufftSetStream", "cufftDestroy", "cufftExecC2C", "cufftExecZ2Z",
           "cufftExecR2C", "cufftExecD2Z", "cufftExecC2R", "cufftExecZ2D")

R2C, C2R, C2C, D2Z, Z2D, Z2Z = 0x2A, 0x2C, 0x29, 0x6A, 0x6C, 0x69
FORWARD, INVERSE = -1, 1

#: (kind, double precision) -> (cufftType, exec function)
_TYPES = {("c2c", False): (C2C, "cufftExecC2C"), ("c2c", True): (Z2Z, "cufftExecZ2Z"),
          ("r2c", False): (R2C, "cufftExecR2C"), ("r2c", True): (D2Z, "cufftExecD2Z"),
          ("c2r", False): (C2R, "cufftExecC2R"), ("c2r", True): (Z2D, "cufftExecZ2D")}

STATUS = {1: "CUFFT_INVALID_PLAN", 2: "CUFFT_ALLOC_FAILED", 3: "CUFFT_INVALID_TYPE",
          4: "CUFFT_INVALID_VALUE", 5: "CUFFT_INTERNAL_ERROR", 6: "CUFFT_EXEC_FAILED",
          7: "CUFFT_SETUP_FAILED", 8: "CUFFT_INVALID_SIZE", 9: "CUFFT_UNALIGNED_DATA",
          11: "CUFFT_INVALID_DEVICE", 13: "CUFFT_NO_WORKSPACE", 14: "CUFFT_NOT_IMPLEMENTED",
          16: "CUFFT_NOT_SUPPORTED"}

PLAN_CACHE = 32


def lengths(kind: str, n: int) -> tuple[int, int]:
    """(input, output) row lengths of a transform of size ``n``."""
    half = n // 2 + 1
    return (half, n) if kind == "c2r" else (n, half if kind == "r2c" else n)


class Cufft:
    """cuFFT for openhip arrays (see the module's docstring)."""

    SYMBOLS = SYMBOLS

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self._plans: collections.OrderedDict[tuple, ctypes.c_int] = collections.OrderedDict()

    def _plan(self, key: tuple, stream_ptr: int, n: int, ctype: int, batch: int,
              nin: int, nout: int) -> ctypes.c_int:
        plan = self._plans.get(key)
        if plan is not None:
            self._plans.move_to_end(key)
            return plan
        plan = ctypes.c_int()
        dims = (ctypes.c_int * 1)(n)
        inembed, onembed = (ctypes.c_int * 1)(nin), (ctypes.c_int * 1)(nout)
        check(self.lib.fn("cufftPlanMany")(ctypes.byref(plan), ctypes.c_int(1), dims, inembed,
                                           ctypes.c_int(1), ctypes.c_int(nin), onembed,
                                           ctypes.c_int(1), ctypes.c_int(nout),
                                           ctypes.c_int(ctype), ctypes.c_int(batch)),
              "cufftPlanMany", STATUS)
        try:
            check(self.lib.fn("cufftSetStream")(plan, ctypes.c_void_p(stream_ptr)),
                  "cufftSetStream", STATUS)
        except Exception:
            self.lib.fn("cufftDestroy")(plan)
            raise
        self._plans[key] = plan
        while len(self._plans) > PLAN_CACHE:
            _, old = self._plans.popitem(last=False)
            self.lib.fn("cufftDestroy")(old)
        return plan

    def execute(self, device: Any, kind: str, double: bool, n: int, batch: int, src: Any,
                dst: Any, direction: int = FORWARD) -> None:
        """Transform ``batch`` contiguous rows of ``src`` into ``dst`` (openhip arrays)."""
        ctype, fname = _TYPES[(kind, double)]
        nin, nout = lengths(kind, n)
        _, sptr = _common.stream_of(device)
        # a plan's batch is an int and cuFFT's 32-bit plans want batch * n < 2^31: chunks
        per = max(1, _common.INT32_MAX // max(nin, nout))
        with self.lib.lock:
            done = 0
            while done < batch:
                count = min(per, batch - done)
                plan = self._plan((device.id, sptr, n, ctype, count), sptr, n, ctype, count,
                                  nin, nout)
                args = [plan, _common.ptr(src, done * nin), _common.ptr(dst, done * nout)]
                if kind == "c2c":
                    args.append(ctypes.c_int(direction))
                check(self.lib.fn(fname)(*args), fname, STATUS)
                done += count
