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
