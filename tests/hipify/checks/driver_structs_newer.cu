// CUDA Driver structs later HIPIFY maps to HIP 6.x/7.0 types (tools/hipify_newer_maps.tsv, as
// HIPIFY's synthetic/driver_structs.cu expects): the 2024 tables' "unsupported" entries replaced,
// CUDA 12.8's batched-copy structs added.
#include <cuda.h>

CUresult launch(CUfunction f, CUstream s) {
  // CHECK: HIP_LAUNCH_CONFIG config;
  // CHECK-NEXT: hipLaunchAttribute attrs[1];
  // CHECK-NEXT: ihipKernel_t *kern_st = nullptr;
  // CHECK-NEXT: hipKernel_t kernel;
  CUlaunchConfig config;
  CUlaunchAttribute attrs[1];
  CUkern_st *kern_st = nullptr;
  CUkernel kernel;
  // CHECK: hipBatchMemOpNodeParams batch;
  // CHECK-NEXT: hipArrayMemoryRequirements req;
  // CHECK-NEXT: hipMemFabricHandle_t fabric;
  CUDA_BATCH_MEM_OP_NODE_PARAMS_v2 batch;
  CUDA_ARRAY_MEMORY_REQUIREMENTS req;
  CUmemFabricHandle fabric;
  // CHECK: hipMemcpy3DBatchOp op;
  // CHECK-NEXT: hipMemcpy3DOperand operand;
  // CHECK-NEXT: hipOffset3D offset;
  // CHECK-NEXT: hipMemcpyAttributes attributes;
  CUDA_MEMCPY3D_BATCH_OP op;
  CUmemcpy3DOperand operand;
  CUoffset3D offset;
  CUmemcpyAttributes attributes;
  config.attrs = attrs;
  return CUDA_SUCCESS;
}
