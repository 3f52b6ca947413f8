// openhip CPU platform: the profiler's device timeline (included once, by runtime.cpp).
//
// While the profiler runs (openhip/tools/profiler; ohcpu_trace_enable), every kernel, copy and
// memset queued on a stream is stamped by the stream thread when it starts and ends, into a ring
// of the latest `capacity` records (older ones are dropped and counted).  Python reads them with
// ohcpu_trace_read and matches them to the launches it recorded, per stream in queue order.  While
// it is off, a push costs one relaxed atomic load and a command one test of a field.
#pragma once

#include <stdint.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace openhip_trace {

struct Record {        // what Python reads (ctypes mirrors it: runtime_lib.TraceRecord)
  uint64_t seq;        // order of queueing, over all streams (1, 2, ...)
  uint64_t stream;     // the stream's handle (0: the default stream)
  uint64_t entry;      // the kernel's entry (0 for copies and memsets)
  uint64_t nbytes;     // copies and memsets
  int32_t kind;        // 0 kernel, 1 copy, 2 memset
  int32_t reserved;
  double start_ms;     // CLOCK_MONOTONIC, milliseconds
  double end_ms;
};

inline std::atomic<uint64_t>& capacity() {
  static std::atomic<uint64_t> c{0};  // 0: off
  return c;
}
inline std::atomic<uint64_t>& next_seq() {
  static std::atomic<uint64_t> s{0};
  return s;
}
inline std::mutex& mu() {
  static std::mutex* m = new std::mutex();  // never destroyed: streams may run at exit
  return *m;
}
struct Ring {
  std::vector<Record> slots;
  uint64_t head = 0;  // records written since the last read
  uint64_t dropped = 0;
};
inline Ring& ring() {
  static Ring* r = new Ring();
  return *r;
}

// The sequence number of a command queued now, or 0 when the profiler is off.
inline uint64_t tag() {
  if (capacity().load(std::memory_order_relaxed) == 0) return 0;
  return next_seq().fetch_add(1, std::memory_order_relaxed) + 1;
}

inline void add(const Record& r) {
  std::lock_guard<std::mutex> lock(mu());
  Ring& g = ring();
  const uint64_t cap = capacity().load(std::memory_order_relaxed);
  if (cap == 0) return;
  try {
    if (g.slots.size() < cap) {
      g.slots.push_back(r);
    } else {
      g.slots[g.head % cap] = r;
      ++g.dropped;
    }
    ++g.head;
  } catch (...) {
    ++g.dropped;
  }
}

// Starts (capacity > 0: a fresh ring) or stops recording; returns the previous capacity.
inline uint64_t enable(uint64_t cap) {
  std::lock_guard<std::mutex> lock(mu());
  if (cap) {
    Ring& g = ring();
    g.slots.clear();
    g.head = 0;
    g.dropped = 0;
  }
  return capacity().exchange(cap);
}

// Copies up to `max` records, oldest first, into out and empties the ring (records past `max`
// are counted as dropped); *dropped: how many were dropped since recording started.  Returns
// the number copied; with out == nullptr, how many there are (the ring stays).
inline uint64_t read(Record* out, uint64_t max, uint64_t* dropped) {
  std::lock_guard<std::mutex> lock(mu());
  Ring& g = ring();
  const uint64_t n = g.slots.size();
  if (out == nullptr) return n;
  const uint64_t first = n < g.head ? g.head % n : 0;  // the oldest slot once it wrapped
  uint64_t k = 0;
  for (; k < n && k < max; ++k) out[k] = g.slots[(first + k) % n];
  g.dropped += n - k;
  if (dropped != nullptr) *dropped = g.dropped;
  g.slots.clear();
  g.head = 0;
  return k;
}

}  // namespace openhip_trace
