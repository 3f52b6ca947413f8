"""Kernel launches: parsed as a grammar, kept by default, rewritten exactly as hipify-clang."""

from __future__ import annotations

import re

import pytest

from openhip.hipify import HipifyError, hipify, translate

HEAD = "#include <hip/hip_runtime.h>\n"


def ggl(text: str, **options) -> str:
    out = translate(HEAD + text, hip_kernel_execution_syntax=True, **options)
    return out[len(HEAD) :]


@pytest.mark.parametrize(
    "cuda, hip",
    [
        ("k<<<1, n>>>(a, b);", "hipLaunchKernelGGL(k, dim3(1), dim3(n), 0, 0, a, b);"),
        ("k<<<g, b, shm>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, 0, x);"),
        ("k<<<g, b, shm, s>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, s, x);"),
        ("k<<<dim3(1,1,1), dim3(n)>>>();", "hipLaunchKernelGGL(k, dim3(1,1,1), dim3(n), 0, 0);"),
        ("empty<<<1, n>>> ( );", "hipLaunchKernelGGL(empty, dim3(1), dim3(n), 0, 0);"),
        ("k<float><<<1, n>>>(a);", "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float>), dim3(1), dim3(n), 0, 0, a);"),
        ("k<float,double><<<1, n*2+10, N*N, s>>>(a);",
         "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float,double>), dim3(1), dim3(n*2+10), N*N, s, a);"),
        ("k<T, 4><<<(n + 255) / 256, 256>>>(x);",
         "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<T, 4>), dim3((n + 255) / 256), dim3(256), 0, 0, x);"),
        ("ns::k<<<1, 1>>>(x);", "hipLaunchKernelGGL(ns::k, dim3(1), dim3(1), 0, 0, x);"),
        ("::k<<<1, 1>>>(x);", "hipLaunchKernelGGL(::k, dim3(1), dim3(1), 0, 0, x);"),
        ("a::b<Tile<32>>::k<<<1, 1>>>(x);",
         "hipLaunchKernelGGL(HIP_KERNEL_NAME(a::b<Tile<32>>::k), dim3(1), dim3(1), 0, 0, x);"),
        ("k<<<sizeof(float) * n, dim3(a, b)>>>(x);",
         "hipLaunchKernelGGL(k, dim3(sizeof(float) * n), dim3(a, b), 0, 0, x);"),
        ("k<<<std::min<int>(a, b), c ? d : e>>>(f(g, h), i);",
         "hipLaunchKernelGGL(k, dim3(std::min<int>(a, b)), dim3(c ? d : e), 0, 0, f(g, h), i);"),
        ("k<<<grid_arr[0], cfg.y>>>(0);", "hipLaunchKernelGGL(k, dim3(grid_arr[0]), dim3(cfg.y), 0, 0, 0);"),
        ("k<<<1, 256, shared_mem, &stream>>>(0);",
         "hipLaunchKernelGGL(k, dim3(1), dim3(256), shared_mem, &stream, 0);"),
        ("k<<<1,\n     2,\n     0,\n     s>>>(a,\n  b);", "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, s, a,\n  b);"),
        ("k <<< 1 , 2 >>> ( d ) ;", "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, d) ;"),
        ("k<<<1, 1, 0, (cudaStream_t)0>>>(x);", "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, (hipStream_t)0, x);"),
        ("k<cub::Sum><<<1, 1>>>(x);", "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<hipcub::Sum>), dim3(1), dim3(1), 0, 0, x);"),
        ("k<<<1, 1>>>(v<vector<vector<int>>>(x));",
         "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, v<vector<vector<int>>>(x));"),
        ("k<<<1, 1>>>(a /* note */);", "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, a);"),
        ("(*fp)<<<1, 1>>>(x);", "hipLaunchKernelGGL((*fp), dim3(1), dim3(1), 0, 0, x);"),
    ],
)
def test_hip_launch_syntax(cuda, hip):
    assert ggl(cuda) == hip


def test_template_kernel_declared_in_file_gets_kernel_name_macro():
    src = "template <typename T>\n__global__ void axpy(T *x) {}\nvoid f(float *x) { axpy<<<1, 1>>>(x); }\n"
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(axpy), dim3(1), dim3(1), 0, 0, x);" in ggl(src)


def test_launch_inside_macro_definition():
    src = "#define LAUNCH(k, g, b, ...) \\\n  k<<<g, b>>>(__VA_ARGS__)\n"
    assert ggl(src) == "#define LAUNCH(k, g, b, ...) \\\n  hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, __VA_ARGS__)\n"


def test_kept_by_default():
    src = HEAD + "k<T, 4><<<(n + 255) / 256, 256, 0, s>>>(x);\n"
    assert translate(src) == src
    assert translate(src, hip_kernel_execution_syntax=False) == src


def test_launch_counted_in_stats():
    r = hipify(HEAD + "k<<<1, 1>>>(x); k<<<2, 2>>>(y);", hip_kernel_execution_syntax=True)
    assert r.stats.converted.by_type["CONV_KERNEL_LAUNCH"] == 2


@pytest.mark.parametrize(
    "bad, message, column",
    [
        ("k<<<1, 2(x);", "unbalanced '<<<'", 3),
        ("<<<1, 2>>>(x);", "without a kernel name", 2),
        ("k<<<1>>>(x);", "2 to 4 configuration arguments, not 1", 3),
        ("k<<<1, 2, 3, 4, 5>>>(x);", "2 to 4 configuration arguments, not 5", 3),
        ("k<<<1, 2>>>;", "not followed by the kernel's '(' arguments", 3),
        ("k<<<1, 2>>>(x;", "unbalanced '(' in the kernel launch arguments", 3),
        ("k<<<1, , 2>>>(x);", "2 to 4 configuration arguments", 3),
    ],
)
def test_malformed_launch_is_a_clear_error(bad, message, column):
    for options in ({}, {"hip_kernel_execution_syntax": True}):
        with pytest.raises(HipifyError, match=re.escape(message)) as info:
            translate("int x;\n " + bad, filename="bad.cu", **options)
        assert (info.value.file, info.value.line, info.value.column) == ("bad.cu", 2, column)
        assert str(info.value).startswith(f"bad.cu:2:{column}: ")


def test_launch_in_inactive_branch_is_left_alone():
    src = HEAD + "#if 0\nk<<<1, 2(x);\n#endif\n"
    assert translate(src, skip_excluded_preprocessor_blocks=True) == src


def test_launch_fragment_in_macro_is_kept_with_warning():
    src = HEAD + "#define KERNEL_ARGS2(grid, block) <<<grid, block>>>\nk KERNEL_ARGS2(1, 2)(x);\n"
    for options in ({}, {"hip_kernel_execution_syntax": True}):
        r = hipify(src, filename="m.cu", **options)
        assert r.text == src
        assert r.warnings[0].line == 2 and "left as it is" in r.warnings[0].message
