// cuda_fp4.h (CUDA 12.8) -> HIP's hip/hip_fp4.h: types, E2M1, the rounding mode and the
// conversions under HIP's names, as HIPIFY rocm-7.0.2 maps them (HIP_EXPERIMENTAL: --experimental;
// it calls the fp8 scale type __nv_fp8_e8m0 unsupported).
// OPTIONS: experimental=1
// CHECK: #include <hip/hip_fp4.h>
#include <cuda_fp4.h>

// CHECK: __host__ __device__ __hip_fp4_storage_t narrow(float x, __hip_fp4_interpretation_t t, hipRoundMode r) {
__host__ __device__ __nv_fp4_storage_t narrow(float x, __nv_fp4_interpretation_t t, cudaRoundMode r) {
  // CHECK: __hip_fp4x2_storage_t two = __hip_cvt_float2_to_fp4x2(make_float2(x, x), __HIP_E2M1, hipRoundNearest);
  __nv_fp4x2_storage_t two = __nv_cvt_float2_to_fp4x2(make_float2(x, x), __NV_E2M1, cudaRoundNearest);
  // CHECK: __hip_fp4_e2m1 a;
  // CHECK-NEXT: __hip_fp4x2_e2m1 b;
  // CHECK-NEXT: __hip_fp4x4_e2m1 c;
  __nv_fp4_e2m1 a;
  __nv_fp4x2_e2m1 b;
  __nv_fp4x4_e2m1 c;
  // CHECK: __half_raw h = __hip_cvt_fp4_to_halfraw(__hip_cvt_float_to_fp4(x, t, hipRoundZero), t);
  __half_raw h = __nv_cvt_fp4_to_halfraw(__nv_cvt_float_to_fp4(x, t, cudaRoundZero), t);
  // CHECK: return __hip_cvt_double_to_fp4((double)x, t, r);
  return __nv_cvt_double_to_fp4((double)x, t, r);
}
// CHECK-NOT: __nv_
// CHECK-NOT: cudaRound
