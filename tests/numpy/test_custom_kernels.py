"""openhip.numpy ElementwiseKernel / ReductionKernel / RawKernel / RawModule: CuPy's
documented examples ("User-Defined Kernels": squared_diff and its generic forms,
add_reverse with a raw argument, the l2norm ReductionKernel, my_add as a RawKernel) with
their documented outputs, broadcasting, out=, strided operands, the split reduction, bad
input, and the generated sources compiling for NVIDIA and AMD."""

from __future__ import annotations

import numpy as np
import pytest

import openhip.numpy as hnp
from openhip import CompileError


@pytest.fixture(scope="module")
def squared_diff():
    return hnp.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                 "z = (x - y) * (x - y)", "squared_diff")


def test_squared_diff_cupy_doc(device, squared_diff):
    x = hnp.reshape(hnp.arange(10, dtype=hnp.float32, device=device), (2, 5))
    y = hnp.arange(5, dtype=hnp.float32, device=device)
    want = np.array([[0, 0, 0, 0, 0], [25, 25, 25, 25, 25]], np.float32)
    np.testing.assert_array_equal(squared_diff(x, y).get(), want)
    np.testing.assert_array_equal(squared_diff(x, 5).get(),
                                  [[25, 16, 9, 4, 1], [0, 1, 4, 9, 16]])
    z = hnp.empty((2, 5), dtype=hnp.float32, device=device)
    assert squared_diff(x, y, z) is z
    np.testing.assert_array_equal(z.get(), want)
    # a transposed operand and a broadcast column
    a = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    col = np.arange(4, dtype=np.float32)[:, None]
    got = squared_diff(hnp.asarray(a, device=device).T, hnp.asarray(col, device=device))
    np.testing.assert_allclose(got.get(), (a.T - col) ** 2, rtol=1e-6)


def test_type_placeholders(device):
    generic = hnp.ElementwiseKernel("T x, T y", "T z", "T diff = x - y;\nz = diff * diff;",
                                    "squared_diff_generic")
    for dt in (np.float64, np.int32, np.float16):
        a = np.arange(6).astype(dt).reshape(2, 3)
        got = generic(hnp.asarray(a, device=device), hnp.asarray(a[0] * 2, device=device))
        assert got.dtype == dt
        np.testing.assert_array_equal(got.get(), ((a - a[0] * 2) ** 2).astype(dt))
    sup = hnp.ElementwiseKernel("X x, Y y", "Z z", "z = (x - y) * (x - y)",
                                "squared_diff_super_generic")
    x = hnp.asarray(np.arange(5, dtype=np.float32), device=device)
    y = hnp.asarray(np.arange(5, dtype=np.int64)[::-1].copy(), device=device)
    out = hnp.empty((5,), dtype=hnp.float64, device=device)
    sup(x, y, out)
    np.testing.assert_array_equal(out.get(), (np.arange(5) - np.arange(5)[::-1]) ** 2)
    with pytest.raises(TypeError, match="cannot determine type Z"):
        sup(x, y)


def test_raw_argument(device):
    add_reverse = hnp.ElementwiseKernel("T x, raw T y", "T z",
                                        "z = x + y[_ind.size() - i - 1]", "add_reverse")
    x = np.arange(8, dtype=np.float32)
    y = np.arange(8, dtype=np.float32) * 10
    got = add_reverse(hnp.asarray(x, device=device), hnp.asarray(y, device=device))
    np.testing.assert_array_equal(got.get(), x + y[::-1])
    # a raw view indexes through its strides
    y2 = np.arange(16, dtype=np.float32)
    got = add_reverse(hnp.asarray(x, device=device), hnp.asarray(y2, device=device)[::2])
    np.testing.assert_array_equal(got.get(), x + y2[::2][::-1])
    fill = hnp.ElementwiseKernel("", "raw int32 out", "out[i] = (int)(i * i)", "fill_sq")
    buf = hnp.zeros((6,), dtype=hnp.int32, device=device)
    fill(buf, size=6)
    np.testing.assert_array_equal(buf.get(), np.arange(6) ** 2)


