#include <hip/hip_runtime.h>
#include <rocsparse.h>

void spmv(int m, int n, int nnz, int *rowPtr, int *colInd, float *val, float *x, float *y) {
  rocsparse_handle handle;
  rocsparse_create_handle(&handle);
  rocsparse_spmat_descr A;
  rocsparse_dnvec_descr vx, vy;
  rocsparse_create_csr_descr(&A, m, n, nnz, rowPtr, colInd, val, rocsparse_indextype_i32, rocsparse_indextype_i32,
                    rocsparse_index_base_zero, rocblas_datatype_f32_r);
  rocsparse_create_dnvec_descr(&vx, n, x, rocblas_datatype_f32_r);
  rocsparse_create_dnvec_descr(&vy, m, y, rocblas_datatype_f32_r);
  float alpha = 1.0f, beta = 0.0f;
  size_t size = 0;
  rocsparse_spmv(handle, rocsparse_operation_none, &alpha, A, vx, &beta, vy,
                          rocblas_datatype_f32_r, rocsparse_spmv_alg_default, rocsparse_spmv_stage_buffer_size, &size, nullptr);
  rocsparse_destroy_spmat_descr(A);
  rocsparse_destroy_dnvec_descr(vx);
  rocsparse_destroy_dnvec_descr(vy);
  rocsparse_destroy_handle(handle);
}
