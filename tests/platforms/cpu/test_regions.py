"""Synchronising kernels split at their barriers (regions mode) give the results fibers give.

Every kernel here runs twice, split and as fibers (the ``sync_mode`` fixture), and is checked
against numpy; the ones that cannot be split provably fall back to fibers with a reason.
"""

from __future__ import annotations

import numpy as np
import pytest

import openhip as hip
from openhip.compiler.scan import apply_edits, scan
from openhip.errors import CompileError
from openhip.platforms.cpu.regions import split_kernels


@pytest.fixture
def cpu_device():
    devs = [d for d in hip.devices() if d.platform == "cpu"]
    if not devs:
        pytest.skip("no CPU platform")
    with devs[0]:
        yield devs[0]


def build(src: str, sync_mode: str, expect: dict[str, str] | None = None,
          name_expressions=()) -> hip.Module:
    mod = hip.Module(src, name_expressions=name_expressions)
    kernels = mod.program.metadata["kernels"]
    for name, mode in (expect or {}).items():
        want = "fibers" if sync_mode == "fibers" else mode
        assert kernels[name]["mode"] == want, (name, kernels[name])
    return mod


def plan(src: str) -> dict:
    result = scan(src)
    _, plans = split_kernels(src, result, "k.hip",
                             [k.name for k in result.kernels.values() if k.uses_sync])
    return {name: (p.function is not None, p.reason) for name, p in plans.items()}


RNG = np.random.default_rng(7)

# ---- kernels that split ---------------------------------------------------------------------------

MATMUL = r"""
#define TILE 16
__global__ void matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = acc;
}
"""


def test_tiled_matmul(cpu_device, sync_mode):
    n = 45
    a = RNG.standard_normal((n, n)).astype(np.float32)
    b = RNG.standard_normal((n, n)).astype(np.float32)
    mod = build(MATMUL, sync_mode, {"matmul": "regions"})
    da, db, dc = hip.asarray(a), hip.asarray(b), hip.zeros((n, n), np.float32)
    g = (n + 15) // 16
    mod.get_function("matmul")((g, g), (16, 16), (da, db, dc, n))
    np.testing.assert_allclose(dc.get(), a @ b, rtol=1e-4, atol=1e-4)


SCAN = r"""
// Blelloch exclusive scan of one block of 2*blockDim.x ints.
__global__ void block_scan(const int* in, int* out) {
  extern __shared__ int tmp[];
  const int tid = threadIdx.x;
  const int n = 2 * blockDim.x;
  const int base = blockIdx.x * n;
  tmp[2 * tid] = in[base + 2 * tid];
  tmp[2 * tid + 1] = in[base + 2 * tid + 1];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      tmp[bi] += tmp[ai];
    }
    offset *= 2;
  }
  if (tid == 0) tmp[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      int t = tmp[ai];
      tmp[ai] = tmp[bi];
      tmp[bi] += t;
    }
  }
  __syncthreads();
  out[base + 2 * tid] = tmp[2 * tid];
  out[base + 2 * tid + 1] = tmp[2 * tid + 1];
}
"""


@pytest.mark.parametrize("threads", [1, 32, 128, 512])
def test_blelloch_scan(cpu_device, sync_mode, threads):
    blocks = 3
    x = RNG.integers(-50, 50, blocks * 2 * threads, dtype=np.int32)
    mod = build(SCAN, sync_mode, {"block_scan": "regions"})
    out = hip.zeros_like(x)
    mod.get_function("block_scan")(blocks, threads, (hip.asarray(x), out),
                                   shared_mem=8 * threads)
    seg = x.reshape(blocks, -1)
    want = np.cumsum(seg, axis=1) - seg
    np.testing.assert_array_equal(out.get().reshape(blocks, -1), want)


BITONIC = r"""
template <int N>
__global__ void bitonic(float* data) {
  __shared__ float s[N];
  unsigned tid = threadIdx.x;
  s[tid] = data[blockIdx.x * N + tid];
  __syncthreads();
  for (unsigned k = 2; k <= N; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      unsigned ixj = tid ^ j;
      if (ixj > tid) {
        bool up = (tid & k) == 0;
        if ((s[tid] > s[ixj]) == up) { float t = s[tid]; s[tid] = s[ixj]; s[ixj] = t; }
      }
      __syncthreads();
    }
  }
  data[blockIdx.x * N + tid] = s[tid];
}
"""


