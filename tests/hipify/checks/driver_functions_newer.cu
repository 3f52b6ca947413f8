// CUDA Driver calls later HIPIFY maps (tools/hipify_newer_maps.tsv, as HIPIFY's
// synthetic/driver_functions_before_13000.cu expects): the 2024 tables' "unsupported" entries replaced,
// CUDA_MEMSET_NODE_PARAMS as hipMemsetParams, CUDA 12.8's cuEventElapsedTime_v2 added.
#include <cuda.h>

CUresult run(CUstream s, CUevent a, CUevent b, CUfunction f, CUdeviceptr p, void **args) {
  // CHECK: hipMemsetParams memset_params;
  // CHECK-NEXT: hipStreamBatchMemOpParams op;
  // CHECK-NEXT: HIP_LAUNCH_CONFIG config;
  // CHECK-NEXT: hipMemRangeHandleType kind;
  CUDA_MEMSET_NODE_PARAMS memset_params;
  CUstreamBatchMemOpParams op;
  CUlaunchConfig config;
  CUmemRangeHandleType kind;
  float ms = 0;
  // CHECK: hipStreamBatchMemOp(s, 1, &op, 0);
  cuStreamBatchMemOp(s, 1, &op, 0);
  // CHECK: hipEventRecordWithFlags(a, s, 0);
  cuEventRecordWithFlags(a, s, 0);
  // CHECK: hipEventElapsedTime(&ms, a, b);
  cuEventElapsedTime_v2(&ms, a, b);
  // CHECK: hipMemGetHandleForAddressRange(&ms, p, 4, kind, 0);
  cuMemGetHandleForAddressRange(&ms, p, 4, kind, 0);
  // CHECK: return hipDrvLaunchKernelEx(&config, f, args, nullptr);
  return cuLaunchKernelEx(&config, f, args, nullptr);
}
