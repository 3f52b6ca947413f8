"""#include handling: mapping, removal, de-duplication and placing hip/hip_runtime.h once."""

from __future__ import annotations

from openhip.hipify import hipify, translate


def test_main_header_mapped_keeping_quotes_and_brackets():
    assert translate('#include "cuda_runtime.h"\ncudaFree(p);\n') == '#include "hip/hip_runtime.h"\nhipFree(p);\n'
    assert translate("#include <cuda.h>\n") == "#include <hip/hip_runtime.h>\n"


def test_second_main_header_removed_line_kept():
    src = "#include <cuda_runtime.h>\n#include <cuda.h>  // driver too\nint x;\n"
    assert translate(src) == "#include <hip/hip_runtime.h>\n  // driver too\nint x;\n"


def test_header_without_hip_counterpart_dropped_and_reported():
    r = hipify("#include <cuda_runtime.h>\n#include <device_launch_parameters.h>\n", filename="h.cu")
    assert r.text == "#include <hip/hip_runtime.h>\n\n"
    assert r.warnings[0].line == 2 and "no HIP counterpart" in r.warnings[0].message


def test_library_headers():
    src = (
        "#include <cublas_v2.h>\n#include <curand_kernel.h>\n#include <cufft.h>\n#include <cusparse.h>\n"
        "#include <cusolverDn.h>\n#include <cudnn.h>\n#include <cub/cub.cuh>\n#include <nvrtc.h>\n"
        "#include <cuComplex.h>\n#include <cuda_fp16.h>\n#include <cooperative_groups.h>\n"
    )
    assert translate(src) == (
        "#include <hip/hip_runtime.h>\n"
        "#include <hipblas.h>\n#include <hiprand/hiprand_kernel.h>\n#include <hipfft/hipfft.h>\n"
        "#include <hipsparse.h>\n#include <hipsolver.h>\n#include <hipDNN.h>\n"
        "#include <hipcub/hipcub.hpp>\n#include <hip/hiprtc.h>\n#include <hip/hip_complex.h>\n"
        "#include <hip/hip_fp16.h>\n#include <hip/hip_cooperative_groups.h>\n"
    )


def test_blas_v1_then_v2_deduplicated():
    assert translate("#include <cublas.h>\n#include <cublas_v2.h>\n") == (
        "#include <hip/hip_runtime.h>\n#include <hipblas.h>\n\n"
    )


def test_roc_headers():
    src = "#include <cublas_v2.h>\n#include <curand.h>\n#include <cusparse.h>\n"
    assert translate(src, roc=True) == (
        "#include <hip/hip_runtime.h>\n#include <rocblas.h>\n#include <rocrand/rocrand.h>\n#include <rocsparse.h>\n"
    )


def test_unsupported_header_kept_and_warned():
    r = hipify("#include <caffe2/core/common_gpu.h>\n", filename="c.cu")
    assert "#include <caffe2/core/common_gpu.h>" in r.text
    assert "unsupported header" in r.warnings[0].message


def test_runtime_added_before_first_include():
    src = "// header comment\n#include <cstdio>\n__global__ void k() {}\n"
    assert translate(src) == "// header comment\n#include <hip/hip_runtime.h>\n#include <cstdio>\n__global__ void k() {}\n"


def test_runtime_added_at_top_without_includes():
    assert translate("__global__ void k() { __syncthreads(); }\n") == (
        "#include <hip/hip_runtime.h>\n__global__ void k() { __syncthreads(); }\n"
    )


def test_runtime_added_inside_include_guard():
    # right after the guard's #ifndef, where hipify-clang puts it (clang's controlling macro)
    src = "#ifndef A_H\n#define A_H\n#include <vector>\nvoid f() { cudaDeviceSynchronize(); }\n#endif\n"
    assert translate(src) == (
        "#ifndef A_H\n#include <hip/hip_runtime.h>\n#define A_H\n#include <vector>\n"
        "void f() { hipDeviceSynchronize(); }\n#endif\n"
    )


