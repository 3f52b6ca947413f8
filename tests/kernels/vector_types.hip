// HIP vector types: layout (sizeof/alignof), make_*, members, and HIP's operators.
#include <hip/hip_runtime.h>

extern "C" __global__ void layout(int* out) {
  int k = 0;
  out[k++] = sizeof(char1); out[k++] = sizeof(char2); out[k++] = sizeof(char3); out[k++] = sizeof(char4);
  out[k++] = sizeof(short2); out[k++] = sizeof(short3); out[k++] = sizeof(int2); out[k++] = sizeof(int3);
  out[k++] = sizeof(int4); out[k++] = sizeof(uint4); out[k++] = sizeof(float2); out[k++] = sizeof(float3);
  out[k++] = sizeof(float4); out[k++] = sizeof(double2); out[k++] = sizeof(double3);
  out[k++] = sizeof(longlong2); out[k++] = sizeof(ulonglong2); out[k++] = sizeof(uchar4);
  out[k++] = alignof(char2); out[k++] = alignof(char4); out[k++] = alignof(short2); out[k++] = alignof(int2);
  out[k++] = alignof(int3); out[k++] = alignof(int4); out[k++] = alignof(float2); out[k++] = alignof(float3);
  out[k++] = alignof(float4); out[k++] = alignof(double2); out[k++] = alignof(double3); out[k++] = alignof(longlong2);
}

extern "C" __global__ void vec_ops(const float4* a, const float4* b, float4* out, const int4* ia,
                                   const int4* ib, int4* iout, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 x = a[i], y = b[i];
  out[0 * n + i] = x + y;
  out[1 * n + i] = x - y;
  out[2 * n + i] = x * y;
  out[3 * n + i] = x / y;
  out[4 * n + i] = x * 2.0f + 1.0f;
  float4 t = x;
  t += y;
  t *= 0.5f;
  out[5 * n + i] = t;
  out[6 * n + i] = -x;
  out[7 * n + i] = make_float4(x.w, x.z, x.y, x.x);
  const int4 p = ia[i], q = ib[i];
  iout[0 * n + i] = p + q;
  iout[1 * n + i] = p * q;
  iout[2 * n + i] = p / q;
  iout[3 * n + i] = p % q;
  iout[4 * n + i] = (p & q) | (p ^ q);
  iout[5 * n + i] = (p << 2) >> 1;
  iout[6 * n + i] = ~p;
  iout[7 * n + i] = make_int4(p == q, p != q, 0, 0);
}

// Loads/stores through vector pointers (float2 and double2) and 3-component types.
extern "C" __global__ void vec_copy(const float2* a, float2* b, const float3* c, float3* d,
                                    const double2* e, double2* f, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  b[i] = make_float2(a[i].y, a[i].x);
  d[i] = make_float3(c[i].x + 1.0f, c[i].y + 2.0f, c[i].z + 3.0f);
  f[i] = make_double2(e[i].x * 2.0, e[i].y * 3.0);
}
