"""Test-only: run the CPU platform's matmul/fft/linalg through the vendor bindings.

``with fake_libraries(path):`` makes :func:`openhip.numpy._vendor.get` serve the CPU platform
with the library at ``path`` (one file exporting the cuBLAS, cuFFT, cuSOLVER, rocBLAS and
rocSOLVER symbols the bindings call, e.g. the tests' fake_cuda_libs.cpp) in place of the
libraries in ``names`` (``("rocblas", "rocsolver")`` routes the amd platform's pair), so the
marshalling (operand order, transposes, leading dimensions, batch strides, plans, workspaces,
info codes, the stream argument) is checked against numpy without a GPU. Not a user-facing
platform switch.
"""

from __future__ import annotations

import contextlib
import ctypes
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

NAMES = ("cublas", "cufft", "cusolver")


@contextlib.contextmanager
def fake_libraries(path: str, names: Sequence[str] = NAMES) -> Iterator[None]:
    """Inside, the CPU platform uses the library at ``path`` for each of ``names``."""
    from .. import _vendor

    previous = _vendor._fake
    _vendor._fake = {name: str(path) for name in names}
    try:
        yield
    finally:
        _vendor._fake = previous


def build_fake(source: str | Path, out_dir: str | Path) -> Path:
    """Compile the fake library ``source`` (C++) into ``out_dir`` with g++ and hand it the
    LAPACK numpy ships when it is the ILP64 scipy-openblas (the fake's cuSOLVER routines call
    it; see :func:`has_lapack`); the path of the shared object."""
    from ..linalg import _openblas

    out = Path(out_dir) / "libfake_cuda_libs.so"
    # -Bsymbolic: the fake's own symbols bind inside it even where the real libraries were
    # loaded first into the process's global scope
    subprocess.run(["g++", "-O2", "-shared", "-fPIC", "-Wl,-Bsymbolic", "-o", str(out),
                    str(source), "-ldl"],
                   check=True, capture_output=True, text=True)
    lib = ctypes.CDLL(str(out))
    blas = _openblas.load()
    if blas is not None and blas.int is ctypes.c_int64:
        prefix = blas.prefix.encode()
        suffix = ("_" + blas.suffix).encode()  # Fortran LAPACK: scipy_dgetrf_64_
        if lib.fake_set_lapack(blas.path.encode(), prefix, suffix) != 0:
            raise OSError(f"the fake library could not open {blas.path}")
    return out


def has_lapack() -> bool:
    """Whether :func:`build_fake` can give the fake its LAPACK (numpy's ILP64 OpenBLAS)."""
    from ..linalg import _openblas

    blas = _openblas.load()
    return blas is not None and blas.int is ctypes.c_int64


class Route:
    """Where a vendor-binding test runs: the fake library on the CPU platform (its call
    counters and the stream of its last call visible), or the real library on an nvidia
    device (``fake`` None: the counters are not observable there)."""

    def __init__(self, device: object, fake: ctypes.CDLL | None = None) -> None:
        self.device = device
        self.fake = fake
        if fake is not None:
            fake.fake_last_stream.restype = ctypes.c_void_p
            fake.fake_calls.restype = ctypes.c_long

    def calls(self, counter: int) -> int:
        """The fake's count for ``counter`` (0 gemm, 1 gemmEx, 2 fft plans, 3 fft execs,
        4 cuSOLVER calls, 5 rocBLAS gemm, 6 rocBLAS gemm_ex, 7 rocSOLVER calls); 0 on the real
        library."""
        return 0 if self.fake is None else int(self.fake.fake_calls(counter))

    def called_since(self, before: int, counter: int) -> bool:
        """True when the fake was called since ``before`` (always, on the real library)."""
        return self.fake is None or self.calls(counter) > before

    def last_stream(self) -> int | None:
        """The stream handle of the fake's last call (None on the real library)."""
        return None if self.fake is None else int(self.fake.fake_last_stream() or 0)
