// __hip_bfloat16 / __hip_bfloat162: arithmetic, comparisons, conversions with every rounding mode, math.
// Rows of `out` (n values each) are listed next to each statement.
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

extern "C" __global__ void bf16_arith(const __hip_bfloat16* a, const __hip_bfloat16* b, const __hip_bfloat16* c, __hip_bfloat16* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __hip_bfloat16 x = a[i], y = b[i], z = c[i];
  out[0 * n + i] = __hadd(x, y);
  out[1 * n + i] = __hsub(x, y);
  out[2 * n + i] = __hmul(x, y);
  out[3 * n + i] = __hdiv(x, y);
  out[4 * n + i] = __hfma(x, y, z);
  out[5 * n + i] = __hneg(x);
  out[6 * n + i] = __habs(x);
  out[7 * n + i] = __hmin(x, y);
  out[8 * n + i] = __hmax(x, y);
  out[9 * n + i] = x + y;   // operators
  out[10 * n + i] = x * y;
  out[11 * n + i] = x / y;
  out[12 * n + i] = -x;
  __hip_bfloat16 t = x;
  t -= y;
  out[13 * n + i] = t;
}

// Comparisons (rows of 0/1): eq ne lt le gt ge, unordered equ neu ltu leu gtu geu, isnan, isinf,
// and the operators == != < <= > >=.
extern "C" __global__ void bf16_compare(const __hip_bfloat16* a, const __hip_bfloat16* b, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __hip_bfloat16 x = a[i], y = b[i];
  int k = 0;
  out[k++ * n + i] = __heq(x, y);
  out[k++ * n + i] = __hne(x, y);
  out[k++ * n + i] = __hlt(x, y);
  out[k++ * n + i] = __hle(x, y);
  out[k++ * n + i] = __hgt(x, y);
  out[k++ * n + i] = __hge(x, y);
  out[k++ * n + i] = __hequ(x, y);
  out[k++ * n + i] = __hneu(x, y);
  out[k++ * n + i] = __hltu(x, y);
  out[k++ * n + i] = __hleu(x, y);
  out[k++ * n + i] = __hgtu(x, y);
  out[k++ * n + i] = __hgeu(x, y);
  out[k++ * n + i] = __hisnan(x) ? 1 : 0;
  out[k++ * n + i] = __hisinf(x) != 0 ? 1 : 0;
  out[k++ * n + i] = x == y;
  out[k++ * n + i] = x != y;
  out[k++ * n + i] = x < y;
  out[k++ * n + i] = x <= y;
  out[k++ * n + i] = x > y;
  out[k++ * n + i] = x >= y;
}

// float -> bfloat16 in the four rounding modes, bfloat16 -> float, bfloat16 <-> int, bit casts.
extern "C" __global__ void bf16_convert(const float* f, __hip_bfloat16* h, float* back, const __hip_bfloat16* hin,
                                        int* ints, unsigned short* bits, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  h[0 * n + i] = __float2bfloat16(f[i]);
  h[1 * n + i] = __float2bfloat16_rn(f[i]);
  h[2 * n + i] = __float2bfloat16_rz(f[i]);
  h[3 * n + i] = __float2bfloat16_ru(f[i]);
  h[4 * n + i] = __float2bfloat16_rd(f[i]);
  h[5 * n + i] = __int2bfloat16_rn((int)f[i]);
  back[i] = __bfloat162float(hin[i]);
  ints[0 * n + i] = __bfloat162int_rn(hin[i]);
  ints[1 * n + i] = __bfloat162int_rz(hin[i]);
  ints[2 * n + i] = __bfloat162int_ru(hin[i]);
  ints[3 * n + i] = __bfloat162int_rd(hin[i]);
  bits[i] = __bfloat16_as_ushort(__ushort_as_bfloat16(__bfloat16_as_ushort(hin[i])));
}

// __hip_bfloat162 pair operations: out rows of 2n values.
extern "C" __global__ void bf162_ops(const __hip_bfloat162* a, const __hip_bfloat162* b, const __hip_bfloat162* c, __hip_bfloat162* out,
                                     int* flags, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __hip_bfloat162 x = a[i], y = b[i], z = c[i];
  out[0 * n + i] = __hadd2(x, y);
  out[1 * n + i] = __hsub2(x, y);
  out[2 * n + i] = __hmul2(x, y);
  out[3 * n + i] = __h2div(x, y);
  out[4 * n + i] = __hfma2(x, y, z);
  out[5 * n + i] = __hneg2(x);
  out[6 * n + i] = __lowhigh2highlow(x);
  out[7 * n + i] = __halves2bfloat162(__low2bfloat16(x), __high2bfloat16(y));
  out[8 * n + i] = __floats2bfloat162_rn(__low2float(x), __high2float(y));
  out[9 * n + i] = x * y + z;  // pair operators, rounded after each
  flags[0 * n + i] = __hbeq2(x, y);
  flags[1 * n + i] = __hblt2(x, y);
  flags[2 * n + i] = __hbge2(x, y);
}

// Math functions (rounded from the float result; compared within one bfloat16 ulp).
extern "C" __global__ void bf16_math(const __hip_bfloat16* a, __hip_bfloat16* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __hip_bfloat16 x = a[i];
  int k = 0;
  out[k++ * n + i] = hsqrt(x);
  out[k++ * n + i] = hrsqrt(x);
  out[k++ * n + i] = hrcp(x);
  out[k++ * n + i] = hexp(x);
  out[k++ * n + i] = hexp2(x);
  out[k++ * n + i] = hlog(x);
  out[k++ * n + i] = hlog2(x);
  out[k++ * n + i] = hlog10(x);
  out[k++ * n + i] = hsin(x);
  out[k++ * n + i] = hcos(x);
  out[k++ * n + i] = hceil(x);
  out[k++ * n + i] = hfloor(x);
  out[k++ * n + i] = hrint(x);
  out[k++ * n + i] = htrunc(x);
}
