// CUDA Driver structs of CUDA 12.x as HIPIFY rocm-7.0.2 maps them (its src/CUDA2HIP_Driver_API_types.cpp):
// the launch config and batch-memop types translated (hipLaunchAttribute is HIP_EXPERIMENTAL:
// --experimental), the kernel, array-memory-requirement, fabric-handle and CUDA 12.8 batched-copy
// structs kept with a warning (7.0.2 calls them HIP_UNSUPPORTED; a later HIPIFY maps some of them).
// OPTIONS: experimental=1
#include <cuda.h>

CUresult launch(CUfunction f, CUstream s) {
  // CHECK: HIP_LAUNCH_CONFIG config;
  // CHECK-NEXT: hipLaunchAttribute attrs[1];
  // CHECK-NEXT: CUkern_st *kern_st = nullptr;
  // CHECK-NEXT: CUkernel kernel;
  CUlaunchConfig config;
  CUlaunchAttribute attrs[1];
  CUkern_st *kern_st = nullptr;
  CUkernel kernel;
  // CHECK: hipBatchMemOpNodeParams batch;
  // CHECK-NEXT: CUDA_ARRAY_MEMORY_REQUIREMENTS req;
  // CHECK-NEXT: CUmemFabricHandle fabric;
  CUDA_BATCH_MEM_OP_NODE_PARAMS_v2 batch;
  CUDA_ARRAY_MEMORY_REQUIREMENTS req;
  CUmemFabricHandle fabric;
  // CHECK: CUDA_MEMCPY3D_BATCH_OP op;
  // CHECK-NEXT: CUmemcpy3DOperand operand;
  // CHECK-NEXT: CUoffset3D offset;
  // CHECK-NEXT: CUmemcpyAttributes attributes;
  CUDA_MEMCPY3D_BATCH_OP op;
  CUmemcpy3DOperand operand;
  CUoffset3D offset;
  CUmemcpyAttributes attributes;
  config.attrs = attrs;
  // CHECK: return hipSuccess;
  return CUDA_SUCCESS;
}
