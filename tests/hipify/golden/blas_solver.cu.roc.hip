#include <hip/hip_runtime.h>
#include <rocblas.h>
#include <rocsolver/rocsolver.h>

int solve(int n, double *A, double *B, float *x, float *y) {
  rocblas_handle blas;
  rocblas_status st = rocblas_create_handle(&blas);
  if (st != rocblas_status_success) return 1;
  const float alpha = 2.0f;
  rocblas_saxpy(blas, n, &alpha, x, 1, y, 1);
  float norm = 0.0f;
  rocblas_snrm2(blas, n, x, 1, &norm);
  rocblas_set_math_mode(blas, CUBLAS_TENSOR_OP_MATH);
  rocblas_gemm_ex(blas, rocblas_operation_none, rocblas_operation_none, n, n, n, &alpha, x, rocblas_datatype_f32_r, n, y,
               rocblas_datatype_f32_r, n, &alpha, y, rocblas_datatype_f32_r, n, rocblas_compute_type_f32, rocblas_gemm_algo_standard);
  rocblas_destroy_handle(blas);

  rocblas_handle solver;
  rocblas_create_handle(&solver);
  int lwork = 0, *info = nullptr, *ipiv = nullptr;
  cusolverDnDgetrf_bufferSize(solver, n, n, A, n, &lwork);
  double *work = nullptr;
  cusolverDnDgetrf(solver, n, n, A, n, work, ipiv, info);
  cusolverDnDgetrs(solver, rocblas_operation_none, n, 1, A, n, ipiv, B, n, info);
  rocblas_destroy_handle(solver);
  return 0;
}
