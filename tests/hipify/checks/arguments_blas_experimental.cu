// cuBLAS calls HIP provides experimentally (--experimental) whose argument lists differ:
// hipblasSyrkEx/HerkEx take the compute type after ldc, which cublasCsyrkEx/CherkEx do not
// (complex float: HIP_C_32F), as HIPIFY's synthetic/libraries/cublas2hipblas_8000.cu expects.
// OPTIONS: experimental=1
// CHECK: #include "hipblas.h"
#include "cublas.h"

void rank_k(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, int n, int k,
            const cuComplex *alpha, const float *ralpha, const void *A, cudaDataType at, int lda,
            const cuComplex *beta, const float *rbeta, void *C, cudaDataType ct, int ldc) {
  cublasStatus_t s;
  // CHECK: s = hipblasSyrkEx(h, uplo, op, n, k, alpha, A, at, lda, beta, C, ct, ldc, HIP_C_32F);
  s = cublasCsyrkEx(h, uplo, op, n, k, alpha, A, at, lda, beta, C, ct, ldc);
  // CHECK: s = hipblasHerkEx(h, uplo, op, n, k, ralpha, A, HIP_C_8I, lda,
  // CHECK-NEXT: rbeta, C, HIP_C_32F, ldc, HIP_C_32F);
  s = cublasCherkEx(h, uplo, op, n, k, ralpha, A, CUDA_C_8I, lda,
                    rbeta, C, CUDA_C_32F, ldc);
  // CHECK: if (hipblasSyrkEx(h, uplo, op, n, k, alpha, A, at, lda, beta, (char*)C + 8, ct, ldc, HIP_C_32F) != HIPBLAS_STATUS_SUCCESS) return;
  if (cublasCsyrkEx(h, uplo, op, n, k, alpha, A, at, lda, beta, (char*)C + 8, ct, ldc) != CUBLAS_STATUS_SUCCESS) return;
}