def test_bitonic_sort_template(cpu_device, sync_mode):
    x = RNG.standard_normal((4, 256)).astype(np.float32)
    mod = build(BITONIC, sync_mode, {"bitonic<256>": "regions"},
                name_expressions=["bitonic<256>"])
    d = hip.asarray(x)
    mod.get_function("bitonic<256>")(4, 256, (d,))
    np.testing.assert_array_equal(d.get(), np.sort(x, axis=1))


EARLY_EXIT = r"""
// Threads past the end leave before the barrier; the barrier then waits for the others only.
__global__ void partial_sums(const float* in, float* out, int n) {
  __shared__ float s[256];
  __shared__ int live;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) live = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
  s[threadIdx.x] = 0.0f;
  __syncthreads();
  if (i >= n) return;
  float v = in[i] * 2.0f;
  s[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float acc = 0.0f;
    for (int k = 0; k < live; ++k) acc += s[k];
    out[blockIdx.x] = acc;
  }
  __syncthreads();
  out[gridDim.x + i] = v + s[(threadIdx.x + 1) % live];
}
"""


def test_early_return_before_a_barrier(cpu_device, sync_mode):
    n = 1000
    x = RNG.standard_normal(n).astype(np.float32)
    blocks = (n + 255) // 256
    mod = build(EARLY_EXIT, sync_mode, {"partial_sums": "regions"})
    out = hip.zeros(blocks + n, np.float32)
    mod.get_function("partial_sums")(blocks, 256, (hip.asarray(x), out, n))
    got = out.get()
    v = (2 * x).astype(np.float32)
    sums = [v[b * 256:(b + 1) * 256].sum() for b in range(blocks)]
    np.testing.assert_allclose(got[:blocks], sums, rtol=1e-5, atol=1e-4)
    nxt = np.empty_like(v)
    for b in range(blocks):
        seg = v[b * 256:(b + 1) * 256]
        nxt[b * 256:b * 256 + len(seg)] = np.roll(seg, -1)
    np.testing.assert_allclose(got[blocks:], v + nxt, rtol=1e-6)


TRANSPOSE = r"""
#define T 32
#define ROWS 8
__global__ void transpose(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[T][T + 1];
  int x = blockIdx.x * T + threadIdx.x;
  int y = blockIdx.y * T + threadIdx.y;
  for (int j = 0; j < T; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
  for (int j = 0; j < T; j += ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
"""


