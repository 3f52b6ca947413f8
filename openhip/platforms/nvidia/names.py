"""Which kernels and globals a GPU compiler must resolve by name expression.

A ``__global__`` function that is not ``extern "C"`` (or lives in a namespace) has a mangled
symbol, so the user's plain name ("saxpy", "ns::k") must be lowered by the compiler
(nvrtcGetLoweredName / hiprtcGetLoweredName) to be found. This module lists, from
:func:`openhip.compiler.scan.scan`, the name expressions to add for every such non-template
kernel and namespaced global, besides the user's own. The amd platform uses it too.
"""

from __future__ import annotations

from collections.abc import Sequence


def auto_name_expressions(source: str, explicit: Sequence[str]) -> tuple[list[str], list[str]]:
    """(kernel expressions, global expressions) to add for ``source``, excluding ``explicit``
    and anything whose symbol is already its plain name."""
    try:
        from ...compiler.scan import scan

        found = scan(source)
    except Exception:  # noqa: BLE001 - a source the scanner cannot read still compiles
        return [], []
    given = set(explicit)
    kernels = [k.name for k in found.kernels.values()
               if k.template_params is None and (not k.extern_c or "::" in k.name)
               and k.name not in given]
    globals_ = [f"&{g.name}" for g in found.globals if "::" in g.name
                and f"&{g.name}" not in given]
    return sorted(set(kernels)), sorted(set(globals_))


def merge_lowered(kernels: Sequence[str], globals_: Sequence[str],
                  lowered: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The ``CompiledProgram.kernels``/``.globals`` maps: every symbol of the binary under its own
    name, plus every name expression (``&`` stripped for globals) under the user's spelling."""
    kernel_map = {k: k for k in kernels}
    global_map = {g: g for g in globals_}
    global_symbols = set(globals_)
    for expr, name in lowered.items():
        text = expr.strip()
        if text.startswith("&") or name in global_symbols:
            global_map[text.lstrip("&").strip()] = name
            global_map.setdefault(text, name)
        else:
            kernel_map[text] = name
    return kernel_map, global_map
