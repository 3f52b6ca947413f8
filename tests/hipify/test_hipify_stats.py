"""Statistics: counts per category, library and name; the --print-stats report layout."""

from __future__ import annotations

from openhip.hipify import Stats, hipify

SRC = (
    "#include <cuda_runtime.h>\n"
    "__global__ void k(float *x) {}\n"
    "int main() {\n"
    "  float *d;\n"
    "  cudaMalloc(&d, 4);\n"
    "  cudaSetDoubleForDevice(nullptr);\n"
    "  k<<<1, 1>>>(d);\n"
    "  cudaFree(d);\n"
    "}\n"
)


def test_counts():
    r = hipify(SRC, filename="s.cu", hip_kernel_execution_syntax=True)
    s = r.stats
    assert s.converted.by_type == {
        "CONV_INCLUDE_CUDA_MAIN_H": 1, "CONV_MEMORY": 2, "CONV_KERNEL_LAUNCH": 1,
    }
    assert s.converted.by_api == {"CUDA_Runtime_API": 4}
    assert s.unconverted.by_name == {"cudaSetDoubleForDevice": 1}
    assert s.total_lines == 9
    assert s.changed_lines == 4
    assert s.warnings == 2
    assert round(s.conversion_percent, 1) == 80.0


def test_report_layout():
    r = hipify(SRC, filename="s.cu")
    r.stats.seconds = 0.0
    assert r.stats.report() == (
        "\n"
        "[HIPIFY] info: file 's.cu' statistics:\n"
        "  CONVERTED refs count: 3\n"
        "  UNCONVERTED refs count: 1\n"
        "  CONVERSION %: 75.0\n"
        f"  REPLACED bytes: {r.stats.replaced_bytes}\n"
        f"  TOTAL bytes: {len(SRC)}\n"
        "  CHANGED lines of code: 3\n"
        "  TOTAL lines of code: 9\n"
        f"  CODE CHANGED (in bytes) %: {100 * r.stats.replaced_bytes / len(SRC):.1f}\n"
        "  CODE CHANGED (in lines) %: 33.3\n"
        "  WARNINGS: 2\n"
        "  TIME ELAPSED s: 0.00\n"
        "[HIPIFY] info: CONVERTED refs by type:\n"
        "  memory: 2\n"
        "  include_cuda_main_header: 1\n"
        "[HIPIFY] info: CONVERTED refs by API:\n"
        "  CUDA RT API: 3\n"
        "[HIPIFY] info: CONVERTED refs by names:\n"
        "  cudaFree: 1\n"
        "  cudaMalloc: 1\n"
        "  cuda_runtime.h: 1\n"
        "[HIPIFY] info: UNCONVERTED refs by type:\n"
        "  execution: 1\n"
        "[HIPIFY] info: UNCONVERTED refs by API:\n"
        "  CUDA RT API: 1\n"
        "[HIPIFY] info: UNCONVERTED refs by names:\n"
        "  cudaSetDoubleForDevice: 1\n"
    )


def test_merge_and_total_report():
    total = Stats(file="GLOBAL", files=0)
    for name in ("a.cu", "b.cu"):
        total.merge(hipify(SRC, filename=name).stats)
    assert total.files == 2 and total.changed_files == 2
    assert total.converted.total == 6
    report = total.report(total=True)
    assert "[HIPIFY] info: file 'GLOBAL' statistics:" in report
    assert report.endswith("[HIPIFY] info: TOTAL statistics:\n  CONVERTED files: 2\n  PROCESSED files: 2\n")


def test_empty_file():
    r = hipify("")
    assert r.text == "" and r.stats.conversion_percent == 100.0
    assert "CODE CHANGED (in lines) %: 0.0" in r.stats.report()
