#include <cusparse.h>

void spmv(int m, int n, int nnz, int *rowPtr, int *colInd, float *val, float *x, float *y) {
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vx, vy;
  cusparseCreateCsr(&A, m, n, nnz, rowPtr, colInd, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&vx, n, x, CUDA_R_32F);
  cusparseCreateDnVec(&vy, m, y, CUDA_R_32F);
  float alpha = 1.0f, beta = 0.0f;
  size_t size = 0;
  cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy,
                          CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &size);
  cusparseDestroySpMat(A);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cusparseDestroy(handle);
}
