"""openhip.numpy.linalg / fft against numpy in one run, on the CPU platform.

    python bench/bench_linalg_fft.py [--n 2048] [--fft 1048576] [--repeats 7]

- float32 matmul n x n: hnp.matmul (OpenBLAS on the device memory) against numpy's matmul (the
  same OpenBLAS), and the project's deterministic gemm against the vendor one;
- fft of 2^20 complex64: hnp.fft.fft (numpy's pocketfft on the device memory) against
  numpy.fft.fft.
Medians over the repeats, alternating ours/theirs; the load average is printed.
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--fft", type=int, default=1 << 20)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
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
