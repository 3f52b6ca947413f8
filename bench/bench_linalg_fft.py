"""openhip.numpy.linalg / fft against numpy in one run, on the CPU platform.

    python bench/bench_linalg_fft.py [--n 2048] [--fft 1048576] [--repeats 7]
    OPENHIP_PLATFORM=nvidia python bench/bench_linalg_fft.py --gpu [--n 4096] [--fft 16777216]

- float32 matmul n x n: hnp.matmul (OpenBLAS on the device memory) against numpy's matmul (the
  same OpenBLAS), and the project's deterministic gemm against the vendor one;
- fft of 2^20 complex64: hnp.fft.fft (numpy's pocketfft on the device memory) against
  numpy.fft.fft.
Medians over the repeats, alternating ours/theirs; the load average is printed.

``--gpu`` (an nvidia device): float32 matmul n x n on cuBLAS (TFLOP/s, against the FP32 peak
from the device's SM count and clock at 128 FP32 lanes per SM, against CuPy's matmul — cuBLAS
called by CuPy — where CuPy is installed, and against the project's own gemm), and an fft of
2^24 complex64 on cuFFT against the host-staged pocketfft path and CuPy's cuFFT.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import openhip as hip
import openhip.numpy as hnp


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _median(fn, repeats: int) -> float:
    fn()
    return statistics.median(timed(fn) for _ in range(repeats))


def gpu(args) -> None:
    """The nvidia device's vendor paths (see the module's docstring)."""
    from openhip.numpy.fft import _vendor_path

    dev = hip.get_device()
    props = dev.properties
    n = args.n
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    ha, hb = hnp.asarray(a), hnp.asarray(b)
    print(f"{props.name}, {props.multiprocessor_count} SMs, clock {props.clock_rate_khz} kHz; "
          f"matmul backend {hnp.linalg.backend(dev.platform, np.dtype(np.float32), False)}")
    peak = props.multiprocessor_count * 128 * 2 * props.clock_rate_khz * 1e3
    flops = 2 * n**3
    blas = hnp.linalg.backend(dev.platform, np.dtype(np.float32), False)
    fft_lib = "cuFFT" if _vendor_path.library(ha) is not None else "pocketfft"
    err = float(np.abs(hnp.matmul(ha, hb).get() - a @ b).max())
    rows = []

    def mm(det: bool):
        def run():
            hnp.matmul(ha, hb, deterministic=det)
            dev.synchronize()
        return run

    t_v = _median(mm(False), args.repeats)
    rows.append((f"float32 matmul {n}x{n} ({blas})", t_v,
                 f"{flops / t_v / 1e12:.2f} TFLOP/s, "
                 + (f"{flops / t_v / peak:.0%} of the FP32 peak {peak / 1e12:.1f}"
                    if peak else "peak unknown") + f"; max |err| vs numpy {err:.2e}"))
    t_o = _median(mm(True), max(3, args.repeats // 3))
    rows.append((f"float32 matmul {n}x{n} (the own gemm)", t_o,
                 f"{flops / t_o / 1e12:.2f} TFLOP/s; the {blas} path {t_o / t_v:.1f}x faster"))
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        ca, cb = cupy.asarray(a), cupy.asarray(b)

        def cp_mm():
            cupy.matmul(ca, cb)
            cupy.cuda.runtime.deviceSynchronize()

        t_c = _median(cp_mm, args.repeats)
        rows.append((f"float32 matmul {n}x{n} (CuPy)", t_c,
                     f"{flops / t_c / 1e12:.2f} TFLOP/s; openhip/CuPy {t_c / t_v:.2f}x"))
    m = args.fft
    x = (rng.standard_normal(m) + 1j * rng.standard_normal(m)).astype(np.complex64)
    hx = hnp.asarray(x)
    err = float(np.abs(hnp.fft.fft(hx).get() - np.fft.fft(x)).max() / np.abs(x).sum() * m)

    def ft():
        hnp.fft.fft(hx)
        dev.synchronize()

    t_f = _median(ft, args.repeats)
    rows.append((f"fft of {m} complex64 ({fft_lib})", t_f, f"rel. err vs numpy {err:.1e}"))
    library = _vendor_path.library
    _vendor_path.library = lambda _x: None
    try:
        t_h = _median(ft, max(3, args.repeats // 3))
    finally:
        _vendor_path.library = library
    rows.append((f"fft of {m} complex64 (host-staged pocketfft)", t_h,
                 f"the {fft_lib} path {t_h / t_f:.1f}x faster"))
    if cupy is not None:
        cx = cupy.asarray(x)

        def cp_ft():
            cupy.fft.fft(cx)
            cupy.cuda.runtime.deviceSynchronize()

        t_c = _median(cp_ft, args.repeats)
        rows.append((f"fft of {m} complex64 (CuPy)", t_c, f"openhip/CuPy {t_c / t_f:.2f}x"))
    print("| what | median | notes |")
    print("| --- | --- | --- |")
    for name, t, note in rows:
        print(f"| {name} | {t * 1e3:.3f} ms | {note} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--fft", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--gpu", action="store_true", help="time the nvidia vendor paths")
    args = ap.parse_args()
    if args.gpu:
        args.n = args.n or 4096
        args.fft = args.fft or 1 << 24
        gpu(args)
        return
    args.n = args.n or 2048
    args.fft = args.fft or 1 << 20
    rng = np.random.default_rng(0)
    n = args.n
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    ha, hb = hnp.asarray(a), hnp.asarray(b)
    x = (rng.standard_normal(args.fft) + 1j * rng.standard_normal(args.fft)).astype(np.complex64)
    hx = hnp.asarray(x)

    def ours_mm():
        hnp.matmul(ha, hb)
        hip.synchronize()

    def det_mm():
        hnp.matmul(ha, hb, deterministic=True)
        hip.synchronize()

    def ours_fft():
        hnp.fft.fft(hx)
        hip.synchronize()

    cases = [
        (f"float32 matmul {n}x{n}", ours_mm, lambda: a @ b, 2 * n**3),
        (f"deterministic gemm {n}x{n} vs the vendor gemm (hnp.matmul)", det_mm, ours_mm,
         2 * n**3),
        (f"fft of {args.fft} complex64", ours_fft, lambda: np.fft.fft(x), None),
    ]
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, "
          f"backend {hnp.linalg.backend('cpu', np.dtype(np.float32), False)}")
    print("| what | openhip | peer | peer time / openhip time |")
    print("| --- | --- | --- | --- |")
    for name, ours, theirs, flops in cases:
        ours()
        theirs()
        t_o, t_p = [], []
        for _ in range(args.repeats):
            t_o.append(timed(ours))
            t_p.append(timed(theirs))
        mo, mp = statistics.median(t_o), statistics.median(t_p)
        extra = f" ({flops / mo / 1e9:.1f} vs {flops / mp / 1e9:.1f} GFLOP/s)" if flops else ""
        print(f"| {name} | {mo * 1e3:.1f} ms | {mp * 1e3:.1f} ms | {mp / mo:.2f}x{extra} |")
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
