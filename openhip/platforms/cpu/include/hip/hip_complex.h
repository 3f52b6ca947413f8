// openhip CPU platform: <hip/hip_complex.h> (CUDA's <cuComplex.h> through hipify):
// hipFloatComplex / hipDoubleComplex (float2 / double2, as in HIP) and their arithmetic.
// Division and absolute value are the scaled forms of cuComplex.h, which avoid overflow and
// underflow in the intermediate products.
#pragma once
#ifndef OPENHIP_CPU_HIP_COMPLEX_H
#define OPENHIP_CPU_HIP_COMPLEX_H

#include <math.h>

#include "hip/hip_runtime.h"

typedef float2 hipFloatComplex;
typedef double2 hipDoubleComplex;
typedef hipFloatComplex hipComplex;

__host__ __device__ inline float hipCrealf(hipFloatComplex __openhip_z) { return __openhip_z.x; }
__host__ __device__ inline float hipCimagf(hipFloatComplex __openhip_z) { return __openhip_z.y; }
__host__ __device__ inline hipFloatComplex make_hipFloatComplex(float __openhip_r, float __openhip_i) {
  hipFloatComplex __openhip_z;
  __openhip_z.x = __openhip_r;
  __openhip_z.y = __openhip_i;
  return __openhip_z;
}
__host__ __device__ inline hipFloatComplex hipConjf(hipFloatComplex __openhip_z) {
  return make_hipFloatComplex(__openhip_z.x, -__openhip_z.y);
}
__host__ __device__ inline float hipCsqabsf(hipFloatComplex __openhip_z) {
  return __openhip_z.x * __openhip_z.x + __openhip_z.y * __openhip_z.y;
}
__host__ __device__ inline hipFloatComplex hipCaddf(hipFloatComplex __openhip_a, hipFloatComplex __openhip_b) {
  return make_hipFloatComplex(__openhip_a.x + __openhip_b.x, __openhip_a.y + __openhip_b.y);
}
__host__ __device__ inline hipFloatComplex hipCsubf(hipFloatComplex __openhip_a, hipFloatComplex __openhip_b) {
  return make_hipFloatComplex(__openhip_a.x - __openhip_b.x, __openhip_a.y - __openhip_b.y);
}
__host__ __device__ inline hipFloatComplex hipCmulf(hipFloatComplex __openhip_a, hipFloatComplex __openhip_b) {
  return make_hipFloatComplex(__openhip_a.x * __openhip_b.x - __openhip_a.y * __openhip_b.y,
                              __openhip_a.x * __openhip_b.y + __openhip_a.y * __openhip_b.x);
}
__host__ __device__ inline hipFloatComplex hipCdivf(hipFloatComplex __openhip_a, hipFloatComplex __openhip_b) {
  const float __openhip_s = fabsf(__openhip_b.x) + fabsf(__openhip_b.y);
  const float __openhip_oos = 1.0f / __openhip_s;
  const float __openhip_ar = __openhip_a.x * __openhip_oos, __openhip_ai = __openhip_a.y * __openhip_oos;
  const float __openhip_br = __openhip_b.x * __openhip_oos, __openhip_bi = __openhip_b.y * __openhip_oos;
  const float __openhip_oos2 = 1.0f / (__openhip_br * __openhip_br + __openhip_bi * __openhip_bi);
  return make_hipFloatComplex((__openhip_ar * __openhip_br + __openhip_ai * __openhip_bi) * __openhip_oos2,
                              (__openhip_ai * __openhip_br - __openhip_ar * __openhip_bi) * __openhip_oos2);
}
__host__ __device__ inline float hipCabsf(hipFloatComplex __openhip_z) {
  return hypotf(__openhip_z.x, __openhip_z.y);
}
// a * b + c
__host__ __device__ inline hipFloatComplex hipCfmaf(hipFloatComplex __openhip_a, hipFloatComplex __openhip_b,
                                                    hipFloatComplex __openhip_c) {
  const float __openhip_r = (__openhip_a.x * __openhip_b.x) + __openhip_c.x - (__openhip_a.y * __openhip_b.y);
  const float __openhip_i = (__openhip_a.x * __openhip_b.y) + __openhip_c.y + (__openhip_a.y * __openhip_b.x);
  return make_hipFloatComplex(__openhip_r, __openhip_i);
}

