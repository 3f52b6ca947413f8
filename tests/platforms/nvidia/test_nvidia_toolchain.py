"""The NVIDIA toolchain: NVRTC compiles HIP source through openhip's HIP-on-CUDA headers,
without a GPU. Skips where cuda-bindings / nvidia-cuda-nvrtc are not installed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from openhip.errors import CompileError
from openhip.platforms.nvidia import elf
from openhip.platforms.nvidia.arch import parse_arch
from openhip.platforms.nvidia.toolchain import translate_options

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from gpu_helpers import nvrtc_toolchain  # noqa: E402

WARP_KERNEL = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void warp(float* x, unsigned long long* b, int* flags) {
    int i = threadIdx.x;
    float v = x[i];
    v += __shfl_down(v, 1);            // non-_sync forms, removed from CUDA for sm_70+
    v += __shfl_up(v, 1, 16);
    v += __shfl_xor(v, 2);
    v += __shfl(v, 0);
    unsigned long long m = __ballot(v > 0.0f);
    static_assert(sizeof(__ballot(1)) == 8, "__ballot returns 64 bits as in HIP");
    b[i] = m;
    flags[i] = __any(v > 1.0f) + 2 * __all(v > 2.0f);
    flags[i] += __shfl_down_sync(0xffffffffffffffffull, i, 1);   // HIP 6.2's 64-bit mask
    flags[i] += __popc(static_cast<unsigned>(m)) + __ffs(i) + __clz(i) + __lane_id();
    x[i] = v + warpSize;
}
"""

FP_KERNEL = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <stdint.h>
extern "C" __global__ void fp(__half* h, __hip_bfloat16* bf, float* out, int64_t* q) {
    int i = threadIdx.x;
    __half a = h[i];
    __half s = __hadd(a, __float2half(1.5f));
    s = __hfma(s, a, __hmul(a, a));
    __half2 p = __floats2half2_rn(1.0f, 2.0f);
    out[i] = __half2float(s) + __low2float(__hadd2(p, p)) + float(a) * 2.0f;
    h[i] = __shfl_xor_sync(0xffffffffu, s, 1);
    __hip_bfloat16 b = __float2bfloat16(out[i]);
    b = __hadd(b, bf[i]);
    bf[i] = __hmul(b, __float2bfloat16(0.5f));
    out[i] += __bfloat162float(bf[i]) + (__hlt(a, s) ? 1.0f : 0.0f);
    q[i] = INT64_MAX / (i + 1);
}
"""

ATOMIC_KERNEL = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void atomics(float* f, double* d, int* n, unsigned* u,
                                   unsigned long* ul, unsigned long long* ull) {
    atomicAdd(f, 1.0f); atomicSub(f + 1, 1.0f); atomicMax(f + 2, 3.0f); atomicMin(f + 3, -1.0f);
    atomicAdd(d, 1.0); atomicSub(d + 1, 1.0); atomicMax(d + 2, 3.0); atomicMin(d + 3, -1.0);
    atomicExch(d + 4, 2.0); atomicExch(f + 4, 2.0f);
    atomicAdd(n, 1); atomicSub(n + 1, 1); atomicMax(n + 2, 7); atomicMin(n + 3, -7);
    atomicCAS(n + 4, 0, 1); atomicAnd(n + 5, 3); atomicOr(n + 6, 4); atomicXor(n + 7, 5);
    atomicInc(u, 10u); atomicDec(u + 1, 10u); atomicExch(u + 2, 1u);
    atomicAdd(ul, 1ul); atomicMax(ul + 1, 5ul); atomicCAS(ul + 2, 0ul, 1ul);
    atomicAdd(ull, 1ull); atomicMax(ull + 1, 5ull); atomicSub(ull + 2, 1ull);
    atomicAdd_system(n + 8, 1); unsafeAtomicAdd(f + 5, 1.0f);
}
"""

MATH_KERNEL = r"""
#include <hip/hip_runtime.h>
#include <math.h>
#include <float.h>
#include <limits.h>
__constant__ float coeffs[4];
__device__ int counter;
namespace ns { __device__ float scale; }
__global__ void math(float* x, double* y) {          // not extern "C": found by plain name
    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    float s, c;
    sincosf(x[i], &s, &c);
    x[i] = expf(s) + __expf(c) + rsqrtf(fabsf(s) + 1.0f) + fmaf(s, c, coeffs[0]) + ns::scale;
    y[i] = exp(y[i]) + sqrt(fabs(y[i])) + DBL_EPSILON + FLT_MAX * 0.0f + INT_MAX * 0.0;
    __syncthreads();
    int n = __syncthreads_count(x[i] > 0.0f) + __syncthreads_and(1) + __syncthreads_or(0);
    __threadfence(); __threadfence_block();
    if (i == 0) counter = n;
}
template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] *= a; }
"""


