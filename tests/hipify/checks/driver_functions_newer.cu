// CUDA Driver calls of CUDA 12.x as HIPIFY rocm-7.0.2 maps them: the batch memops,
// CUDA_MEMSET_NODE_PARAMS as hipMemsetParams, the HIP_EXPERIMENTAL range handles and
// cuLaunchKernelEx (--experimental); CUDA 12.8's cuEventElapsedTime_v2 kept with a warning
// (7.0.2: HIP_UNSUPPORTED).
// OPTIONS: experimental=1
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
  // CHECK: cuEventElapsedTime_v2(&ms, a, b);
  cuEventElapsedTime_v2(&ms, a, b);
  // CHECK: hipMemGetHandleForAddressRange(&ms, p, 4, kind, 0);
  cuMemGetHandleForAddressRange(&ms, p, 4, kind, 0);
  // CHECK: return hipDrvLaunchKernelEx(&config, f, args, nullptr);
  return cuLaunchKernelEx(&config, f, args, nullptr);
}
