"""``matmul`` and the products built on it (tensordot, vecdot, outer, matrix_transpose).

Which gemm runs: the platform's vendor BLAS where one is wired for the element type (the CPU
platform: OpenBLAS on the device memory, see ``_openblas``; nvidia: cuBLAS from NVIDIA's wheel,
see ``openhip.numpy._vendor._cublas``; amd: rocBLAS where the user's ROCm has it,
``_vendor._rocblas``; float16/bfloat16 included), otherwise — and always with
``deterministic=True`` — the project's own gemm (``kernels/gemm.hip``), which serves every
numeric type (float16/bfloat16 with float32 accumulation, integers wrapping as numpy's) on every
platform. The table is :func:`backend`.
"""

from __future__ import annotations

import ctypes
import math
import operator
import warnings
from typing import Any

import numpy as np

from ...runtime.stream import resolve_stream
from .. import _dtypes, _vendor
from .._array import ndarray
from .._vendor import _common as _vcommon
from .._vendor import _cublas
from . import _gemm, _openblas

_BLAS_TYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64),
               np.dtype(np.complex128))


def backend(platform: str, dtype: np.dtype, deterministic: bool) -> str:
    """``"cublas"``, ``"rocblas"``, ``"openblas"`` or ``"openhip"`` (the project's own gemm)
    for a matmul."""
    dt = np.dtype(dtype)
    if deterministic:
        return "openhip"
    if _cublas.supports(dt):
        for name in _VENDOR_BLAS:
            if _vendor.get(name, platform) is not None:
                return name
    if dt not in _BLAS_TYPES:
        return "openhip"
    if platform == "cpu" and _openblas.load() is not None:
        return "openblas"
    _say_vendor_missing(platform)
    return "openhip"


_said: set[str] = set()
#: the vendor BLAS libraries, each serving its platform (or the CPU platform in the tests)
_VENDOR_BLAS = ("cublas", "rocblas")


def _say_vendor_missing(platform: str) -> None:
    """One warning per platform and process: which vendor BLAS is absent, and who serves."""
    if platform in _said:
        return
    _said.add(platform)
    if platform == "cpu":
        why = ("OpenBLAS was not found (numpy's bundled scipy-openblas or a system "
               "libopenblas)")
    else:
        why = _vendor.why_missing("rocblas" if platform == "amd" else "cublas", platform)
    warnings.warn(f"openhip.numpy.matmul on {platform}: {why}; the project's own gemm "
                  "(kernels/gemm.hip) serves", RuntimeWarning, stacklevel=4)


def _as_array(x: Any, other: Any = None) -> ndarray:
    from .. import asarray

    if isinstance(x, ndarray):
        return x
    device = other.device if isinstance(other, ndarray) else None
    return asarray(x, device=device)


def _check_numeric(x: ndarray, routine: str) -> None:
    if x.dtype == np.bool_:
        raise TypeError(f"{routine}: unsupported dtype bool (a numeric dtype is required)")


def matmul(x1: Any, x2: Any, /, *, deterministic: bool | None = None) -> ndarray:
    """The matrix product with numpy's broadcasting rules (``x1 @ x2``).

    ``deterministic=True`` (or ``with hnp.deterministic():``) uses the project's gemm: a fixed
    reduction order, so a row's result is bit-identical alone or inside any batch.
    """
    from .. import astype, broadcast_to, empty, zeros

    a, b = _as_array(x1, x2), _as_array(x2, x1)
    if a.device is not b.device:
        raise ValueError(f"matmul: arrays on different devices ({a.device} and {b.device})")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must be at least 1-dimensional, got shapes "
                         f"{a.shape} and {b.shape}")
    _check_numeric(a, "matmul")
    _check_numeric(b, "matmul")
    dt = _dtypes.result_type(a, b)
    if a.dtype != dt:
        a = astype(a, dt)
    if b.dtype != dt:
        b = astype(b, dt)
    va = a[None, :] if a.ndim == 1 else a
    vb = b[:, None] if b.ndim == 1 else b
    m, k = va.shape[-2:]
    k2, n = vb.shape[-2:]
    if k != k2:
        raise ValueError(f"matmul: input operand 1 has a mismatch in its core dimension 0 "
                         f"(size {k2} is different from {k}): shapes {a.shape} and {b.shape}")
    try:
        batch_shape = tuple(np.broadcast_shapes(va.shape[:-2], vb.shape[:-2]))
    except ValueError:
        raise ValueError(f"matmul: batch dimensions of shapes {a.shape} and {b.shape} do not "
                         "broadcast") from None
    va = broadcast_to(va, batch_shape + (m, k))
    vb = broadcast_to(vb, batch_shape + (k, n))
    det = _gemm.deterministic_default() if deterministic is None else bool(deterministic)
    device = a.device
    if k == 0:
        out = zeros(batch_shape + (m, n), dtype=dt, device=device)
    else:
        out = empty(batch_shape + (m, n), dtype=dt, device=device)
        if out.size:
            _matmul_into(va, vb, out, batch_shape, m, n, k, det)
    if a.ndim == 1 and b.ndim == 1:
        return out.reshape(batch_shape)
    if a.ndim == 1:
        return out.reshape(batch_shape + (n,))
    if b.ndim == 1:
        return out.reshape(batch_shape + (m,))
    return out


