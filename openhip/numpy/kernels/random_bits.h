// openhip.numpy.random: the bit generators as device functions, the same source on cpu, nvidia
// and amd.  Integer arithmetic only, so every platform gives the same bits.
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11; the
// Random123 reference): a 128-bit counter (c0 the least significant word) and a 64-bit key,
// ten rounds, the key bumped by the Weyl constants between rounds.
//
// XORWOW (Marsaglia 2003) exactly as cuRAND's and rocRAND's curand_init/curand define it: five
// xorshift words plus a Weyl sequence d (+362437 per draw); the output is v[4] + d.
#pragma once

#define OHR_PHILOX_M0 0xD2511F53u
#define OHR_PHILOX_M1 0xCD9E8D57u
#define OHR_PHILOX_W0 0x9E3779B9u
#define OHR_PHILOX_W1 0xBB67AE85u

struct ohr_block { unsigned int w[4]; };

__device__ __forceinline__ ohr_block ohr_philox4x32_10(unsigned int c0, unsigned int c1,
                                                       unsigned int c2, unsigned int c3,
                                                       unsigned int k0, unsigned int k1) {
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    const unsigned long long p0 = (unsigned long long)OHR_PHILOX_M0 * c0;
    const unsigned long long p1 = (unsigned long long)OHR_PHILOX_M1 * c2;
    const unsigned int hi0 = (unsigned int)(p0 >> 32), lo0 = (unsigned int)p0;
    const unsigned int hi1 = (unsigned int)(p1 >> 32), lo1 = (unsigned int)p1;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += OHR_PHILOX_W0;
    k1 += OHR_PHILOX_W1;
  }
  ohr_block out;
  out.w[0] = c0; out.w[1] = c1; out.w[2] = c2; out.w[3] = c3;
  return out;
}

// The 128-bit counter (c0 lowest) plus a 64-bit block number, with carries.
struct ohr_counter { unsigned int c[4]; };

__device__ __forceinline__ ohr_counter ohr_counter_add(unsigned int c0, unsigned int c1,
                                                       unsigned int c2, unsigned int c3,
                                                       unsigned long long add) {
  const unsigned long long lo = ((unsigned long long)c1 << 32) | c0;
  const unsigned long long sum = lo + add;
  const unsigned long long carry = sum < lo ? 1ull : 0ull;
  const unsigned long long hi = (((unsigned long long)c3 << 32) | c2) + carry;
  ohr_counter r;
  r.c[0] = (unsigned int)sum; r.c[1] = (unsigned int)(sum >> 32);
  r.c[2] = (unsigned int)hi; r.c[3] = (unsigned int)(hi >> 32);
  return r;
}

// The same for a 32-bit block number, in 32-bit words (vectorises on the CPU platform).
__device__ __forceinline__ void ohr_counter_add32(unsigned int c0, unsigned int c1,
                                                  unsigned int c2, unsigned int c3,
                                                  unsigned int add, unsigned int* x0,
                                                  unsigned int* x1, unsigned int* x2,
                                                  unsigned int* x3) {
  *x0 = c0 + add;
  unsigned int carry = *x0 < add ? 1u : 0u;
  *x1 = c1 + carry;
  carry = (carry & (*x1 == 0u)) ? 1u : 0u;
  *x2 = c2 + carry;
  carry = (carry & (*x2 == 0u)) ? 1u : 0u;
  *x3 = c3 + carry;
}

// A stream of words for one element of a distribution that may need several draws: element i
// of a call reads the blocks at counter (position + i) with the round r added to word c2 and the
// sub-stream s xored into word c3, four words per block, r = 0, 1, 2, ... as it needs more.
struct ohr_stream {
  unsigned int c0, c1, c2, c3, k0, k1;
  unsigned int round, used;
  ohr_block block;
};

__device__ __forceinline__ ohr_stream ohr_stream_open(const unsigned int* key_ctr,
                                                      unsigned long long element,
                                                      unsigned int sub) {
  const ohr_counter at = ohr_counter_add(key_ctr[2], key_ctr[3], key_ctr[4], key_ctr[5], element);
  ohr_stream s;
  s.c0 = at.c[0]; s.c1 = at.c[1]; s.c2 = at.c[2]; s.c3 = at.c[3] ^ (sub << 24);
  s.k0 = key_ctr[0]; s.k1 = key_ctr[1];
  s.round = 0; s.used = 4;
  return s;
}

__device__ __forceinline__ unsigned int ohr_next32(ohr_stream& s) {
  if (s.used == 4) {
    s.block = ohr_philox4x32_10(s.c0, s.c1, s.c2 + s.round, s.c3, s.k0, s.k1);
    s.round += 1;
    s.used = 0;
  }
  return s.block.w[s.used++];
}

__device__ __forceinline__ unsigned long long ohr_next64(ohr_stream& s) {
  const unsigned long long lo = ohr_next32(s);
  const unsigned long long hi = ohr_next32(s);
  return (hi << 32) | lo;
}

// ---- XORWOW -------------------------------------------------------------------------------
struct ohr_xorwow { unsigned int d, v[5]; };

__device__ __forceinline__ unsigned int ohr_xorwow_next(ohr_xorwow& s) {
  const unsigned int t = s.v[0] ^ (s.v[0] >> 2);
  s.v[0] = s.v[1];
  s.v[1] = s.v[2];
  s.v[2] = s.v[3];
  s.v[3] = s.v[4];
  s.v[4] = (s.v[4] ^ (s.v[4] << 4)) ^ (t ^ (t << 1));
  s.d += 362437u;
  return s.v[4] + s.d;
}
