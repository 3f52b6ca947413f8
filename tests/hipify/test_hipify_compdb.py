"""`openhip hipify -p DIR`: compile_commands.json gives each file its -D/-I options; without
sources every file in it is translated; a bad database is a clear error (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openhip.cli.hipify import run
from openhip.hipify import HipifyError
from openhip.hipify.compdb import find, load, parse_arguments

GATED = """\
#include "inc.h"
#ifdef USE_FREE
void f(float *p) { cudaFree(p); }
#else
void f(float *p) { cudaMalloc(&p, 4); }
#endif
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "include").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "one.cu").write_text(GATED)
    (root / "src" / "two.cu").write_text(GATED)
    (root / "include" / "inc.h").write_text("#define K 64\ninline void g() { cudaDeviceSynchronize(); }\n")
    entries = [
        # "command" form, relative file and include directory (to "directory")
        {"directory": str(root), "command": "nvcc -DUSE_FREE -I./include -c src/one.cu", "file": "src/one.cu"},
        # "arguments" form, absolute file, -D with a separate value
        {"directory": str(root / "src"), "arguments": ["nvcc", "-D", "OTHER=2", "-I", "../include", "two.cu"],
         "file": str(root / "src" / "two.cu")},
    ]
    (root / "compile_commands.json").write_text(json.dumps(entries))
    return root


def test_each_file_gets_its_entrys_defines(project, tmp_path, capsys):
    out = tmp_path / "one.hip"
    assert run([str(project / "src" / "one.cu"), "-o", str(out), f"-p={project}", "--default-preprocessor"]) == 0
    text = out.read_text()
    assert "hipFree(p);" in text and "cudaMalloc(&p, 4);" in text  # USE_FREE came from the database
    assert run([str(project / "src" / "two.cu"), "-o", str(out), "-p", str(project), "--default-preprocessor"]) == 0
    text = out.read_text()
    assert "cudaFree(p);" in text and "hipMalloc(&p, 4);" in text


def test_no_sources_translates_every_file_of_the_database(project, tmp_path):
    out = tmp_path / "out"
    assert run(["-p", str(project / "compile_commands.json"), "--output-dir", str(out)]) == 0
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.cu")) == ["one.cu", "two.cu"]
    # files of several folders keep their layout below the folder they share
    (project / "lib").mkdir()
    (project / "lib" / "one.cu").write_text("void h() { cudaFree(0); }\n")
    (project / "db.json").write_text(json.dumps([
        {"directory": str(project), "command": "nvcc -c src/one.cu", "file": "src/one.cu"},
        {"directory": str(project), "command": "nvcc -c lib/one.cu", "file": "lib/one.cu"}]))
    out2 = tmp_path / "out2"
    assert run(["-p", str(project / "db.json"), "--output-dir", str(out2)]) == 0
    assert sorted(str(p.relative_to(out2)) for p in out2.rglob("*.cu")) == ["lib/one.cu", "src/one.cu"]
    # -o with a database of two files is a usage error, as in hipify-clang
    assert run(["-p", str(project), "-o", str(tmp_path / "x.hip")]) == 2


def test_database_include_dirs_find_local_headers(project, tmp_path):
    assert run([str(project / "src" / "one.cu"), "-o", str(tmp_path / "o.hip"), "-p", str(project),
                "--local-headers"]) == 0
    assert (project / "include" / "inc.h.hip").read_text() == (
        "#include <hip/hip_runtime.h>\n#define K 64\ninline void g() { hipDeviceSynchronize(); }\n")


def test_file_not_in_database_uses_the_command_line(project, tmp_path):
    (project / "other.cu").write_text("#ifdef X\nvoid f() { cudaFree(0); }\n#endif\n")
    out = tmp_path / "o.hip"
    assert run([str(project / "other.cu"), "-o", str(out), "-p", str(project), "--default-preprocessor"]) == 0
    assert "cudaFree" in out.read_text()
    assert run([str(project / "other.cu"), "-o", str(out), "-p", str(project), "--default-preprocessor", "-DX"]) == 0
    assert "hipFree" in out.read_text()


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read the compilation database"),
    ("{not json", "not valid JSON"),
    ('{"file": "a.cu"}', "not a JSON list"),
    ('[{"file": "a.cu"}]', "entry 0 has no \"file\" or \"directory\""),
    ('[{"file": "a.cu", "directory": "."}]', "neither \"command\" nor \"arguments\""),
    ('[{"file": "a.cu", "directory": ".", "command": "nvcc \\"unclosed"}]', "cannot split the command"),
])
def test_bad_database_is_a_clear_error(tmp_path, capsys, content, message):
    (tmp_path / "a.cu").write_text("void f() { cudaFree(0); }\n")
    if content is not None:
        (tmp_path / "compile_commands.json").write_text(content)
    assert run([str(tmp_path / "a.cu"), "-p", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
    with pytest.raises(HipifyError, match=message.split('"')[0]):
        load(tmp_path)


def test_empty_p_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "a.cu").write_text("\n")
    assert run([str(tmp_path / "a.cu"), "-p="]) == 2
    assert "-p needs" in capsys.readouterr().err


def test_parse_arguments_and_find(project):
    defines, undefines, dirs = parse_arguments(
        ["-DA", "-D", "B=2", "-DC=x=y", "-UA", "-Iinc", "-I", "/abs", "-isystem", "sys", "-iquote", "q", "-c", "f.cu"],
        Path("/w"))
    assert defines == {"B": "2", "C": "x=y"} and undefines == ["A"]
    assert dirs == [Path("/w/inc"), Path("/abs"), Path("/w/sys"), Path("/w/q")]
    commands = load(project)
    assert find(commands, project / "src" / "two.cu").defines == {"OTHER": "2"}
    assert find(commands, project / "src" / "two.cu").include_dirs == [project / "include"]
    assert find(commands, project / "nope.cu") is None