def _element_strides(x: ndarray) -> tuple[int, ...]:
    item = x.dtype.itemsize
    if any(s % item for s in x.strides):
        raise ValueError("matmul: operand strides are not multiples of the item size")
    return tuple(s // item for s in x.strides)


def _batch_groups(batch_shape: tuple[int, ...], *arrays: ndarray):
    """Yield (offsets in elements per array, count, batch strides) covering the batch: the
    batch dimensions collapsed as far as every operand's strides allow, the rest iterated."""
    strides = [_element_strides(x)[:len(batch_shape)] for x in arrays]
    dims = [d for d in range(len(batch_shape)) if batch_shape[d] != 1]
    shape = [batch_shape[d] for d in dims]
    sts = [[s[d] for d in dims] for s in strides]
    # merge from the innermost batch dimension outwards
    inner_n, inner_st = 1, [0] * len(arrays)
    if shape:
        inner_n = shape[-1]
        inner_st = [st[-1] for st in sts]
        shape, sts = shape[:-1], [st[:-1] for st in sts]
        while shape and all(st[-1] == ist * inner_n for st, ist in zip(sts, inner_st, strict=True)):
            inner_n *= shape[-1]
            shape, sts = shape[:-1], [st[:-1] for st in sts]
    for index in np.ndindex(*shape) if shape else [()]:
        offs = [sum(i * s for i, s in zip(index, st, strict=True)) for st in sts]
        yield offs, inner_n, inner_st


def _matmul_into(a: ndarray, b: ndarray, c: ndarray, batch_shape: tuple[int, ...], m: int,
                 n: int, k: int, det: bool) -> None:
    device = c.device
    which = backend(device.platform, c.dtype, det)
    sa, sb, sc = _element_strides(a), _element_strides(b), _element_strides(c)
    nb = len(batch_shape)
    item = c.dtype.itemsize
    for offs, count, bst in _batch_groups(batch_shape, a, b, c):
        av = a._view_as((count, m, k), (bst[0] * item, sa[nb] * item, sa[nb + 1] * item),
                        offs[0] * item)
        bv = b._view_as((count, k, n), (bst[1] * item, sb[nb] * item, sb[nb + 1] * item),
                        offs[1] * item)
        cv = c._view_as((count, m, n), (bst[2] * item, sc[nb] * item, sc[nb + 1] * item),
                        offs[2] * item)
        if which == "openblas":
            _openblas_gemm(av, bv, cv, count, m, n, k)
        elif which in _VENDOR_BLAS and _vendor_gemm(which, av, bv, cv, count, m, n, k):
            pass
        else:
            _gemm.launch(av, bv, cv, m, n, k, count, (bst[0], sa[nb], sa[nb + 1]),
                         (bst[1], sb[nb], sb[nb + 1]), (bst[2], sc[nb], sc[nb + 1]), device)


def _blas_layout(x: ndarray, rows: int, cols: int) -> tuple[int, int] | None:
    """(transpose flag, leading dimension) when a (count, rows, cols) view is BLAS-ready."""
    item = x.dtype.itemsize
    _, s_r, s_c = (s // item for s in x.strides)
    if s_c == 1 and (s_r >= max(cols, 1) or rows == 1):
        return _openblas.NO_TRANS, max(s_r, cols, 1)
    if s_r == 1 and (s_c >= max(rows, 1) or cols == 1):
        return _openblas.TRANS, max(s_c, rows, 1)
    return None


def _vendor_gemm(which: str, a: ndarray, b: ndarray, c: ndarray, count: int, m: int, n: int,
                 k: int) -> bool:
    """cuBLAS's / rocBLAS's strided-batched gemm on (count, m, k) x (count, k, n) views; False
    when a size does not fit their 32-bit arguments (the own gemm serves then)."""
    item = c.dtype.itemsize
    la = _blas_layout(a, m, k)
    if la is None or (count > 1 and a.strides[0] < 0):  # cuBLAS documents no negative strides
        a = a.copy()
        la = _openblas.NO_TRANS, k
    lb = _blas_layout(b, k, n)
    if lb is None or (count > 1 and b.strides[0] < 0):
        b = b.copy()
        lb = _openblas.NO_TRANS, n
    _, s_cr, s_cc = (s // item for s in c.strides)
    direct = s_cc == 1 and s_cr >= n and (count == 1 or c.strides[0] // item >= m * s_cr)
    target = c if direct else c.copy()
    ldc = s_cr if direct else n
    if max(m, n, k, count, la[1], lb[1], ldc) > _vcommon.INT32_MAX:
        return False
    blas = _vendor.get(which, c.device.platform)
    op = {_openblas.NO_TRANS: blas.OP_N, _openblas.TRANS: blas.OP_T}
    blas.gemm(c.device, c.dtype, count, m, n, k,
              (a.data.ptr, op[la[0]], la[1], a.strides[0] // item if count > 1 else 0),
              (b.data.ptr, op[lb[0]], lb[1], b.strides[0] // item if count > 1 else 0),
              (target.data.ptr, ldc, target.strides[0] // item if count > 1 else 0))
    if not direct:
        c[...] = target
    return True


def _openblas_gemm(a: ndarray, b: ndarray, c: ndarray, count: int, m: int, n: int,
                   k: int) -> None:
    lib = _openblas.load()
    assert lib is not None
    la = _blas_layout(a, m, k)
    if la is None:
        a = a.copy()
        la = _openblas.NO_TRANS, k
    lb = _blas_layout(b, k, n)
    if lb is None:
        b = b.copy()
        lb = _openblas.NO_TRANS, n
    item = c.dtype.itemsize
    _, s_cr, s_cc = (s // item for s in c.strides)
    direct = s_cc == 1 and s_cr >= n
    target = c if direct else c.copy()
    ldc = s_cr if direct else n
    # The library runs on the host, on this device's memory: wait for the work queued before.
    resolve_stream(None, c.device).synchronize()
    gemm = lib.blas("gemm", c.dtype)
    alpha, keep_a = _openblas.scalar(1.0, c.dtype)
    beta, keep_b = _openblas.scalar(0.0, c.dtype)
    it = lib.int
    pa, pb, pc = a.data.ptr, b.data.ptr, target.data.ptr
    sa0, sb0, sc0 = (x.strides[0] for x in (a, b, target))
    for z in range(count):
        gemm(ctypes.c_int(_openblas.ROW_MAJOR), ctypes.c_int(la[0]), ctypes.c_int(lb[0]),
             it(m), it(n), it(k), alpha, ctypes.c_void_p(pa + z * sa0), it(la[1]),
             ctypes.c_void_p(pb + z * sb0), it(lb[1]), beta, ctypes.c_void_p(pc + z * sc0),
             it(ldc))
    del keep_a, keep_b
    if not direct:
        c[...] = target


def matrix_transpose(x: Any, /) -> ndarray:
    """The last two axes swapped (a view)."""
    arr = _as_array(x)
    if arr.ndim < 2:
        raise ValueError(f"matrix_transpose: x must be at least 2-dimensional, got shape "
                         f"{arr.shape}")
    return arr.mT


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> ndarray:
    """Sum of products over the given axes (numpy's ``tensordot``), through matmul."""
    from .. import permute_dims

    a, b = _as_array(x1, x2), _as_array(x2, x1)
    if isinstance(axes, (int, np.integer)):
        nax = operator.index(axes)
        if nax < 0:
            raise ValueError("tensordot: axes must be a non-negative integer")
        if nax > a.ndim or nax > b.ndim:
            raise ValueError(f"tensordot: axes={nax} is larger than an operand's rank "
                             f"({a.shape}, {b.shape})")
        ax_a = list(range(a.ndim - nax, a.ndim))
        ax_b = list(range(nax))
    else:
        ax_a, ax_b = (list(t) for t in axes)
        if len(ax_a) != len(ax_b):
            raise ValueError("tensordot: the two axes sequences must have the same length")
        ax_a = [operator.index(i) + (a.ndim if i < 0 else 0) for i in ax_a]
        ax_b = [operator.index(i) + (b.ndim if i < 0 else 0) for i in ax_b]
        for ax, arr in ((ax_a, a), (ax_b, b)):
            if any(not 0 <= i < arr.ndim for i in ax) or len(set(ax)) != len(ax):
                raise ValueError(f"tensordot: invalid axes {axes!r} for shapes {a.shape}, "
                                 f"{b.shape}")
    for i, j in zip(ax_a, ax_b, strict=True):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: shape mismatch for sum: {a.shape} and {b.shape} "
                             f"(axes {ax_a} and {ax_b})")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    kk = math.prod(a.shape[i] for i in ax_a)
    ma = math.prod(a.shape[i] for i in free_a)
    nb = math.prod(b.shape[j] for j in free_b)
    at = permute_dims(a, tuple(free_a + ax_a)).reshape((ma, kk))
    bt = permute_dims(b, tuple(ax_b + free_b)).reshape((kk, nb))
    out = matmul(at, bt)
    return out.reshape(tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b))


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> ndarray:
    """``sum(conj(x1) * x2, axis)`` with broadcasting (the Array API's vecdot)."""
    from .. import conj, multiply
    from .. import sum as hsum

    a, b = _as_array(x1, x2), _as_array(x2, x1)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("vecdot: operands must be at least 1-dimensional")
    ax = operator.index(axis)
    rank = min(a.ndim, b.ndim)
    if not -rank <= ax < rank:
        raise np.exceptions.AxisError(ax, rank)
    if ax >= 0:
        ax -= rank
    if a.shape[ax] != b.shape[ax]:
        raise ValueError(f"vecdot: the contracted axis differs: shapes {a.shape} and {b.shape}")
    if a.dtype.kind == "c":
        a = conj(a)
    from .. import result_type

    return hsum(multiply(a, b), axis=ax, dtype=result_type(a, b))
