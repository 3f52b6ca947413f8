"""CUDA kernel files as public samples write them: the headers hipify maps device-side includes
to (cooperative groups, the runtime and profiler API headers, cuComplex, math constants),
__grid_constant__, local headers translated with the source (language="cuda"), and the
errors for headers that do not exist or that openhip does not provide."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import openhip as hip

REDUCE_CU = r"""
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void block_sum(const float* in, float* out, int n) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0;
  cg::sync(cta);
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    cta.sync();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void tile_scan(const int* in, int* out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = cg::inclusive_scan(tile, in[i]) + (cg::reduce(tile, in[i], cg::plus<int>()) << 16);
}
"""


def test_cooperative_groups_from_cuda(device):
    """Failure 1 and 2 of issue #10: <cooperative_groups.h>, <cuda_runtime_api.h> and
    <cuda_profiler_api.h> in a CUDA kernel file; cg::sync(cta) and cta.sync() barriers."""
    m = hip.Module(REDUCE_CU, language="cuda", name="reduce.cu")
    n = 1000
    x = np.arange(n, dtype=np.float32)
    out = hip.zeros(4, np.float32)
    m.get_function("block_sum")(4, 256, (hip.asarray(x), out, n))
    np.testing.assert_array_equal(out.get(), [x[i * 256:(i + 1) * 256].sum() for i in range(4)])
    v = np.random.default_rng(0).integers(0, 100, 128).astype(np.int32)
    got = hip.zeros(128, np.int32)
    m.get_function("tile_scan")(2, 64, (hip.asarray(v), got))
    seg = v.reshape(-1, 32)
    want = np.cumsum(seg, axis=1) + (seg.sum(axis=1, keepdims=True) << 16)
    np.testing.assert_array_equal(got.get(), want.reshape(-1))


def test_grid_constant_complex_and_math_constants(device):
    """Failure 3 (__grid_constant__) and the cuComplex / math_constants headers."""
    src = r"""
    #include <cuComplex.h>
    #include <math_constants.h>
    struct Params { float scale; int n; };
    __global__ void k(const __grid_constant__ Params p, const cuFloatComplex* a,
                      const cuFloatComplex* b, cuFloatComplex* out, float* angle) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i >= p.n) return;
      const Params* pp = &p;  // its address may be taken
      cuFloatComplex q = cuCdivf(cuCmulf(a[i], b[i]), make_cuFloatComplex(pp->scale, 0.0f));
      out[i] = cuCaddf(q, cuConjf(a[i]));
      angle[i] = CUDART_PI_F * cuCabsf(b[i]) + (float)CUDART_SQRT_TWO;
    }
    """
    m = hip.Module(textwrap.dedent(src), language="cuda", name="complex.cu")
    n = 100
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    out = hip.zeros(2 * n, np.float32)
    angle = hip.zeros(n, np.float32)
    params = np.zeros(1, dtype=[("scale", np.float32), ("n", np.int32)])
    params["scale"], params["n"] = 2.0, n
    m.get_function("k")(1, 128, (params.tobytes(), hip.asarray(a.view(np.float32)),
                                 hip.asarray(b.view(np.float32)), out, angle))
    np.testing.assert_allclose(out.get().view(np.complex64), a * b / 2 + np.conj(a), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(angle.get(), np.pi * np.abs(b) + np.sqrt(2), rtol=1e-6)


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_local_headers_are_translated(device, tmp_path, isolated_cache):
    """Failure 5: a barrier and warp shuffles in local .cuh headers (one found next to the
    source, one under -I, one included by the other), translated with the source."""
    _write(tmp_path / "src" / "util.cuh", r"""
        #pragma once
        #include <cooperative_groups.h>
        #include "inner/warp.cuh"
        namespace cg = cooperative_groups;
        __device__ float block_reduce(float v, float* sh) {
          cg::thread_block cta = cg::this_thread_block();
          v = warp_sum(v);
          if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = v;
          cg::sync(cta);
          float t = 0;
          if (threadIdx.x == 0)
            for (int w = 0; w < blockDim.x / 32; ++w) t += sh[w];
          return t;
        }
        """)
    _write(tmp_path / "src" / "inner" / "warp.cuh", r"""
        #pragma once
        __device__ float warp_sum(float v) {
          for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
          return v * SCALE;
        }
        """)
    _write(tmp_path / "inc" / "scale.cuh", "#define SCALE 1.0f\n")
    main = tmp_path / "src" / "main.cu"
    _write(main, r"""
        #include <cuda_runtime.h>
        #include <scale.cuh>
        #include "util.cuh"
        __global__ void total(const float* in, float* out) {
          __shared__ float sh[32];
          float t = block_reduce(in[blockIdx.x * blockDim.x + threadIdx.x], sh);
          if (threadIdx.x == 0) out[blockIdx.x] = t;
        }
        """)
    opts = ("-I", str(tmp_path / "inc"))
    x = np.arange(512, dtype=np.float32)
    out = hip.zeros(2, np.float32)
    m = hip.Module(main.read_text(), options=opts, language="cuda", name=str(main))
    m.get_function("total")(2, 256, (hip.asarray(x), out))
    np.testing.assert_array_equal(out.get(), [x[:256].sum(), x[256:].sum()])
    # the cache key covers the headers: a changed header gives a new build
    _write(tmp_path / "inc" / "scale.cuh", "#define SCALE 2.0f\n")
    m2 = hip.Module(main.read_text(), options=opts, language="cuda", name=str(main))
    m2.get_function("total")(2, 256, (hip.asarray(x), out))
    np.testing.assert_array_equal(out.get(), [2 * x[:256].sum(), 2 * x[256:].sum()])


def test_cuda_samples_helper_headers_stay_local(device, tmp_path, isolated_cache):
    """The CUDA samples' Common/helper_math.h and helper_cuda.h are the user's headers (HIPIFY
    rocm-7.0.2 maps them to HIP runtime headers, which lack their operators and helpers): found
    under -I and translated with the source."""
    _write(tmp_path / "Common" / "helper_math.h", r"""
        #pragma once
        #include <cuda_runtime.h>
        inline __host__ __device__ float2 operator+(float2 a, float2 b) {
          return make_float2(a.x + b.x, a.y + b.y);
        }
        """)
    _write(tmp_path / "Common" / "helper_cuda.h", r"""
        #pragma once
        #include <cuda_runtime.h>
        __device__ inline float twice(float v) { return 2.0f * v; }
        """)
    main = tmp_path / "k.cu"
    _write(main, r"""
        #include <helper_cuda.h>
        #include "helper_math.h"
        __global__ void add2(const float2* a, const float2* b, float* out) {
          float2 s = a[threadIdx.x] + b[threadIdx.x];
          out[threadIdx.x] = twice(s.x) + s.y;
        }
        """)
    a = np.arange(64, dtype=np.float32).reshape(32, 2)
    b = np.full((32, 2), 0.5, np.float32)
    out = hip.zeros(32, np.float32)
    m = hip.Module(main.read_text(), options=("-I", str(tmp_path / "Common")), language="cuda",
                   name=str(main))
    m.get_function("add2")(1, 32, (hip.asarray(a), hip.asarray(b), out))
    np.testing.assert_array_equal(out.get(), 2 * (a[:, 0] + 0.5) + (a[:, 1] + 0.5))


def test_missing_local_header_is_a_compile_error(device, tmp_path):
    src = '#include "not_there.cuh"\n__global__ void k() {}\n'
    with pytest.raises(hip.CompileError) as e:
        hip.Module(src, language="cuda", name=str(tmp_path / "k.cu"))
    assert "not_there.cuh" in e.value.log


@pytest.mark.parametrize("header", ["hip/hip_ext.h", "hip/hip_texture_types.h",
                                    "hip/amd_detail/amd_hip_cooperative_groups.h"])
def test_header_openhip_does_not_provide(device, header):
    """Never the system ROCm copy: the error names the header."""
    if device.platform != "cpu":
        pytest.skip("the CPU platform's include handling")
    with pytest.raises(hip.CompileError) as e:
        hip.Module(f"#include <{header}>\n__global__ void k() {{}}\n")
    log = e.value.log
    assert header in log
    assert "__HIP_PLATFORM_AMD__" not in log  # not the system header's own #error


@pytest.mark.parametrize("header", ["hip/hip_runtime_api.h", "hip/hip_fp16.h", "hip/hip_bf16.h",
                                    "hip/hip_fp8.h", "hip/hip_complex.h",
                                    "hip/hip_math_constants.h", "hip/hip_cooperative_groups.h",
                                    "hip/hip_vector_types.h", "hip/hip_profile.h",
                                    "hip/device_functions.h", "hip/math_functions.h",
                                    "cooperative_groups/reduce.h", "cooperative_groups/scan.h",
                                    "cooperative_groups/memcpy_async.h"])
def test_device_side_headers_exist(device, header):
    m = hip.Module(f"#include <{header}>\n#include <{header}>\n"
                   "extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = 1; }\n")
    p = hip.zeros(4, np.int32)
    m.get_function("k")(1, 4, (p,))
    assert (p.get() == 1).all()


@pytest.mark.parametrize("body,needle", [
    ("auto t = cg::tiled_partition<24>(cg::this_thread_block()); t.sync();", "power of two"),
    ("cg::this_multi_grid().sync();", "this_multi_grid"),
    ("auto t = cg::tiled_partition<64>(cg::this_thread_block()); t.shfl(1, 0);", "N <= 32"),
    ("cg::labeled_partition(cg::this_thread_block(), 1);", "labeled_partition"),
])
def test_unsupported_cooperative_groups_calls(device, body, needle):
    if device.platform != "cpu":
        pytest.skip("the CPU platform's messages")
    src = ("#include <hip/hip_cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
           f"extern \"C\" __global__ void k() {{ {body} }}\n")
    with pytest.raises(hip.CompileError) as e:
        hip.Module(src)
    assert needle in e.value.log
