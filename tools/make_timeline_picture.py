"""Make the README's picture of the profiler's HTML timeline (docs/profiler_timeline.png).

Runs a small workload under ``openhip.profile`` on the CPU platform (two streams of saxpy and
a shared-memory reduction, copies both ways, a pool allocation pattern, user ranges and a
marker), writes the trace and the HTML page into a temporary directory and has headless
Chromium (Debian's ``chromium``) screenshot the page:

    OPENHIP_PLATFORM=cpu python tools/make_timeline_picture.py [-o docs/profiler_timeline.png]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "tools" / "profiler_kernels.hip"


def workload(hip) -> None:
    mod = hip.Module(KERNELS.read_text(), name="profiler_kernels.hip")  # compiled before
    saxpy, block_sum = mod.get_function("saxpy"), mod.get_function("block_sum")
    n = 1 << 20
    rng = np.random.default_rng(0)
    streams = [hip.Stream(), hip.Stream()]
    with hip.profile.range("upload"):
        x = hip.asarray(rng.random(n, dtype=np.float32))
        y = hip.asarray(rng.random(n, dtype=np.float32))
    outs = [hip.empty(n, np.float32) for _ in streams]
    for step in range(3):
        with hip.profile.range(f"step {step}"):
            for s, out in zip(streams, outs, strict=True):
                for a in (1.0, 2.0):
                    saxpy(n // 256, 256, (a, x, y, out, n), stream=s)
            partial = hip.empty(n // 256, np.float32)
            block_sum(n // 256, 256, (outs[0], partial, n), shared_mem=256 * 4,
                      stream=streams[0])
            for s in streams:
                s.synchronize()
            hip.profile.mark(f"step {step} done")
    with hip.profile.range("download"):
        for out in outs:
            out.get()
        partial.get()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=str(ROOT / "docs" / "profiler_timeline.png"))
    ap.add_argument("--size", default="1400,640", help="window size W,H")
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("make_timeline_picture: chromium is not installed (apt-get install chromium)",
              file=sys.stderr)
        return 2
    os.environ.setdefault("OPENHIP_PLATFORM", "cpu")
    import openhip as hip

    hip.Module(KERNELS.read_text(), name="profiler_kernels.hip")  # warm the compile cache
    with tempfile.TemporaryDirectory() as tmp:
        with hip.profile(Path(tmp) / "trace"):
            workload(hip)
        out = Path(args.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--user-data-dir={Path(tmp) / 'profile'}",
                        f"--window-size={args.size}", f"--screenshot={out}",
                        (Path(tmp) / "trace.html").as_uri()],
                       check=True, capture_output=True, timeout=120)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
