"""Prints the CPU engine's figures through the platform hooks (not a test; run it directly):

    OPENHIP_CPU_THREADS=2 OMP_NUM_THREADS=2 python tests/platforms/cpu/engine_figures.py

saxpy over 2^24 floats against the same loop as C++/OpenMP built here, a 256-thread
shared-memory tree reduction over 2^24 floats (tests/kernels/shared_static.hip), the cost of
platform.launch() for an empty kernel (including the stream thread draining it), and the cold
compile of a small kernel (after the precompiled header exists).
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_helpers import Dev, build, pack, ptr  # noqa: E402

from openhip.platforms.cpu import PLATFORM  # noqa: E402

SAXPY = """
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void empty() {}
"""
OMP = """
extern "C" void saxpy_omp(long n, float a, const float* x, float* y) {
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
"""


def main() -> None:
    p = PLATFORM()
    tmp = Path(tempfile.mkdtemp())
    (tmp / "omp.cpp").write_text(OMP)
    subprocess.run([p.compiler.path, "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared",
                    "-o", str(tmp / "omp.so"), str(tmp / "omp.cpp")], check=True)
    omp = ctypes.CDLL(str(tmp / "omp.so"))
    omp.saxpy_omp.argtypes = [ctypes.c_long, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p]
    _, _, fn = build(p, SAXPY)
    dev = Dev(p)
    n = 1 << 24
    x = np.random.rand(n).astype(np.float32)
    dx, dy = dev.put(x), dev.put(np.random.rand(n).astype(np.float32))
    k, args = fn("saxpy"), pack(ctypes.c_int(n), ctypes.c_float(2.0), ptr(dx), ptr(dy))
    hip_t, omp_t = [], []
    for _ in range(15):
        t = time.perf_counter()
        p.launch(0, k, ((n + 255) // 256, 1, 1), (256, 1, 1), 0, None, args)
        p.stream_synchronize(0, None)
        hip_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        omp.saxpy_omp(n, 2.0, dx, dy)
        omp_t.append(time.perf_counter() - t)
    print(f"saxpy 2^24: kernel best {min(hip_t) * 1e3:.2f} ms, OpenMP best {min(omp_t) * 1e3:.2f}"
          f" ms; throughput ratio best {min(omp_t) / min(hip_t):.2f}, median "
          f"{np.median(omp_t) / np.median(hip_t):.2f}")

    src = (Path(__file__).resolve().parents[2] / "kernels" / "shared_static.hip").read_text()
    _, _, rfn = build(p, src)
    nb = n // 256
    dout = dev.empty(nb * 4)
    rargs = pack(ptr(dx), ptr(dout), ctypes.c_int(n))
    times = []
    for _ in range(3):
        t = time.perf_counter()
        p.launch(0, rfn("block_sum"), (nb, 1, 1), (256, 1, 1), 0, None, rargs)
        p.stream_synchronize(0, None)
        times.append(time.perf_counter() - t)
    ok = np.isclose(dev.get(dout, nb, np.float32).astype(np.float64).sum(),
                    x.astype(np.float64).sum(), rtol=1e-4)
    print(f"reduction (256 threads, __syncthreads) 2^24: best {min(times):.3f} s, correct={ok}")

    e, ea, count = fn("empty"), pack(), 20000
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(count):
            p.launch(0, e, (1, 1, 1), (1, 1, 1), 0, None, ea)
        p.stream_synchronize(0, None)
        print(f"empty kernel: {(time.perf_counter() - t) / count * 1e6:.2f} us per launch()")

    p.compile(SAXPY, arch=p.default_arch(0))  # builds the precompiled header once
    for _ in range(3):
        fresh = f"// {uuid.uuid4()}\n{SAXPY}"
        t = time.perf_counter()
        p.compile(fresh, arch=p.default_arch(0))
        print(f"cold compile of a small kernel: {time.perf_counter() - t:.3f} s")
    dev.close()


if __name__ == "__main__":
    main()
