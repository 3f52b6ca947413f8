#include <cublas_v2.h>
#include <cusolverDn.h>

int solve(int n, double *A, double *B, float *x, float *y) {
  cublasHandle_t blas;
  cublasStatus_t st = cublasCreate(&blas);
  if (st != CUBLAS_STATUS_SUCCESS) return 1;
  const float alpha = 2.0f;
  cublasSaxpy(blas, n, &alpha, x, 1, y, 1);
  float norm = 0.0f;
  cublasSnrm2(blas, n, x, 1, &norm);
  cublasSetMathMode(blas, CUBLAS_TENSOR_OP_MATH);
  cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, x, CUDA_R_32F, n, y,
               CUDA_R_32F, n, &alpha, y, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  cublasDestroy(blas);

  cusolverDnHandle_t solver;
  cusolverDnCreate(&solver);
  int lwork = 0, *info = nullptr, *ipiv = nullptr;
  cusolverDnDgetrf_bufferSize(solver, n, n, A, n, &lwork);
  double *work = nullptr;
  cusolverDnDgetrf(solver, n, n, A, n, work, ipiv, info);
  cusolverDnDgetrs(solver, CUBLAS_OP_N, n, 1, A, n, ipiv, B, n, info);
  cusolverDnDestroy(solver);
  return 0;
}
