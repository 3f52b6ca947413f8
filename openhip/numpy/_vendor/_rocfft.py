"""rocFFT (``librocfft.so``, the user's ROCm): the amd platform's FFT.

The same interface as ``_cufft.Cufft`` (``fft._vendor_path`` drives either): one-dimensional
batched transforms of contiguous rows (length ``n`` in, ``n`` or ``n // 2 + 1`` out), not in
place, complex interleaved / real / Hermitian interleaved as the transform needs, single or
double precision. ``rocfft_setup`` runs when the library is loaded. A plan
(``rocfft_plan_create`` with a plan description giving the unit strides and the row
distances) is cached per (device, n, transform, precision, batch), a few dozen at most
(``rocfft_plan_destroy`` on eviction); rocFFT plans are not bound to a stream, so each
execution gets a ``rocfft_execution_info`` with the thread's stream and, when the plan asks
for one (``rocfft_plan_get_work_buffer_size``), the stream's device work buffer (one per device
and stream, grown when a plan needs more, after the stream has run the work that used it). Transforms are unnormalised (the caller scales); the real inverse may overwrite its
input (the caller hands it a copy).
"""

from __future__ import annotations

import collections
import ctypes
from typing import Any

import numpy as np

from . import _common
from ._cufft import FORWARD, lengths
from ._loader import Library, check

SYMBOLS = ("rocfft_setup", "rocfft_plan_create", "rocfft_plan_destroy",
           "rocfft_plan_description_create", "rocfft_plan_description_destroy",
           "rocfft_plan_description_set_data_layout", "rocfft_plan_get_work_buffer_size",
           "rocfft_execution_info_create", "rocfft_execution_info_destroy",
           "rocfft_execution_info_set_stream", "rocfft_execution_info_set_work_buffer",
           "rocfft_execute")

PLACEMENT_INPLACE, PLACEMENT_NOTINPLACE = 0, 1  # rocfft_result_placement
COMPLEX_FORWARD, COMPLEX_INVERSE, REAL_FORWARD, REAL_INVERSE = 0, 1, 2, 3
PRECISION_SINGLE, PRECISION_DOUBLE = 0, 1
COMPLEX_INTERLEAVED, REAL, HERMITIAN_INTERLEAVED = 0, 2, 3  # rocfft_array_type

STATUS = {1: "rocfft_status_failure", 2: "rocfft_status_invalid_arg_value",
          3: "rocfft_status_invalid_dimensions", 4: "rocfft_status_invalid_array_type",
          5: "rocfft_status_invalid_strides", 6: "rocfft_status_invalid_distance",
          7: "rocfft_status_invalid_offset", 8: "rocfft_status_invalid_work_buffer"}

#: kind -> (input array type, output array type)
_ARRAYS = {"c2c": (COMPLEX_INTERLEAVED, COMPLEX_INTERLEAVED),
           "r2c": (REAL, HERMITIAN_INTERLEAVED), "c2r": (HERMITIAN_INTERLEAVED, REAL)}

PLAN_CACHE = 32
_S = ctypes.c_size_t
_P = ctypes.c_void_p


def transform_type(kind: str, direction: int) -> int:
    """rocFFT's transform type of ``kind`` (``"c2c"``, ``"r2c"``, ``"c2r"``) and a cuFFT-style
    ``direction`` (``FORWARD`` -1 / ``INVERSE`` 1, used by c2c only)."""
    if kind == "r2c":
        return REAL_FORWARD
    if kind == "c2r":
        return REAL_INVERSE
    return COMPLEX_FORWARD if direction == FORWARD else COMPLEX_INVERSE


