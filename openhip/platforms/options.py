"""Compile options no platform passes on to a vendor compiler: those that load code into the
compiler (plugins), pass options to another tool (linker, assembler, preprocessor) or name a
file to write or read besides includes. The CPU platform has a full allow-list
(``cpu/compiler.py``); the GPU toolchains pass other options through to NVRTC/hiprtc, which
report the ones they do not know, and refuse these first.
"""

from __future__ import annotations

__all__ = ["refuse_tool_options"]

#: exact options refused (some take the next argument: refusing the option refuses both).
_REFUSED_EXACT = frozenset({
    "-o", "-Xclang", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xoffload-linker",
    "-load", "-save-temps", "--save-temps", "-MD", "-MMD", "-MF", "-MT", "-MQ", "-MJ", "-M",
    "-MM", "-time", "--pch", "-pch", "-include-pch", "-B", "-specs", "-plugin",
})
#: option prefixes refused (``-fplugin=``, ``--time=file``...).
_REFUSED_PREFIXES = (
    "-Wl,", "-Wp,", "-Wa,", "-Xclang=", "-Xlinker=", "-fplugin", "-fpass-plugin", "-save-temps=",
    "--save-temps=", "-MF", "-MT", "-MQ", "-MJ", "-o", "--output", "-ftime-trace",
    "-fprofile-", "-fcrash-diagnostics", "-fmodules-cache-path", "-fsave-optimization-record",
    "-foptimization-record-file", "--serialize-diagnostics", "-serialize-diagnostics",
    "-include-pch", "--time", "-time=", "--fdevice-time-trace", "-fdevice-time-trace",
    "--create-pch", "-create-pch", "--use-pch", "-use-pch", "--pch-dir", "-pch-dir", "-B",
    "--specs", "-specs=", "-fopt-info", "-fdump-", "-plugin",
)


def refuse_tool_options(opt: str) -> None:
    """ValueError when ``opt`` loads a plugin, passes options to another tool or names a file
    for the compiler to write (or a precompiled state to read)."""
    if not isinstance(opt, str):
        raise TypeError(f"compile options must be str, not {type(opt).__name__}")
    if opt in _REFUSED_EXACT or opt.startswith(_REFUSED_PREFIXES):
        raise ValueError(
            f"compile option {opt!r} is refused: options that load plugins into the compiler, "
            "pass options to another tool (-Wl,, -Wp,, -Wa,, -Xclang, -Xlinker) or name a file "
            "to write (-o, -save-temps, -MD/-MF, -ftime-trace, --time, PCH files) reach a "
            "compiler running inside this process; use -D, -U, -I, -O, -g, -W<warning>, "
            "-std= and the compiler's code-generation flags instead")
