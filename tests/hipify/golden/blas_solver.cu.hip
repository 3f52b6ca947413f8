#include <hip/hip_runtime.h>
#include <hipblas.h>
#include <hipsolver.h>

int solve(int n, double *A, double *B, float *x, float *y) {
  hipblasHandle_t blas;
  hipblasStatus_t st = hipblasCreate(&blas);
  if (st != HIPBLAS_STATUS_SUCCESS) return 1;
  const float alpha = 2.0f;
  hipblasSaxpy(blas, n, &alpha, x, 1, y, 1);
  float norm = 0.0f;
  hipblasSnrm2(blas, n, x, 1, &norm);
  hipblasSetMathMode(blas, HIPBLAS_TENSOR_OP_MATH);
  hipblasGemmEx(blas, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, &alpha, x, HIP_R_32F, n, y,
               HIP_R_32F, n, &alpha, y, HIP_R_32F, n, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);
  hipblasDestroy(blas);

  hipsolverHandle_t solver;
  hipsolverDnCreate(&solver);
  int lwork = 0, *info = nullptr, *ipiv = nullptr;
  hipsolverDnDgetrf_bufferSize(solver, n, n, A, n, &lwork);
  double *work = nullptr;
  hipsolverDnDgetrf(solver, n, n, A, n, work, ipiv, info);
  hipsolverDnDgetrs(solver, HIPBLAS_OP_N, n, 1, A, n, ipiv, B, n, info);
  hipsolverDnDestroy(solver);
  return 0;
}
