// OPTIONS: roc=1
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>
// CHECK: #include <rocblas.h>
#include <cublas_v2.h>
// CHECK: #include <rocsparse.h>
#include <cusparse.h>
// CHECK: #include <rocrand/rocrand.h>
#include <curand.h>

void roc(int n, float *x) {
  // CHECK: rocblas_handle blas;
  cublasHandle_t blas;
  // CHECK: rocblas_create_handle(&blas);
  cublasCreate(&blas);
  float a = 2.0f;
  // CHECK: rocblas_sscal(blas, n, &a, x, 1);
  cublasSscal(blas, n, &a, x, 1);
  // CHECK: rocblas_status st = rocblas_destroy_handle(blas);
  cublasStatus_t st = cublasDestroy(blas);
  // CHECK: rocsparse_handle sparse;
  cusparseHandle_t sparse;
  // CHECK: rocsparse_create_handle(&sparse);
  cusparseCreate(&sparse);
  // CHECK: rocrand_generator gen;
  curandGenerator_t gen;
  // CHECK: rocrand_create_generator(&gen, ROCRAND_RNG_PSEUDO_DEFAULT);
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  // CHECK: hipStream_t s;
  cudaStream_t s;
}
