"""The one exception tree of openhip.

* :class:`HipError` — a runtime failure, carrying the ``hipError_t`` name (``.status``), its
  numeric code (``.code``) and the routine that failed (``.routine``).
* :class:`CompileError` — a kernel failed to build; carries the compiler ``.log`` (line numbers
  match the user's source), ``.source``, ``.options``, ``.platform`` and ``.name``.
* :class:`CclError` — a collective failed; carries the ``.rank`` that reports it and, where known,
  the ``.peer`` rank that caused it.
* :class:`PlatformUnavailable` — a platform cannot start on this machine (the reason is kept).

Every exception pickles, so it crosses process boundaries (multiprocessing, ccl ranks).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

__all__ = [
    "HIP_ERROR_CODES",
    "OpenHipError",
    "HipError",
    "CompileError",
    "CclError",
    "PlatformUnavailable",
]

#: hipError_t names and their values, as in hip/hip_runtime_api.h (HIP 6.x).
HIP_ERROR_CODES: dict[str, int] = {
    "hipSuccess": 0,
    "hipErrorInvalidValue": 1,
    "hipErrorOutOfMemory": 2,
    "hipErrorNotInitialized": 3,
    "hipErrorDeinitialized": 4,
    "hipErrorProfilerDisabled": 5,
    "hipErrorInvalidConfiguration": 9,
    "hipErrorInvalidPitchValue": 12,
    "hipErrorInvalidSymbol": 13,
    "hipErrorInvalidDevicePointer": 17,
    "hipErrorInvalidMemcpyDirection": 21,
    "hipErrorInsufficientDriver": 35,
    "hipErrorMissingConfiguration": 52,
    "hipErrorInvalidDeviceFunction": 98,
    "hipErrorNoDevice": 100,
    "hipErrorInvalidDevice": 101,
    "hipErrorInvalidImage": 200,
    "hipErrorInvalidContext": 201,
    "hipErrorNoBinaryForGpu": 209,
    "hipErrorInvalidKernelFile": 218,
    "hipErrorInvalidSource": 300,
    "hipErrorFileNotFound": 301,
    "hipErrorSharedObjectSymbolNotFound": 302,
    "hipErrorSharedObjectInitFailed": 303,
    "hipErrorOperatingSystem": 304,
    "hipErrorInvalidHandle": 400,
    "hipErrorIllegalState": 401,
    "hipErrorNotFound": 500,
    "hipErrorNotReady": 600,
    "hipErrorIllegalAddress": 700,
    "hipErrorLaunchOutOfResources": 701,
    "hipErrorLaunchTimeOut": 702,
    "hipErrorPeerAccessAlreadyEnabled": 704,
    "hipErrorPeerAccessNotEnabled": 705,
    "hipErrorAssert": 710,
    "hipErrorHostMemoryAlreadyRegistered": 712,
    "hipErrorHostMemoryNotRegistered": 713,
    "hipErrorLaunchFailure": 719,
    "hipErrorCooperativeLaunchTooLarge": 720,
    "hipErrorNotSupported": 801,
    "hipErrorStreamCaptureUnsupported": 900,
    "hipErrorUnknown": 999,
    "hipErrorRuntimeOther": 1052,
}

_CODE_TO_NAME = {v: k for k, v in HIP_ERROR_CODES.items()}


class OpenHipError(Exception):
    """Base class of every error openhip raises on purpose."""


class HipError(OpenHipError, RuntimeError):
    """A runtime call failed.

    ``status`` is the ``hipError_t`` name (``"hipErrorInvalidConfiguration"``), ``code`` its
    value, ``routine`` the HIP routine that failed (``"hipModuleLaunchKernel"``), ``message`` the
    explanation.
    """

    def __init__(self, status: str | int, message: str = "", routine: str = "") -> None:
        if isinstance(status, int):
            status = _CODE_TO_NAME.get(status, f"hipErrorUnknown({status})")
        self.status = status
        self.code = HIP_ERROR_CODES.get(status, HIP_ERROR_CODES["hipErrorUnknown"])
        self.routine = routine
        self.message = message
        where = f"{routine}: " if routine else ""
        super().__init__(f"{where}{status}" + (f": {message}" if message else ""))

    def __reduce__(self):
        return (type(self), (self.status, self.message, self.routine))


class CompileError(OpenHipError):
    """A kernel failed to compile.

    ``log`` is the compiler's output with line numbers that refer to the user's source as given;
    ``source`` that source; ``options`` the options used; ``platform`` and ``arch`` the target;
    ``name`` the file name the source was compiled under.
    """

    def __init__(
        self,
        log: str,
        source: str = "",
        options: Sequence[str] = (),
        platform: str = "",
        name: str = "kernel.hip",
        arch: str = "",
    ) -> None:
        self.log = log
        self.source = source
        self.options = tuple(options)
        self.platform = platform
        self.name = name
        self.arch = arch
        target = f" for {platform}" + (f" ({arch})" if arch else "") if platform else ""
        super().__init__(f"compiling {name}{target} failed:\n{log.rstrip()}")

    def __reduce__(self):
        return (
            type(self),
            (self.log, self.source, self.options, self.platform, self.name, self.arch),
        )

    def dump(self, directory: str | os.PathLike[str] | None = None) -> str:
        """Write the failing source to a file and return its path (for bug reports)."""
        fd, path = tempfile.mkstemp(prefix="openhip-", suffix="-" + self.name, dir=directory)
        with os.fdopen(fd, "w") as f:
            f.write(self.source)
        return path


class CclError(OpenHipError):
    """A collective operation failed on ``rank`` (``peer``: the rank at fault, when known)."""

    def __init__(self, message: str, rank: int | None = None, peer: int | None = None) -> None:
        self.message = message
        self.rank = rank
        self.peer = peer
        prefix = f"rank {rank}: " if rank is not None else ""
        super().__init__(prefix + message)

    def __reduce__(self):
        return (type(self), (self.message, self.rank, self.peer))


class PlatformUnavailable(OpenHipError):
    """A platform cannot start here; ``reason`` says why (no driver, no device, no compiler)."""

    def __init__(self, platform: str, reason: str) -> None:
        self.platform = platform
        self.reason = reason
        super().__init__(f"platform {platform!r} is unavailable: {reason}")

    def __reduce__(self):
        return (type(self), (self.platform, self.reason))
