"""Turn CUDA driver and NVRTC status codes into :class:`openhip.errors.HipError`.

HIP's ``hipError_t`` values were chosen to equal CUDA's ``CUresult`` values for the errors both
have, so a CUresult maps to the hipError_t of the same number; the CUDA name is kept in the
message. NVRTC failures other than compilation errors map to ``hipErrorInvalidValue`` (bad
arguments) or ``hipErrorUnknown``.
"""

from __future__ import annotations

from typing import Any

from ...errors import HIP_ERROR_CODES, HipError

_CODE_TO_HIP = {v: k for k, v in HIP_ERROR_CODES.items()}
#: CUresult values whose hipError_t differs in number (or has no twin).
_CU_SPECIAL = {
    222: "hipErrorInvalidKernelFile",  # CUDA_ERROR_UNSUPPORTED_PTX_VERSION
    34: "hipErrorInsufficientDriver",  # CUDA_ERROR_STUB_LIBRARY
}


def hip_status_for_cuda(code: int) -> str:
    """The hipError_t name equivalent to CUresult ``code``."""
    if code in _CU_SPECIAL:
        return _CU_SPECIAL[code]
    return _CODE_TO_HIP.get(code, "hipErrorUnknown")


def _cuda_name(result: Any) -> str:
    name = getattr(result, "name", None)
    return str(name) if name else f"CUresult({int(result)})"


def check(result: Any, routine: str) -> None:
    """Raise HipError when ``result`` (a CUresult or nvrtcResult) is not success."""
    code = int(result)
    if code == 0:
        return
    cls = type(result).__name__
    if cls == "nvrtcResult":
        status = "hipErrorInvalidValue" if code in (3, 4, 5) else "hipErrorUnknown"
        raise HipError(status, _cuda_name(result), routine=routine)
    message = _cuda_name(result)
    try:
        from cuda.bindings import driver

        err, text = driver.cuGetErrorString(result)
        if int(err) == 0 and text:
            message = f"{message}: {text.decode(errors='replace')}"
    except Exception:  # noqa: BLE001 - describing an error must not raise another
        pass
    raise HipError(hip_status_for_cuda(code), message, routine=routine)


def call(func: Any, *args: Any) -> Any:
    """Call a cuda-bindings function, check its status, return its value(s) (None, one, tuple)."""
    out = func(*args)
    check(out[0], func.__name__)
    if len(out) == 1:
        return None
    if len(out) == 2:
        return out[1]
    return out[1:]
