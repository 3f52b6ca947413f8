// cuSPARSE -> rocSPARSE calls whose argument lists differ (--roc): policies replaced or added,
// stages and temporary buffers added (after the last argument too), buffer sizes cast to
// size_t*, arguments rocSPARSE does not take removed. Plain HIP keeps the arguments.
// OPTIONS: roc=1
// CHECK: #include <rocsparse.h>
#include <cusparse.h>

void sparse(cusparseHandle_t h, int m, int n, int nnz, cusparseMatDescr_t d, float *v, int *rp,
            int *ci, csrilu02Info_t info, void *buf, int *bytes, cusparseSpMatDescr_t A,
            cusparseDnMatDescr_t B, cusparseDnMatDescr_t C, cusparseDnVecDescr_t x,
            cusparseDnVecDescr_t y, const void *alpha, const void *beta, size_t *size) {
  // CHECK: rocsparse_scsrilu0_analysis(h, m, nnz, d, v, rp, ci, info, rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buf);
  cusparseScsrilu02_analysis(h, m, nnz, d, v, rp, ci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf);
  // CHECK: rocsparse_dcsrilu0(h, m, nnz, d, (double*)v, rp, ci, info, rocsparse_solve_policy_auto, buf);
  cusparseDcsrilu02(h, m, nnz, d, (double*)v, rp, ci, info, CUSPARSE_SOLVE_POLICY_NO_LEVEL, buf);
  // CHECK: rocsparse_dcsric0(h, m, nnz, d, (double*)v, rp, ci, info, (rocsparse_solve_policy)m, buf);
  cusparseDcsric02(h, m, nnz, d, (double*)v, rp, ci, info, (cusparseSolvePolicy_t)m, buf);
  // CHECK: rocsparse_scsrilu0_buffer_size(h, m, nnz, d, v, rp, ci, info, reinterpret_cast<size_t*>(bytes));
  cusparseScsrilu02_bufferSize(h, m, nnz, d, v, rp, ci, info, bytes);
  // CHECK: rocsparse_spmm(h, rocsparse_operation_none, rocsparse_operation_none, alpha, A, B, beta, C,
  // CHECK-NEXT: rocblas_datatype_f32_r, rocsparse_spmm_alg_default, rocsparse_spmm_stage_compute, size, nullptr);
  cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, B, beta, C,
                          CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, size);
  // CHECK: rocsparse_spmv(h, rocsparse_operation_none, alpha, A, x, beta, y, rocblas_datatype_f32_r, rocsparse_spmv_alg_default, rocsparse_spmv_stage_compute, buf);
  cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, x, beta, y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
  // CHECK: rocsparse_csrgeam_nnz(h, m, n, d, nnz, rp, ci, d, nnz, rp, ci, d, rp, bytes);
  cusparseXcsrgeam2Nnz(h, m, n, d, nnz, rp, ci, d, nnz, rp, ci, d, rp, bytes, buf);
  // CHECK: rocsparse_scsrgeam(h, m, n, v, d, nnz, v, rp, ci, v, d, nnz, v, rp, ci, d, v, rp, ci);
  cusparseScsrgeam2(h, m, n, v, d, nnz, v, rp, ci, v, d, nnz, v, rp, ci, d, v, rp, ci, buf);
}
