#!/usr/bin/env python3
"""Benchmark openhip hipify: lines per second on a generated CUDA corpus, one process.

Generates a deterministic corpus (``--lines``, default 48,000 lines in ``--files`` files) of
CUDA code that touches every library in the maps, with kernels, templated and multi-line
launches, macros, comments and strings; then translates it with warnings and statistics on
(what ``openhip hipify --print-stats`` does), ``--repeat`` times, and prints the median.
``--cli DIR`` also writes the corpus to DIR and times ``openhip hipify DIR --examine``.
``--hipify-perl PATH`` times a hipify-perl script on the same files, if you have one.

    python bench/bench_hipify.py [--lines N] [--files N] [--repeat N] [--cli DIR]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openhip.hipify import hipify  # noqa: E402

HEADER = """\
// Generated benchmark source {index}: not a real program.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand.h>
#include <curand_kernel.h>
#include <cufft.h>
#include <cusparse.h>
#include <cusolverDn.h>
#include <cudnn.h>
#include <cub/cub.cuh>
#include <nvrtc.h>
#include <cuComplex.h>

#define CHECK(call)                                                   \\
  do {{                                                                \\
    cudaError_t e = (call);                                           \\
    if (e != cudaSuccess) {{                                           \\
      printf("CUDA error %s at %s:%d\\n", cudaGetErrorString(e),       \\
             __FILE__, __LINE__);                                     \\
    }}                                                                 \\
  }} while (0)
"""

SNIPPETS = [
    """\
template <typename T, int BLOCK>
__global__ void reduce_{i}(const T *in, T *out, int n) {{
  __shared__ T buf[BLOCK];
  int t = threadIdx.x, i = blockIdx.x * BLOCK * 2 + t;
  T v = i < n ? in[i] : T(0);
  if (i + BLOCK < n) v += in[i + BLOCK];
  buf[t] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 32; s >>= 1) {{
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }}
  if (t < 32) {{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  }}
  if (t == 0) atomicAdd(out, v);
}}
""",
    """\
__global__ void saxpy_{i}(int n, float a, const float *x, float *y) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];  // y = a*x + y
}}

void run_saxpy_{i}(int n, float *x, float *y, cudaStream_t s) {{
  saxpy_{i}<<<(n + 255) / 256, 256, 0, s>>>(n, 2.0f, x, y);
  CHECK(cudaGetLastError());
  reduce_{i}<float, 256><<<dim3((n + 511) / 512, 1), dim3(256),
                        256 * sizeof(float), s>>>(x, y, n);
}}
""",
    """\
int memory_{i}(size_t bytes) {{
  float *d = nullptr, *h = nullptr;
  CHECK(cudaMalloc(&d, bytes));
  CHECK(cudaMallocHost(&h, bytes));
  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEventCreate(&start);
  cudaEventCreate(&stop, cudaEventDisableTiming);
  cudaEventRecord(start, stream);
  CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d, 0, bytes, stream));
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0.f;
  cudaEventElapsedTime(&ms, start, stop);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("%s: %f ms\\n", prop.name, ms);
  cudaFreeHost(h);
  cudaFree(d);
  cudaStreamDestroy(stream);
  return 0;
}}
""",
    """\
void blas_{i}(int n, const float *A, const float *B, float *C) {{
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float alpha = 1.0f, beta = 0.0f;
  cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST);
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &alpha, A, n, B, n, &beta, C, n);
  cublasStatus_t st = cublasDestroy(handle);
  if (st != CUBLAS_STATUS_SUCCESS) printf("cublas failed\\n");
}}
""",
    """\
void rand_fft_{i}(int n, float *d, cufftComplex *c) {{
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  curandGenerateUniform(gen, d, n);
  curandDestroyGenerator(gen);
  cufftHandle plan;
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  cufftExecC2C(plan, c, c, CUFFT_FORWARD);
  cufftDestroy(plan);
}}

__global__ void init_rng_{i}(curandState *states, unsigned long long seed) {{
  int id = threadIdx.x + blockIdx.x * blockDim.x;
  curand_init(seed, id, 0, &states[id]);
  float u = curand_uniform(&states[id]);
  (void)u;
}}
""",
    """\
void sparse_solver_{i}(int m, int nnz, const int *rowPtr, const int *colInd, const double *val) {{
  cusparseHandle_t sp;
  cusparseCreate(&sp);
  cusparseMatDescr_t descr;
  cusparseCreateMatDescr(&descr);
  cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL);
  cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO);
  cusparseDestroyMatDescr(descr);
  cusparseDestroy(sp);
  cusolverDnHandle_t dn;
  cusolverDnCreate(&dn);
  int lwork = 0;
  cusolverDnDgetrf_bufferSize(dn, m, m, nullptr, m, &lwork);
  cusolverDnDestroy(dn);
}}
""",
    """\
