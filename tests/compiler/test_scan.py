"""The tree-sitter scan: kernels, parameters, sync reachability, globals, extern shared."""

import pytest

from openhip.compiler.scan import kernel_params, rewrite_extern_shared, scan, split_template_args

SOURCE = r'''
#include <hip/hip_runtime.h>
#define SYNC() __syncthreads()
typedef float real;
using index_t = unsigned int;
__constant__ float coeffs[4];
__device__ int counter, other = 3;
extern __device__ int declared_elsewhere;
namespace ns {
__global__ void with_macro(real* a) { extern __shared__ __align__(16) unsigned char smem[]; SYNC(); }
}
extern "C" { __global__ void in_block(int n) {} }
extern "C" __global__ void __launch_bounds__(256) saxpy(float a, const float* __restrict__ x,
                                                        float* y, size_t n) { y[0] = a * x[0]; }
__device__ __forceinline__ float helper(float x) { return __shfl_down_sync(0xffffffff, x, 1); }
__device__ float indirect(float x) { return helper(x); }
__global__ void via_helpers(float* out) { out[0] = indirect(out[0]); }
template <typename T, int N>
__global__ void scale(T* out, const T* in, index_t n = 4) { out[0] = in[0] * N; }
// __global__ void commented_out(int x) {}
const char* s = "__global__ void in_string(int) {}";
'''


@pytest.fixture(scope="module")
def result():
    return scan(SOURCE)


def test_kernels_found_with_qualified_names(result):
    assert set(result.kernels) == {"ns::with_macro", "in_block", "saxpy", "via_helpers", "scale"}


def test_parameters(result):
    k = result.kernels["saxpy"]
    assert [(p.name, p.type) for p in k.params] == [
        ("a", "float"), ("x", "const float* __restrict__"), ("y", "float*"), ("n", "size_t")]
    assert k.extern_c and result.kernels["in_block"].extern_c
    assert not result.kernels["scale"].extern_c


def test_sync_reachability_through_macros_and_helpers(result):
    assert result.kernels["ns::with_macro"].uses_sync
    assert result.kernels["via_helpers"].uses_sync
    assert not result.kernels["saxpy"].uses_sync
    assert not result.kernels["scale"].uses_sync


def test_globals_and_typedefs(result):
    assert [(g.name, g.space) for g in result.globals] == [
        ("coeffs", "constant"), ("counter", "device"), ("other", "device")]
    assert result.typedefs == {"real": "float", "index_t": "unsigned int"}


def test_template_substitution(result):
    decl, params = kernel_params(result, "scale<double, 3>")
    assert decl.template_params == ["T", "N"]
    assert [p.type for p in params] == ["double*", "const double*", "index_t"]
    assert kernel_params(result, "missing") is None


def test_extern_shared_rewrite_keeps_lines(result):
    out = rewrite_extern_shared(SOURCE, result)
    assert "OPENHIP_EXTERN_SHARED(smem, unsigned char);" in out
    assert out.count("\n") == SOURCE.count("\n")
    assert "extern __shared__" not in out


def test_split_template_args():
    assert split_template_args("float, Pair<int, 2>, (a > b)") == [
        "float", "Pair<int, 2>", "(a > b)"]


def test_bad_input():
    with pytest.raises(TypeError):
        scan(b"__global__ void k() {}")
    garbage = scan("}}}{{ __global__ ((( ")  # never raises on garbage
    assert garbage.has_errors and garbage.kernels == {}


def test_kernels_naming_64_bit_integer_types_are_wide():
    src = """
    typedef unsigned long long u64;
    using index64 = std::int64_t;
    __global__ void a(float* x, size_t n) { size_t i = threadIdx.x; if (i < n) x[i] = 1; }
    __global__ void b(float* x) { u64 i = threadIdx.x; x[i] = 1; }
    __global__ void c(float* x) { long i = threadIdx.x; x[i] = 1; }
    __global__ void d(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] = 1; }
    """
    result = scan(src)
    assert {k: v.wide for k, v in result.kernels.items()} == {
        "a": True, "b": True, "c": True, "d": False}


def test_parse_and_apply_edits_reject_bad_input():
    from openhip.compiler.scan import apply_edits, parse

    with pytest.raises(TypeError):
        parse(b"__global__ void k() {}")
    assert apply_edits("abcdef", [(1, 2, "X"), (4, 4, "Y")]) == "aXcdYef"
    with pytest.raises(ValueError):
        apply_edits("abcdef", [(1, 4, "X"), (2, 3, "Y")])
    with pytest.raises(ValueError):
        apply_edits("abc", [(2, 9, "X")])
