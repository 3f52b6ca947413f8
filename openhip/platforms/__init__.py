"""Platform discovery: start platforms lazily, remember why the ones that cannot start failed.

Each platform lives in its own module (``openhip.platforms.cpu``, ``.nvidia``, ``.amd``) exposing
a ``Platform`` subclass named ``PLATFORM``. Nothing is imported or started until asked for.
"""

from __future__ import annotations

import importlib
import threading

from .. import config
from ..errors import HipError, PlatformUnavailable
from .base import CompiledProgram, DeviceProperties, FunctionAttributes, PackedArgs, Platform

__all__ = [
    "CompiledProgram",
    "DeviceProperties",
    "FunctionAttributes",
    "PackedArgs",
    "Platform",
    "get_platform",
    "try_platform",
    "active_platforms",
    "platform_status",
    "reset",
]

_MODULES = {"cpu": "openhip.platforms.cpu", "nvidia": "openhip.platforms.nvidia",
            "amd": "openhip.platforms.amd"}
_lock = threading.RLock()
_started: dict[str, Platform] = {}
_failed: dict[str, str] = {}


def try_platform(name: str) -> Platform | None:
    """Start platform ``name`` (once) and return it, or None with the reason recorded."""
    if name not in _MODULES:
        raise ValueError(f"unknown platform {name!r}; expected one of {sorted(_MODULES)}")
    with _lock:
        if name in _started:
            return _started[name]
        if name in _failed:
            return None
        try:
            module = importlib.import_module(_MODULES[name])
            platform = module.PLATFORM()
            if not platform.device_properties():
                raise PlatformUnavailable(name, "no device")
        except PlatformUnavailable as exc:
            _failed[name] = exc.reason
            return None
        except HipError as exc:
            _failed[name] = str(exc)
            return None
        except Exception as exc:  # noqa: BLE001 - a broken stack must not break the others
            _failed[name] = f"{type(exc).__name__}: {exc}"
            return None
        _started[name] = platform
        return platform


def get_platform(name: str) -> Platform:
    """Platform ``name``, started; HipError with the reason when it cannot start."""
    platform = try_platform(name)
    if platform is None:
        status = "hipErrorNoDevice"
        raise HipError(status, f"platform {name!r} is unavailable: {_failed[name]}",
                       routine="openhip.platforms.get_platform")
    return platform


def active_platforms() -> list[Platform]:
    """The platforms chosen by OPENHIP_PLATFORM that started, in device-numbering order.

    ``auto`` gives every platform that starts, in the order amd, nvidia, cpu (so device 0 is a
    GPU when there is one, and the CPU always follows where a C++ compiler exists); a platform
    named explicitly must start or HipError says why.
    """
    choice = config.platform_choice()
    if choice != "auto":
        return [get_platform(choice)]
    started = [p for p in (try_platform(n) for n in config.AUTO_ORDER) if p is not None]
    if started:
        return started
    raise HipError("hipErrorNoDevice", "no platform could start: " + "; ".join(
        f"{n}: {r}" for n, r in _failed.items()), routine="openhip.platforms.active_platforms")


def platform_status() -> dict[str, str | None]:
    """For every platform: None when it started, else the reason it could not."""
    out: dict[str, str | None] = {}
    for name in config.AUTO_ORDER:
        try_platform(name)
        out[name] = None if name in _started else _failed.get(name, "not started")
    return out


def reset() -> None:
    """Forget started and failed platforms (tests use it after changing the environment)."""
    with _lock:
        _started.clear()
        _failed.clear()
