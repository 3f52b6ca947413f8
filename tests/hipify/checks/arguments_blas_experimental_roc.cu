// The same cuBLAS calls under --roc --experimental: rocblas_syrk_ex/herk_ex take the execution
// type after ldc (rocblas_datatype_f32_c), as HIPIFY's synthetic/libraries/cublas2rocblas_8000.cu
// expects.
// OPTIONS: roc=1 experimental=1
// CHECK: #include "rocblas.h"
#include "cublas.h"

void rank_k(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, int n, int k,
            const cuComplex *alpha, const float *ralpha, const void *A, cudaDataType at, int lda,
            const cuComplex *beta, const float *rbeta, void *C, cudaDataType ct, int ldc) {
  cublasStatus_t s;
  // CHECK: s = rocblas_syrk_ex(h, uplo, op, n, k, alpha, A, at, lda, beta, C, ct, ldc, rocblas_datatype_f32_c);
  s = cublasCsyrkEx(h, uplo, op, n, k, alpha, A, at, lda, beta, C, ct, ldc);
  // CHECK: s = rocblas_herk_ex(h, uplo, op, n, k, ralpha, A, rocblas_datatype_i8_c, lda, rbeta, C, rocblas_datatype_f32_c, ldc, rocblas_datatype_f32_c);
  s = cublasCherkEx(h, uplo, op, n, k, ralpha, A, CUDA_C_8I, lda, rbeta, C, CUDA_C_32F, ldc);
}