def test_runtime_after_guard_or_pragma_once_whichever_first():
    src = "#ifndef G\n#pragma once\n#define G\ncudaStream_t s;\n#endif // G"
    assert translate(src) == "#ifndef G\n#include <hip/hip_runtime.h>\n#pragma once\n#define G\nhipStream_t s;\n#endif // G"
    src = "#pragma once\n#ifndef G\n#define G\ncudaStream_t s;\n#endif\n"
    assert translate(src).startswith("#pragma once\n#include <hip/hip_runtime.h>\n#ifndef G\n")
    # an #ifndef that does not close the file is no guard
    src = "#ifndef G\n#define G\n#endif\ncudaStream_t s;\n"
    assert translate(src).startswith("#include <hip/hip_runtime.h>\n#ifndef G\n")


def test_runtime_added_after_pragma_once():
    src = "#pragma once\n#include <vector>\ncudaStream_t s;\n"
    assert translate(src) == "#pragma once\n#include <hip/hip_runtime.h>\n#include <vector>\nhipStream_t s;\n"


def test_runtime_not_added_to_conditional_include_position():
    src = "#ifdef X\n#include <a.h>\n#endif\ncudaStream_t s;\n"
    assert translate(src) == "#include <hip/hip_runtime.h>\n#ifdef X\n#include <a.h>\n#endif\nhipStream_t s;\n"


def test_runtime_not_added_to_plain_cpp_or_hip_code():
    plain = "#include <cmath>\nint max(int a, int b) { return a > b ? a : b; }\nint y = max(1, 2);\n"
    assert translate(plain) == plain
    plain = "#include <cmath>\ndouble f(double x) { return sqrt(x) + abs(x); }\nGLuint tex;\n"
    assert translate(plain) == plain
    hip = "__global__ void k(float *x) { x[threadIdx.x] = 0; }\nvoid f() { hipLaunchKernelGGL(k, 1, 1, 0, 0, p); }\n"
    assert translate(hip) == hip
    already = "#include <hip/hip_runtime.h>\n__global__ void k() {}\n"
    assert translate(already) == already


def test_runtime_added_once_with_crlf():
    src = "#include <cstdio>\r\n__global__ void k() {}\r\n"
    out = translate(src)
    assert out == "#include <hip/hip_runtime.h>\r\n#include <cstdio>\r\n__global__ void k() {}\r\n"
    assert translate(out) == out


def test_byte_order_mark_stays_first():
    assert translate("\ufeff#include <cstdio>\n__global__ void k() {}\n") == (
        "\ufeff#include <hip/hip_runtime.h>\n#include <cstdio>\n__global__ void k() {}\n"
    )
    assert translate("\ufeff__global__ void k() {}\n") == "\ufeff#include <hip/hip_runtime.h>\n__global__ void k() {}\n"


def test_nul_in_text_is_an_error():
    import pytest

    from openhip.hipify import HipifyError

    with pytest.raises(HipifyError, match="binary input"):
        translate("int a;\x00", filename="n.cu")


def test_ifndef_that_is_not_a_guard():
    src = "#ifndef BLOCK\n#define BLOCK 256\n#endif\n#include <vector>\ncudaStream_t s;\n"
    assert translate(src) == (
        "#ifndef BLOCK\n#define BLOCK 256\n#endif\n#include <hip/hip_runtime.h>\n#include <vector>\nhipStream_t s;\n"
    )


def test_guard_and_pragma_once_without_trailing_newline():
    assert translate("#pragma once") == "#pragma once"
    assert translate("#pragma once\ncudaStream_t s;") == "#pragma once\n#include <hip/hip_runtime.h>\nhipStream_t s;"


def test_cuda_samples_helper_headers_kept():
    """helper_cuda.h / helper_math.h are cuda-samples' own headers, not CUDA's: kept for
    local-header translation (HIPIFY rocm-7.0.2 maps them to HIP runtime headers)."""
    src = '#include <cuda_runtime.h>\n#include <helper_cuda.h>\n#include "helper_math.h"\n'
    assert translate(src) == '#include <hip/hip_runtime.h>\n#include <helper_cuda.h>\n#include "helper_math.h"\n'
