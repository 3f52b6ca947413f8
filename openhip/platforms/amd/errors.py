"""Turn hipError_t and hiprtcResult codes into :class:`openhip.errors.HipError`."""

from __future__ import annotations

from ...errors import HipError

#: hiprtcResult values (hip/hiprtc.h).
HIPRTC_RESULTS = {
    0: "HIPRTC_SUCCESS", 1: "HIPRTC_ERROR_OUT_OF_MEMORY",
    2: "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE", 3: "HIPRTC_ERROR_INVALID_INPUT",
    4: "HIPRTC_ERROR_INVALID_PROGRAM", 5: "HIPRTC_ERROR_INVALID_OPTION",
    6: "HIPRTC_ERROR_COMPILATION", 7: "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    8: "HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
    9: "HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
    10: "HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID", 11: "HIPRTC_ERROR_INTERNAL_ERROR",
    100: "HIPRTC_ERROR_LINKING",
}
HIPRTC_ERROR_COMPILATION = 6


def error_name(lib, status: int) -> str:
    """``hipGetErrorName(status)`` (ROCm 5.2's hipGetErrorString returns the name too)."""
    try:
        name = lib.hipGetErrorName(status)
        if name:
            return name.decode()
    except (AttributeError, OSError):
        pass
    return f"hipError({status})"


def check(lib, status: int, routine: str) -> None:
    """Raise HipError for a non-zero hipError_t ``status`` returned by ``routine``."""
    if status != 0:
        name = error_name(lib, status)
        raise HipError(status, name, routine=routine)


def check_rtc(status: int, routine: str) -> None:
    """Raise HipError for a hiprtcResult other than success (compile errors are handled by the
    toolchain as CompileError)."""
    if status != 0:
        name = HIPRTC_RESULTS.get(status, f"hiprtcResult({status})")
        hip_status = "hipErrorOutOfMemory" if status == 1 else (
            "hipErrorInvalidValue" if status in (3, 4, 5, 10) else "hipErrorUnknown")
        raise HipError(hip_status, name, routine=routine)
