"""Compilation databases (``compile_commands.json``) for ``openhip hipify -p DIR``.

hipify-clang's ``-p DIR`` reads ``DIR/compile_commands.json`` (the JSON Compilation Database
format CMake's ``CMAKE_EXPORT_COMPILE_COMMANDS`` writes: a list of ``{"directory", "file",
"command" | "arguments"}`` entries) and translates every file in it, each with its own compiler
options. Here an entry's ``-D``/``-U`` macros feed ``--default-preprocessor`` and its ``-I``,
``-iquote`` and ``-isystem`` directories (relative to the entry's ``directory``) the search for
local headers. A database that cannot be read or is not such a list raises
:class:`~openhip.hipify.HipifyError` with the reason.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from .result import HipifyError

DATABASE_NAME = "compile_commands.json"
_INCLUDE_FLAGS = ("-I", "-iquote", "-isystem", "-idirafter")


@dataclass
class CompileCommand:
    """One entry: the source, its working directory and the options that matter to hipify."""

    file: Path
    directory: Path
    arguments: list[str]
    defines: dict[str, str] = field(default_factory=dict)
    undefines: list[str] = field(default_factory=list)
    include_dirs: list[Path] = field(default_factory=list)


def database_path(location: str | os.PathLike[str]) -> Path:
    """``DIR/compile_commands.json`` for a directory, or the file itself when given one."""
    path = Path(location)
    return path if path.is_file() else path / DATABASE_NAME


def parse_arguments(arguments: list[str], directory: Path) -> tuple[dict[str, str], list[str], list[Path]]:
    """(``-D`` macros, ``-U`` names, include directories) of a compiler command line."""
    defines: dict[str, str] = {}
    undefines: list[str] = []
    dirs: list[Path] = []
    i = 0
    while i < len(arguments):
        arg = arguments[i]
        value: str | None = None
        for flag in ("-D", "-U", *_INCLUDE_FLAGS):
            if arg == flag:
                value = arguments[i + 1] if i + 1 < len(arguments) else None
                i += 1
                break
            if arg.startswith(flag) and len(arg) > len(flag) and not (flag == "-I" and arg.startswith("-isystem")):
                value = arg[len(flag):]
                break
        else:
            flag = ""
        i += 1
        if value is None or not flag:
            continue
        if flag == "-D":
            name, _, val = value.partition("=")
            defines[name] = val if "=" in value else "1"
        elif flag == "-U":
            undefines.append(value)
            defines.pop(value, None)
        else:
            dirs.append(Path(os.path.normpath(directory / value)))
    return defines, undefines, dirs


def load(location: str | os.PathLike[str]) -> list[CompileCommand]:
    """The entries of the compilation database at ``location`` (directory or JSON file)."""
    path = database_path(location)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise HipifyError(f"cannot read the compilation database: {exc.strerror or exc}", str(path)) from None
    except ValueError as exc:
        raise HipifyError(f"the compilation database is not valid JSON: {exc}", str(path)) from None
    if not isinstance(data, list):
        raise HipifyError("the compilation database is not a JSON list of entries", str(path))
    commands: list[CompileCommand] = []
    for number, entry in enumerate(data):
        if not isinstance(entry, dict) or "file" not in entry or "directory" not in entry:
            raise HipifyError(f"entry {number} has no \"file\" or \"directory\"", str(path))
        directory = Path(entry["directory"])
        if not directory.is_absolute():
            directory = path.parent / directory
        if "arguments" in entry:
            arguments = [str(a) for a in entry["arguments"]]
        elif "command" in entry:
            try:
                arguments = shlex.split(str(entry["command"]))
            except ValueError as exc:
                raise HipifyError(f"entry {number}: cannot split the command: {exc}", str(path)) from None
        else:
            raise HipifyError(f"entry {number} has neither \"command\" nor \"arguments\"", str(path))
        file = Path(os.path.normpath(directory / entry["file"]))
        defines, undefines, dirs = parse_arguments(arguments[1:], directory)
        commands.append(CompileCommand(file, directory, arguments, defines, undefines, dirs))
    return commands


def find(commands: list[CompileCommand], source: Path) -> CompileCommand | None:
    """The entry for ``source`` (the first one, as clang's tooling takes), or None."""
    target = source.resolve()
    for command in commands:
        if command.file.resolve() == target:
            return command
    return None
