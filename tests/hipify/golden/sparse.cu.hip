#include <hip/hip_runtime.h>
#include <hipsparse.h>

void spmv(int m, int n, int nnz, int *rowPtr, int *colInd, float *val, float *x, float *y) {
  hipsparseHandle_t handle;
  hipsparseCreate(&handle);
  hipsparseSpMatDescr_t A;
  hipsparseDnVecDescr_t vx, vy;
  hipsparseCreateCsr(&A, m, n, nnz, rowPtr, colInd, val, HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_32I,
                    HIPSPARSE_INDEX_BASE_ZERO, HIP_R_32F);
  hipsparseCreateDnVec(&vx, n, x, HIP_R_32F);
  hipsparseCreateDnVec(&vy, m, y, HIP_R_32F);
  float alpha = 1.0f, beta = 0.0f;
  size_t size = 0;
  hipsparseSpMV_bufferSize(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy,
                          HIP_R_32F, HIPSPARSE_SPMV_ALG_DEFAULT, &size);
  hipsparseDestroySpMat(A);
  hipsparseDestroyDnVec(vx);
  hipsparseDestroyDnVec(vy);
  hipsparseDestroy(handle);
}
