// Integer and bit intrinsics, type punning and float->int conversions with explicit rounding.
#include <hip/hip_runtime.h>

extern "C" __global__ void bits32(const unsigned int* a, const unsigned int* b, const unsigned int* c,
                                  unsigned int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned int x = a[i], y = b[i], s = c[i];
  int k = 0;
  out[k++ * n + i] = __popc(x);
  out[k++ * n + i] = (unsigned int)__ffs((int)x);
  out[k++ * n + i] = (unsigned int)__clz((int)x);
  out[k++ * n + i] = __brev(x);
  out[k++ * n + i] = __byte_perm(x, y, s);
  out[k++ * n + i] = (unsigned int)__mul24((int)x, (int)y);
  out[k++ * n + i] = __umul24(x, y);
  out[k++ * n + i] = (unsigned int)__mulhi((int)x, (int)y);
  out[k++ * n + i] = __umulhi(x, y);
  out[k++ * n + i] = __sad((int)x, (int)y, s);
  out[k++ * n + i] = __usad(x, y, s);
  out[k++ * n + i] = __funnelshift_l(x, y, s);
  out[k++ * n + i] = __funnelshift_lc(x, y, s);
  out[k++ * n + i] = __funnelshift_r(x, y, s);
  out[k++ * n + i] = __funnelshift_rc(x, y, s);
  out[k++ * n + i] = (unsigned int)__hadd((int)x, (int)y);
  out[k++ * n + i] = (unsigned int)__rhadd((int)x, (int)y);
  out[k++ * n + i] = __uhadd(x, y);
  out[k++ * n + i] = __urhadd(x, y);
}

extern "C" __global__ void bits64(const unsigned long long* a, const unsigned long long* b,
                                  unsigned long long* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long x = a[i], y = b[i];
  int k = 0;
  out[k++ * n + i] = __popcll(x);
  out[k++ * n + i] = (unsigned long long)__ffsll((long long)x);
  out[k++ * n + i] = (unsigned long long)__clzll((long long)x);
  out[k++ * n + i] = __brevll(x);
  out[k++ * n + i] = (unsigned long long)__mul64hi((long long)x, (long long)y);
  out[k++ * n + i] = __umul64hi(x, y);
}

// Punning and conversions; f holds floats, d doubles.
extern "C" __global__ void conversions(const float* f, const double* d, int* iv, unsigned int* uv,
                                       long long* lv, unsigned long long* ulv, float* fo, double* dout, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = f[i];
  const double y = d[i];
  iv[0 * n + i] = __float2int_rn(x);
  iv[1 * n + i] = __float2int_rz(x);
  iv[2 * n + i] = __float2int_ru(x);
  iv[3 * n + i] = __float2int_rd(x);
  iv[4 * n + i] = __double2int_rn(y);
  iv[5 * n + i] = __double2int_rz(y);
  iv[6 * n + i] = __double2int_ru(y);
  iv[7 * n + i] = __double2int_rd(y);
  iv[8 * n + i] = __float_as_int(x);
  uv[0 * n + i] = __float2uint_rn(x < 0 ? -x : x);
  uv[1 * n + i] = __float2uint_rz(x < 0 ? -x : x);
  uv[2 * n + i] = __float_as_uint(x);
  lv[0 * n + i] = __float2ll_rn(x);
  lv[1 * n + i] = __double2ll_rz(y);
  lv[2 * n + i] = __double_as_longlong(y);
  ulv[0 * n + i] = __double2ull_rd(y < 0 ? -y : y);
  fo[0 * n + i] = __int_as_float(__float_as_int(x));
  fo[1 * n + i] = __uint_as_float(__float_as_uint(x) ^ 0x80000000u);
  fo[2 * n + i] = __int2float_rn((int)y);
  fo[3 * n + i] = __int2float_rz((int)y);
  fo[4 * n + i] = __int2float_ru((int)y);
  fo[5 * n + i] = __int2float_rd((int)y);
  fo[6 * n + i] = __double2float_rn(y);
  fo[7 * n + i] = __double2float_rz(y);
  fo[8 * n + i] = __double2float_ru(y);
  fo[9 * n + i] = __double2float_rd(y);
  fo[10 * n + i] = __saturatef(x);
  fo[11 * n + i] = __ll2float_rn((long long)(y * 1e6));
  dout[0 * n + i] = __longlong_as_double(__double_as_longlong(y));
  dout[1 * n + i] = __hiloint2double(__double2hiint(y), __double2loint(y));
  dout[2 * n + i] = __int2double_rn((int)y);
  dout[3 * n + i] = __ll2double_rn((long long)(y * 1e6));
}

// clock64() is monotonic and __ldg reads.
extern "C" __global__ void clocks(const int* in, long long* t, int* out) {
  const long long t0 = clock64();
  out[threadIdx.x] = __ldg(&in[threadIdx.x]) * 2;
  const long long t1 = clock64();
  t[threadIdx.x] = t1 - t0;
}
