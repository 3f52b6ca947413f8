"""``static __shared__`` (NVIDIA's blockReduceSum style) on the CPU platform, in every CPU mode.

CUDA code writes ``static __shared__ int shared[32];`` in ``__device__`` helpers and kernels;
on a GPU that is one array per block, shared by its threads, and its bytes count in the
kernel's static shared memory.  Each kernel here runs split at its barriers (regions) and as
fibers, and is checked against numpy; the static size is checked against the declarations.
"""

from __future__ import annotations

import numpy as np
import pytest

import openhip as hip
from openhip.errors import CompileError


@pytest.fixture
def cpu_device():
    devs = [d for d in hip.devices() if d.platform == "cpu"]
    if not devs:
        pytest.skip("no CPU platform")
    with devs[0]:
        yield devs[0]


@pytest.fixture(params=["regions", "fibers"])
def mode(request, monkeypatch):
    monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1" if request.param == "regions" else "0")
    return request.param


# NVIDIA's "Faster Parallel Reductions on Kepler" (Justin Luitjens), in HIP spelling.
BLOG_REDUCE = r"""
__inline__ __device__ int warpReduceSum(int val) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    val += __shfl_down(val, offset);
  return val;
}

__inline__ __device__ int blockReduceSum(int val) {
  static __shared__ int shared[32];  // Shared mem for 32 partial sums
  int lane = threadIdx.x % warpSize;
  int wid = threadIdx.x / warpSize;
  val = warpReduceSum(val);          // Each warp performs partial reduction
  if (lane == 0) shared[wid] = val;  // Write reduced value to shared memory
  __syncthreads();                   // Wait for all partial reductions
  // read from shared memory only if that warp existed
  val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
  if (wid == 0) val = warpReduceSum(val);  // Final reduce within first warp
  return val;
}

extern "C" __global__ void deviceReduceKernel(const int* in, int* out, int N) {
  int sum = 0;
  // reduce multiple elements per thread
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
    sum += in[i];
  sum = blockReduceSum(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
"""

# The same in CUDA spelling (hipify translates __shfl_down_sync).
BLOG_REDUCE_CU = BLOG_REDUCE.replace("__shfl_down(val, offset)",
                                     "__shfl_down_sync(0xffffffff, val, offset)")

# A kernel-scope `static __shared__` tile: a block-wise transpose through shared memory.
TILE_TRANSPOSE = r"""
#define TILE_DIM 16
__global__ void transposeTile(float* odata, const float* idata, int width, int height) {
  static __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = idata[y * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  if (x < height && y < width) odata[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
"""

# No barrier (loop mode): each thread uses its own slot of a block's static array.
NO_SYNC = r"""
namespace ns {
__device__ float twice_via_shared(float v) {
  static __shared__ float slot[256];
  slot[threadIdx.x] = 2.0f * v;
  return slot[threadIdx.x];
}
}  // namespace ns
extern "C" __global__ void twice(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  v = ns::twice_via_shared(v);
  if (i < n) y[i] = v;
}
"""

# A template kernel with a kernel-scope `static __shared__` array sized by its parameter, and a
# helper called twice (one array, counted once).
TEMPLATE_SUM = r"""
__device__ void store(float* s, float v) { s[threadIdx.x] = v; }
__device__ float block_sum_helper(float v) {
  static __shared__ double partial[8];
  if (threadIdx.x < 8) partial[threadIdx.x] = 0.0;
  __syncthreads();
  atomicAdd(&partial[threadIdx.x % 8], (double)v);
  __syncthreads();
  double t = 0.0;
  for (int i = 0; i < 8; ++i) t += partial[i];
  __syncthreads();
  return (float)t;
}
template <int BLOCK>
__global__ void block_sums(const float* x, float* out) {
  static __shared__ float buf[BLOCK];
  store(buf, x[blockIdx.x * BLOCK + threadIdx.x]);
  __syncthreads();
  float v = buf[BLOCK - 1 - threadIdx.x];
  float s = block_sum_helper(v);
  s = block_sum_helper(s) / BLOCK;
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
"""


