// cuTENSOR -> hipTensor (tools/hipify_newer_maps.tsv, from newer HIPIFY's
// src/CUDA2HIP_TENSOR_API_*.cpp and CUDA2HIP.cpp): the header, handle/descriptor/plan types,
// enum values (cuTENSOR 1's compute types become hiptensorComputeDescriptor_t's DESC values,
// the removed AUTOTUNE_* spellings the MODE_ ones), functions; unsupported names are kept.
// HIPIFY rocm-7.0.2 maps cuTENSOR itself and calls it HIP_EXPERIMENTAL: --experimental.
// OPTIONS: experimental=1
// CHECK: #include "hiptensor.h"
#include "cutensor.h"

cutensorStatus_t plan(cutensorHandle_t handle, cutensorOperationDescriptor_t desc,
                      cutensorPlanPreference_t pref, cutensorPlan_t *p, cudaStream_t s) {
  // CHECK: hiptensorComputeDescriptor_t legacy = HIPTENSOR_COMPUTE_DESC_32F;
  // CHECK-NEXT: hiptensorComputeDescriptor_t desc32 = HIPTENSOR_COMPUTE_DESC_32F;
  // CHECK-NEXT: hiptensorAutotuneMode_t mode = HIPTENSOR_AUTOTUNE_MODE_INCREMENTAL;
  // CHECK-NEXT: hiptensorDataType_t type = HIPTENSOR_C_64F;
  // CHECK-NEXT: hiptensorOperator_t op = HIPTENSOR_OP_SIGMOID;
  cutensorComputeType_t legacy = CUTENSOR_COMPUTE_32F;
  cutensorComputeDescriptor_t desc32 = CUTENSOR_COMPUTE_DESC_32F;
  cutensorAutotuneMode_t mode = CUTENSOR_AUTOTUNE_INCREMENTAL;
  cutensorDataType_t type = CUTENSOR_C_64F;
  cutensorOperator_t op = CUTENSOR_OP_SIGMOID;
  uint64_t bytes = 0;
  // CHECK: hiptensorEstimateWorkspaceSize(handle, desc, pref, HIPTENSOR_WORKSPACE_DEFAULT, &bytes);
  cutensorEstimateWorkspaceSize(handle, desc, pref, CUTENSOR_WORKSPACE_DEFAULT, &bytes);
  // CHECK: int v = hiptensorGetHiprtVersion();
  int v = cutensorGetCudartVersion();
  // CHECK: size_t w = cutensorGetVersion();
  size_t w = cutensorGetVersion();
  // CHECK: hiptensorStatus_t st = hiptensorCreatePlan(handle, p, desc, pref, bytes);
  cutensorStatus_t st = cutensorCreatePlan(handle, p, desc, pref, bytes);
  // CHECK: return st == HIPTENSOR_STATUS_SUCCESS ? hiptensorDestroyPlan(*p) : st;
  return st == CUTENSOR_STATUS_SUCCESS ? cutensorDestroyPlan(*p) : st;
}
