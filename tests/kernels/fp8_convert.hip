// 8-bit floats (hip_fp8.h, OCP E4M3 / E5M2 and the FNUZ variants): float -> fp8 with and without
// saturation, fp8 -> float and -> half, and the class types.
#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>

extern "C" __global__ void fp8_from_float(const float* x, unsigned char* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  out[0 * n + i] = __hip_cvt_float_to_fp8(v, __HIP_SATFINITE, __HIP_E4M3);
  out[1 * n + i] = __hip_cvt_float_to_fp8(v, __HIP_NOSAT, __HIP_E4M3);
  out[2 * n + i] = __hip_cvt_float_to_fp8(v, __HIP_SATFINITE, __HIP_E5M2);
  out[3 * n + i] = __hip_cvt_float_to_fp8(v, __HIP_NOSAT, __HIP_E5M2);
  out[4 * n + i] = __hip_fp8_e4m3(v).__x;
  out[5 * n + i] = __hip_fp8_e5m2(v).__x;
}

extern "C" __global__ void fp8_from_float_fnuz(const float* x, unsigned char* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  out[0 * n + i] = __hip_cvt_float_to_fp8(v, __HIP_SATFINITE, __HIP_E4M3_FNUZ);
  out[1 * n + i] = __hip_cvt_float_to_fp8(v, __HIP_NOSAT, __HIP_E4M3_FNUZ);
  out[2 * n + i] = __hip_cvt_float_to_fp8(v, __HIP_SATFINITE, __HIP_E5M2_FNUZ);
  out[3 * n + i] = __hip_cvt_float_to_fp8(v, __HIP_NOSAT, __HIP_E5M2_FNUZ);
}

// All 256 patterns of each format back to float (via the classes) and to half.
extern "C" __global__ void fp8_to_float(float* out, __half* hout) {
  const int i = threadIdx.x;  // 256 threads
  __hip_fp8_e4m3 a;
  a.__x = (__hip_fp8_storage_t)i;
  __hip_fp8_e5m2 b;
  b.__x = (__hip_fp8_storage_t)i;
  out[i] = (float)a;
  out[256 + i] = (float)b;
  hout[i] = __half(__hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)i, __HIP_E4M3));
  hout[256 + i] = __half(__hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)i, __HIP_E5M2));
}