void dnn_{i}(cudnnHandle_t h, float *x) {{
  cudnnTensorDescriptor_t desc;
  cudnnCreateTensorDescriptor(&desc);
  cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 224, 224);
  cudnnActivationDescriptor_t act;
  cudnnCreateActivationDescriptor(&act);
  cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0);
  cudnnDestroyActivationDescriptor(act);
  cudnnDestroyTensorDescriptor(desc);
}}
""",
    """\
void cub_rtc_{i}(const int *in, int *out, int n, void *tmp, size_t bytes) {{
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
  nvrtcProgram prog;
  const char *src = "extern \\"C\\" __global__ void k() {{}}";
  nvrtcCreateProgram(&prog, src, "k.cu", 0, nullptr, nullptr);
  nvrtcResult r = nvrtcCompileProgram(prog, 0, nullptr);
  if (r != NVRTC_SUCCESS) printf("%s\\n", nvrtcGetErrorString(r));
  nvrtcDestroyProgram(&prog);
  cuDoubleComplex z = make_cuDoubleComplex(1.0, 2.0);
  double m = cuCabs(z);
  (void)m;
}}
""",
    """\
int driver_{i}() {{
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuCtxCreate(&ctx, 0, dev);
  CUresult res = cuModuleLoad(&mod, "kernel.cubin");
  if (res != CUDA_SUCCESS) return 1;
  cuModuleGetFunction(&fn, mod, "kernel");
  cuCtxDestroy(ctx);
  /* A block comment mentioning cudaMalloc and cuInit,
     which stay as they are. */
  return 0;
}}
""",
]


def make_corpus(lines: int, files: int, seed: int = 0) -> dict[str, str]:
    """``files`` generated sources with about ``lines`` lines in total."""
    rng = random.Random(seed)
    per_file = lines // files
    corpus = {}
    counter = 0
    for f in range(files):
        parts = [HEADER.format(index=f)]
        count = parts[0].count("\n")
        while count < per_file:
            snippet = SNIPPETS[rng.randrange(len(SNIPPETS))]
            if snippet.startswith("void run_saxpy") or "run_saxpy_" in snippet:
                snippet = SNIPPETS[0] + SNIPPETS[1]
            text = snippet.format(i=counter)
            counter += 1
            parts.append(text)
            count += text.count("\n")
        corpus[f"src/part{f // 10}/file{f}.cu"] = "\n".join(parts)
    return corpus


def time_translate(corpus: dict[str, str], **options: object) -> tuple[float, float, int, int]:
    """Translate the corpus with warnings and stats: (wall s, CPU s, warnings, refs)."""
    warnings = refs = 0
    start, cpu = time.perf_counter(), time.process_time()
    for name, text in corpus.items():
        result = hipify(text, filename=name, **options)
        result.stats.report()
        warnings += len(result.warnings)
        refs += result.stats.converted.total
    return time.perf_counter() - start, time.process_time() - cpu, warnings, refs


def main() -> int:
    """Run the benchmark; prints a small report."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=48_000)
    p.add_argument("--files", type=int, default=120)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--cli", metavar="DIR", help="also time `openhip hipify DIR --examine`")
    p.add_argument("--hipify-perl", metavar="PATH", help="also time this hipify-perl script")
    args = p.parse_args()

    corpus = make_corpus(args.lines, args.files)
    total_lines = sum(t.count("\n") for t in corpus.values())
    load = os.getloadavg()
    print(f"corpus: {len(corpus)} files, {total_lines} lines; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    hipify("warm up", filename="x.cu")
    for label, opts in (("keep <<<>>>", {}), ("--hip-kernel-execution-syntax", {"hip_kernel_execution_syntax": True})):
        times, cpus = [], []
        for _ in range(args.repeat):
            seconds, cpu, warnings, refs = time_translate(corpus, **opts)
            times.append(seconds)
            cpus.append(cpu)
        med, cpu_med = statistics.median(times), statistics.median(cpus)
        print(
            f"{label:32s} wall median {med:.3f} s of {args.repeat} (min {min(times):.3f}, max {max(times):.3f}): "
            f"{total_lines / med:,.0f} lines/s; CPU median {cpu_med:.3f} s: {total_lines / cpu_med:,.0f} lines/CPU-s; "
            f"{refs} refs converted, {warnings} warnings"
        )
    if args.cli:
        root = Path(args.cli)
        shutil.rmtree(root, ignore_errors=True)
        for name, text in corpus.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        from openhip.cli.hipify import run

        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
                rc = run([str(root), "--examine"])
            times.append(time.perf_counter() - start)
        med = statistics.median(times)
        print(f"{'CLI --examine (read + stats)':32s} median {med:.3f} s (rc {rc}): {total_lines / med:,.0f} lines/s")
    if args.hipify_perl:
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, text in corpus.items():
                path = Path(tmp) / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                paths.append(str(path))
            start = time.perf_counter()
            subprocess.run(["perl", args.hipify_perl, "-examine", *paths], capture_output=True, check=False)
            seconds = time.perf_counter() - start
            print(f"{'hipify-perl -examine':32s} {seconds:.3f} s: {total_lines / seconds:,.0f} lines/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
