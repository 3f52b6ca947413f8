// OPTIONS:
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>
// CHECK: #include <hipblas.h>
#include <cublas_v2.h>
// CHECK: #include <hiprand/hiprand.h>
#include <curand.h>
// CHECK: #include <hipfft/hipfft.h>
#include <cufft.h>
// CHECK: #include <hipsparse.h>
#include <cusparse.h>
// CHECK: #include <hipsolver.h>
#include <cusolverDn.h>
// CHECK: #include <hipDNN.h>
#include <cudnn.h>
// CHECK: #include <hipcub/hipcub.hpp>
#include <cub/cub.cuh>
// CHECK: #include <hip/hiprtc.h>
#include <nvrtc.h>
// CHECK: #include <hip/hip_complex.h>
#include <cuComplex.h>

void everything(int n, float *x, float *y, cuFloatComplex *z, void *tmp, size_t bytes) {
  // CHECK: hipblasHandle_t blas;
  cublasHandle_t blas;
  // CHECK: if (hipblasCreate(&blas) != HIPBLAS_STATUS_SUCCESS) return;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) return;
  float a = 1.0f;
  // CHECK: hipblasSscal(blas, n, &a, x, 1);
  cublasSscal(blas, n, &a, x, 1);
  // CHECK: hipblasSgemm(blas, HIPBLAS_OP_N, HIPBLAS_OP_T, n, n, n, &a, x, n, y, n, &a, y, n);
  cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &a, x, n, y, n, &a, y, n);
  // CHECK: hipblasDestroy(blas);
  cublasDestroy(blas);

  // CHECK: hiprandGenerator_t gen;
  curandGenerator_t gen;
  // CHECK: hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_XORWOW);
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_XORWOW);
  // CHECK: hiprandGenerateUniform(gen, x, n);
  curandGenerateUniform(gen, x, n);

  // CHECK: hipfftHandle plan;
  cufftHandle plan;
  // CHECK: hipfftPlan1d(&plan, n, HIPFFT_C2C, 1);
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  // CHECK: hipfftExecC2C(plan, (hipfftComplex *)z, (hipfftComplex *)z, HIPFFT_FORWARD);
  cufftExecC2C(plan, (cufftComplex *)z, (cufftComplex *)z, CUFFT_FORWARD);

  // CHECK: hipsparseHandle_t sparse;
  cusparseHandle_t sparse;
  // CHECK: hipsparseCreate(&sparse);
  cusparseCreate(&sparse);
  // CHECK: hipsparseMatDescr_t descr;
  cusparseMatDescr_t descr;
  // CHECK: hipsparseSetMatIndexBase(descr, HIPSPARSE_INDEX_BASE_ONE);
  cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ONE);

  // CHECK: hipsolverHandle_t solver;
  cusolverDnHandle_t solver;
  // CHECK: hipsolverDnCreate(&solver);
  cusolverDnCreate(&solver);
  int lwork;
  // CHECK: hipsolverDnSpotrf_bufferSize(solver, HIPBLAS_FILL_MODE_LOWER, n, x, n, &lwork);
  cusolverDnSpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, n, x, n, &lwork);

  // CHECK: hipdnnHandle_t dnn;
  cudnnHandle_t dnn;
  // CHECK: hipdnnCreate(&dnn);
  cudnnCreate(&dnn);

  // CHECK: hipcub::DeviceScan::ExclusiveSum(tmp, bytes, x, y, n);
  cub::DeviceScan::ExclusiveSum(tmp, bytes, x, y, n);

  // CHECK: hiprtcProgram prog;
  nvrtcProgram prog;
  // CHECK: hiprtcResult rc = hiprtcCreateProgram(&prog, "", "k.cu", 0, nullptr, nullptr);
  nvrtcResult rc = nvrtcCreateProgram(&prog, "", "k.cu", 0, nullptr, nullptr);
  // CHECK: if (rc != HIPRTC_SUCCESS) puts(hiprtcGetErrorString(rc));
  if (rc != NVRTC_SUCCESS) puts(nvrtcGetErrorString(rc));

  // CHECK: hipFloatComplex w = hipCaddf(z[0], make_hipFloatComplex(1.0f, 0.0f));
  cuFloatComplex w = cuCaddf(z[0], make_cuFloatComplex(1.0f, 0.0f));
  // CHECK: float re = hipCrealf(w), mag = hipCabsf(w);
  float re = cuCrealf(w), mag = cuCabsf(w);
}