def test_transpose_with_variables_reassigned_after_the_barrier(cpu_device, sync_mode):
    h, w = 70, 45
    a = RNG.standard_normal((h, w)).astype(np.float32)
    mod = build(TRANSPOSE, sync_mode, {"transpose": "regions"})
    out = hip.zeros((w, h), np.float32)
    mod.get_function("transpose")(((w + 31) // 32, (h + 31) // 32), (32, 8),
                                  (out, hip.asarray(a), w, h))
    np.testing.assert_array_equal(out.get(), a.T)


STENCIL = r"""
#define RADIUS 3
#define BS 128
__global__ void stencil(const int* in, int* out, int n) {
  __shared__ int temp[BS + 2 * RADIUS];
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = gindex < n ? in[gindex] : 0;
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = gindex >= RADIUS ? in[gindex - RADIUS] : 0;
    temp[lindex + BS] = gindex + BS < n ? in[gindex + BS] : 0;
  }
  __syncthreads();
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
  if (gindex < n) out[gindex] = result;
}
"""


def test_stencil_with_halo(cpu_device, sync_mode):
    n = 1000
    x = RNG.integers(-100, 100, n, dtype=np.int32)
    mod = build(STENCIL, sync_mode, {"stencil": "regions"})
    out = hip.zeros_like(x)
    mod.get_function("stencil")((n + 127) // 128, 128, (hip.asarray(x), out, n))
    padded = np.concatenate([np.zeros(3, np.int32), x, np.zeros(3, np.int32)])
    want = sum(padded[k:k + n] for k in range(7))
    np.testing.assert_array_equal(out.get(), want)


HISTOGRAM = r"""
__global__ void histo(const unsigned char* data, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}
"""


def test_shared_memory_histogram(cpu_device, sync_mode):
    data = RNG.integers(0, 256, 100_000, dtype=np.uint8)
    mod = build(HISTOGRAM, sync_mode, {"histo": "regions"})
    bins = hip.zeros(256, np.uint32)
    mod.get_function("histo")(7, 96, (hip.asarray(data), bins, data.size))
    np.testing.assert_array_equal(bins.get(), np.bincount(data, minlength=256))


STATE = r"""
// Per-thread state carried across barriers: an accumulator, an array, a pointer, a parameter
// changed per thread, two declarators in one declaration, uniform while/do-while loops and an
// if/else on a uniform condition with barriers in both branches.
__global__ void carry(const float* in, float* out, int rounds) {
  __shared__ float s[64];
  float acc = 0.0f, scale = 1.0f + threadIdx.x;
  float hist[3] = {0.0f, 0.0f, 0.0f};
  const float* p = in + blockIdx.x * blockDim.x;
  rounds += threadIdx.x % 2;
  int r = 0;
  while (r < 4) {
    s[threadIdx.x] = p[threadIdx.x] * scale;
    __syncthreads();
    acc += s[(threadIdx.x + r + 1) % blockDim.x];
    hist[r % 3] += acc;
    __syncthreads();
    ++r;
  }
  do {
    r -= 1;
    __syncthreads();
  } while (r > 0);
  if (blockDim.x >= 32) {
    s[threadIdx.x] = acc;
    __syncthreads();
    acc = s[blockDim.x - 1 - threadIdx.x];
  } else {
    __syncthreads();
    acc = -acc;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc + hist[0] + 10.0f * hist[1] + 100.0f * hist[2]
      + 1000.0f * rounds;
}
"""


def _carry_reference(x: np.ndarray, nb: int, nt: int, rounds: int) -> np.ndarray:
    out = np.zeros(nb * nt, np.float64)
    for b in range(nb):
        p = x[b * nt:(b + 1) * nt].astype(np.float32)
        scale = (1.0 + np.arange(nt)).astype(np.float32)
        acc = np.zeros(nt, np.float32)
        hist = np.zeros((3, nt), np.float32)
        for r in range(4):
            s = (p * scale).astype(np.float32)
            acc = (acc + s[(np.arange(nt) + r + 1) % nt]).astype(np.float32)
            hist[r % 3] = (hist[r % 3] + acc).astype(np.float32)
        if nt >= 32:
            acc = acc[::-1].copy()
        else:
            acc = -acc
        rr = rounds + np.arange(nt) % 2
        out[b * nt:(b + 1) * nt] = acc + hist[0] + 10 * hist[1] + 100 * hist[2] + 1000.0 * rr
    return out


@pytest.mark.parametrize("threads", [16, 64])
def test_state_across_barriers(cpu_device, sync_mode, threads):
    nb = 3
    x = RNG.standard_normal(nb * threads).astype(np.float32)
    mod = build(STATE, sync_mode, {"carry": "regions"})
    out = hip.zeros(nb * threads, np.float32)
    mod.get_function("carry")(nb, threads, (hip.asarray(x), out, 5))
    np.testing.assert_allclose(out.get(), _carry_reference(x, nb, threads, 5), rtol=2e-5,
                               atol=1e-3)


NAMESPACED = r"""
namespace outer { namespace {
constexpr int kTile = 64;
__device__ __forceinline__ float twice(float v) { return 2.0f * v; }
__global__ void rotate(const float* in, float* out) {
  __shared__ float s[kTile];
  const unsigned t = threadIdx.x;
  s[t] = twice(in[blockIdx.x * kTile + t]);
  __syncthreads();
  out[blockIdx.x * kTile + t] = s[(t + 1) % kTile];
}
} }
"""


def test_kernel_in_namespaces_with_a_helper(cpu_device, sync_mode):
    x = RNG.standard_normal(128).astype(np.float32)
    mod = build(NAMESPACED, sync_mode, {"outer::rotate": "regions"})
    out = hip.zeros(128, np.float32)
    mod.get_function("outer::rotate")(2, 64, (hip.asarray(x), out))
    np.testing.assert_array_equal(out.get(), np.roll(2 * x.reshape(2, 64), -1, axis=1).ravel())


THREE_D = r"""
__global__ void neighbours(const int* in, int* out) {
  __shared__ int s[4][4][8];
  int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  int lin = x + blockDim.x * (y + blockDim.y * z);
  s[z][y][x] = in[blockIdx.x * 128 + lin];
  __syncthreads();
  out[blockIdx.x * 128 + lin] = s[(z + 1) % 4][(y + 3) % 4][(x + 1) % 8] - s[z][y][x];
}
"""


def test_three_dimensional_blocks(cpu_device, sync_mode):
    x = RNG.integers(0, 1000, 256, dtype=np.int32)
    mod = build(THREE_D, sync_mode, {"neighbours": "regions"})
    out = hip.zeros_like(x)
    mod.get_function("neighbours")(2, (8, 4, 4), (hip.asarray(x), out))
    s = x.reshape(2, 4, 4, 8)
    want = np.roll(np.roll(np.roll(s, -1, axis=1), 1, axis=2), -1, axis=3) - s
    np.testing.assert_array_equal(out.get(), want.ravel())


# ---- kernels that must not be split ----------------------------------------------------------------

def test_divergent_barrier_is_not_split():
    src = """
    __global__ void k(int* o) { if (threadIdx.x < 16) { __syncthreads(); } o[threadIdx.x] = 1; }
    """
    ok, reason = plan(src)["k"]
    assert not ok and "differ between threads" in reason


@pytest.mark.parametrize("body,words", [
    ("for (int i = threadIdx.x; i < 64; i += 32) { o[i] = 1; __syncthreads(); }", "for loop"),
    ("int m = o[0]; for (int i = 0; i < m; ++i) { __syncthreads(); }", "for loop"),
    ("switch (blockIdx.x) { case 0: __syncthreads(); }", "switch"),
    ("for (int i = 0; i < 4; ++i) { if (o[threadIdx.x]) break; __syncthreads(); }", "break"),
    ("o[0] = 1 + __syncthreads_count(o[threadIdx.x]);", "__syncthreads_count"),
    ("do { o[threadIdx.x] >>= 1; } while (__syncthreads_or(o[threadIdx.x]));",
     "__syncthreads_or"),
    ("while (__any_sync(0xffffffffu, o[threadIdx.x])) o[threadIdx.x] >>= 1;", "__any_sync"),
    ("if (o[threadIdx.x]) { o[0] = __shfl_down(1, 1); }", "without a mask"),
    ("helper2(o); __syncthreads();", "helper2"),
    ("auto v = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = v;", "auto"),
    ("again: __syncthreads(); if (o[0]) goto again;", "goto"),
    ("#if 1\n __syncthreads();\n#endif\n", "preprocessor"),
])
def test_unsafe_shapes_fall_back_to_fibers(body, words):
    src = "__device__ void helper() { __syncthreads(); }\n" \
          "__device__ void helper2(int* o) { if (o[0]) return; __syncthreads(); }\n" \
          f"__global__ void k(int* o) {{ {body} }}\n"
    ok, reason = plan(src)["k"]
    assert not ok and words in reason, reason


def test_fallback_kernels_still_run_right(cpu_device, sync_mode):
    # the barrier sits in a loop with a per-thread trip count equal for all threads of a block
    src = """
    __global__ void k(const int* trips, int* out) {
      __shared__ int s[32];
      int acc = 0;
      for (int i = 0; i < trips[blockIdx.x]; ++i) {
        s[threadIdx.x] = i + threadIdx.x;
        __syncthreads();
        acc += s[31 - threadIdx.x];
        __syncthreads();
      }
      out[blockIdx.x * 32 + threadIdx.x] = acc;
    }
    """
    mod = build(src, sync_mode, {"k": "fibers"})
    assert "for loop" in mod.program.metadata["kernels"]["k"].get("regions_refused", "for loop")
    trips = np.array([0, 3, 5], np.int32)
    out = hip.zeros(96, np.int32)
    mod.get_function("k")(3, 32, (hip.asarray(trips), out))
    t = np.arange(32)
    want = np.concatenate([sum((i + 31 - t) for i in range(n)) + 0 * t for n in trips])
    np.testing.assert_array_equal(out.get(), want)


def test_compile_error_in_a_split_kernel_reports_the_users_lines(cpu_device):
    src = """__global__ void k(float* o) {
      __shared__ float s[32];
      s[threadIdx.x] = o[threadIdx.x];
      __syncthreads();
      o[threadIdx.x] = s[31 - threadIdx.x] + undefined_name;
    }
    """
    with pytest.raises(CompileError) as info:
        hip.Module(src)
    log = info.value.log
    assert ":5:" in log and "undefined_name" in log
    assert log.count("undefined_name") <= 2  # reported once, not once per copy of the kernel
    assert "__openhip_rg" not in log


def test_generated_code_keeps_user_line_numbers():
    src = "__global__ void k(float* o) {\n  o[0] = 1;\n  __syncthreads();\n  o[1] = 2;\n}\n"
    result = scan(src)
    edits, plans = split_kernels(src, result, "user.hip", ["k"])
    assert plans["k"].function == "__openhip_rg_k" and plans["k"].regions == 2
    text = apply_edits(src, edits)
    assert '#line 2 "user.hip"\no[0] = 1;' in text
    assert '#line 4 "user.hip"\no[1] = 2;' in text
    # inserted after the kernel; the lines after it keep their numbers
    assert text.endswith('#line 5 "user.hip"\n\n')


@pytest.mark.parametrize("body,words", [
    ("float v = o[threadIdx.x]; float* p = &v; __syncthreads(); o[threadIdx.x] = *p + v;",
     "address of 'v'"),
    ("float a[2] = {1, 2}; float* p = a; __syncthreads(); o[threadIdx.x] = p[1] + a[0];",
     "array 'a'"),
    ("LEAVE_IF(threadIdx.x > 3); __syncthreads(); o[threadIdx.x] = 1;", "macro LEAVE_IF"),
    ("CHECK_ARGS(o); __syncthreads(); o[threadIdx.x] = 1;", "CHECK_ARGS"),
    ("auto [a, b] = pair2(); __syncthreads(); o[threadIdx.x] = a + b;", "declaration"),
])
def test_more_unsafe_shapes_fall_back(body, words):
    src = ("#define LEAVE_IF(c) if (c) return\n"
           "struct P { float a, b; };\n__device__ P pair2() { return {1, 2}; }\n"
           f"__global__ void k(float* o) {{ {body} }}\n")
    ok, reason = plan(src)["k"]
    assert not ok and words in reason, reason


TWO_VERSIONS = r"""
#ifdef SECOND
__global__ void k(int* o) { __shared__ int s[32]; s[threadIdx.x] = 2; __syncthreads();
  o[threadIdx.x] = s[31 - threadIdx.x] * 10; }
#else
__global__ void k(int* o) { __shared__ int s[32]; s[threadIdx.x] = 1; __syncthreads();
  o[threadIdx.x] = s[31 - threadIdx.x]; }
#endif
"""


@pytest.mark.parametrize("second", [False, True])
def test_kernel_defined_in_two_preprocessor_branches(cpu_device, sync_mode, second):
    mod = hip.Module(TWO_VERSIONS, options=["-DSECOND"] if second else [])
    assert mod.program.metadata["kernels"]["k"]["mode"] == sync_mode
    out = hip.zeros(32, np.int32)
    mod.get_function("k")(1, 32, (out,))
    assert set(out.get().tolist()) == ({20} if second else {1})


FLAG_LOOP = r"""
// a uniform loop on a shared flag that one thread updates between barriers
__global__ void halve_until_small(int* v) {
  __shared__ int big;
  __shared__ int data[64];
  static int unused_static;
  data[threadIdx.x] = v[threadIdx.x];
  if (threadIdx.x == 0) big = 1;
  __syncthreads();
  while (big) {
    data[threadIdx.x] /= 2;
    __syncthreads();
    if (threadIdx.x == 0) {
      int m = 0;
      for (int i = 0; i < 64; ++i) m = max(m, data[i]);
      big = m > 10;
    }
    __syncthreads();
  }
  v[threadIdx.x] = data[threadIdx.x];
}
"""


def test_uniform_loop_on_a_shared_flag(cpu_device, sync_mode):
    x = RNG.integers(0, 5000, 64, dtype=np.int32)
    mod = build(FLAG_LOOP, sync_mode, {"halve_until_small": "regions"})
    d = hip.asarray(x)
    mod.get_function("halve_until_small")(1, 64, (d,))
    want = x.copy()
    while want.max() > 10:
        want //= 2
    np.testing.assert_array_equal(d.get(), want)


REDUCE_SAMPLE = r"""
// The CUDA samples' reduction with the block size as a template parameter: a per-thread
// running sum carried through a chain of barriers under uniform ifs.
template <unsigned blockSize>
__global__ void reduce5(const float* g_idata, float* g_odata, unsigned n) {
  __shared__ float sdata[blockSize];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  float mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  __syncthreads();
  if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
  __syncthreads();
  if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
  __syncthreads();
  if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
  __syncthreads();
  for (unsigned s = 32; s > 0; s >>= 1) {
    if (tid < s && blockSize >= 2 * s) sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
"""


@pytest.mark.parametrize("block", [64, 256, 512])
def test_cuda_samples_reduction(cpu_device, sync_mode, block):
    n = 100_003
    x = RNG.standard_normal(n).astype(np.float32)
    expr = f"reduce5<{block}>"
    mod = build(REDUCE_SAMPLE, sync_mode, {expr: "regions"}, name_expressions=[expr])
    blocks = (n + 2 * block - 1) // (2 * block)
    out = hip.zeros(blocks, np.float32)
    mod.get_function(expr)(blocks, block, (hip.asarray(x), out, n))
    assert abs(float(out.get().astype(np.float64).sum()) - float(x.astype(np.float64).sum())) \
        < 1e-2


def _random_kernel(rng: np.random.Generator, index: int, votes: bool = False) -> str:
    """A random race-free synchronising kernel: per-thread values a, b; each thread writes only
    its own slot of w; r (what others read) is refreshed from w only between two barriers.
    ``votes``: also __syncthreads_count/_and/_or in the positions that split."""
    def stmts(depth: int, budget: int) -> list[str]:
        out = []
        for _ in range(budget):
            k = int(rng.integers(1, 7))
            choice = int(rng.integers(0, 9 if depth < 2 else 6))
            if votes and rng.random() < 0.3:
                choice = 9 + int(rng.integers(0, 3))
            if choice == 9:
                out.append(f"{{ int n{depth} = __syncthreads_count((a + {k}) % 3 == 0); "
                           f"b += n{depth}; }}")
            elif choice == 10:
                out.append(f"{{ int o{depth}; o{depth} = __syncthreads_and(b % {k + 1} != 1); "
                           f"a = a * 3 + o{depth}; }}")
            elif choice == 11:
                out.append(f"if (__syncthreads_or(a % {k + 5} == 0)) {{ b += {k}; }}")
            elif choice == 0:
                out.append(f"a = a * {k} + r[(threadIdx.x + {k}) % blockDim.x];")
            elif choice == 1:
                out.append("w[threadIdx.x] = a ^ (b << 1);")
            elif choice == 2:
                out.append("__syncthreads(); r[threadIdx.x] = w[threadIdx.x]; __syncthreads();")
            elif choice == 3:
                out.append(f"if (threadIdx.x % {k} == 0) b += a + {k};")
            elif choice == 4:
                out.append(f"{{ int c = a + {k} * (int)threadIdx.x; b ^= c; }}")
            elif choice == 5:
                out.append(f"if (threadIdx.x + {k} > blockDim.x + 3) return;" if rng.random()
                           < 0.3 else f"b = b * 7 + (int)blockIdx.x + {k};")
            elif choice == 6:
                inner = " ".join(stmts(depth + 1, int(rng.integers(1, 4))))
                out.append(f"for (int i{depth} = 0; i{depth} < {k % 3 + 1}; ++i{depth}) "
                           f"{{ a += i{depth}; {inner} }}")
            elif choice == 7:
                then = " ".join(stmts(depth + 1, int(rng.integers(1, 3))))
                other = " ".join(stmts(depth + 1, int(rng.integers(1, 3))))
                out.append(f"if ((blockIdx.x + {k}) % 2 == 0) {{ {then} }} else {{ {other} }}")
            else:
                inner = " ".join(stmts(depth + 1, int(rng.integers(1, 3))))
                out.append(f"{{ int u{depth} = {k}; while (u{depth} > 0) {{ --u{depth}; "
                           f"{inner} }} }}")
        return out
    body = "\n  ".join(stmts(0, 8))
    return f"""
__global__ void fuzz{index}(const int* in, int* out) {{
  __shared__ int r[128];
  __shared__ int w[128];
  int a = in[blockIdx.x * blockDim.x + threadIdx.x];
  int b = (int)threadIdx.x;
  r[threadIdx.x] = a; w[threadIdx.x] = 0;
  __syncthreads();
  {body}
  out[blockIdx.x * blockDim.x + threadIdx.x] = a * 31 + b;
}}
"""


def _agree_with_fibers(kernels: list[str], monkeypatch, min_split: int) -> None:
    """Run the fuzz kernels split and as fibers: at least ``min_split`` split, same bits."""
    src = "\n".join(kernels)
    x = RNG.integers(-1000, 1000, 3 * 96, dtype=np.int32)
    results = {}
    for mode in ("regions", "fibers"):
        monkeypatch.setenv("OPENHIP_CPU_REGIONS", "1" if mode == "regions" else "0")
        mod = hip.Module(src)
        meta = mod.program.metadata["kernels"]
        if mode == "regions":
            split = [k for k, m in meta.items() if m["mode"] == "regions"]
            assert len(split) >= min_split, {k: m.get("regions_refused") for k, m in meta.items()}
        outs = []
        for i in range(len(kernels)):
            out = hip.full(3 * 96, -7, np.int32)
            mod.get_function(f"fuzz{i}")(3, 96, (hip.asarray(x), out))
            outs.append(out.get())
        results[mode] = outs
    for i, (a, b) in enumerate(zip(results["regions"], results["fibers"], strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=kernels[i])


def test_random_kernels_agree_with_fibers(cpu_device, monkeypatch):
    rng = np.random.default_rng(2024)
    _agree_with_fibers([_random_kernel(rng, i) for i in range(24)], monkeypatch, 20)


def test_random_kernels_with_votes_agree_with_fibers(cpu_device, monkeypatch):
    rng = np.random.default_rng(77)
    kernels = [_random_kernel(rng, i, votes=True) for i in range(16)]
    src = "\n".join(kernels)
    assert "__syncthreads_count" in src and "__syncthreads_or" in src
    _agree_with_fibers(kernels, monkeypatch, 12)


HIP_DYN = r"""
__global__ void rev(const float* in, float* out) {
  HIP_DYNAMIC_SHARED(float, buf)%s
  buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}
"""


@pytest.mark.parametrize("semicolon", ["", ";"])
def test_hip_dynamic_shared_macro(cpu_device, sync_mode, semicolon):
    # HIP's macro carries its own ";" (users write it without one, or with a harmless extra).
    # (A type as a macro argument does not parse as C++: such a kernel runs as fibers.)
    x = RNG.standard_normal(3 * 64).astype(np.float32)
    mod = build(HIP_DYN % semicolon, sync_mode)
    out = hip.zeros_like(x)
    mod.get_function("rev")(3, 64, (hip.asarray(x), out), shared_mem=4 * 64)
    np.testing.assert_array_equal(out.get(), x.reshape(3, 64)[:, ::-1].ravel())



VOTES = r"""
// __syncthreads_count/_and/_or in every position that splits, in a uniform loop, with threads
// that returned early (they no longer vote) and a uniform condition made of a vote's result.
__global__ void votes(const int* in, int* out, int rounds) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  if (v < -90) return;                                   // exited threads do not vote
  int total = 0;
  for (int r = 0; r < rounds; ++r) {
    int positive = __syncthreads_count(v > r);           // a declaration
    total += positive;
    bool all = __syncthreads_and(v >= -r);
    int any;
    any = __syncthreads_or(v == 7 + r);                  // an assignment
    if (__syncthreads_or(v > 1000)) { total += 1000000; }   // an if condition
    __syncthreads_count(v);                              // a statement
    if (positive > 3) {                                  // uniform: a vote's result
      __syncthreads();
      total += 7;
    }
    out[t * 4 + 0] = positive;
    out[t * 4 + 1] = all;
    out[t * 4 + 2] = any;
  }
  out[t * 4 + 3] = total;
}
"""


def _votes_reference(x: np.ndarray, block: int, rounds: int) -> np.ndarray:
    out = np.full(x.size * 4, -5, np.int32)
    for b in range(x.size // block):
        v = x[b * block:(b + 1) * block]
        live = v >= -90
        lv = v[live]
        total = 0
        for r in range(rounds):
            positive = int(np.count_nonzero(lv > r))
            total += positive
            all_ = int(np.all(lv >= -r))
            any_ = int(np.any(lv == 7 + r))
            if np.any(lv > 1000):
                total += 1000000
            if positive > 3:
                total += 7
            idx = b * block + np.nonzero(live)[0]
            out[idx * 4 + 0], out[idx * 4 + 1], out[idx * 4 + 2] = positive, all_, any_
        idx = b * block + np.nonzero(live)[0]
        out[idx * 4 + 3] = total
    return out


@pytest.mark.parametrize("block", [32, 96])
def test_syncthreads_count_and_or(cpu_device, sync_mode, block):
    x = RNG.integers(-100, 12, block * 5, dtype=np.int32)
    x[3] = 2000  # one block where some thread votes for the if
    mod = build(VOTES, sync_mode, {"votes": "regions"})
    out = hip.asarray(np.full(x.size * 4, -5, np.int32))
    mod.get_function("votes")(5, block, (hip.asarray(x), out, 6))
    np.testing.assert_array_equal(out.get(), _votes_reference(x, block, 6))


def test_vote_plans_and_line_numbers():
    src = VOTES
    ok, reason = plan(src)["votes"]
    assert ok, reason
    result = scan(src)
    edits, _ = split_kernels(src, result, "k.hip", ["votes"])
    generated = edits[0][2]
    assert "__syncthreads_count" not in generated and "vote_add" in generated
    # every statement keeps the line of the vote it came from
    line_of = {n: i + 1 for i, n in enumerate(src.splitlines())}
    for text, tag in (("int positive = ((int)__oh_vc_0);", "a declaration"),
                      ("any = ((int)(__oh_vc_2 != 0u));", "an assignment")):
        at = generated.index(text)
        directive = generated.rfind("#line ", 0, at)
        number = int(generated[directive:].split()[1])
        assert any(tag in line and k == number for line, k in line_of.items()), (text, number)



WHILE_VOTE = r"""
// Iterate until no thread of the block has work left (a common use of __syncthreads_or), with
// a neighbour exchange through shared memory in each round, a uniform continue and break.
__global__ void settle(int* x, int* rounds, int limit) {
  __shared__ int s[128];
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[t];
  int r = 0;
  while (__syncthreads_or(v > 10)) {
    ++r;
    if (r % 3 == 0) continue;                 // uniform: every thread skips this round
    s[threadIdx.x] = v;
    __syncthreads();
    v = v / 2 + (s[(threadIdx.x + 1) % blockDim.x] & 1);
    __syncthreads();
    if (r >= limit) break;                    // uniform
  }
  x[t] = v;
  if (threadIdx.x == 0) rounds[blockIdx.x] = r;
}
"""


def _settle_reference(x: np.ndarray, block: int, limit: int) -> tuple[np.ndarray, np.ndarray]:
    x = x.copy()
    rounds = np.zeros(x.size // block, np.int32)
    for b in range(x.size // block):
        v = x[b * block:(b + 1) * block].copy()
        r = 0
        while np.any(v > 10):
            r += 1
            if r % 3 == 0:
                continue
            v = v // 2 + (np.roll(v, -1) & 1)
            if r >= limit:
                break
        x[b * block:(b + 1) * block] = v
        rounds[b] = r
    return x, rounds


@pytest.mark.parametrize("limit", [4, 100])
def test_while_syncthreads_or_loop(cpu_device, sync_mode, limit):
    block = 64
    x = RNG.integers(0, 3000, block * 4, dtype=np.int32)
    mod = build(WHILE_VOTE, sync_mode, {"settle": "regions"})
    d, rounds = hip.asarray(x), hip.zeros(4, np.int32)
    mod.get_function("settle")(4, block, (d, rounds, limit))
    want_x, want_rounds = _settle_reference(x, block, limit)
    np.testing.assert_array_equal(d.get(), want_x)
    np.testing.assert_array_equal(rounds.get(), want_rounds)