__host__ __device__ inline double hipCreal(hipDoubleComplex __openhip_z) { return __openhip_z.x; }
__host__ __device__ inline double hipCimag(hipDoubleComplex __openhip_z) { return __openhip_z.y; }
__host__ __device__ inline hipDoubleComplex make_hipDoubleComplex(double __openhip_r, double __openhip_i) {
  hipDoubleComplex __openhip_z;
  __openhip_z.x = __openhip_r;
  __openhip_z.y = __openhip_i;
  return __openhip_z;
}
__host__ __device__ inline hipDoubleComplex hipConj(hipDoubleComplex __openhip_z) {
  return make_hipDoubleComplex(__openhip_z.x, -__openhip_z.y);
}
__host__ __device__ inline double hipCsqabs(hipDoubleComplex __openhip_z) {
  return __openhip_z.x * __openhip_z.x + __openhip_z.y * __openhip_z.y;
}
__host__ __device__ inline hipDoubleComplex hipCadd(hipDoubleComplex __openhip_a, hipDoubleComplex __openhip_b) {
  return make_hipDoubleComplex(__openhip_a.x + __openhip_b.x, __openhip_a.y + __openhip_b.y);
}
__host__ __device__ inline hipDoubleComplex hipCsub(hipDoubleComplex __openhip_a, hipDoubleComplex __openhip_b) {
  return make_hipDoubleComplex(__openhip_a.x - __openhip_b.x, __openhip_a.y - __openhip_b.y);
}
__host__ __device__ inline hipDoubleComplex hipCmul(hipDoubleComplex __openhip_a, hipDoubleComplex __openhip_b) {
  return make_hipDoubleComplex(__openhip_a.x * __openhip_b.x - __openhip_a.y * __openhip_b.y,
                               __openhip_a.x * __openhip_b.y + __openhip_a.y * __openhip_b.x);
}
__host__ __device__ inline hipDoubleComplex hipCdiv(hipDoubleComplex __openhip_a, hipDoubleComplex __openhip_b) {
  const double __openhip_s = fabs(__openhip_b.x) + fabs(__openhip_b.y);
  const double __openhip_oos = 1.0 / __openhip_s;
  const double __openhip_ar = __openhip_a.x * __openhip_oos, __openhip_ai = __openhip_a.y * __openhip_oos;
  const double __openhip_br = __openhip_b.x * __openhip_oos, __openhip_bi = __openhip_b.y * __openhip_oos;
  const double __openhip_oos2 = 1.0 / (__openhip_br * __openhip_br + __openhip_bi * __openhip_bi);
  return make_hipDoubleComplex((__openhip_ar * __openhip_br + __openhip_ai * __openhip_bi) * __openhip_oos2,
                               (__openhip_ai * __openhip_br - __openhip_ar * __openhip_bi) * __openhip_oos2);
}
__host__ __device__ inline double hipCabs(hipDoubleComplex __openhip_z) {
  return hypot(__openhip_z.x, __openhip_z.y);
}
__host__ __device__ inline hipDoubleComplex hipCfma(hipDoubleComplex __openhip_a, hipDoubleComplex __openhip_b,
                                                    hipDoubleComplex __openhip_c) {
  const double __openhip_r = (__openhip_a.x * __openhip_b.x) + __openhip_c.x - (__openhip_a.y * __openhip_b.y);
  const double __openhip_i = (__openhip_a.x * __openhip_b.y) + __openhip_c.y + (__openhip_a.y * __openhip_b.x);
  return make_hipDoubleComplex(__openhip_r, __openhip_i);
}

__host__ __device__ inline hipComplex make_hipComplex(float __openhip_r, float __openhip_i) {
  return make_hipFloatComplex(__openhip_r, __openhip_i);
}
__host__ __device__ inline hipDoubleComplex hipComplexFloatToDouble(hipFloatComplex __openhip_z) {
  return make_hipDoubleComplex((double)__openhip_z.x, (double)__openhip_z.y);
}
__host__ __device__ inline hipFloatComplex hipComplexDoubleToFloat(hipDoubleComplex __openhip_z) {
  return make_hipFloatComplex((float)__openhip_z.x, (float)__openhip_z.y);
}

#endif  // OPENHIP_CPU_HIP_COMPLEX_H
