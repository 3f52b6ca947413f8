"""Shared fixtures: every test that takes ``device`` runs once per available device of every
platform that starts here (the CPU always; NVIDIA/AMD where a GPU and its stack exist)."""

from __future__ import annotations

import os

import pytest


def _available_devices():
    import openhip

    try:
        return openhip.devices()
    except Exception:  # noqa: BLE001 - no platform at all: tests needing one skip
        return []


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        devs = _available_devices()
        if not devs:
            metafunc.parametrize("device", [pytest.param(None, marks=pytest.mark.skip(
                reason="no openhip platform could start"))])
            return
        params = [(d, "") for d in devs]
        ids = [f"{d.platform}{d.id}" for d in devs]
        if getattr(metafunc.module, "ALSO_AS_FIBERS", False):
            # modules of synchronising kernels also run them as fibers on the CPU (by default
            # they are split at their barriers where possible)
            for d in devs:
                if d.platform == "cpu":
                    params.append((d, "fibers"))
                    ids.append(f"{d.platform}{d.id}-fibers")
        metafunc.parametrize("device", params, ids=ids, indirect=True)


@pytest.fixture
def device(request, monkeypatch):
    """The device under test, made current for the test."""
    dev, variant = request.param
    if variant == "fibers":
        monkeypatch.setenv("OPENHIP_CPU_REGIONS", "0")
    with dev:
        yield dev


def _drain_background_builds() -> None:
    """Waits for openhip.numpy's background kernel builds (_prefetch.py), if any ran: one that
    an earlier test's cold cache miss queued writes into the cache directory current when it
    runs, i.e. into the next test's isolated one (which then holds entries it never made)."""
    import sys

    prefetch = sys.modules.get("openhip.numpy._prefetch")
    if prefetch is not None:
        prefetch.wait_idle(300)


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    """A fresh, empty compile cache directory (and an empty in-memory layer)."""
    from openhip.compiler import cache

    _drain_background_builds()
    monkeypatch.setenv("OPENHIP_CACHE_DIR", str(tmp_path / "cache"))
    cache.clear_memory_cache()
    yield tmp_path / "cache"
    _drain_background_builds()
    cache.clear_memory_cache()


def pytest_report_header(config):
    try:
        from openhip import platforms

        status = platforms.platform_status()
        return ["openhip platforms: " + ", ".join(
            f"{n}={'yes' if r is None else 'no (' + r[:60] + ')'}" for n, r in status.items()),
            f"OPENHIP_PLATFORM={os.environ.get('OPENHIP_PLATFORM', 'auto')}"]
    except Exception as exc:  # noqa: BLE001
        return [f"openhip platforms: unknown ({exc})"]


def gpu_toolchain_or_skip(platform: str):
    """The GPU compiler of ``platform`` (NVRTC for nvidia, hiprtc for amd), or skip the test
    with the reason and how to install it."""
    if platform == "nvidia":
        try:
            from openhip.platforms.nvidia import toolchain

            return toolchain()
        except (ImportError, OSError) as exc:
            pytest.skip(f"NVRTC unavailable (pip install 'openhip[nvidia]'): {exc}")
    try:
        from openhip.platforms.amd import toolchain

        return toolchain()
    except OSError as exc:
        pytest.skip(f"hiprtc unavailable (apt-get install libamdhip64-dev rocm-device-libs): "
                    f"{exc}")


@pytest.fixture
def gpu_toolchain():
    """``gpu_toolchain("nvidia" | "amd")``: the GPU compiler, or a skip saying why not."""
    return gpu_toolchain_or_skip
