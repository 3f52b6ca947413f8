"""Run every example on the current platform (OPENHIP_PLATFORM picks it; the CPU by default
where there is no GPU): the three kernels, hipify on the CUDA sample, and an all-reduce over
two processes with openhip.ccl."""

import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
KERNEL_EXAMPLES = ["arrays.py", "saxpy.py", "reduction.py", "histogram.py"]

if __name__ == "__main__":
    import openhip

    print(f"openhip {openhip.__version__}: devices {openhip.devices()}")
    for name in KERNEL_EXAMPLES:
        runpy.run_path(str(HERE / name), run_name="__main__")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "saxpy.hip"
        cmd = [sys.executable, "-m", "openhip", "hipify", str(HERE / "hipify_sample" / "saxpy.cu"),
               "--hip-kernel-execution-syntax", "-o", str(out)]
        subprocess.run(cmd, check=True)
        launches = [line.strip() for line in out.read_text().splitlines()
                    if "hipLaunchKernelGGL" in line]
        print(f"hipify: saxpy.cu -> saxpy.hip, e.g. {launches[0] if launches else '(no launch)'}")
    subprocess.run([sys.executable, "-m", "openhip", "launch", "-n", "2",
                    str(HERE / "ccl_allreduce.py")], check=True)
    sys.exit(0)
