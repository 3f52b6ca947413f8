"""Issue #14 item 3: the host compiler runs bounded.

``#include </dev/zero>`` used to run into the OOM killer, ``#include </dev/stdin>`` to block on
the user's terminal and a macro bomb to take most of a minute. Now the compiler gets stdin from
/dev/null, a time limit (``OPENHIP_COMPILE_TIMEOUT``) and a memory limit
(``OPENHIP_COMPILE_MEMORY``), and a CompileError says which limit was hit. Every case runs in a
subprocess with a timeout: the failure mode is a hang or the OOM killer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from openhip import config

HEADER = "#include <hip/hip_runtime.h>\n"
KERNEL = 'extern "C" __global__ void k(int* p) { p[0] = 1; }\n'

CHILD = textwrap.dedent("""
    import json, os, sys, time
    import openhip as hip
    src = open(sys.argv[1]).read()
    options = tuple(json.loads(sys.argv[2]))
    t0 = time.monotonic()
    try:
        hip.compile_program(src, platform="cpu", options=options)
        out = {"result": "compiled"}
    except hip.CompileError as exc:
        out = {"result": "CompileError", "message": str(exc), "log": exc.log}
    out["seconds"] = time.monotonic() - t0
    print(json.dumps(out))
""")


def compile_in_child(tmp_path: Path, source: str, options=(), *, stdin=subprocess.DEVNULL,
                     timeout: float = 240, **env_extra) -> dict:
    from openhip.platforms.cpu.compiler import find_compiler

    if find_compiler()[0] is None:
        pytest.skip("no CPU platform")
    src = tmp_path / "bounded.hip"
    src.write_text(source)
    env = dict(os.environ, OPENHIP_CACHE_DIR=str(tmp_path / "cache"), OPENHIP_PLATFORM="cpu",
               **env_extra)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(src), json.dumps(list(options))],
                            env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail(f"the compile did not return within {timeout} s (unbounded compiler)")
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def test_include_dev_zero_hits_the_memory_limit(tmp_path):
    got = compile_in_child(tmp_path, HEADER + "#include </dev/zero>\n" + KERNEL,
                           OPENHIP_COMPILE_MEMORY="1g")
    assert got["result"] == "CompileError"
    assert "memory limit" in got["message"] and "OPENHIP_COMPILE_MEMORY=1024m" in got["message"]


def macro_bomb(depth: int = 40) -> str:
    lines = ["#define B0 x"] + [f"#define B{i} B{i - 1} B{i - 1}" for i in range(1, depth)]
    return HEADER + "\n".join(lines) + f"\nint bomb = (B{depth - 1}, 0);\n" + KERNEL


def test_macro_bomb_hits_the_memory_limit(tmp_path):
    got = compile_in_child(tmp_path, macro_bomb(), OPENHIP_COMPILE_MEMORY="512m",
                           OPENHIP_COMPILE_TIMEOUT="600")
    assert got["result"] == "CompileError" and "memory limit" in got["message"]


def test_macro_bomb_hits_the_time_limit(tmp_path):
    got = compile_in_child(tmp_path, macro_bomb(), OPENHIP_COMPILE_TIMEOUT="3",
                           OPENHIP_COMPILE_MEMORY="2g")
    assert got["result"] == "CompileError"
    assert ("time limit" in got["message"] and "OPENHIP_COMPILE_TIMEOUT=3" in got["message"]) \
        or "memory limit" in got["message"]


def test_blocking_include_hits_the_time_limit_and_leaves_no_compiler(tmp_path):
    """A FIFO nobody writes blocks the compiler forever without using CPU or memory."""
    incdir = tmp_path / "inc-fifo-unique"
    incdir.mkdir()
    os.mkfifo(incdir / "blocks.h")
    got = compile_in_child(tmp_path, HEADER + '#include "blocks.h"\n' + KERNEL,
                           ["-I", str(incdir)], OPENHIP_COMPILE_TIMEOUT="2")
    assert got["result"] == "CompileError"
    assert "time limit" in got["message"] and "OPENHIP_COMPILE_TIMEOUT=2" in got["message"]
    leftovers = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"inc-fifo-unique" in cmdline:
                leftovers.append(cmdline)
    assert leftovers == []  # the whole process group was killed


def test_include_dev_stdin_does_not_wait_for_the_users_stdin(tmp_path):
    # the child's stdin is a pipe nobody writes or closes: reading it would block forever
    got = compile_in_child(tmp_path, HEADER + "#include </dev/stdin>\n" + KERNEL,
                           stdin=subprocess.PIPE, timeout=240)
    assert got["result"] == "compiled"  # /dev/null: an empty include


@pytest.mark.parametrize("name, value, message", [
    ("OPENHIP_COMPILE_TIMEOUT", "soon", "number of seconds"),
    ("OPENHIP_COMPILE_TIMEOUT", "-1", ">= 0"),
    ("OPENHIP_COMPILE_MEMORY", "lots", "bytes"),
    ("OPENHIP_COMPILE_MEMORY", "1m", "at least 64m"),
])
def test_bad_limit_values_are_refused(monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=message):
        config.compile_timeout() if "TIMEOUT" in name else config.compile_memory()


def test_limit_values(monkeypatch):
    monkeypatch.delenv("OPENHIP_COMPILE_TIMEOUT", raising=False)
    monkeypatch.delenv("OPENHIP_COMPILE_MEMORY", raising=False)
    assert config.compile_timeout() == config.DEFAULT_COMPILE_TIMEOUT
    assert 2 << 30 <= config.compile_memory() <= 8 << 30
    monkeypatch.setenv("OPENHIP_COMPILE_TIMEOUT", "0")
    monkeypatch.setenv("OPENHIP_COMPILE_MEMORY", "0")
    assert config.compile_timeout() is None and config.compile_memory() is None
    monkeypatch.setenv("OPENHIP_COMPILE_MEMORY", "1.5g")
    assert config.compile_memory() == 3 << 29


def test_a_normal_kernel_compiles_under_the_default_limits(tmp_path):
    got = compile_in_child(tmp_path, HEADER + KERNEL)
    assert got["result"] == "compiled"
