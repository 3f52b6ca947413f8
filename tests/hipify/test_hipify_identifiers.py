"""Identifiers: whole tokens only, every library, the roc* targets, unsupported names kept."""

from __future__ import annotations

import pytest

from openhip.hipify import hipify, translate


def body(text: str, **options) -> str:
    """Translate a fragment that already includes the HIP runtime (so nothing is added)."""
    head = "#include <hip/hip_runtime.h>\n"
    out = translate(head + text, **options)
    assert out.startswith(head)
    return out[len(head) :]


@pytest.mark.parametrize(
    "cuda, hip",
    [
        # runtime and driver
        ("cudaMalloc(&p, n);", "hipMalloc(&p, n);"),
        ("cudaStream_t s; cudaEvent_t e;", "hipStream_t s; hipEvent_t e;"),
        ("cudaDeviceProp p;", "hipDeviceProp_t p;"),
        ("cuMemAlloc(&d, n); CUdeviceptr d;", "hipMalloc(&d, n); hipDeviceptr_t d;"),
        ("CUresult r = cuInit(0);", "hipError_t r = hipInit(0);"),
        # device functions and types
        ("x = __shfl_down_sync(m, v, 1);", "x = __shfl_down_sync(m, v, 1);"),
        ("curand_init(s, i, 0, &st);", "hiprand_init(s, i, 0, &st);"),
        ("__half h;", "__half h;"),
        # cuComplex
        ("cuFloatComplex z = make_cuFloatComplex(1, 2);", "hipFloatComplex z = make_hipFloatComplex(1, 2);"),
        ("cuCaddf(a, b)", "hipCaddf(a, b)"),
        # cuBLAS (v2 name), cuRAND, cuFFT, cuSPARSE, cuSOLVER, cuDNN, NVRTC
        ("cublasSgemm_v2(h);", "hipblasSgemm(h);"),
        ("curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);", "hiprandCreateGenerator(&g, HIPRAND_RNG_PSEUDO_DEFAULT);"),
        ("cufftHandle p; cufftPlan1d(&p, n, CUFFT_C2C, 1);", "hipfftHandle p; hipfftPlan1d(&p, n, HIPFFT_C2C, 1);"),
        ("cusparseHandle_t h; cusparseCreate(&h);", "hipsparseHandle_t h; hipsparseCreate(&h);"),
        ("cusolverDnHandle_t h; cusolverDnCreate(&h);", "hipsolverHandle_t h; hipsolverDnCreate(&h);"),
        ("cudnnHandle_t h; cudnnCreate(&h);", "hipdnnHandle_t h; hipdnnCreate(&h);"),
        ("nvrtcProgram p; nvrtcCreateProgram(&p);", "hiprtcProgram p; hiprtcCreateProgram(&p);"),
        # CUB
        ("cub::DeviceReduce::Sum(t, b, i, o, n);", "hipcub::DeviceReduce::Sum(t, b, i, o, n);"),
        ("using namespace cub;", "using namespace hipcub;"),
        ("int cub = 1; f(cub);", "int cub = 1; f(cub);"),
        ("CubDebug(e);", "HipcubDebug(e);"),
    ],
)
def test_libraries(cuda, hip):
    assert body(cuda) == hip


def test_whole_tokens_only():
    text = "cudaMallocX(p); my_cudaMalloc(p); cudaMalloc_(p); obj.cudaMallocFoo;"
    assert body(text) == text


def test_strings_and_comments_untouched_by_default():
    text = 'printf("cudaMalloc failed"); // cudaMalloc\n/* cudaFree */\n'
    assert body(text) == text


def test_translate_strings_like_hipify_clang():
    text = 'puts("cudaMalloc failed"); puts("x cudaFree"); puts("cudaMalloc: no"); puts("xcudaFree");\n'
    assert body(text, translate_strings=True) == (
        'puts("hipMalloc failed"); puts("x hipFree"); puts("cudaMalloc: no"); puts("xcudaFree");\n'
    )
    assert body('puts("cub");', translate_strings=True) == 'puts("cub");'


def test_translate_comments():
    assert body("// calls cudaMalloc and cudaFree\n", translate_comments=True) == (
        "// calls hipMalloc and hipFree\n"
    )


def test_raw_string_untouched():
    text = 'const char *k = R"(cudaMalloc(&p, n); k<<<1, 1>>>(x);)";\n'
    assert body(text) == text


def test_preprocessor_lines_translated():
    text = "#define CHECK(x) if ((x) != cudaSuccess) cudaDeviceReset()\n"
    assert body(text) == "#define CHECK(x) if ((x) != hipSuccess) hipDeviceReset()\n"


def test_unsupported_kept_and_warned_with_location():
    r = hipify("#include <hip/hip_runtime.h>\nint x;\n  cudaSetDoubleForDevice(f);\n", filename="a.cu")
    assert "cudaSetDoubleForDevice(f);" in r.text
    messages = [(w.file, w.line, w.column, w.message) for w in r.warnings]
    assert ("a.cu", 3, 3, "'cudaSetDoubleForDevice' is unsupported in 'HIP'.") in messages
    assert r.stats.unconverted.by_name["cudaSetDoubleForDevice"] == 1
    assert str(r.warnings[-1]) == "a.cu:3:3: warning: 'cudaSetDoubleForDevice' is unsupported in 'HIP'."


def test_deprecated_translated_and_warned():
    r = hipify("cudaThreadSynchronize();", filename="d.cu")
    assert "hipDeviceSynchronize();" in r.text
    assert [w.message for w in r.warnings] == ["'cudaThreadSynchronize' is deprecated since CUDA 10.0."]


