// cuSPARSELt -> hipSPARSELt (tools/hipify_newer_maps.tsv, from newer HIPIFY's
// src/CUDA2HIP_SPARSELT_API_*.cpp): the header, handles, descriptors, enum values (the compute
// types are hipsparseLtComputetype_t's HIPSPARSELT_COMPUTE_*), functions.
// CHECK: #include "hipsparseLt.h"
#include "cusparseLt.h"

int prune(const void *dA, void *dC, cudaStream_t s) {
  // CHECK: hipsparseLtHandle_t handle;
  // CHECK-NEXT: hipsparseLtMatDescriptor_t matA;
  // CHECK-NEXT: hipsparseLtMatmulPlan_t plan;
  cusparseLtHandle_t handle;
  cusparseLtMatDescriptor_t matA;
  cusparseLtMatmulPlan_t plan;
  // CHECK: hipsparseLtComputetype_t compute = HIPSPARSELT_COMPUTE_16F;
  cusparseComputeType compute = CUSPARSE_COMPUTE_16F;
  // CHECK: hipsparseLtPruneAlg_t alg = HIPSPARSELT_PRUNE_SPMMA_STRIP;
  cusparseLtPruneAlg_t alg = CUSPARSELT_PRUNE_SPMMA_STRIP;
  // CHECK: hipsparseLtInit(&handle);
  cusparseLtInit(&handle);
  // CHECK: hipsparseLtSpMMAPrune(&handle, &matmul, dA, dC, alg, s);
  cusparseLtSpMMAPrune(&handle, &matmul, dA, dC, alg, s);
  // CHECK: hipsparseLtMatmulPlanDestroy(&plan);
  cusparseLtMatmulPlanDestroy(&plan);
  // CHECK: return hipsparseLtDestroy(&handle);
  return cusparseLtDestroy(&handle);
}

// GetVersion/GetProperty and library_types.h's property enum, as HIPIFY's test
// cusparselt2hipsparselt_after_0300.cu expects (hipLibraryPropertyType; its values are kept).
int version(const cusparseLtHandle_t *handle, int *v, int *major) {
  // CHECK: hipLibraryPropertyType p = MAJOR_VERSION;
  // CHECK-NEXT: hipLibraryPropertyType q = PATCH_LEVEL;
  libraryPropertyType p = MAJOR_VERSION;
  libraryPropertyType_t q = PATCH_LEVEL;
  // CHECK: hipsparseLtGetVersion(handle, v);
  cusparseLtGetVersion(handle, v);
  // CHECK: return hipsparseLtGetProperty(p, major);
  return cusparseLtGetProperty(p, major);
}