def _reduce(mod: hip.Module, data: np.ndarray, blocks: int, threads: int) -> int:
    k = mod.get_function("deviceReduceKernel")
    d_in = hip.asarray(data)
    partial = hip.zeros(blocks, np.int32)
    total = hip.zeros(1, np.int32)
    k(blocks, threads, (d_in, partial, data.size))
    k(1, 1024, (partial, total, blocks))
    return int(total.get()[0])


@pytest.mark.parametrize("language", ["hip", "cuda"])
def test_blog_block_reduce(cpu_device, mode, language):
    src = BLOG_REDUCE if language == "hip" else BLOG_REDUCE_CU
    mod = hip.Module(src, language=language)
    meta = mod.program.metadata["kernels"]["deviceReduceKernel"]
    assert meta["mode"] in (("regions", "fibers") if mode == "regions" else ("fibers",))
    rng = np.random.default_rng(3)
    data = rng.integers(-1000, 1000, 200_003, dtype=np.int32)
    for blocks, threads in ((64, 256), (7, 1024), (3, 32)):
        assert _reduce(mod, data, blocks, threads) == int(data.sum()), (blocks, threads)
    # the helper's array counts in the kernel's static shared memory, as on a GPU
    k = mod.get_function("deviceReduceKernel")
    assert k.attributes.static_shared_bytes == 32 * 4