def test_removed_translated_and_warned():
    r = hipify("cudaBindTexture(0, t, p);", filename="r.cu")
    assert "hipBindTexture(0, t, p);" in r.text
    assert any("removed in CUDA 12.0" in w.message for w in r.warnings)


def test_experimental_needs_flag():
    r = hipify("cudaLaunchKernelExC(&c, f, a);", filename="e.cu")  # HIP_EXPERIMENTAL in 7.0.2
    assert "cudaLaunchKernelExC(&c, f, a);" in r.text
    assert "use the '--experimental' option" in r.warnings[0].message
    assert "hipLaunchKernelExC(&c, f, a);" in translate("cudaLaunchKernelExC(&c, f, a);", experimental=True)


def test_v2_only_blas_names_need_cublas_v2_header():
    r = hipify("#include <cublas.h>\ncublasSgemm(h);\n", filename="b.cu")
    assert "cublasSgemm(h);" in r.text
    assert "include 'cublas_v2.h'" in r.warnings[0].message
    assert "hipblasSgemm(h);" in translate("#include <cublas_v2.h>\ncublasSgemm(h);\n")


def test_roc_targets():
    src = "#include <cublas_v2.h>\ncublasHandle_t h; cublasCreate(&h); cudaStream_t s;\n"
    assert translate(src, roc=True) == (
        "#include <hip/hip_runtime.h>\n#include <rocblas.h>\n"
        "rocblas_handle h; rocblas_create_handle(&h); hipStream_t s;\n"
    )


def test_miopen_targets():
    src = "#include <cudnn.h>\ncudnnHandle_t h; cudnnCreate(&h); cudaStream_t s;\n"
    assert translate(src, miopen=True) == (
        "#include <hip/hip_runtime.h>\n#include <miopen/miopen.h>\n"
        # HIPIFY rocm-7.0.2 gives cudaStream_t no MIOpen name (the 2024 tables had
        # miopenAcceleratorQueue_t, ROC_MIOPEN_ONLY)
        "miopenHandle_t h; miopenCreate(&h); hipStream_t s;\n"
    )


def test_roc_unsupported_kept():
    r = hipify("cusolverDnDgetrf(h);", roc=True, filename="s.cu")
    assert "cusolverDnDgetrf(h);" in r.text
    assert r.warnings[0].message == "'cusolverDnDgetrf' is unsupported in 'ROC'."


def test_use_hip_data_types_with_roc():
    assert "rocblas_datatype_f32_r" in translate("x = CUDA_R_32F;", roc=True)
    assert "HIP_R_32F" in translate("x = CUDA_R_32F;", roc=True, use_hip_data_types=True)


def test_roc_and_miopen_combine():
    text = translate("cudnnHandle_t h; cublasHandle_t b; cusparseHandle_t s;", roc=True, miopen=True)
    assert text.endswith("miopenHandle_t h; rocblas_handle b; rocsparse_handle s;")
    # the roc* names of --roc alone are kept for the other libraries
    assert translate("cublasHandle_t b;", roc=True).endswith("rocblas_handle b;")


def test_unknown_option():
    with pytest.raises(TypeError, match="unknown hipify option"):
        translate("x", no_such_option=True)


def test_unsupported_device_function_only_when_called_and_not_user_defined():
    # mulhi: HIPIFY and every openhip platform lack it (umin, HIPIFY's own example, is provided)
    r = hipify("__device__ int f(int a, int b) { return mulhi(a, b); }\n", filename="u.cu")
    assert any("'mulhi' is unsupported" in w.message for w in r.warnings)
    r = hipify(
        "__device__ int mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }\n"
        "__global__ void k(int *x) { x[0] = mulhi(x[1], x[2]); }\n",
        filename="u.cu",
    )
    assert not r.warnings


def test_a_prototype_in_a_comment_is_not_a_user_function():
    # HIPIFY's tests quote CUDA's prototype above each call (// CUDA: ... __nv_cvt_...(...);)
    src = (
        "// CUDA: __nv_fp8_storage_t __nv_cvt_float_to_fp8(const float x, ...);\n"
        "/* or: unsigned char __nv_cvt_float_to_fp8(float x); */\n"
        "__global__ void k(float* x, unsigned char* o) {\n"
        "  o[0] = __nv_cvt_float_to_fp8(x[0], __NV_SATFINITE, __NV_E4M3);\n}\n"
    )
    text = hipify(src, filename="c.cu").text
    assert "o[0] = __hip_cvt_float_to_fp8(x[0], __HIP_SATFINITE, __HIP_E4M3);" in text
    # declared in the code (after the same comment), it is the file's own function
    own = src.replace("__global__", "unsigned char __nv_cvt_float_to_fp8(float, int, int);\n"
                      "__global__")
    assert "o[0] = __nv_cvt_float_to_fp8(" in hipify(own, filename="c.cu").text


def test_unknown_cuda_identifier_warned_unless_whitelisted():
    r = hipify("cudaMyThing(x);", filename="w.cu")
    assert "looks like a CUDA API" in r.warnings[0].message
    assert not hipify("cudaMyThing(x);", filename="w.cu", whitelist={"cudaMyThing"}).warnings


def test_quiet_warnings_still_counted():
    r = hipify("cudaSetDoubleForDevice(f);", warnings=False)
    assert r.warnings == [] and r.stats.warnings == 2
