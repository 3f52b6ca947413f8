"""Memcheck reports in compute-sanitizer's shape.

The kernel module's report function (include/openhip_memcheck.h) stops the launch as a fault
does; the engine's fault report then reads ``kernel 'K' block (x,y,z) thread (a,b,c): memcheck:
Invalid __global__ write of size 4 bytes: the address is ... [pc MODULE+0xOFF] at address
0xADDR``. :func:`format_report` rewrites that into::

    Invalid __global__ write of size 4 bytes (out of bounds)
        at saxpy.hip:7 in oob_write(float*, int)
        by thread (32,0,0) in block (1,0,0) of kernel 'oob_write'
        Address 0x7f... is 0 bytes after the end of the nearest allocation at 0x7f... of size
        128 bytes

The file:line comes from the module's DWARF lines (compiled with ``-g`` under the user's file
name, the line mapping the compile keeps) through ``addr2line``; the allocation from the
runtime's table (``ohcpu_memcheck_describe``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from functools import lru_cache

__all__ = ["LOG_ENV", "MARK", "RACE_MARK", "SEPARATOR", "format_report", "remember_image",
           "symbolize"]

#: what marks a memcheck failure in a runtime message
MARK = "memcheck: "
#: ... and a racecheck one
RACE_MARK = "racecheck: "
#: a directory where each process appends its reports (``openhip memcheck`` sets it)
LOG_ENV = "OPENHIP_MEMCHECK_LOG"
SEPARATOR = "\n\x1e\n"
_logged: set[str] = set()


def _log(text: str) -> None:
    directory = os.environ.get(LOG_ENV)
    if not directory or text in _logged:
        return
    _logged.add(text)
    try:
        with open(os.path.join(directory, f"reports-{os.getpid()}.txt"), "a",
                  encoding="utf-8") as f:
            f.write(text + SEPARATOR)
    except OSError:
        pass

_REPORT = re.compile(
    r"kernel '(?P<kernel>[^']*)' block \((?P<block>[^)]*)\) (?P<thread>thread (?:\([^)]*\)|"
    r"unknown \([^)]*\))): memcheck: (?P<what>(?:Invalid|Uninitialized) [^:]*): the address is "
    r"(?P<why>.*?)"
    r"(?: at (?P<src>[^ ]+:\d+))?(?: \[pc (?P<module>.+?)\+0x(?P<off>[0-9a-f]+)\])?"
    r" at address (?P<addr>0x[0-9a-f]+|\(nil\))")
_INTERNAL = ("/openhip/platforms/cpu/include/", "/openhip/tools/memcheck/include/",
             "<openhip generated entry points>")


_images: dict[str, bytes] = {}


def remember_image(path: str, binary: bytes) -> None:
    """The bytes of the kernel module loaded from ``path`` (the platform unlinks the file once
    it is loaded): reports symbolize against them."""
    _images[path] = binary


@lru_cache(maxsize=256)
def symbolize(module: str, offset: int) -> tuple[str, str] | None:
    """(function, file:line) of the user's code at ``offset`` in ``module``: the innermost
    inlined frame that is not openhip's own header; None without addr2line or line info."""
    tool = shutil.which("addr2line")
    image = _images.get(module)
    if tool is None or (image is None and not os.path.isfile(module)):
        return None
    try:
        with tempfile.TemporaryDirectory(prefix="openhip-memcheck-") as tmp:
            if image is not None:
                module = os.path.join(tmp, "module.so")
                with open(module, "wb") as f:
                    f.write(image)
            proc = subprocess.run([tool, "-C", "-f", "-i", "-e", module, f"0x{offset:x}"],
                                  capture_output=True, text=True, timeout=30,
                                  stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.splitlines()
    frames = [(lines[i].strip(), lines[i + 1].strip()) for i in range(0, len(lines) - 1, 2)]
    for func, where in frames:
        where = re.sub(r" \(discriminator \d+\)$", "", where)
        # the compile ran in a temporary directory, under the user's (relative) file name
        where = re.sub(r"^.*?/openhip-cc-[^/]+/", "", where)
        if where.startswith("??") or any(s in where for s in _INTERNAL):
            continue
        return func, where
    return None


def _short_why(why: str) -> str:
    if why.startswith("misaligned"):
        return "misaligned address, " + why[len("misaligned "):].strip("()")
    if why.startswith("null"):
        return "null pointer"
    m = re.search(r"\(([^)]*)\)\s*$", why)
    return m.group(1) if m else why


def _one(m: re.Match, describe: Callable[[int], str]) -> str:
    what = m.group("what").strip()
    why = m.group("why").strip()
    lines = [f"{what} ({_short_why(why)})"]
    where = None
    if m.group("src"):
        where = (None, m.group("src"))
    if m.group("module"):
        # the return address is just after the call: the access is the instruction before
        sym = symbolize(m.group("module"), max(int(m.group("off"), 16) - 1, 0))
        if sym is not None:
            where = sym
        elif where is None:
            where = (None, f"pc {m.group('module')}+0x{m.group('off')}")
    if where is not None:
        func, loc = where
        if not func or "openhip::detail::" in func or func.startswith(("??", "__openhip")):
            func = m.group("kernel")  # the kernel, inlined into the engine's loops
        lines.append(f"    at {loc} in {func}")
    thread = m.group("thread")
    lines.append(f"    by {thread} in block ({m.group('block')}) of kernel "
                 f"'{m.group('kernel')}'")
    addr = m.group("addr")
    if addr == "(nil)":
        addr = "0x0"
    value = int(addr, 16)
    detail = describe(value) if value and "__local__" not in what and \
        "__shared__" not in what else ""
    lines.append(f"    {detail}" if detail else f"    Address {addr} is {why}")
    text = "\n".join(lines)
    _log(text)
    return text


# racecheck (include/openhip_memcheck.h race_report), as the engine's fault report wraps it
_RACE = re.compile(
    r"kernel '(?P<kernel>[^']*)' block \((?P<block>[^)]*)\) thread [^:]*: racecheck: Race "
    r"hazard \((?P<kind>[^)]*)\) on __shared__ memory at (?P<addr>0x[0-9a-f]+) of size "
    r"(?P<n>\d+) bytes: (?P<op1>Write|Read) by thread \((?P<t1>[^)]*)\)"
    r"(?: \[pc (?P<m1>.+?)\+0x(?P<o1>[0-9a-f]+)\])? then (?P<op2>Write|Read) by thread "
    r"\((?P<t2>[^)]*)\)(?: \[pc (?P<m2>.+?)\+0x(?P<o2>[0-9a-f]+)\])?"
    r"(?: at (?:address|the instruction at) \S+)?")


def _access_line(m: re.Match, op: str, thread: str, module: str | None, off: str | None) -> str:
    where = ""
    if module:
        sym = symbolize(module, max(int(off, 16) - 1, 0))
        if sym is not None:
            func, loc = sym
            if not func or "openhip::detail::" in func or func.startswith(("??", "__openhip")):
                func = m.group("kernel")
            where = f" at {loc} in {func}"
        else:
            where = f" at pc {module}+0x{off}"
    return f"    {op} access by thread ({thread}){where}"


def _race(m: re.Match) -> str:
    text = "\n".join([
        f"Race hazard ({m.group('kind')}) on __shared__ memory of size {m.group('n')} bytes at "
        f"{m.group('addr')} in block ({m.group('block')}) of kernel '{m.group('kernel')}'",
        _access_line(m, m.group("op1"), m.group("t1"), m.group("m1"), m.group("o1")),
        _access_line(m, m.group("op2"), m.group("t2"), m.group("m2"), m.group("o2")),
        "    (no barrier between the two accesses)"])
    _log(text)
    return text


# a copy or memset of the runtime (platforms/cpu/src/runtime.cpp memcheck_range)
_API_REPORT = re.compile(
    r"memcheck: Invalid (?P<op>read|write) of (?P<n>\d+) bytes by (?P<routine>\w+) at "
    r"(?P<addr>0x[0-9a-f]+) \((?P<kind>[^)]*)\): (?P<where>.*)$")


def _api(m: re.Match) -> str:
    text = (f"Invalid __global__ {m.group('op')} of size {m.group('n')} bytes by "
            f"{m.group('routine')} ({m.group('kind')})\n"
            f"    the range starts at {m.group('addr')}\n"
            f"    {m.group('where')}")
    _log(text)
    return text


# initcheck: a copy to the host of device memory never written (runtime.cpp initcheck_copy)
_API_UNINIT = re.compile(
    r"memcheck: Uninitialized read of (?P<n>\d+) bytes by (?P<routine>\w+) at "
    r"(?P<addr>0x[0-9a-f]+) \(never written\): (?P<where>.*)$")


def _api_uninit(m: re.Match) -> str:
    text = (f"Host API uninitialized memory access: {m.group('routine')} reads {m.group('n')} "
            f"bytes of __global__ memory (never written)\n"
            f"    the range starts at {m.group('addr')}\n"
            f"    {m.group('where')}")
    _log(text)
    return text


def format_report(message: str, describe: Callable[[int], str]) -> str:
    """``message`` with each memcheck failure in it rewritten in compute-sanitizer's shape;
    ``describe(address)`` says where an address is relative to the nearest allocation."""
    message = _API_REPORT.sub(_api, message)
    message = _API_UNINIT.sub(_api_uninit, message)
    message = _RACE.sub(_race, message)
    return _REPORT.sub(lambda m: _one(m, describe), message)
