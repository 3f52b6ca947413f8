"""Modules and kernel launches: results, argument conversion, launch checks, compile errors."""

import numpy as np
import pytest

import openhip as hip

SAXPY = r'''
#include <hip/hip_runtime.h>
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''

TEMPLATES = r'''
#include <hip/hip_runtime.h>
template <typename T, int Factor>
__global__ void scale(T* out, const T* in, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * T(Factor);
}
__constant__ float coeffs[4];
__device__ int counter;
__global__ void use_coeffs(float* out) {
    int i = threadIdx.x;
    out[i] = coeffs[i] * 2.0f;
    if (i == 0) counter = 77;
}
'''


def test_saxpy(device):
    n = 10_000
    rng = np.random.default_rng(1)
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    dx, dy = hip.asarray(x), hip.asarray(y)
    k = hip.Module(SAXPY).get_function("saxpy")
    k(((n + 255) // 256,), (256,), (2, dx, dy, n))  # a Python int for a float parameter
    np.testing.assert_allclose(dy.get(), 2 * x + y, rtol=1e-6)


def test_templates_globals_and_repr(device):
    mod = hip.Module(TEMPLATES, name_expressions=("scale<float, 3>", "scale<int, 2>"))
    for expr, dtype, f in (("scale<float, 3>", np.float32, 3), ("scale<int, 2>", np.int32, 2)):
        src = np.arange(100).astype(dtype)
        out = hip.zeros(100, dtype)
        mod.get_function(expr)(1, 128, (out, hip.asarray(src), 100))
        np.testing.assert_array_equal(out.get(), src * f)
    coeffs = mod.get_global("coeffs")
    assert coeffs.shape == (4,) and coeffs.dtype == np.float32
    coeffs.set(np.array([1, 2, 3, 4], np.float32))
    out = hip.zeros(4, np.float32)
    mod.get_function("use_coeffs")(1, 4, (out,))
    np.testing.assert_array_equal(out.get(), [2, 4, 6, 8])
    assert mod.get_global("counter").get()[0] == 77
    assert "scale" in repr(mod.get_function("scale<float, 3>"))
    with pytest.raises(hip.HipError) as err:
        mod.get_function("scale<double, 1>")
    assert err.value.status == "hipErrorNotFound"
    with pytest.raises(hip.HipError):
        mod.get_global("nope")


def test_wrong_arguments_raise_type_error_naming_the_parameter(device):
    k = hip.Module(SAXPY).get_function("saxpy")
    dx, dy = hip.zeros(4, np.float32), hip.zeros(4, np.float32)
    with pytest.raises(TypeError, match="takes 4 argument"):
        k(1, 4, (1.0, dx, dy))
    with pytest.raises(TypeError, match="'x'"):
        k(1, 4, (1.0, np.zeros(4, np.float32), dy, 4))
    with pytest.raises(TypeError, match="'n'"):
        k(1, 4, (1.0, dx, dy, 4.5))
    with pytest.raises(TypeError, match="'n'"):
        k(1, 4, (1.0, dx, dy, -1))
    with pytest.raises(TypeError, match="'a'"):
        k(1, 4, (dx, dx, dy, 4))
    with pytest.raises(TypeError, match="'y'"):
        k(1, 4, (1.0, dx, 7, 4))


def test_invalid_launch_configuration_runs_nothing(device):
    k = hip.Module(SAXPY).get_function("saxpy")
    x = hip.asarray(np.ones(8, np.float32))
    y = hip.asarray(np.ones(8, np.float32))
    props = device.properties
    bad = [((1,), (props.max_threads_per_block + 1,), 0), ((0,), (32,), 0),
           ((1,), (1, 1, props.max_block_dim[2] + 1), 0),
           ((1, props.max_grid_dim[1] + 1), (32,), 0),
           ((1,), (32,), props.shared_mem_per_block + 1)]
    for grid, block, shared in bad:
        with pytest.raises(hip.HipError) as err:
            k(grid, block, (1.0, x, y, 8), shared_mem=shared)
        assert err.value.status == "hipErrorInvalidConfiguration"
    with pytest.raises(TypeError):
        k("1", 32, (1.0, x, y, 8))
    hip.synchronize()
    assert (y.get() == 1).all()  # nothing ran


STATIC_SHARED = r"""
#define COLS 33
namespace ns {
template <int ROWS>
__global__ void tile(float* o) {
  __shared__ float t[ROWS][COLS];
  __shared__ double d;
  t[threadIdx.x % ROWS][0] = 1.0f;
  d = 2.0;
  o[threadIdx.x] = t[threadIdx.x % ROWS][0] + (float)d;
}
}
__global__ void big(float* o) {
  __shared__ float x[12000];
  x[threadIdx.x] = 1.0f;
  o[threadIdx.x] = x[threadIdx.x];
}
"""


def test_static_shared_memory_counts_against_the_block_limit(device):
    mod = hip.Module(STATIC_SHARED, name_expressions=["ns::tile<16>"])
    tile, big = mod.get_function("ns::tile<16>"), mod.get_function("big")
    assert tile.attributes.static_shared_bytes >= 16 * 33 * 4 + 8
    assert 48000 <= big.attributes.static_shared_bytes < 48000 + 64
    o = hip.zeros(32, np.float32)
    limit = device.properties.shared_mem_per_block
    room = limit - big.attributes.static_shared_bytes
    big(1, 32, (o,), shared_mem=room)  # static + dynamic == the limit: fine
    hip.synchronize()
    assert (o.get() == 1).all()
    with pytest.raises(hip.HipError) as err:
        big(1, 32, (o,), shared_mem=room + 1)
    assert err.value.status == "hipErrorInvalidConfiguration"
    assert "static shared memory" in str(err.value)


def test_compile_error_has_log_with_user_line_numbers(device):
    src = "#include <hip/hip_runtime.h>\n\n__global__ void k(int* p) {\n  p[0] = undefined_thing;\n}\n"
    with pytest.raises(hip.CompileError) as err:
        hip.Module(src, name="broken.hip")
    e = err.value
    assert "undefined_thing" in e.log and "broken.hip:4" in e.log
    assert e.source == src
    path = e.dump()
    assert open(path).read() == src


def test_cuda_language_goes_through_hipify(device):
    cuda = r'''
#include <cuda_runtime.h>
extern "C" __global__ void twice(int* v) { v[threadIdx.x] *= 2; }
'''
    v = hip.asarray(np.arange(32, dtype=np.int32))
    hip.Module(cuda, language="cuda").get_function("twice")(1, 32, (v,))
    np.testing.assert_array_equal(v.get(), np.arange(32) * 2)


def test_module_bad_input(device):
    with pytest.raises(TypeError):
        hip.Module(b"bytes")
    with pytest.raises(TypeError):
        hip.Module(SAXPY, options="-DX")
    with pytest.raises(ValueError):
        hip.Module(SAXPY, language="fortran")
