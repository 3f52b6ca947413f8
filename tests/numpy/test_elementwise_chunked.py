"""The CPU platform's chunked layout-0 elementwise kernels (kernels/elementwise.hip: a thread
computes OH_EW_CH elements; a launch whose footprint reaches OH_NT_BYTES streams its output
with non-temporal stores) against numpy and against the strided kernels (the same operation
through another layout): chunk tails (sizes 1, 31, 33, a chunk +- 1, 2^20 + 7), misaligned
views as inputs and as the output of an in-place operation, streamed launches with a tail in
the last chunk, scalar operands in each position, where, casts, a heavy op (exp) that keeps
plain stores; and the host side's thread count (Kernel.chunk)."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp
from openhip.numpy import _elementwise as ew

CH = ew._CPU_CHUNK
SIZES = [1, 31, 33, CH - 1, CH, CH + 1, 3 * CH + 17, (1 << 20) + 7]


def _bits(a):
    h = a.get() if isinstance(a, hnp.ndarray) else a
    return h.view(np.uint8) if h.dtype == np.bool_ else h.view(f"u{h.dtype.itemsize}")


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "f":
        v = (rng.standard_normal(n) * 4).astype(dt)
        v[rng.integers(0, n, max(1, n // 50))] = np.nan
        return v
    return rng.integers(-100, 100, n).astype(dt)


@pytest.mark.parametrize("n", SIZES)
def test_tails_against_numpy(device, n):
    a, b = _data(n, np.float32, 1), _data(n, np.float32, 2)
    x, y = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    np.testing.assert_array_equal((x < y).get(), a < b)
    np.testing.assert_array_equal(_bits(x + y), _bits(a + b))
    np.testing.assert_array_equal(_bits(x * 2.5), _bits(a * np.float32(2.5)))
    np.testing.assert_array_equal(_bits(1.5 - x), _bits(np.float32(1.5) - a))
    np.testing.assert_array_equal(_bits(-x), _bits(-a))
    np.testing.assert_array_equal(_bits(x.astype(hnp.float64)), _bits(a.astype(np.float64)))
    m = a < b
    mh = hnp.asarray(m, device=device)
    np.testing.assert_array_equal(_bits(hnp.where(mh, x, y)), _bits(np.where(m, a, b)))
    np.testing.assert_array_equal(_bits(hnp.where(mh, x, 0.0)),
                                  _bits(np.where(m, a, np.float32(0))))


@pytest.mark.parametrize("offset", [1, 3, 5])
def test_misaligned_views(device, offset):
    n = 3 * CH + 100
    a, b = _data(n + 8, np.float32, 3), _data(n + 8, np.float32, 4)
    x, y = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    xs, ys = x[offset:offset + n], y[8 - offset:8 - offset + n]
    av, bv = a[offset:offset + n], b[8 - offset:8 - offset + n]
    np.testing.assert_array_equal((xs < ys).get(), av < bv)
    np.testing.assert_array_equal(_bits(xs + ys), _bits(av + bv))
    xs += ys  # the output a misaligned view
    av += bv
    np.testing.assert_array_equal(_bits(x), _bits(a))


@pytest.mark.parametrize("dt", ["float32", "float64", "int8", "int32"])
def test_streamed_launches(device, dt):
    """Footprints past OH_NT_BYTES (64 MiB), with a tail in the last chunk and step."""
    n = (96 << 20) // (3 * np.dtype(dt).itemsize) + 77
    a, b = _data(n, dt, 5), _data(n, dt, 6)
    x, y = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    np.testing.assert_array_equal(_bits(x + y), _bits(a + b))
    np.testing.assert_array_equal((x < y).get(), a < b)
    np.testing.assert_array_equal(_bits(x - 3), _bits((a - 3).astype(dt)))
    m = a > b
    w = hnp.where(hnp.asarray(m, device=device), x, y)
    np.testing.assert_array_equal(_bits(w), _bits(np.where(m, a, b)))
    x += y  # in place, the output aligned: streamed too
    np.testing.assert_array_equal(_bits(x), _bits((a + b).astype(dt)))


def test_streamed_comparison_with_a_misaligned_output(device):
    n = (72 << 20) // 9
    a, b = _data(n + 1, np.float32, 7), _data(n + 1, np.float32, 8)
    out = hnp.zeros(n + 1, dtype=hnp.bool, device=device)
    x, y = hnp.asarray(a, device=device), hnp.asarray(b, device=device)
    ov = out[1:]  # a misaligned output (plain stores)
    ov |= x[1:] < y[1:]
    np.testing.assert_array_equal(out.get()[1:], a[1:] < b[1:])
    assert not out.get()[0]


@pytest.mark.parametrize("n", [CH + 5, (1 << 23) + 3])
def test_chunked_equals_the_strided_kernels(device, n):
    """exp (heavy: plain stores) and add, flat against the 2-D strided layout, bit for bit."""
    a = _data(2 * n, np.float32, 9)
    wide = hnp.asarray(a, device=device)
    strided = wide[::2]  # layout 2 (a strided view)
    flat = hnp.asarray(a[::2].copy(), device=device)
    np.testing.assert_array_equal(_bits(hnp.exp(flat)), _bits(hnp.exp(strided)))
    np.testing.assert_array_equal(_bits(flat + flat), _bits(strided + strided))
    np.testing.assert_array_equal(_bits(hnp.sqrt(hnp.abs(flat))),
                                  _bits(hnp.sqrt(hnp.abs(strided))))


def test_host_launches_one_thread_per_chunk(device):
    x = hnp.ones(10, dtype=hnp.float32, device=device)
    _ = (x + x).get()
    ks = [k for (v, e, d), k in ew.FAMILY._kernels.items()
          if e.startswith("bi0<o_add, float, float>")]
    assert ks
    for k in ks:
        if k.device.platform == "cpu":
            assert (k.chunk, k.block) == (ew._CPU_CHUNK, ew._CPU_CHUNK_BLOCK)
        else:
            assert k.chunk == 1

