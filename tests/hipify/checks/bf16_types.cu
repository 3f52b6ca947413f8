// CUDA's bfloat16 types become HIP 6's (as newer HIPIFY maps them: src/CUDA2HIP_Device_types.cpp);
// the conversion functions keep their names (HIP has the same ones).
// CHECK: #include <hip/hip_bf16.h>
#include <cuda_bf16.h>

// CHECK: __global__ void scale(const __hip_bfloat16 *in, __hip_bfloat162 *pairs, __hip_bfloat16_raw *raw, float s) {
__global__ void scale(const __nv_bfloat16 *in, __nv_bfloat162 *pairs, __nv_bfloat16_raw *raw, float s) {
  int i = threadIdx.x;
  // CHECK: __hip_bfloat16 v = __float2bfloat16(__bfloat162float(in[i]) * s);
  __nv_bfloat16 v = __float2bfloat16(__bfloat162float(in[i]) * s);
  // CHECK: pairs[i] = __halves2bfloat162(v, v);
  pairs[i] = __halves2bfloat162(v, v);
  // CHECK: raw[i] = static_cast<__hip_bfloat16_raw>(v);
  raw[i] = static_cast<__nv_bfloat16_raw>(v);
  // nv_bfloat16/nv_bfloat162 are CUDA's typedefs of the same types: the same HIP types
  // CHECK: __hip_bfloat16 w = v;
  // CHECK-NEXT: __hip_bfloat162 p2 = pairs[i];
  nv_bfloat16 w = v;
  nv_bfloat162 p2 = pairs[i];
}
// CHECK-NOT: nv_bfloat16
