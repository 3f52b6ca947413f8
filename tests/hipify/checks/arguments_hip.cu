// Argument rewrites for plain HIP (no --roc/--miopen), as hipify-clang does them: HIP_SYMBOL for
// the symbol APIs and the graph memcpy-to/from-symbol nodes, hipHostMallocDefault, the kernel as
// const void*, overloads by argument count; half2's .x/.y read as half; CUDA_VERSION-gated code
// with the inactive blocks skipped (openhip predefines CUDA 12.6's CUDA_VERSION, 12060).
// OPTIONS: skip_excluded_preprocessor_blocks=1
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_fp16.h>
#include <cuda_fp16.h>
// CHECK: #include <hip/hiprtc.h>
#include <nvrtc.h>
// CHECK: #include <hipsparse.h>
#include <cusparse.h>

__constant__ float coeffs[16];
__device__ int counter;

__global__ void scale(float *out, half2 h) {
  // CHECK: float lo = __low2float(h), hi = (float)reinterpret_cast<half&>(h.y);
  float lo = __low2float(h), hi = (float)h.y;
  half2 pair = h, other;
  // CHECK: out[threadIdx.x] = lo + hi + (float)reinterpret_cast<half&>(pair.x) + (float)reinterpret_cast<half&>(other.y);
  out[threadIdx.x] = lo + hi + (float)pair.x + (float)other.y;
  const half2 fixed = h;
  // CHECK: out[0] += (float)fixed.x;
  out[0] += (float)fixed.x;
}

void host(float *d, const float *h, cudaStream_t s) {
  cudaGraph_t graph;
  cudaGraphNode_t node, deps[2];
  cudaGraphExec_t exec;
  float *pinned;
  // CHECK: hipMemcpyToSymbolAsync(HIP_SYMBOL(coeffs), h, sizeof(coeffs), 0, hipMemcpyHostToDevice, s);
  cudaMemcpyToSymbolAsync(coeffs, h, sizeof(coeffs), 0, cudaMemcpyHostToDevice, s);
  // CHECK: hipGraphAddMemcpyNodeToSymbol(&node, graph, deps, 2, HIP_SYMBOL(coeffs), h, 64, 0, hipMemcpyHostToDevice);
  cudaGraphAddMemcpyNodeToSymbol(&node, graph, deps, 2, coeffs, h, 64, 0, cudaMemcpyHostToDevice);
  // CHECK: hipGraphAddMemcpyNodeFromSymbol(&node, graph, nullptr, 0, d,
  // CHECK-NEXT: HIP_SYMBOL(counter), sizeof(int), 0, hipMemcpyDeviceToHost);
  cudaGraphAddMemcpyNodeFromSymbol(&node, graph, nullptr, 0, d,
                                   counter, sizeof(int), 0, cudaMemcpyDeviceToHost);
  // CHECK: hipGraphExecMemcpyNodeSetParamsFromSymbol(exec, node, d, HIP_SYMBOL(counter), 4, 0, hipMemcpyDeviceToHost);
  cudaGraphExecMemcpyNodeSetParamsFromSymbol(exec, node, d, counter, 4, 0, cudaMemcpyDeviceToHost);
  // CHECK: hipHostMalloc((void**)&pinned, 64 * sizeof(float), hipHostMallocDefault);
  cudaMallocHost((void**)&pinned, 64 * sizeof(float));
  cudaFuncAttributes attr;
  // CHECK: hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(scale));
  cudaFuncGetAttributes(&attr, scale);
  // CHECK: hipFuncSetCacheConfig(reinterpret_cast<const void*>(&scale), hipFuncCachePreferL1);
  cudaFuncSetCacheConfig(&scale, cudaFuncCachePreferL1);
  // CHECK: hipGraphInstantiateWithFlags(&exec, graph, 0);
  cudaGraphInstantiate(&exec, graph, 0);
  nvrtcProgram prog;
  const char *opts[] = {"-O3"}, *headers = nullptr;
  // no const_cast: HIPIFY rocm-7.0.2 dropped it (#2035)
  // CHECK: hiprtcCompileProgram(prog, 1, opts);
  nvrtcCompileProgram(prog, 1, opts);
  // CHECK: hiprtcCreateProgram(&prog, "src", "k.cu", 1, &headers, nullptr);
  nvrtcCreateProgram(&prog, "src", "k.cu", 1, &headers, nullptr);
  cusparseHandle_t sp;
  cusparseSpMatDescr_t A;
  cusparseDnMatDescr_t B, C;
  cusparseSpSMDescr_t sm;
  // CUDA 12's SpSM_solve lost the buffer hipSPARSE still takes; CUDA 11's form is kept
  // CHECK: hipsparseSpSM_solve(sp, HIPSPARSE_OPERATION_NON_TRANSPOSE, HIPSPARSE_OPERATION_NON_TRANSPOSE, h, A, B, C, HIP_R_32F, HIPSPARSE_SPSM_ALG_DEFAULT, sm, nullptr);
  cusparseSpSM_solve(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, h, A, B, C, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, sm);
  // CHECK: hipsparseSpSM_solve(sp, HIPSPARSE_OPERATION_NON_TRANSPOSE, HIPSPARSE_OPERATION_NON_TRANSPOSE, h, A, B, C, HIP_R_32F, HIPSPARSE_SPSM_ALG_DEFAULT, sm, d);
  cusparseSpSM_solve(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, h, A, B, C, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, sm, d);
#if CUDA_VERSION >= 11010
  // CHECK: hipGraphMemcpyNodeSetParamsToSymbol(node, HIP_SYMBOL(coeffs), h, 64, 0, hipMemcpyHostToDevice);
  cudaGraphMemcpyNodeSetParamsToSymbol(node, coeffs, h, 64, 0, cudaMemcpyHostToDevice);
#endif
  const char *name = "entry";
  void *pfn = nullptr;
  cudaDriverEntryPointQueryResult found;
  // hipGetProcAddress takes the HIP version asked for: HIPIFY rocm-7.0.2's HIP_LATEST / 10
  unsigned long long flags = 0;
  // CHECK: hipGetProcAddress(name, &pfn, 700, flags, &found);
  cudaGetDriverEntryPoint(name, &pfn, flags, &found);
#if CUDA_VERSION < 9000
  // CHECK: cudaThreadSynchronize();
  cudaThreadSynchronize();
#endif
}