def test_l2norm_cupy_doc(device):
    l2norm = hnp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    x = hnp.reshape(hnp.arange(10, dtype=hnp.float32, device=device), (2, 5))
    np.testing.assert_allclose(l2norm(x, axis=1).get(), [5.477226, 15.9687195], rtol=1e-6)
    a = np.random.default_rng(1).standard_normal((30, 7, 5))
    d = hnp.asarray(a, device=device)
    for axis in (None, 0, 1, (0, 2)):
        for keepdims in (False, True):
            got = l2norm(d, axis=axis, keepdims=keepdims)
            want = np.sqrt((a * a).sum(axis=axis, keepdims=keepdims))
            np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    t = hnp.permute_dims(d, (2, 0, 1))
    np.testing.assert_allclose(l2norm(t, axis=1).get(),
                               np.sqrt((a.transpose(2, 0, 1) ** 2).sum(1)), rtol=1e-12)
    out = hnp.empty((30,), dtype=hnp.float64, device=device)
    assert l2norm(d, axis=(1, 2), out=out) is out
    np.testing.assert_allclose(out.get(), np.sqrt((a * a).sum((1, 2))), rtol=1e-12)


def test_reduction_split_and_no_identity(device):
    big = np.random.default_rng(2).standard_normal(300000).astype(np.float64)
    l2 = hnp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm_big")
    np.testing.assert_allclose(float(l2(hnp.asarray(big, device=device)).get()),
                               np.sqrt((big * big).sum()), rtol=1e-12)
    mx = hnp.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None, "my_max")
    np.testing.assert_array_equal(mx(hnp.asarray(big.reshape(300, 1000), device=device),
                                     axis=0).get(), big.reshape(300, 1000).max(0))
    assert float(mx(hnp.asarray(big, device=device)).get()) == big.max()
    with pytest.raises(ValueError, match="identity"):
        mx(hnp.asarray(np.zeros(0), device=device))


def test_raw_kernel_and_module(device):
    add_kernel = hnp.RawKernel(r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
''', "my_add")
    x1 = hnp.reshape(hnp.arange(25, dtype=hnp.float32, device=device), (5, 5))
    y = hnp.zeros((5, 5), dtype=hnp.float32, device=device)
    add_kernel((5,), (5,), (x1, x1, y))
    np.testing.assert_array_equal(y.get(), np.arange(25, dtype=np.float32).reshape(5, 5) * 2)
    mod = hnp.RawModule(code="template<typename T> __global__ void fill(T* p, T v) "
                             "{ p[threadIdx.x] = v; }", name_expressions=["fill<float>"])
    q = hnp.zeros((4,), dtype=hnp.float32, device=device)
    mod.get_function("fill<float>")((1,), (4,), (q, 2.5))
    np.testing.assert_array_equal(q.get(), [2.5] * 4)


def test_bad_input(device, squared_diff):
    with pytest.raises(ValueError, match="unknown type"):
        hnp.ElementwiseKernel("floot32 x", "float32 y", "y = x", "k")
    with pytest.raises(ValueError, match="reserved"):
        hnp.ElementwiseKernel("float32 i", "float32 y", "y = i", "k")
    with pytest.raises(ValueError, match="valid kernel name"):
        hnp.ElementwiseKernel("float32 x", "float32 y", "y = x", "bad name")
    x = hnp.ones((2, 3), dtype=hnp.float32, device=device)
    with pytest.raises(ValueError, match="broadcast"):
        squared_diff(x, hnp.ones((4,), dtype=hnp.float32, device=device))
    with pytest.raises(TypeError, match="takes 2 input"):
        squared_diff(x)
    with pytest.raises(TypeError, match="writes float32"):
        squared_diff(x, x, hnp.empty((2, 3), dtype=hnp.float64, device=device))
    with pytest.raises(ValueError, match="shape"):
        squared_diff(x, x, hnp.empty((3, 2), dtype=hnp.float32, device=device))
    broken = hnp.ElementwiseKernel("float32 x", "float32 y", "y = x +* 2", "broken_k")
    with pytest.raises(CompileError):
        broken(x)
    np.testing.assert_array_equal(squared_diff(x, x).get(), np.zeros((2, 3)))  # still works


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_90"), ("amd", "gfx90a")])
def test_generated_sources_compile_for_gpus(platform, arch):
    from openhip.runtime.compile import compile_program

    try:
        if platform == "nvidia":
            from openhip.platforms.nvidia import toolchain
        else:
            from openhip.platforms.amd import toolchain
        toolchain()
    except (ImportError, OSError) as exc:
        pytest.skip(f"{platform} compiler unavailable: {exc}")
    ek = hnp.ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]",
                               "add_reverse")
    f32 = np.dtype(np.float32)
    text, _ = ek._source([f32, f32, f32], ["b", "r", "b"], 2)
    prog = compile_program(text, platform=platform, arch=arch, filename="add_reverse.hip")
    assert "add_reverse" in prog.kernels
    rk = hnp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    prog = compile_program(rk._source([f32, f32], ["b", "o"], 1), platform=platform,
                           arch=arch, filename="l2norm.hip")
    assert {"l2norm", "l2norm_combine"} <= set(prog.kernels)
