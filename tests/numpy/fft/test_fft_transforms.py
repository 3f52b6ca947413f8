"""hnp.fft against numpy.fft: every transform, any length (primes included), axes, n/s,
norms, real and complex float32/float64 input, strided views; bad input."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp

F = hnp.fft
RNG = np.random.default_rng(5)


def _c(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_complex_transforms(device, dtype, norm):
    x = _c((3, 17, 12), dtype)
    X = hnp.asarray(x)
    tol = _tol(dtype) * 10
    for got, ref in (
        (F.fft(X, norm=norm), np.fft.fft(x, norm=norm)),
        (F.ifft(X, n=23, axis=1, norm=norm), np.fft.ifft(x, n=23, axis=1, norm=norm)),
        (F.fft(X, n=5, axis=0, norm=norm), np.fft.fft(x, n=5, axis=0, norm=norm)),
        (F.fftn(X, norm=norm), np.fft.fftn(x, norm=norm)),
        (F.ifftn(X, s=(9, 4), axes=(0, 2), norm=norm), np.fft.ifftn(x, s=(9, 4), axes=(0, 2),
                                                                      norm=norm)),
        (F.hfft(X, norm=norm), np.fft.hfft(x, norm=norm)),
        (F.irfft(X, n=21, norm=norm), np.fft.irfft(x, n=21, norm=norm)),
        (F.irfftn(X, norm=norm), np.fft.irfftn(x, norm=norm)),
    ):
        single = np.dtype(dtype) == np.complex64
        want = (np.complex64 if single else np.complex128) if ref.dtype.kind == "c" else \
            (np.float32 if single else np.float64)
        assert got.dtype == want
        assert got.shape == ref.shape
        assert np.allclose(got.get(), ref, rtol=tol, atol=tol * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_transforms(device, dtype):
    r = RNG.standard_normal((6, 31)).astype(dtype)
    R = hnp.asarray(r)
    tol = _tol(dtype) * 10
    out = F.rfft(R)
    assert out.dtype == (np.complex64 if dtype == np.float32 else np.complex128)
    assert np.allclose(out.get(), np.fft.rfft(r), rtol=tol, atol=tol)
    assert np.allclose(F.irfft(out, n=31).get(), r, rtol=tol, atol=tol)
    assert np.allclose(F.rfftn(R).get(), np.fft.rfftn(r), rtol=tol, atol=tol * 10)
    assert np.allclose(F.irfftn(F.rfftn(R), s=r.shape).get(), r, rtol=tol, atol=tol)
    assert np.allclose(F.ihfft(R).get(), np.fft.ihfft(r), rtol=tol, atol=tol)
    assert np.allclose(F.fft(R).get(), np.fft.fft(r), rtol=tol, atol=tol * 10)  # real input
    # a strided view and a transposed one
    assert np.allclose(F.fft(R.T[::2]).get(), np.fft.fft(r.T[::2]), rtol=tol, atol=tol * 10)
    assert np.allclose(F.rfft(R[:, ::3], axis=0).get(), np.fft.rfft(r[:, ::3], axis=0),
                       rtol=tol, atol=tol * 10)


def test_integer_input_and_prime_lengths(device):
    x = np.arange(97)
    assert np.allclose(F.fft(hnp.asarray(x)).get(), np.fft.fft(x))
    y = _c((101,))
    assert np.allclose(F.ifft(F.fft(hnp.asarray(y))).get(), y)


def test_helpers(device):
    for n in (1, 8, 9):
        assert np.allclose(F.fftfreq(n, d=0.25).get(), np.fft.fftfreq(n, 0.25))
        assert np.allclose(F.rfftfreq(n, d=3.0).get(), np.fft.rfftfreq(n, 3.0))
    assert F.fftfreq(4, dtype=hnp.float32).dtype == np.float32
    r = RNG.standard_normal((5, 6))
    assert np.array_equal(F.fftshift(hnp.asarray(r)).get(), np.fft.fftshift(r))
    assert np.array_equal(F.ifftshift(hnp.asarray(r), axes=(1,)).get(),
                          np.fft.ifftshift(r, axes=(1,)))
    assert np.array_equal(F.fftshift(hnp.asarray(r), axes=0).get(), np.fft.fftshift(r, axes=0))
    assert np.array_equal(F.ifftshift(F.fftshift(hnp.asarray(r))).get(), r)


def test_bad_input(device):
    x = hnp.asarray(_c((4, 4)))
    with pytest.raises(ValueError, match="norm"):
        F.fft(x, norm="both")
    with pytest.raises(ValueError, match="data points"):
        F.fft(x, n=0)
    with pytest.raises(np.exceptions.AxisError):
        F.fft(x, axis=2)
    with pytest.raises(TypeError, match="real"):
        F.rfft(x)
    with pytest.raises(ValueError, match="repeated axes"):
        F.fftn(x, axes=(0, 0))
    with pytest.raises(ValueError, match="same length"):
        F.fftn(x, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="positive"):
        F.fftfreq(0)
