// Every language header together, twice, under -Wall -Wextra -Wpedantic -Werror; with the public
// fp16/bf16 headers included again after the umbrella set, in any order.
#include "stub_engine.h"
#include "hip/hip_vector_types.h"
#include "openhip_cpu/intrinsics.h"
#include "openhip_cpu/math.h"
#include "openhip_cpu/atomics.h"
#include "hip/hip_fp16.h"
#include "hip/hip_bf16.h"
#include "openhip_cpu/warp.h"
#include "hip/hip_bf16.h"
#include "hip/hip_fp16.h"
#include "hip/hip_vector_types.h"
#include "hip/math_functions.h"
#include "hip/device_functions.h"
#include "hip/hip_fp8.h"
#include <cmath>
#include <cstdlib>

// C++ overloads visible in the global namespace as in device code
static_assert(sizeof(sqrt(1.0f)) == 4, "sqrt(float) is float");
static_assert(sizeof(exp(1.0f)) == 4, "exp(float) is float");
static_assert(sizeof(min(1, 2)) == 4 && sizeof(max(1.0, 2.0f)) == 8, "min/max overloads");
static_assert(sizeof(__half) == 2 && alignof(__half2) == 4, "half layout");
static_assert(sizeof(__hip_bfloat16) == 2 && alignof(__hip_bfloat162) == 4, "bf16 layout");

int main() {
  __half h = 1.0f;
  half2 h2 = __halves2half2(h, h);
  nv_bfloat16 b = 2.0f;
  __hip_fp8_e4m3 e = 1.5f;
  if ((float)e != 1.5f) return 1;
  float4 v = make_float4(1, 2, 3, 4) * 2.0f;
  int r = (int)std::sqrt(16.0) + (int)sqrtf(4.0f) + (int)fminf(1.0f, 2.0f) + std::abs(-1);
  return (__low2float(h2) + __bfloat162float(b) + v.w + (float)r) > 0 ? 0 : 1;
}
