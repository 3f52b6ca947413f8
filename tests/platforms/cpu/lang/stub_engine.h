// A stand-in for engine.h's warp contract, for testing the language headers without the engine:
// one warp of 32 lanes, each an OS thread (run_warp), and the five contract functions.
#pragma once
#include <stdint.h>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

static constexpr int warpSize = 32;

namespace openhip {
namespace detail {
struct StubWarp {
  std::mutex m;
  std::condition_variable cv;
  uint64_t live = 0;
  struct Group {
    uint64_t count[32] = {};
    uint64_t vals[4][32] = {};
  };
  std::map<uint64_t, Group> groups;  // keyed by the mask argument
};
inline StubWarp& stub_warp() {
  static StubWarp w;
  return w;
}
inline thread_local unsigned stub_lane = 0;

inline unsigned lane_id() { return stub_lane; }
inline unsigned warp_id() { return 0; }
inline uint64_t warp_live_mask() {
  std::lock_guard<std::mutex> g(stub_warp().m);
  return stub_warp().live;
}
inline const uint64_t* warp_exchange(uint64_t value, uint64_t mask) {
  StubWarp& w = stub_warp();
  std::unique_lock<std::mutex> g(w.m);
  const unsigned me = stub_lane;
  StubWarp::Group& grp = w.groups[mask];
  const uint64_t k = grp.count[me];
  grp.vals[k % 4][me] = value;
  grp.count[me] = k + 1;
  w.cv.notify_all();
  w.cv.wait(g, [&] {
    const uint64_t want = (mask & w.live) | (uint64_t(1) << me);
    for (unsigned l = 0; l < 32; ++l)
      if (((want >> l) & 1u) && grp.count[l] <= k) return false;
    return true;
  });
  return grp.vals[k % 4];
}
inline void warp_sync(uint64_t mask) { (void)warp_exchange(0, mask); }
}  // namespace detail
}  // namespace openhip

inline void __syncwarp(unsigned long long mask = 0xffffffffull) { openhip::detail::warp_sync(mask); }

// Runs f(lane) on the lanes of `alive` (the others never exist), each on its own thread.
template <class F>
void run_warp(uint64_t alive, F f) {
  auto& w = openhip::detail::stub_warp();
  {
    std::lock_guard<std::mutex> g(w.m);
    w.live = alive;
    w.groups.clear();
  }
  std::vector<std::thread> ts;
  for (unsigned l = 0; l < 32; ++l) {
    if (!((alive >> l) & 1u)) continue;
    ts.emplace_back([l, &f, &w] {
      openhip::detail::stub_lane = l;
      f(l);
      std::lock_guard<std::mutex> g(w.m);
      w.live &= ~(uint64_t(1) << l);
      w.cv.notify_all();
    });
  }
  for (auto& t : ts) t.join();
}
