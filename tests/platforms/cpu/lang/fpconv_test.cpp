// Reads float32 values on stdin; writes, per value, the binary16 and bfloat16 conversions
// (__float2half, __float2bfloat16) as uint16 pairs, then the float values of all 65536 binary16
// and bfloat16 bit patterns.  The pytest compares both with numpy / ml_dtypes.
#include "hip/hip_fp16.h"
#include "hip/hip_bf16.h"
#include <stdio.h>
#include <stdint.h>
#include <vector>

int main() {
  std::vector<float> in;
  float buf[4096];
  size_t got;
  while ((got = fread(buf, sizeof(float), 4096, stdin)) > 0) in.insert(in.end(), buf, buf + got);
  std::vector<uint16_t> out(2 * in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    out[2 * i] = __half_as_ushort(__float2half(in[i]));
    out[2 * i + 1] = __bfloat16_as_ushort(__float2bfloat16(in[i]));
  }
  fwrite(out.data(), 2, out.size(), stdout);
  std::vector<float> back(2 * 65536);
  for (unsigned b = 0; b < 65536; ++b) {
    back[b] = __half2float(__ushort_as_half((unsigned short)b));
    back[65536 + b] = __bfloat162float(__ushort_as_bfloat16((unsigned short)b));
  }
  fwrite(back.data(), 4, back.size(), stdout);
  return 0;
}
