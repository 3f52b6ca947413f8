"""Shared helpers of the GPU-platform tests: get a toolchain or skip with the reason."""

from __future__ import annotations

import pytest


def nvrtc_toolchain():
    """The NVRTC toolchain, or skip (cuda-bindings / nvidia-cuda-nvrtc not installed)."""
    try:
        from openhip.platforms.nvidia import toolchain

        return toolchain()
    except (ImportError, OSError, RuntimeError) as exc:
        pytest.skip(f"NVRTC unavailable (pip install 'openhip[nvidia]'): {exc}")


def hiprtc_toolchain():
    """The hiprtc toolchain, or skip (apt-get install libamdhip64-dev rocm-device-libs)."""
    try:
        from openhip.platforms.amd import toolchain

        return toolchain()
    except OSError as exc:
        pytest.skip(f"hiprtc unavailable (apt-get install libamdhip64-dev rocm-device-libs): "
                    f"{exc}")