class Rocfft:
    """rocFFT for openhip arrays (see the module's docstring); ``execute`` as
    ``Cufft.execute``."""

    SYMBOLS = SYMBOLS

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        check(lib.fn("rocfft_setup")(), "rocfft_setup", STATUS)
        self._plans: collections.OrderedDict[tuple, tuple[_P, int]] = collections.OrderedDict()
        self._work: dict[tuple[int, int], Any] = {}

    def _work_buffer(self, device: Any, stream: Any, sptr: int, nbytes: int) -> Any:
        """The stream's work buffer of at least ``nbytes`` (work on one stream runs in order,
        so the buffer is reused; a smaller one is dropped only after its stream is done)."""
        from .. import empty

        key = (device.id, sptr)
        buf = self._work.get(key)
        if buf is None or buf.size < nbytes:
            if buf is not None:
                stream.synchronize()
            buf = self._work[key] = empty((nbytes,), dtype=np.uint8, device=device)
        return buf

    def _plan(self, key: tuple, kind: str, ttype: int, precision: int, n: int,
              batch: int) -> tuple[_P, int]:
        """(the plan, its work buffer's size in bytes)."""
        entry = self._plans.get(key)
        if entry is not None:
            self._plans.move_to_end(key)
            return entry
        nin, nout = lengths(kind, n)
        in_type, out_type = _ARRAYS[kind]
        desc, plan = _P(), _P()
        check(self.lib.fn("rocfft_plan_description_create")(ctypes.byref(desc)),
              "rocfft_plan_description_create", STATUS)
        try:
            one = (_S * 1)(1)
            check(self.lib.fn("rocfft_plan_description_set_data_layout")(
                desc, ctypes.c_int(in_type), ctypes.c_int(out_type), None, None, _S(1), one,
                _S(nin), _S(1), one, _S(nout)), "rocfft_plan_description_set_data_layout",
                STATUS)
            dims = (_S * 1)(n)
            check(self.lib.fn("rocfft_plan_create")(
                ctypes.byref(plan), ctypes.c_int(PLACEMENT_NOTINPLACE), ctypes.c_int(ttype),
                ctypes.c_int(precision), _S(1), dims, _S(batch), desc),
                "rocfft_plan_create", STATUS)
        finally:
            self.lib.fn("rocfft_plan_description_destroy")(desc)
        work = _S(0)
        try:
            check(self.lib.fn("rocfft_plan_get_work_buffer_size")(plan, ctypes.byref(work)),
                  "rocfft_plan_get_work_buffer_size", STATUS)
        except Exception:
            self.lib.fn("rocfft_plan_destroy")(plan)
            raise
        entry = self._plans[key] = (plan, int(work.value))
        while len(self._plans) > PLAN_CACHE:
            _, (old, _) = self._plans.popitem(last=False)
            self.lib.fn("rocfft_plan_destroy")(old)
        return entry

    def execute(self, device: Any, kind: str, double: bool, n: int, batch: int, src: Any,
                dst: Any, direction: int = FORWARD) -> None:
        """Transform ``batch`` contiguous rows of ``src`` into ``dst`` (openhip arrays)."""
        ttype = transform_type(kind, direction)
        precision = PRECISION_DOUBLE if double else PRECISION_SINGLE
        stream, sptr = _common.stream_of(device)
        with self.lib.lock:
            plan, work_bytes = self._plan((device.id, n, ttype, precision, batch), kind, ttype,
                                          precision, n, batch)
            work = self._work_buffer(device, stream, sptr, work_bytes) if work_bytes else None
            info = _P()
            check(self.lib.fn("rocfft_execution_info_create")(ctypes.byref(info)),
                  "rocfft_execution_info_create", STATUS)
            try:
                check(self.lib.fn("rocfft_execution_info_set_stream")(info, _P(sptr)),
                      "rocfft_execution_info_set_stream", STATUS)
                if work is not None:
                    check(self.lib.fn("rocfft_execution_info_set_work_buffer")(
                        info, _common.ptr(work), _S(work.size)),
                        "rocfft_execution_info_set_work_buffer", STATUS)
                ins, outs = (_P * 1)(src.data.ptr), (_P * 1)(dst.data.ptr)
                check(self.lib.fn("rocfft_execute")(plan, ins, outs, info), "rocfft_execute",
                      STATUS)
            finally:
                self.lib.fn("rocfft_execution_info_destroy")(info)
