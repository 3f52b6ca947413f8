// cuda_fp8.h's types and enum values become HIP's OCP-format names (CUDA's encoding; newer
// HIPIFY's FNUZ choice is not taken), the conversion functions HIP's (same arguments).
// CHECK: #include <hip/hip_fp8.h>
#include <cuda_fp8.h>

// CHECK: __global__ void pack(const float *in, __hip_fp8_storage_t *o, __hip_fp8x2_storage_t *o2, __hip_fp8x4_storage_t *o4) {
__global__ void pack(const float *in, __nv_fp8_storage_t *o, __nv_fp8x2_storage_t *o2, __nv_fp8x4_storage_t *o4) {
  // CHECK: __hip_saturation_t s = __HIP_NOSAT, f = __HIP_SATFINITE;
  __nv_saturation_t s = __NV_NOSAT, f = __NV_SATFINITE;
  // CHECK: __hip_fp8_interpretation_t a = __HIP_E4M3, b = __HIP_E5M2;
  __nv_fp8_interpretation_t a = __NV_E4M3, b = __NV_E5M2;
  // CHECK: o[0] = __hip_cvt_float_to_fp8(in[0], s, a);
  // CHECK-NEXT: o2[0] = __hip_cvt_float2_to_fp8x2(make_float2(in[0], in[1]), f, b);
  // CHECK-NEXT: float h = __half2float(__hip_cvt_fp8_to_halfraw(o[0], a));
  o[0] = __nv_cvt_float_to_fp8(in[0], s, a);
  o2[0] = __nv_cvt_float2_to_fp8x2(make_float2(in[0], in[1]), f, b);
  float h = __half2float(__nv_cvt_fp8_to_halfraw(o[0], a));
  // CHECK: __hip_fp8_e4m3 x(in[1]);
  // CHECK-NEXT: __hip_fp8x2_e4m3 x2;
  // CHECK-NEXT: __hip_fp8x4_e4m3 x4;
  // CHECK-NEXT: __hip_fp8_e5m2 y;
  // CHECK-NEXT: __hip_fp8x2_e5m2 y2;
  // CHECK-NEXT: __hip_fp8x4_e5m2 y4;
  __nv_fp8_e4m3 x(in[1]);
  __nv_fp8x2_e4m3 x2;
  __nv_fp8x4_e4m3 x4;
  __nv_fp8_e5m2 y;
  __nv_fp8x2_e5m2 y2;
  __nv_fp8x4_e5m2 y4;
}
// CHECK-NOT: __nv_
