"""The project's own gemm (kernels/gemm.hip) and the deterministic-matmul switch.

One build per element type (every tile shape of that type in it). Each output element is one
fixed chain of fmas over k in order, so a row's result does not depend on the batch, the tiling
or the thread count — what ``deterministic=True`` promises.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as np

from .._kernels import Family, ctype

FAMILY = Family("gemm", "gemm.hip")
BLOCK = 256

#: rows x columns of the tile one thread computes, per element type (the accumulators fit the
#: CPU's vector registers; measured in bench/bench_linalg.py).
_TILES = {"f": (4, 32), "d": (4, 16), "e": (4, 32), "c": (2, 16), "i": (4, 16)}


def _tile(dtype: np.dtype) -> tuple[int, int]:
    dt = np.dtype(dtype)
    if dt.kind == "c":
        return _TILES["c"]
    if dt.kind in "iub":
        return _TILES["i"]
    if dt == np.float64:
        return _TILES["d"]
    if dt == np.float32:
        return _TILES["f"]
    return _TILES["e"]  # float16, bfloat16: fp32 accumulation


def kernel(dtype: np.dtype, device):
    ti, tj = _tile(dtype)
    expr = f"oh_gemm<{ctype(dtype)}, {ti}, {tj}, 1>"
    return FAMILY.kernel(np.dtype(dtype).name, (expr,), expr, device), ti, tj


def launch(a, b, c, m: int, n: int, k: int, batch: int,
           sa: tuple[int, int, int], sb: tuple[int, int, int], sc: tuple[int, int, int],
           device) -> None:
    """C[z] = A[z] @ B[z] for z < batch; strides (batch, row, column) in elements."""
    fn, ti, tj = kernel(c.dtype, device)
    tiles_i = (m + ti - 1) // ti
    tiles_j = (n + tj - 1) // tj
    threads = batch * tiles_i * tiles_j
    if threads == 0:
        return
    fn(((threads + BLOCK - 1) // BLOCK,), (BLOCK,),
       (a, b, c, m, n, k, sa[0], sa[1], sa[2], sb[0], sb[1], sb[2], sc[0], sc[1], sc[2],
        tiles_i, tiles_j, batch))


_state = threading.local()


def deterministic_default() -> bool:
    """Whether matmuls in this thread use the deterministic gemm (``with deterministic():``)."""
    return getattr(_state, "depth", 0) > 0


@contextlib.contextmanager
def deterministic() -> Iterator[None]:
    """Every matmul inside uses the project's deterministic gemm (batch-invariant results)."""
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1