HIP_EXTRAS_KERNEL = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void extras(unsigned* u, unsigned long long* q, float* f, int* n, double* d) {
    u[0] = __bitextract_u32(u[1], 4, 8) + __bitinsert_u32(u[2], u[3], 3, 5) + __lastbit_u32_u64(q[0]);
    q[1] = __bitextract_u64(q[2], 7, 9) + __bitinsert_u64(q[3], q[4], 1, 60);
    f[0] = __fmaf_ieee_rn(f[1], f[2], f[3]);
    atomicAddNoRet(f + 4, 1.0f);
    int e = 0;
    __hip_atomic_compare_exchange_strong(n, &e, 5, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                         __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(n + 1, 2, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_max(d, 2.0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(f + 5, 1.5f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    n[2] = __hip_atomic_load(n + 3, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_store(n + 4, 7, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    n[5] = __hip_atomic_exchange(n + 6, 1, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_SYSTEM);
    __half h = __float2half(1.0f) + __float2half(2.0f);      // operators as in CUDA/HIP
    h += __float2half(0.5f);
    atomicAdd(reinterpret_cast<__half*>(u + 8), h);
    __hip_bfloat16 b = __float2bfloat16(1.0f) * __float2bfloat16(3.0f);
    f[6] = __bfloat162float(b) + (h > __float2half(0.0f) ? 1.0f : 0.0f);
}
"""


@pytest.fixture(scope="module")
def nvrtc():
    return nvrtc_toolchain()


@pytest.mark.parametrize("arch", ["sm_90", "sm_80", "sm_75"])
@pytest.mark.parametrize("source", [WARP_KERNEL, FP_KERNEL, ATOMIC_KERNEL, MATH_KERNEL,
                                    HIP_EXTRAS_KERNEL],
                         ids=["warp", "fp16-bf16", "atomics", "math", "hip-extras"])
def test_header_mapping_compiles(nvrtc, source, arch):
    program = nvrtc.compile(source, arch=arch, name_expressions=(
        ["scale<float>", "scale<int>"] if "scale" in source else []))
    assert program.platform == "nvidia" and program.arch == arch
    assert program.binary[:4] == b"\x7fELF"
    assert program.metadata["format"] == "cubin"


def test_kernels_globals_and_name_expressions(nvrtc):
    program = nvrtc.compile(MATH_KERNEL, arch="sm_90",
                            name_expressions=["scale<float>", "scale<int>"])
    assert program.kernels["math"].startswith("_Z4math")
    assert program.kernels["scale<float>"] == "_Z5scaleIfEvPT_S0_"
    assert program.kernels["scale<int>"] == "_Z5scaleIiEvPT_S0_"
    assert program.globals["coeffs"] == "coeffs"
    assert program.globals["counter"] == "counter"
    assert program.globals["ns::scale"] == "_ZN2ns5scaleE"
    # every symbol is a real kernel entry of the cubin
    entries = {s.name for s in elf.symbols(program.binary) if s.type == elf.STT_FUNC}
    assert set(program.kernels.values()) <= entries


def test_ptx_only_when_asked(nvrtc):
    program = nvrtc.compile(WARP_KERNEL, arch="compute_90")
    assert program.metadata["format"] == "ptx"
    text = program.binary.decode()
    assert ".target sm_90" in text and ".entry warp" in text
    assert program.binary.endswith(b"\0")  # cuModuleLoadData needs the terminator
    assert program.kernels == {"warp": "warp"}


def test_compile_error_keeps_user_lines(nvrtc):
    source = "#include <hip/hip_runtime.h>\n\n__global__ void k(int* a) {\n  a[0] = nope;\n}\n"
    with pytest.raises(CompileError) as info:
        nvrtc.compile(source, arch="sm_90", options=["-DX=1"], filename="user.hip")
    err = info.value
    assert "user.hip(4): error" in err.log and "nope" in err.log
    assert err.platform == "nvidia" and err.arch == "sm_90" and err.name == "user.hip"
    assert err.source == source and err.options == ("-DX=1",)


def test_warnings_of_a_good_build_are_kept(nvrtc):
    program = nvrtc.compile('extern "C" __global__ void k(int* a) { int unused = 1; a[0] = 0; }',
                            arch="sm_90", options=["-Wall"])
    assert program.binary
    assert "unused" in program.log  # NVRTC's "declared but never referenced" warning


@pytest.mark.parametrize("bad", ["sm_50", "gfx90a", "sm90x", ""])
def test_bad_arch_is_a_value_error(nvrtc, bad):
    with pytest.raises(ValueError):
        nvrtc.compile(WARP_KERNEL, arch=bad)


def test_arch_parsing():
    assert parse_arch("sm_90").name == "sm_90"
    assert parse_arch("90").name == "sm_90"
    assert parse_arch("sm_90a").suffix == "a"
    assert parse_arch("compute_80").is_ptx
    with pytest.raises(ValueError, match="supports"):
        parse_arch("sm_52", supported=[75, 80, 90])


def test_option_translation():
    assert translate_options(["-O3", "-ffast-math", "-DX", "-g"]) == [
        "--use_fast_math", "-DX", "--generate-line-info"]
    with pytest.raises(ValueError, match="arch="):
        translate_options(["--offload-arch=gfx90a"])


def test_constexpr_helpers_are_device_functions(nvrtc):
    src = ("constexpr int square(int x) { return x * x; }\n"
           'extern "C" __global__ void k(int* a) { a[0] = square(a[1]); }\n')
    assert "k" in nvrtc.compile(src, arch="sm_90").kernels


def test_user_include_dirs_and_defines(nvrtc, tmp_path):
    (tmp_path / "mine.h").write_text("#define VALUE 42\n")
    program = nvrtc.compile('#include "mine.h"\nextern "C" __global__ void k(int* a) '
                            '{ a[0] = VALUE + EXTRA; }', arch="sm_80",
                            options=[f"-I{tmp_path}", "-DEXTRA=1"])
    assert "k" in program.kernels


def test_compiler_identity_names_versions_and_headers(nvrtc):
    ident = nvrtc.compiler_identity()
    assert ident.startswith("nvrtc ") and "openhip-nvidia-headers" in ident


def test_openhip_import_loads_no_cuda():
    code = ("import sys, openhip, openhip.platforms.nvidia, openhip.platforms.amd; "
            "bad = [m for m in sys.modules if m.startswith('cuda')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
