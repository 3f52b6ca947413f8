"""Fixtures of the CPU platform tests: the platform object, used through its hooks."""

from __future__ import annotations

import pytest

from openhip.errors import PlatformUnavailable


@pytest.fixture(scope="session")
def cpu():
    from openhip.platforms.cpu import PLATFORM

    try:
        return PLATFORM()
    except PlatformUnavailable as exc:
        pytest.skip(f"CPU platform unavailable: {exc.reason}")


@pytest.fixture
def dev(cpu):
    from cpu_helpers import Dev

    d = Dev(cpu)
    yield d
    d.close()


@pytest.fixture
def fibers_only(monkeypatch):
    """Synchronising kernels compiled in this test run as fibers (no splitting at barriers)."""
    monkeypatch.setenv("OPENHIP_CPU_REGIONS", "0")


@pytest.fixture(params=["regions", "fibers"])
def sync_mode(request, monkeypatch):
    """Runs the test with synchronising kernels split at their barriers, then as fibers."""
    monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1" if request.param == "regions" else "0")
    return request.param
