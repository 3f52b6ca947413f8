"""The random kernels' modules: built once per device (one family per source file), launched
on the current stream.

Sources: ``openhip/numpy/kernels/random_*.hip`` (templates over float/double and the integer
types), compiled through the runtime's compile cache like every openhip kernel.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from ...runtime.device import get_device
from ...runtime.module import Function, Module

KERNEL_DIR = Path(__file__).resolve().parent.parent / "kernels"
BLOCK = 256

_INTEGER_TYPES = {
    np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
}
_FLOAT_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}

#: family -> (source file, the template instantiations it builds).
FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "core": ("random_core.hip", tuple(
        f"ohr_{k}<{t}>" for k in ("uniform", "normal", "exponential") for t in _FLOAT_TYPES.values())
        + tuple(f"ohr_{k}_a<{t}, true>" for k in ("uniform", "normal")
                for t in _FLOAT_TYPES.values())
        + tuple(f"ohr_exponential_a<{t}, {flat}>" for t in _FLOAT_TYPES.values()
                for flat in ("false", "true"))
        + tuple(f"ohr_affine_a<{t}, {span}>" for t in _FLOAT_TYPES.values()
                for span in ("false", "true"))),
    "discrete": ("random_discrete.hip", tuple(
        f"ohr_{k}<{t}>" for k in ("integers", "integers32", "integers_redo", "integers_a")
        for t in _INTEGER_TYPES.values())),
    "gamma": ("random_gamma.hip", tuple(
        f"ohr_{k}<{t}>" for k in ("gamma", "beta", "gamma_a", "beta_a")
        for t in _FLOAT_TYPES.values())),
    "check": ("random_check.hip", ()),
}

_lock = threading.Lock()
_modules: dict[tuple[Any, str], Module] = {}
_functions: dict[tuple[Any, str, str], Function] = {}


def c_type(dtype: np.dtype) -> str:
    """The C++ type the kernels use for ``dtype``."""
    dt = np.dtype(dtype)
    if dt in _FLOAT_TYPES:
        return _FLOAT_TYPES[dt]
    return _INTEGER_TYPES[dt]


def _module(family: str) -> Module:
    device = get_device()
    key = (device, family)
    mod = _modules.get(key)
    if mod is None:
        with _lock:
            mod = _modules.get(key)
            if mod is None:
                filename, names = FAMILIES[family]
                source = (KERNEL_DIR / filename).read_text(encoding="utf-8")
                start = time.perf_counter()
                # A build from an empty cache takes seconds: say so once it passes one.
                notice = threading.Timer(1.0, lambda: print(
                    f"openhip.numpy.random: compiling the {family} kernels for "
                    f"{device.platform} (once; cached afterwards) ...", file=sys.stderr))
                notice.daemon = True
                notice.start()
                try:
                    mod = Module(source, options=(f"-I{KERNEL_DIR}",), name_expressions=names,
                                 name=filename)
                finally:
                    notice.cancel()
                took = time.perf_counter() - start
                if took > 1.0:
                    print(f"openhip.numpy.random: {family} kernels built in {took:.1f} s",
                          file=sys.stderr)
                _modules[key] = mod
    return mod


def function(family: str, name: str) -> Function:
    """The kernel ``name`` (a name expression for templates) of ``family`` on this device."""
    key = (get_device(), family, name)
    fn = _functions.get(key)
    if fn is None:
        fn = _module(family).get_function(name)
        _functions[key] = fn
    return fn


def launch(family: str, name: str, threads: int, args: tuple) -> None:
    """Launch ``threads`` threads (rounded up to whole blocks) of a random kernel."""
    if threads <= 0:
        return
    fn = function(family, name)
    fn(((threads + BLOCK - 1) // BLOCK,), (BLOCK,), args)
