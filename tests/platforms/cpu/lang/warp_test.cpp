// Warp functions against an independent model of CUDA's documented semantics, every lane, every
// width, on the stub engine (32 OS threads).  Prints "FAIL ..." lines and finally "OK <checks>".
#include "stub_engine.h"
#include "hip/hip_vector_types.h"
#include "openhip_cpu/intrinsics.h"
#include "openhip_cpu/math.h"
#include "openhip_cpu/atomics.h"
#include "hip/hip_fp16.h"
#include "hip/hip_bf16.h"
#include "openhip_cpu/warp.h"
#include <stdio.h>
#include <atomic>

static std::atomic<long> checks{0}, failures{0};
#define CHECK(cond, ...)                                   \
  do {                                                     \
    ++checks;                                              \
    if (!(cond)) {                                         \
      if (++failures < 30) { printf("FAIL %s:%d ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    }                                                      \
  } while (0)

// CUDA semantics, written from the CUDA programming guide (not from HIP's index arithmetic).
static int ref_shfl(int lane, int src, int w) { return (lane / w) * w + ((src % w) + w) % w; }
static int ref_up(int lane, unsigned d, int w) { return (int)(lane % w) - (int)d < 0 ? lane : lane - (int)d; }
static int ref_down(int lane, unsigned d, int w) { return (lane % w) + (int)d >= w ? lane : lane + (int)d; }
static int ref_xor(int lane, int m, int w) {
  const int s = lane ^ m;
  return s >= (lane / w) * w + w ? lane : s;  // later groups (or past the warp): own value
}
static int val(int lane) { return lane * 7 + 3; }

int main() {
  const int widths[] = {1, 2, 4, 8, 16, 32};
  for (int w : widths) {
    for (int off = -3; off < 40; ++off) {
      run_warp(~0u, [&](unsigned l) {
        const int lane = (int)l;
        const int a = __shfl(val(lane), off, w);
        CHECK(a == val(ref_shfl(lane, off, w)), "__shfl w=%d src=%d lane=%d got %d", w, off, lane, a);
        const double b = __shfl_sync(0xffffffffu, (double)val(lane) + 0.5, off, w);
        CHECK(b == val(ref_shfl(lane, off, w)) + 0.5, "__shfl_sync(double) w=%d", w);
        if (off >= 0) {
          const int u = __shfl_up(val(lane), (unsigned)off, w);
          CHECK(u == val(ref_up(lane, off, w)), "__shfl_up w=%d d=%d lane=%d got %d", w, off, lane, u);
          const long long dn = __shfl_down_sync(0xffffffffull, (long long)val(lane) << 33, (unsigned)off, w);
          CHECK(dn == (long long)val(ref_down(lane, off, w)) << 33, "__shfl_down w=%d d=%d lane=%d", w, off, lane);
          const float x = __shfl_xor((float)val(lane), off, w);
          CHECK(x == (float)val(ref_xor(lane, off, w)), "__shfl_xor w=%d m=%d lane=%d got %g", w, off, lane, x);
          const __half h = __shfl_down(__float2half((float)val(lane)), (unsigned)off, w);
          CHECK(__half2float(h) == (float)val(ref_down(lane, off, w)), "__shfl_down(half)");
          const __half2 h2 = __shfl_xor_sync(0xffffffffu, __floats2half2_rn((float)lane, -(float)lane), off, w);
          CHECK(__low2float(h2) == (float)ref_xor(lane, off, w) && __high2float(h2) == -(float)ref_xor(lane, off, w), "__shfl_xor(half2)");
        }
      });
    }
  }
  // The HIP-CPU defect: 32-wide __shfl_down must be right in every lane.
  run_warp(~0u, [&](unsigned l) {
    int v = (int)l + 1;
    for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);
    if (l == 0) CHECK(v == 32 * 33 / 2, "reduction got %d", v);
    int s = (int)l + 1;
    for (int o = 1; o < 32; o *= 2) s += __shfl_xor_sync(0xffffffff, s, o);
    CHECK(s == 32 * 33 / 2, "xor all-reduce lane %u got %d", l, s);
  });
  // Votes over partial warps and sub-masks.
  const uint64_t alive_sets[] = {0xffffffffull, 0x0000ffffull, 0x7fffffffull, 0x1ull, 0x80000001ull};
  for (uint64_t alive : alive_sets) {
    run_warp(alive, [&](unsigned l) {
      const int pred = (l % 3) == 0;
      uint64_t expect = 0;
      for (unsigned j = 0; j < 32; ++j)
        if (((alive >> j) & 1u) && j % 3 == 0) expect |= 1ull << j;
      const unsigned long long b = __ballot(pred);
      CHECK(b == expect, "__ballot alive=%llx lane %u got %llx want %llx", (unsigned long long)alive, l, b, (unsigned long long)expect);
      const unsigned long long bs = __ballot_sync(0xffffffffu, pred);
      CHECK(bs == expect, "__ballot_sync");
      CHECK(__any(pred) == (expect != 0), "__any");
      CHECK(__all(pred) == (expect == alive), "__all");
      CHECK(__all_sync(0xffffffff, 1) == 1 && __any_sync(0xffffffff, 0) == 0, "__all/any_sync const");
      CHECK(__activemask() == alive, "__activemask %llx", __activemask());
      CHECK(__popcll(__ballot(1)) == (unsigned)__builtin_popcountll(alive), "popc ballot");
      unsigned sum = 0, mn = ~0u, mx = 0, x = 0;
      for (unsigned j = 0; j < 32; ++j)
        if ((alive >> j) & 1u) { sum += j * 3; mn = j * 3 < mn ? j * 3 : mn; mx = j * 3 > mx ? j * 3 : mx; x ^= j * 3; }
      CHECK(__reduce_add_sync(0xffffffffu, l * 3) == sum, "__reduce_add_sync");
      CHECK(__reduce_min_sync(0xffffffffu, l * 3) == mn, "__reduce_min_sync");
      CHECK(__reduce_max_sync(0xffffffffu, (int)l * 3) == (int)mx, "__reduce_max_sync");
      CHECK(__reduce_xor_sync(0xffffffffu, l * 3) == x, "__reduce_xor_sync");
      uint64_t same = 0;
      for (unsigned j = 0; j < 32; ++j)
        if (((alive >> j) & 1u) && j % 4 == l % 4) same |= 1ull << j;
      CHECK(__match_any_sync(0xffffffffu, (int)(l % 4)) == same, "__match_any_sync");
      int pred_all = -1;
      CHECK(__match_all_sync(0xffffffffu, 42, &pred_all) == alive && pred_all == 1, "__match_all_sync equal");
      if (__builtin_popcountll(alive) > 1) {
        CHECK(__match_all_sync(0xffffffffu, (int)l, &pred_all) == 0 && pred_all == 0, "__match_all_sync differ");
      }
      __syncwarp();
    });
  }
  // Lane masks.
  run_warp(~0u, [&](unsigned l) {
    CHECK(__lanemask_eq() == 1ull << l && __lanemask_lt() == (1ull << l) - 1, "lanemask eq/lt");
    CHECK(__lanemask_le() == (2ull << l) - 1 && __lanemask_ge() == (0xffffffffull & ~((1ull << l) - 1)), "lanemask le/ge");
    CHECK((__lanemask_gt() | __lanemask_le()) == 0xffffffffull && !(__lanemask_gt() & __lanemask_le()), "lanemask gt");
    CHECK(__popcll(__ballot(1) & __lanemask_lt()) == l, "rank in warp");
  });
  // Two half-warps voting independently with disjoint masks.
  run_warp(~0u, [&](unsigned l) {
    const uint64_t mine = l < 16 ? 0x0000ffffull : 0xffff0000ull;
    const unsigned long long b = __ballot_sync(mine, (int)(l & 1));
    CHECK(b == (mine & 0xaaaaaaaaull), "split ballot lane %u got %llx", l, b);
    const int s = __shfl_sync(mine, (int)l, 3, 16);  // lane 3 of each 16-lane segment
    CHECK(s == (int)((l & ~15u) + 3), "split shfl");
  });
  if (failures == 0) printf("OK %ld\n", (long)checks);
  return failures != 0;
}
