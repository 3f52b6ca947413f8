"""`openhip hipify`: every option (hipify-clang and hipify-perl spellings) and exit code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from openhip.cli.hipify import normalize_argv, run

CUDA = "#include <cuda_runtime.h>\n__global__ void k(float *x) {}\nint main() { float *d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); }\n"
HIP = "#include <hip/hip_runtime.h>\n__global__ void k(float *x) {}\nint main() { float *d; hipMalloc(&d, 4); k<<<1, 1>>>(d); }\n"
HIP_GGL = HIP.replace("k<<<1, 1>>>(d)", "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, d)")


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "a.cu"
    path.write_text(CUDA)
    return path


def test_stdout(src, capsys):
    assert run([str(src)]) == 0
    out = capsys.readouterr()
    assert out.out == HIP and out.err == ""


def test_module_entry_point(src):
    result = subprocess.run([sys.executable, "-m", "openhip", "hipify", str(src)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == HIP


@pytest.mark.parametrize("spelling", [["-o", "{out}"], ["-o={out}"], ["--o={out}"], ["--o", "{out}"]])
def test_output_file(src, tmp_path, spelling, capsys):
    out = tmp_path / "out" / "a.hip"
    assert run([str(src), *[s.format(out=out) for s in spelling]]) == 0
    assert out.read_text() == HIP and capsys.readouterr().out == ""


def test_output_file_needs_one_input(src, tmp_path, capsys):
    other = tmp_path / "b.cu"
    other.write_text(CUDA)
    assert run([str(src), str(other), "-o", str(tmp_path / "x")]) == 2
    assert "exactly one input" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--output-dir", "--o-dir"])
def test_output_dir_keeps_layout(tmp_path, flag, capsys):
    tree = tmp_path / "proj"
    for rel in ("a.cu", "sub/b.cuh", "sub/deep/c.cpp", "x.cxx", "y.cc", "z.c", "h.h", "i.hpp", "j.inl"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(CUDA)
    (tree / "notes.txt").write_text("cudaMalloc")
    out = tmp_path / "out"
    assert run([str(tree), flag, str(out), "--no-progress"]) == 0
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == sorted(["a.cu", "sub/b.cuh", "sub/deep/c.cpp", "x.cxx", "y.cc", "z.c", "h.h", "i.hpp", "j.inl"])
    assert (out / "sub/deep/c.cpp").read_text() == HIP
    assert capsys.readouterr().out == ""


def test_progress_bar(tmp_path, capsys):
    for name in ("a.cu", "b.cu"):
        (tmp_path / "in" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "in" / name).write_text(CUDA)
    assert run([str(tmp_path / "in"), "--output-dir", str(tmp_path / "out"), "--progress"]) == 0
    err = capsys.readouterr().err
    assert "[" + "#" * 30 + "] 2/2" in err and "\r" in err


@pytest.mark.parametrize("flag", ["--inplace", "-inplace"])
def test_inplace_with_backup_and_rerun(src, flag):
    assert run([str(src), flag]) == 0
    backup = src.with_name("a.cu.prehip")
    assert src.read_text() == HIP and backup.read_text() == CUDA
    mtime = src.stat().st_mtime_ns
    assert run([str(src), flag]) == 0
    assert src.read_text() == HIP and backup.read_text() == CUDA
    assert src.stat().st_mtime_ns == mtime


def test_inplace_no_backup(src):
    assert run([str(src), "--inplace", "--no-backup"]) == 0
    assert src.read_text() == HIP and not src.with_name("a.cu.prehip").exists()


def test_inplace_and_output_dir_conflict(src, tmp_path):
    assert run([str(src), "--inplace", "--output-dir", str(tmp_path)]) == 2


@pytest.mark.parametrize("flag", ["--print-stats", "-print-stats"])
def test_print_stats(src, flag, capsys):
    assert run([str(src), flag]) == 0
    out = capsys.readouterr()
    assert out.out == HIP
    assert f"[HIPIFY] info: file '{src}' statistics:" in out.err
    assert "  CONVERTED refs count: 2" in out.err and "  TOTAL lines of code: 3" in out.err


def test_print_stats_totals_for_several_files(src, tmp_path, capsys):
    other = tmp_path / "b.cu"
    other.write_text(CUDA)
    assert run([str(src), str(other), "--print-stats", "--no-output"]) == 0
    err = capsys.readouterr().err
    assert "file 'GLOBAL' statistics:" in err and "  PROCESSED files: 2" in err


@pytest.mark.parametrize("flag", ["--examine", "-examine"])
def test_examine(src, flag, capsys):
    assert run([str(src), flag]) == 0
    out = capsys.readouterr()
    assert out.out == "" and "CONVERTED refs count" in out.err and src.read_text() == CUDA


@pytest.mark.parametrize("flag", ["--no-output", "-no-output"])
def test_no_output(src, flag, capsys):
    assert run([str(src), flag]) == 0
    assert capsys.readouterr().out == ""


def test_warnings_and_quiet(tmp_path, capsys):
    path = tmp_path / "w.cu"
    path.write_text("cudaSetDoubleForDevice(p);\n")
    assert run([str(path), "--no-output"]) == 0
    assert f"{path}:1:1: warning: 'cudaSetDoubleForDevice' is unsupported in 'HIP'." in capsys.readouterr().err
    for flag in ("--quiet-warnings", "-quiet-warnings"):
        assert run([str(path), "--no-output", flag]) == 0
        assert capsys.readouterr().err == ""


@pytest.mark.parametrize("flags", [["--hip-kernel-execution-syntax"], ["-hip-kernel-execution-syntax"],
                                   ["--cuda-kernel-execution-syntax", "--hip-kernel-execution-syntax"]])
def test_hip_kernel_syntax(src, flags, capsys):
    assert run([str(src), *flags]) == 0
    assert capsys.readouterr().out == HIP_GGL


def test_cuda_kernel_syntax_keeps_launches(src, capsys):
    assert run([str(src), "--cuda-kernel-execution-syntax"]) == 0
    assert capsys.readouterr().out == HIP


def _one(tmp_path: Path, text: str, *flags: str) -> tuple[int, str]:
    path = tmp_path / "t.cu"
    path.write_text(text)
    out = tmp_path / "t.hip"
    code = run([str(path), "-o", str(out), "--quiet-warnings", *flags])
    return code, out.read_text() if out.exists() else ""


@pytest.mark.parametrize("flag", ["--roc", "-roc"])
def test_roc(tmp_path, flag):
    assert _one(tmp_path, "cublasHandle_t h;", flag)[1].endswith("rocblas_handle h;")


def test_miopen(tmp_path):
    assert _one(tmp_path, "cudnnHandle_t h;", "--miopen")[1].endswith("miopenHandle_t h;")


def test_roc_and_miopen_together(tmp_path):
    # hipify-clang's options are independent: both give MIOpen for cuDNN, rocBLAS for cuBLAS
    # and the cuDNN -> MIOpen argument rewrites (HIPIFY's cudnn tests run with both)
    text = _one(tmp_path, "cudnnHandle_t h; cublasHandle_t b;\n"
                "cudnnSoftmaxForward(h, algo, mode, a, xd, x, b2, yd, y);", "--roc", "--miopen")[1]
    assert "miopenHandle_t h; rocblas_handle b;" in text
    assert "miopenSoftmaxForward_V2(h, a, xd, x, b2, yd, y, algo, mode);" in text


def test_unknown_option_fails_clearly(src, capsys):
    assert run([str(src), "--no-such-option"]) == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--experimental", "-experimental"])
def test_experimental(tmp_path, flag):
    assert "cudaLaunchKernelExC" in _one(tmp_path, "cudaLaunchKernelExC(&c, f, a);")[1]
    assert "hipLaunchKernelExC" in _one(tmp_path, "cudaLaunchKernelExC(&c, f, a);", flag)[1]


def test_use_hip_data_types(tmp_path):
    assert "HIP_R_32F" in _one(tmp_path, "x = CUDA_R_32F;", "--roc", "--use-hip-data-types")[1]


PP = "#if defined(FEATURE)\ncudaFree(p);\n#endif\n"


@pytest.mark.parametrize("flag", ["--skip-excluded-preprocessor-conditional-blocks", "--default-preprocessor",
                                  "-default-preprocessor"])
def test_default_preprocessor(tmp_path, flag):
    assert "cudaFree(p);" in _one(tmp_path, PP, flag)[1]
    assert "hipFree(p);" in _one(tmp_path, PP)[1]


def test_defines(tmp_path):
    assert "hipFree(p);" in _one(tmp_path, PP, "--default-preprocessor", "-D", "FEATURE")[1]
    assert "hipFree(p);" in _one(tmp_path, PP, "--default-preprocessor", "-DFEATURE=1")[1]
    assert "hipFree(p);" in _one(tmp_path, PP, "--default-preprocessor", "--", "-DFEATURE", "-std=c++17")[1]


def test_amap(tmp_path):
    assert "hipFree(p);" in _one(tmp_path, PP, "--default-preprocessor", "--amap")[1]


def test_compatibility_options_ignored(tmp_path):
    # (-I is searched for --local-headers; -p reads a compilation database: tests/hipify/test_hipify_local_headers.py)
    code, out = _one(tmp_path, "cudaFree(p);", "--cuda-path=/usr/local/cuda", "-I", "inc",
                     "--cuda-gpu-arch=sm_80", "--save-temps", "-v", "--temp-dir=/tmp", "--no-undocumented-features")
    assert code == 0 and "hipFree(p);" in out
    assert "hipFree(p);" in _one(tmp_path, PP, "--default-preprocessor", "--extra-arg=-DFEATURE")[1]


def test_translate_strings_and_comments(tmp_path):
    # strings are translated by default, as hipify-clang does; comments only when asked
    text = 'puts("cudaFree done"); // cudaFree\n'
    assert _one(tmp_path, text)[1].endswith('puts("hipFree done"); // cudaFree\n')
    assert _one(tmp_path, text, "--no-translate-strings")[1].endswith(text)
    assert _one(tmp_path, text, "--translate-strings", "--translate-comments")[1].endswith(
        'puts("hipFree done"); // hipFree\n'
    )


def test_whitelist(tmp_path, capsys):
    path = tmp_path / "w.cu"
    path.write_text("cudaMine(x);\n")
    assert run([str(path), "--no-output"]) == 0
    assert "cudaMine" in capsys.readouterr().err
    assert run([str(path), "--no-output", "-whitelist=cudaMine,cudaOther"]) == 0
    assert capsys.readouterr().err == ""


def test_exclude_dirs_and_files(tmp_path):
    tree = tmp_path / "t"
    for rel in ("keep.cu", "skip.cu", "third_party/x.cu"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(CUDA)
    out = tmp_path / "o"
    assert run([str(tree), "--output-dir", str(out), f"--exclude-dirs={tree / 'third_party'}",
                f"-exclude-files={tree / 'skip.cu'}"]) == 0
    assert sorted(p.name for p in out.rglob("*.cu")) == ["keep.cu"]


def test_encoding(tmp_path, capsys):
    path = tmp_path / "l.cu"
    path.write_bytes("// caf\xe9\ncudaFree(p);\n".encode("latin-1"))
    out = tmp_path / "l.hip"
    assert run([str(path), "--encoding", "latin-1", "-o", str(out)]) == 0
    assert out.read_bytes() == "#include <hip/hip_runtime.h>\n// caf\xe9\nhipFree(p);\n".encode("latin-1")


def test_non_utf8_bytes_kept(tmp_path):
    # a Windows-1252 apostrophe (0x92) in a comment and a Latin-1 byte in a string: the CUDA
    # names are translated and every other byte comes back unchanged, without --encoding
    data = (b"// it\x92s a test\n#include <cuda_runtime.h>\n"
            b"const char *s = \"caf\xe9\"; void f(float *p) { cudaFree(p); }\n")
    path = tmp_path / "w.cu"
    path.write_bytes(data)
    out = tmp_path / "w.hip"
    assert run([str(path), "-o", str(out)]) == 0
    assert out.read_bytes() == data.replace(b"cuda_runtime.h", b"hip/hip_runtime.h").replace(
        b"cudaFree", b"hipFree")
    result = subprocess.run([sys.executable, "-m", "openhip", "hipify", str(path)], capture_output=True)
    assert result.returncode == 0 and result.stdout == out.read_bytes()
    # in place: the file itself gets the same bytes
    assert run([str(path), "--inplace", "--no-backup"]) == 0
    assert path.read_bytes() == out.read_bytes()


def test_encoding_to_stdout(tmp_path):
    path = tmp_path / "l.cu"
    path.write_bytes("// caf\xe9\ncudaFree(p);\n".encode("latin-1"))
    result = subprocess.run([sys.executable, "-m", "openhip", "hipify", str(path), "--encoding", "latin-1"],
                            capture_output=True)
    assert result.returncode == 0
    assert result.stdout == "#include <hip/hip_runtime.h>\n// caf\xe9\nhipFree(p);\n".encode("latin-1")


def test_bad_files_fail_others_continue(tmp_path, capsys):
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "a_good.cu").write_text(CUDA)
    (tree / "b_binary.cu").write_bytes(b"\x7fELF\x00\x01")
    (tree / "c_latin.cu").write_bytes(b"\xff\xfe")
    (tree / "d_launch.cu").write_text("void f() {\n  k<<<1, 2(x);\n}\n")
    (tree / "e_good.cu").write_text(CUDA)
    out = tmp_path / "o"
    assert run([str(tree), "--output-dir", str(out)]) == 1
    err = capsys.readouterr().err
    assert "b_binary.cu: binary file" in err
    assert "c_latin" not in err  # bytes that are not UTF-8 are kept, not refused
    assert "d_launch.cu:2:4: unbalanced '<<<'" in err
    assert sorted(p.name for p in out.iterdir()) == ["a_good.cu", "c_latin.cu", "e_good.cu"]
    # a .cu file gets the HIP runtime header (as nvcc's implicit cuda_runtime.h); its bytes stay
    assert (out / "c_latin.cu").read_bytes() == b"#include <hip/hip_runtime.h>\n\xff\xfe"


def test_missing_file(tmp_path, capsys):
    assert run([str(tmp_path / "nope.cu")]) == 1
    assert "nope.cu" in capsys.readouterr().err


def test_usage_errors(capsys):
    assert run([]) == 2
    assert run(["--no-such-flag", "x.cu"]) == 2
    capsys.readouterr()


def test_help_and_version(capsys):
    assert run(["--help"]) == 0
    assert "--hip-kernel-execution-syntax" in capsys.readouterr().out
    for flag in ("--version", "-version"):
        assert run([flag]) == 0
        assert "openhip hipify" in capsys.readouterr().out


def test_normalize_argv():
    assert normalize_argv(["-inplace", "-o=x", "-D", "A", "--", "-DB"]) == (["--inplace", "-o", "x", "-D", "A"], ["-DB"])
    assert normalize_argv(["-DX", "-I", "inc"]) == (["-DX", "-I", "inc"], [])


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_inplace_keeps_file_mode(src):
    src.chmod(0o640)
    assert run([str(src), "--inplace"]) == 0
    assert src.stat().st_mode & 0o777 == 0o640
