"""The golden cases: source file -> {variant: options}; shared by the test and the regenerator.

Regenerate the expected files (then review the diff!) with::

    python tests/hipify/hipify_golden_cases.py
"""

from __future__ import annotations

from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"

#: variant suffix -> options
VARIANTS = {
    "hip": {},
    "ggl.hip": {"hip_kernel_execution_syntax": True},
    "roc.hip": {"roc": True},
    "miopen.hip": {"miopen": True},
}
#: source -> variants checked
CASES = {
    "runtime_basics.cu": ["hip", "ggl.hip"],
    "launches.cu": ["hip", "ggl.hip"],
    "blas_solver.cu": ["hip", "roc.hip"],
    "rand_fft.cu": ["hip", "roc.hip"],
    "sparse.cu": ["hip", "roc.hip"],
    "dnn.cu": ["hip", "miopen.hip"],
    "cub_rtc_complex.cu": ["hip"],
    "driver.cu": ["hip"],
    "guarded.cuh": ["hip"],
    "plain.cpp": ["hip"],
}


def expected_path(source: str, variant: str) -> Path:
    """Where the expected output of ``source`` translated with ``variant`` lives."""
    return GOLDEN / f"{source}.{variant}"


def regenerate() -> None:
    """Rewrite every expected file from the current translator."""
    import sys

    sys.path.insert(0, str(GOLDEN.parent.parent.parent))
    from openhip.hipify import translate

    for source, variants in CASES.items():
        text = (GOLDEN / source).read_text()
        for variant in variants:
            out = translate(text, filename=source, **VARIANTS[variant])
            expected_path(source, variant).write_text(out)


if __name__ == "__main__":
    regenerate()