def test_kernel_scope_tile(cpu_device, mode):
    mod = hip.Module(TILE_TRANSPOSE)
    assert mod.program.metadata["kernels"]["transposeTile"]["mode"] == mode
    k = mod.get_function("transposeTile")
    h, w = 45, 70  # not multiples of the tile: the guards matter
    a = np.random.default_rng(5).random((h, w), dtype=np.float32)
    out = hip.full(w * h, -1.0, np.float32)
    k(((w + 15) // 16, (h + 15) // 16), (16, 16), (out, hip.asarray(a), w, h))
    np.testing.assert_array_equal(out.get().reshape(w, h), a.T)
    assert k.attributes.static_shared_bytes == 16 * 17 * 4


def test_helper_without_barrier_loop_mode(cpu_device):
    mod = hip.Module(NO_SYNC)
    assert mod.program.metadata["kernels"]["twice"]["mode"] == "loop"
    k = mod.get_function("twice")
    x = np.arange(1000, dtype=np.float32)
    y = hip.zeros(1000, np.float32)
    k(4, 256, (hip.asarray(x), y, 1000))
    np.testing.assert_array_equal(y.get(), 2 * x)
    assert k.attributes.static_shared_bytes == 256 * 4


def test_template_kernel_and_repeated_helper(cpu_device, mode):
    mod = hip.Module(TEMPLATE_SUM, name_expressions=["block_sums<64>", "block_sums<128>"])
    rng = np.random.default_rng(11)
    for block in (64, 128):
        k = mod.get_function(f"block_sums<{block}>")
        x = rng.integers(0, 16, 5 * block).astype(np.float32)
        out = hip.zeros(5, np.float32)
        k(5, block, (hip.asarray(x), out))
        want = x.reshape(5, block).sum(axis=1)
        np.testing.assert_allclose(out.get(), want, rtol=1e-6)
        # buf[BLOCK] floats + the helper's 8 doubles (once, though it is called twice)
        assert k.attributes.static_shared_bytes == block * 4 + 8 * 8


def test_blocks_do_not_share_the_array(cpu_device, mode):
    # every block writes its own id into the array and reads it back after a barrier: a
    # second block running at the same time must not see (or overwrite) the first one's
    src = r"""
    __device__ int roundtrip(int v) {
      static __shared__ int mine[64];
      mine[threadIdx.x] = v;
      __syncthreads();
      int r = mine[(threadIdx.x + 1) % blockDim.x];
      __syncthreads();
      return r;
    }
    extern "C" __global__ void ids(int* out) {
      int r = 0;
      for (int it = 0; it < 50; ++it) r += roundtrip(blockIdx.x);
      out[blockIdx.x * blockDim.x + threadIdx.x] = r;
    }
    """
    k = hip.Module(src).get_function("ids")
    out = hip.zeros(128 * 64, np.int32)
    k(128, 64, (out,))
    np.testing.assert_array_equal(out.get().reshape(128, 64),
                                  np.repeat(50 * np.arange(128, dtype=np.int32), 64)
                                  .reshape(128, 64))


def test_static_shared_over_the_limit_refused(cpu_device):
    # 40000 ints in a helper: 160000 bytes, over the 64 KiB a block has; the launch is refused
    src = r"""
    __device__ int big(int v) { static __shared__ int huge[40000]; huge[threadIdx.x] = v;
                                return huge[threadIdx.x]; }
    extern "C" __global__ void k(int* out) { out[threadIdx.x] = big(threadIdx.x); }
    """
    k = hip.Module(src).get_function("k")
    assert k.attributes.static_shared_bytes == 160000
    out = hip.full(32, 7, np.int32)
    with pytest.raises(hip.HipError) as info:
        k(1, 32, (out,))
    assert info.value.status == "hipErrorInvalidConfiguration"
    np.testing.assert_array_equal(out.get(), np.full(32, 7, np.int32))


def test_static_shared_syntax_error_reports_user_line(cpu_device):
    src = "__global__ void k(float* y) {\n  static __shared__ float s[4]\n  y[0] = s[0];\n}\n"
    with pytest.raises(CompileError) as info:
        hip.Module(src)
    assert ":3:" in info.value.log or ":2:" in info.value.log


def test_static_shared_in_an_included_header_and_a_macro(cpu_device, mode, tmp_path):
    # the keyword comes from the header's own text (not rewritten by openhip) and a macro
    (tmp_path / "block_sum.h").write_text(r"""
    #pragma once
    #define SHARED_ARRAY static __shared__
    __device__ float block_sum(float v) {
      SHARED_ARRAY float part[64];
      part[threadIdx.x] = v;
      __syncthreads();
      float t = 0.0f;
      for (int i = 0; i < (int)blockDim.x; ++i) t += part[i];
      __syncthreads();
      return t;
    }
    """)
    src = r"""
    #include "block_sum.h"
    __global__ void sums(const float* x, float* out) {
      float t = block_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
      if (threadIdx.x == 0) out[blockIdx.x] = t;
    }
    """
    k = hip.Module(src, options=[f"-I{tmp_path}"]).get_function("sums")
    x = np.arange(6 * 64, dtype=np.float32)
    out = hip.zeros(6, np.float32)
    k(6, 64, (hip.asarray(x), out))
    np.testing.assert_array_equal(out.get(), x.reshape(6, 64).sum(axis=1))


def test_sizes_measured_in_namespaces(cpu_device):
    src = r"""
    namespace {
    __device__ int first(int v) { static __shared__ short s[100]; s[threadIdx.x] = v;
                                  return s[threadIdx.x]; }
    __global__ void anon(int* o) { static __shared__ int t[10]; t[0] = 1;
                                   o[threadIdx.x] = first(threadIdx.x) + t[0]; }
    }
    namespace outer::inner {
    __global__ void named(int* o) { static __shared__ double d[3]; d[0] = 2;
                                    o[threadIdx.x] = first(threadIdx.x) + (int)d[0]; }
    }
    """
    mod = hip.Module(src)
    for name, size, add in (("anon", 40 + 200, 1), ("outer::inner::named", 24 + 200, 2)):
        k = mod.get_function(name)
        assert k.attributes.static_shared_bytes == size, name
        out = hip.zeros(32, np.int32)
        k(1, 32, (out,))
        np.testing.assert_array_equal(out.get(), np.arange(32) + add)
