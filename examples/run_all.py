"""Run every example on the current platform (OPENHIP_PLATFORM picks it; the CPU by default
where there is no GPU)."""

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).parent
EXAMPLES = ["saxpy.py", "reduction.py", "histogram.py"]

if __name__ == "__main__":
    import openhip

    print(f"openhip {openhip.__version__}: devices {openhip.devices()}")
    for name in EXAMPLES:
        runpy.run_path(str(HERE / name), run_name="__main__")
    sys.exit(0)
