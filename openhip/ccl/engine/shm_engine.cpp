// openhip.ccl shared-memory engine: the hot path of the shm transport.
//
// Built at first use by openhip/ccl/engine/__init__.py (g++ -O3 -march=native, cached under
// openhip's cache dir) as a CPython extension module; every collective releases the GIL, so
// comm.abort() from another thread and async_op worker threads run while a rank waits.
//
// Layout of one communicator's segment (/dev/shm/ohccl-<token>...):
//   Header | RankSlot[n] | data buffers: n ranks x 2 (step parity) x slot bytes
//          | p2p channels: n x n x (Chan + nchunk x chunk bytes)
// Collectives advance in *steps*: a rank writes into its own buffer of the step's parity,
// publishes seq = step (release) and waits until every peer published seq >= step; then it
// reads what it needs from the peers' buffers.  A rank can be at most one step ahead, so two
// buffers per rank make reuse safe with a single barrier per step.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <climits>
#include <mutex>
#include <unistd.h>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() __asm__ __volatile__("" ::: "memory")
#endif

namespace {

constexpr uint64_t MAGIC = 0x4f4843434c310001ULL;
enum Err { OK = 0, E_TIMEOUT = 1, E_DEAD = 2, E_ABORT_LOCAL = 3, E_ABORT_REMOTE = 4,
           E_MISMATCH = 5, E_ATTACH = 6, E_ARG = 7, E_OS = 8 };

struct alignas(64) RankSlot {
  std::atomic<uint64_t> seq;   // last step this rank arrived at
  uint64_t desc[2];            // descriptor of the op whose step has this parity
  int32_t pid;
  int32_t attached;
  uint64_t addr[2];            // send / recv of the current cross-memory-attach all-reduce
  int32_t cma_ok;              // 1: this rank can read every peer with process_vm_readv
  std::atomic<int32_t> waiters;  // peers sleeping on this rank's seq (futex)
  uint32_t arrive_us[2];       // when this rank arrived at the step of this parity (µs, wraps)
  std::atomic<int32_t> cpu;    // the CPU this rank last arrived on (-1: unknown)
  int32_t zc_ok;               // 1: this rank can map every peer's shared arrays (/proc/<pid>/fd)
  uint64_t frees;              // shared arrays this process has freed so far
  struct Region {              // the shared array (ccl.empty) holding addr[i]; size 0: none
    uint64_t base, size, ino;
    int32_t fd, pad;
  } zb[2];
  // the point-to-point operation this rank waits in (0: none), and its step then: a peer
  // waiting for it in a collective it never joins reports the mismatch (see sync_step)
  std::atomic<uint64_t> p2p_desc;
  uint64_t p2p_step;
  uint64_t p2p_k;              // its number on its channel
  int32_t p2p_peer;
  int32_t pad;
  // next chunk of this rank's share in the running zero-copy all-reduce (own cache line: the
  // owner claims from it on every chunk, the others only when they help at the end)
  alignas(64) std::atomic<uint64_t> zc_claim;
  char pad2[56];
};
static_assert(sizeof(RankSlot) == 256, "RankSlot");

struct alignas(64) Header {
  uint64_t magic;
  int32_t nranks;
  int32_t nchunk;
  uint64_t slot;
  uint64_t chunk;
  alignas(64) std::atomic<int32_t> attached;
  alignas(64) std::atomic<uint64_t> abort_word;  // (code<<40)|(detector<<20)|culprit, 0: fine
  alignas(64) std::atomic<uint64_t> cma_next;    // next chunk of the running CMA all-reduce
};

struct alignas(64) Chan {
  std::atomic<uint64_t> head;       // chunks written by the sender
  char pad0[56];
  std::atomic<uint64_t> tail;       // chunks consumed by the receiver
  // receives the receiver has posted on this channel, and the size of receive k (by the parity
  // of k: the receiver cannot post k + 2 before the sender's send k + 1 started): a send is done
  // only when its receive is posted with the same size (see p2p_run)
  std::atomic<uint64_t> posted;
  uint64_t posted_bytes[2];
  char pad1[32];
};
static_assert(sizeof(Chan) == 128, "Chan");

// one slot of a p2p channel; rdv = 1: no data, the receiver reads `total` bytes at `addr` in
// the sender's memory (large messages, when CMA is allowed) and acknowledges by consuming it;
// rdv = 2: the same from the sender's shared array `g`, which the receiver maps
struct ChunkHdr {
  uint64_t len; uint64_t total; uint64_t addr; uint64_t rdv; RankSlot::Region g;
  uint64_t frees;  // rdv = 2: shared arrays the sender has freed so far
};
constexpr uint64_t P2P_CMA_MIN = 2 << 20;

struct Comm {
  char *base;
  size_t size;
  Header *h;
  RankSlot *slots;
  char *data;
  char *p2p;
  size_t chan_stride;
  int rank, n;
  uint64_t slot, chunk;
  int nchunk;
  uint64_t step;
  double timeout;
  std::atomic<int> local_abort;
  // last error
  int err_code, err_peer, err_detector;
  uint64_t err_mine, err_theirs;
  bool cma;                    // every rank can read every other rank's memory directly
  char *tmp;                   // (n-1) staging chunks for the CMA all-reduce
  size_t tmp_chunk;
  uint64_t cma_base;           // value of h->cma_next when the current CMA all-reduce began
  double spin;                 // seconds to busy-wait before yielding the core
  double spin_max;             // upper bound of the adaptive spin
  bool adaptive;               // false when OPENHIP_CCL_SPIN_US fixes the spin
  double yield;                // then seconds of sched_yield polling before sleeping
  uint64_t rsag_calls;         // windowed all-reduces so far (their direction alternates)
  // windowed all-reduces by size class (log2 of the bytes): seconds per byte seen with cached
  // (0) and streaming (1) stores into the slots, and calls so far (see all_reduce_rsag)
  double rsag_est[2][64];
  uint64_t rsag_n[64];
  uint64_t rsag_since[64];     // calls since the class last tried the other kind of store
  uint8_t rsag_last[64];       // 1 + the kind of store of the class's previous call (0: none)
  // zero-copy collectives over shared arrays (ccl.empty; see zc_begin)
  bool zc;                     // every rank can map every other rank's shared arrays
  bool zc_active;              // inside a collective whose buffers all ranks have mapped
  uint64_t zc_min;             // message bytes from which collectives look for shared arrays
  struct PeerMap { int peer; int32_t pid; uint64_t ino, size; char *local; uint64_t used; };
  std::vector<PeerMap> maps;   // peers' shared arrays mapped here
  std::vector<uint64_t> zc_seen;  // per peer: its `frees` when its mappings were last checked
  std::vector<uint64_t> sends, recvs;  // per peer: point-to-point operations begun so far
  std::vector<uint64_t> zc_base;  // per share: its claim counter when the current call began
  uint64_t zc_calls;
  uint64_t map_clock;          // counts uses of `maps` (least recently used goes first)
  uint64_t op_clock;           // map_clock when the running operation began (its maps stay)
  bool pre_published;          // zc_begin already published the buffers and synchronised
};

inline double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

inline char *buf(Comm *c, int r, uint64_t s) {
  return c->data + ((size_t)r * 2 + (s & 1)) * c->slot;
}
inline Chan *chan(Comm *c, int src, int dst) {
  return (Chan *)(c->p2p + ((size_t)src * c->n + dst) * c->chan_stride);
}
inline ChunkHdr *chunk_hdr(Comm *c, Chan *ch, int i) {
  return (ChunkHdr *)((char *)ch + sizeof(Chan)) + i;
}
inline char *chunk_data(Comm *c, Chan *ch, int i) {
  return (char *)ch + sizeof(Chan) + 64 * ((c->nchunk * sizeof(ChunkHdr) + 63) / 64) +
         (size_t)i * c->chunk;
}

bool pid_dead(int pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  char path[64], st[256];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return errno == ENOENT;
  ssize_t k = read(fd, st, sizeof st - 1);
  close(fd);
  if (k <= 0) return false;
  st[k] = 0;
  const char *p = strrchr(st, ')');
  return p && (p[2] == 'Z' || p[2] == 'X');
}

int fail(Comm *c, int code, int peer, bool broadcast) {
  c->err_code = code;
  c->err_peer = peer;
  c->err_detector = c->rank;
  if (broadcast) {
    uint64_t word = ((uint64_t)code << 40) | ((uint64_t)c->rank << 20) | (uint64_t)(peer & 0xFFFFF);
    uint64_t zero = 0;
    c->h->abort_word.compare_exchange_strong(zero, word);
  }
  return code;
}

// Sleep until the low 32 bits of *word change (or `ns` pass); wake every sleeper on a word.
// The segment is MAP_SHARED, so these are the process-shared (non-private) futex calls.
inline uint32_t *low_word(std::atomic<uint64_t> *w) { return reinterpret_cast<uint32_t *>(w); }
inline void futex_wait(std::atomic<uint64_t> *w, uint32_t val, long ns) {
  timespec ts{0, ns};
  syscall(SYS_futex, low_word(w), FUTEX_WAIT, val, &ts, nullptr, 0);
}
inline void futex_wake(std::atomic<uint64_t> *w) {
  syscall(SYS_futex, low_word(w), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

// Waiter: spins, then yields, then sleeps; every so often checks abort flags, peer liveness
// and the timeout.  `peer` is the rank being waited for (for the error message).
struct Waiter {
  Comm *c;
  double start = 0, last_live = 0;
  uint64_t spins = 0;
  bool yielding = false;
  bool futex = false;  // waiting for a peer's seq: sleep on it instead of yielding
  bool slept = false;
  double spin_cap = 1e9;  // inner steps of a collective: a late peer is off-core, sleep soon
  bool shared_cpu = false;  // the awaited peer last ran on our CPU: spinning only keeps it off
  explicit Waiter(Comm *cc) : c(cc) {}
  // returns OK to keep waiting, else an error code (already recorded in c)
  int tick(int peer) {
    ++spins;
    // Ranks that the scheduler put on one CPU (it does so on a loaded machine, where ranks
    // that often sleep look light) take turns: the peer runs only once we stop spinning.
    if (spins == 16 && peer >= 0) {
      int mine = sched_getcpu();
      shared_cpu = mine >= 0 && c->slots[peer].cpu.load(std::memory_order_relaxed) == mine;
    }
    // once a step waiter has spun its budget, every tick goes on to the futex sleep below
    // (sched_yield would hand the core to whatever else runs here, for a whole slice)
    if (!shared_cpu && !(yielding && futex && peer >= 0)) {
      if (spins < 256) { CPU_RELAX(); return OK; }           // a few microseconds of spinning
      if (spins < (1u << 30) && (spins & 31) != 0) {
        if (yielding) sched_yield(); else CPU_RELAX();
        return OK;
      }
    }
    double t = now();
    if (start == 0) { start = t; last_live = t; }
    if (c->local_abort.load(std::memory_order_relaxed))
      return fail(c, E_ABORT_LOCAL, c->rank, true);
    uint64_t w = c->h->abort_word.load(std::memory_order_acquire);
    if (w) {
      c->err_code = E_ABORT_REMOTE;
      c->err_detector = (int)((w >> 20) & 0xFFFFF);
      c->err_peer = (int)(w & 0xFFFFF);
      c->err_mine = w >> 40;
      return E_ABORT_REMOTE;
    }
    if (t - last_live > 0.05) {
      last_live = t;
      if (peer >= 0 && pid_dead(c->slots[peer].pid)) return fail(c, E_DEAD, peer, true);
    }
    if (c->timeout > 0 && t - start > c->timeout) return fail(c, E_TIMEOUT, peer, true);
    // spin a while (c->spin adapts between 5 us and 200 us; at most 20 us when ranks
    // outnumber cores), then give the core away: the peer may be waiting for exactly it
    yielding = shared_cpu || t - start > (c->spin < spin_cap ? c->spin : spin_cap);
    if (yielding && futex && peer >= 0 && t - start < c->spin + c->yield) {
      sched_yield();  // a peer waiting for this core runs now; cheap when nobody waits
    } else if (yielding && futex && peer >= 0) {
      // sleep until the peer arrives (it wakes us) or 1 ms passes (to check faults again);
      // a sleeper gets the core back promptly when woken, unlike a task that yields
      RankSlot *ps = &c->slots[peer];
      uint32_t cur = (uint32_t)ps->seq.load(std::memory_order_seq_cst);
      ps->waiters.fetch_add(1, std::memory_order_seq_cst);
      if ((uint32_t)ps->seq.load(std::memory_order_seq_cst) == cur) futex_wait(&ps->seq, cur, 1000000);
      ps->waiters.fetch_sub(1, std::memory_order_seq_cst);
      slept = true;
    } else if (t - start > 0.02) {
      timespec ts{0, 20000};
      nanosleep(&ts, nullptr);
    } else if (yielding) {
      sched_yield();
    }
    return OK;
  }
};

// Inside one collective the ranks run the same code on the same amount of data, so a peer
// that is more than this late is not computing but off its core (preempted, or sharing our
// core with us or with other processes): spinning longer only delays it. Measured on a
// shared 2-vCPU guest: with the 200 us budget of the first step, a loaded machine made the
// windowed all-reduce settle at one spin budget per step (about 2.5 GB/s instead of 10);
// 20 us made single-window all-reduces of 128-512 KiB sleep on ordinary imbalances.
constexpr double INNER_SPIN = 50e-6;

// descriptors of point-to-point operations, in the collectives' format (faults.py): kind 10
// send, 11 recv; the peer in the root field, the bytes in the count field
constexpr uint64_t P2P_SEND = 10, P2P_RECV = 11;
inline uint64_t p2p_desc(int is_send, int peer, uint64_t bytes) {
  return ((is_send ? P2P_SEND : P2P_RECV) << 60) | ((uint64_t)(peer & 0xFF) << 40) |
         (bytes & 0xFFFFFFFFFFULL);
}

inline int mismatch(Comm *c, int peer, uint64_t mine, uint64_t theirs) {
  c->err_code = E_MISMATCH; c->err_peer = peer; c->err_detector = c->rank;
  c->err_mine = mine; c->err_theirs = theirs;
  return E_MISMATCH;
}

// a collective at step s (descriptor d) waits for peer p: p waiting in a send to or a receive
// from this rank, begun before step s, that this rank has not matched, will never join it
// (one this rank matched is only waiting for p to notice)
int p2p_blocks_step(Comm *c, int p, uint64_t s, uint64_t d) {
  RankSlot *ps = &c->slots[p];
  uint64_t theirs = ps->p2p_desc.load(std::memory_order_acquire);
  if (!theirs || ps->p2p_peer != c->rank || ps->p2p_step >= s) return OK;
  bool is_send = (theirs >> 60) == P2P_SEND;
  if ((is_send ? c->recvs[p] : c->sends[p]) >= ps->p2p_k) return OK;
  if (ps->seq.load(std::memory_order_acquire) >= s) return OK;
  return mismatch(c, p, d, theirs);
}

// arrive at step s with descriptor d and wait for every peer; check descriptors when asked.
// inner: a later step of a multi-step collective (short spin, no adaptation: see INNER_SPIN)
int sync_step(Comm *c, uint64_t s, uint64_t d, bool check, bool inner = false) {
  RankSlot *me = &c->slots[c->rank];
  me->desc[s & 1] = d;
  uint32_t t_me = (uint32_t)(uint64_t)(now() * 1e6);
  me->arrive_us[s & 1] = t_me;  // by parity: a peer can already be one step further
  me->cpu.store(sched_getcpu(), std::memory_order_relaxed);
  me->seq.store(s, std::memory_order_seq_cst);
  if (me->waiters.load(std::memory_order_seq_cst) > 0) futex_wake(&me->seq);
  Waiter w(c);
  w.futex = true;
  if (inner) w.spin_cap = INNER_SPIN;
  bool waited = false;
  for (int p = 0; p < c->n; ++p) {
    if (p == c->rank) continue;
    while (c->slots[p].seq.load(std::memory_order_acquire) < s) {
      waited = true;
      // (before the tick: a peer that reported the mismatch and exited is a mismatch, not a
      // death; every tick once it sleeps between them)
      if (check && ((w.spins & 15) == 15 || w.spins > 256)) {
        int e = p2p_blocks_step(c, p, s, d);
        if (e) return e;
      }
      int e = w.tick(p);
      if (e) return e;
    }
  }
  if (waited && c->adaptive && !inner) {
    // adaptive spinning, judged by when the last peer *arrived* (not when we woke up, which
    // includes the wake-up latency of sleeping): spin about as long as peers usually take,
    // but sleep at once when they are often off-core (more runnable tasks than cores)
    double late = 0;
    for (int p = 0; p < c->n; ++p) {
      double a = (int32_t)(c->slots[p].arrive_us[s & 1] - t_me) * 1e-6;
      if (p != c->rank && a > late) late = a;
    }
    if (late > c->spin_max) c->spin = c->spin / 2;
    else if (late * 2 > c->spin) c->spin = late * 2 + 2e-6;
    c->spin = c->spin < 5e-6 ? 5e-6 : (c->spin > c->spin_max ? c->spin_max : c->spin);
  }
  if (c->h->abort_word.load(std::memory_order_acquire) || c->local_abort.load(std::memory_order_relaxed)) {
    w.start = 1;  // force the slow checks: they report who aborted
    w.spins = 1u << 30;
    int e = w.tick(-1);
    if (e) return e;
  }
  if (check) {
    for (int p = 0; p < c->n; ++p) {
      if (p == c->rank) continue;
      uint64_t theirs = c->slots[p].desc[s & 1];
      if (theirs != d) return mismatch(c, p, d, theirs);
    }
  }
  return OK;
}

// ---------------------------------------------------------------- reductions
enum DType { I8, U8, I32, U32, I64, U64, F16, F32, F64, BF16, F8E4M3, F8E5M2 };
enum RedOp { SUM, PROD, MAX, MIN, AVG };
size_t dsize(int dt) {
  switch (dt) {
    case I8: case U8: case F8E4M3: case F8E5M2: return 1;
    case F16: case BF16: return 2;
    case I32: case U32: case F32: return 4;
    default: return 8;
  }
}

inline float h2f(uint16_t h) {
  uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, f;
  if (e == 0) {
    if (m == 0) f = s;
    else {  // subnormal
      e = 127 - 15 + 1;
      while (!(m & 0x400)) { m <<= 1; --e; }
      m &= 0x3ff;
      f = s | (e << 23) | (m << 13);
    }
  } else if (e == 31) f = s | 0x7f800000 | (m << 13);
  else f = s | ((e + 127 - 15) << 23) | (m << 13);
  float out;
  memcpy(&out, &f, 4);
  return out;
}
inline uint16_t f2h(float v) {
  uint32_t x;
  memcpy(&x, &v, 4);
  uint32_t s = (x >> 16) & 0x8000;
  int32_t e = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t m = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
  if (e >= 31) return (uint16_t)(s | 0x7c00);
  if (e <= 0) {
    if (e < -10) return (uint16_t)s;
    m |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (hm & 1))) ++hm;
    return (uint16_t)(s | hm);
  }
  uint32_t hm = m >> 13, rem = m & 0x1fff;
  uint32_t out = s | ((uint32_t)e << 10) | hm;
  if (rem > 0x1000 || (rem == 0x1000 && (hm & 1))) ++out;  // may carry into exponent: right
  return (uint16_t)out;
}
inline float b2f(uint16_t b) { uint32_t x = (uint32_t)b << 16; float f; memcpy(&f, &x, 4); return f; }
inline uint16_t f2b(float v) {
  uint32_t x;
  memcpy(&x, &v, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

template <typename T> struct Plain {
  using A = T;
  static A load(const T *p, size_t i) { return p[i]; }
  static void store(T *p, size_t i, A v) { p[i] = v; }
};
struct Half {
  using A = float;
  static A load(const uint16_t *p, size_t i) { return h2f(p[i]); }
  static void store(uint16_t *p, size_t i, A v) { p[i] = f2h(v); }
};
struct BHalf {
  using A = float;
  static A load(const uint16_t *p, size_t i) { return b2f(p[i]); }
  static void store(uint16_t *p, size_t i, A v) { p[i] = f2b(v); }
};

template <typename A> inline A apply(int op, A a, A b) {
  switch (op) {
    case PROD: return a * b;
    case MAX: return (a > b || a != a) ? a : b;  // NaN propagates
    case MIN: return (a < b || a != a) ? a : b;
    default: return a + b;
  }
}

constexpr size_t BLK = 1024;

template <typename T, typename Tr, int OP>
void reduce_blk(T *out0, T *out1, const T *const *src, int nsrc, size_t cnt, int n_avg) {
  using A = typename Tr::A;
  A acc[BLK];
  for (size_t b = 0; b < cnt; b += BLK) {
    size_t m = cnt - b < BLK ? cnt - b : BLK;
    const T *s0 = src[0] + b;
    for (size_t i = 0; i < m; ++i) acc[i] = Tr::load(s0, i);
    for (int k = 1; k < nsrc; ++k) {
      const T *sk = src[k] + b;
      for (size_t i = 0; i < m; ++i) {
        A v = Tr::load(sk, i);
        if (OP == SUM || OP == AVG) acc[i] = acc[i] + v;
        else if (OP == PROD) acc[i] = acc[i] * v;
        else acc[i] = apply<A>(OP, acc[i], v);
      }
    }
    if (OP == AVG) for (size_t i = 0; i < m; ++i) acc[i] = (A)(acc[i] / (A)n_avg);
    for (size_t i = 0; i < m; ++i) Tr::store(out0 + b, i, acc[i]);
    if (out1) for (size_t i = 0; i < m; ++i) Tr::store(out1 + b, i, acc[i]);
  }
}

template <typename T, typename Tr>
void reduce_t(int op, void *o0, void *o1, const void *const *src, int nsrc, size_t cnt, int navg) {
  T *a = (T *)o0, *b = (T *)o1;
  const T *const *s = (const T *const *)src;
  switch (op) {
    case SUM: reduce_blk<T, Tr, SUM>(a, b, s, nsrc, cnt, navg); break;
    case PROD: reduce_blk<T, Tr, PROD>(a, b, s, nsrc, cnt, navg); break;
    case MAX: reduce_blk<T, Tr, MAX>(a, b, s, nsrc, cnt, navg); break;
    case MIN: reduce_blk<T, Tr, MIN>(a, b, s, nsrc, cnt, navg); break;
    default: reduce_blk<T, Tr, AVG>(a, b, s, nsrc, cnt, navg); break;
  }
}

// out0 (and out1 when not null) = reduce over src[0..nsrc) elementwise; safe when out0
// aliases one of the sources (each block is read completely before it is written).
void reduce(int dt, int op, void *o0, void *o1, const void *const *src, int nsrc, size_t cnt,
            int navg) {
  switch (dt) {
    case I8: reduce_t<int8_t, Plain<int8_t>>(op, o0, o1, src, nsrc, cnt, navg); break;
    case U8: reduce_t<uint8_t, Plain<uint8_t>>(op, o0, o1, src, nsrc, cnt, navg); break;
    case I32: reduce_t<int32_t, Plain<int32_t>>(op, o0, o1, src, nsrc, cnt, navg); break;
    case U32: reduce_t<uint32_t, Plain<uint32_t>>(op, o0, o1, src, nsrc, cnt, navg); break;
    case I64: reduce_t<int64_t, Plain<int64_t>>(op, o0, o1, src, nsrc, cnt, navg); break;
    case U64: reduce_t<uint64_t, Plain<uint64_t>>(op, o0, o1, src, nsrc, cnt, navg); break;
    case F16: reduce_t<uint16_t, Half>(op, o0, o1, src, nsrc, cnt, navg); break;
    case BF16: reduce_t<uint16_t, BHalf>(op, o0, o1, src, nsrc, cnt, navg); break;
    case F32: reduce_t<float, Plain<float>>(op, o0, o1, src, nsrc, cnt, navg); break;
    case F64: reduce_t<double, Plain<double>>(op, o0, o1, src, nsrc, cnt, navg); break;
  }
}

// Copies of the engine (never overlapping). glibc's memcpy copies sizes from a few KiB up to
// about the L2 size with `rep movsb`, which on AMD Zen is probably slow when source and
// destination are not equally aligned (numpy's buffers start 16 bytes into a page, the shared
// slots on a page): with it the 128-512 KiB all-reduces ran slower than the 1 MiB one (78-170
// us); with 32-byte vectors and aligned stores, 21-55 us in a paired run.
#if defined(__AVX2__)
// The vector loop of both copies: aligned 32-byte stores, cached or streaming (non-temporal).
template <bool Stream>
inline void copy_vectors(char *d, const char *s, size_t n) {
  size_t head = (32 - ((uintptr_t)d & 31)) & 31;
  if (head > n) head = n;
  memcpy(d, s, head);
  d += head; s += head; n -= head;
  for (size_t k = n / 128; k; --k, d += 128, s += 128) {
    for (int j = 0; j < 128; j += 32) {
      __m256i v = _mm256_loadu_si256((const __m256i *)(s + j));
      if (Stream) {
        _mm256_stream_si256((__m256i *)(d + j), v);
      } else {
        _mm256_store_si256((__m256i *)(d + j), v);
      }
    }
  }
  memcpy(d, s, n % 128);
}
#endif

inline void copy(void *dst, const void *src, size_t n) {
  if (dst == src || !n) return;
#if defined(__AVX2__)
  if (n >= (8 << 10) && n <= (2 << 20)) {  // larger: glibc's vector or streaming copies
    copy_vectors<false>((char *)dst, (const char *)src, n);
    return;
  }
#endif
  memcpy(dst, src, n);
}

// Copy with non-temporal (streaming) stores: the lines go to memory and leave every cache.
// For data that a peer on another core reads next (see all_reduce_rsag). Caller fences.
inline void copy_nt(void *dst, const void *src, size_t n) {
#if defined(__AVX2__)
  copy_vectors<true>((char *)dst, (const char *)src, n);
#else
  memcpy(dst, src, n);
#endif
}
inline void store_fence() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_sfence();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// ---------------------------------------------------------------- collectives
// All sizes are in elements of `dt` unless named *_bytes.

int all_reduce_direct(Comm *c, const char *send, char *recv, size_t cnt, int dt, int op,
                      uint64_t d) {
  size_t es = dsize(dt), bytes = cnt * es;
  uint64_t s = ++c->step;
  copy(buf(c, c->rank, s), send, bytes);
  int e = sync_step(c, s, d, true);
  if (e) return e;
  const void *srcs[256];
  for (int p = 0; p < c->n; ++p) srcs[p] = buf(c, p, s);
  reduce(dt, op, recv, nullptr, srcs, c->n, cnt, c->n);
  return OK;
}

// all_reduce_rsag: streaming stores are considered from this size (smaller calls are
// latency-bound).
// nt_mode: 0 cached stores only, 1 streaming only, 2 adaptive (OPENHIP_CCL_RSAG_NT=0/1/auto)
constexpr size_t RSAG_NT_MIN = 512 << 10;
int nt_mode = 2;

int all_reduce_rsag(Comm *c, const char *send, char *recv, size_t cnt, int dt, int op,
                    uint64_t d) {
  size_t es = dsize(dt);
  int n = c->n, r = c->rank;
  size_t win = (c->slot / es) / n * n;  // elements per window (n slices)
  const void *srcs[256];
  bool first = true;
  // Every other call walks the windows backwards (every rank alike: the calls are counted
  // the same on all ranks). A buffer a little larger than the last-level cache, reduced
  // again and again, then starts where the previous call left off, in cache, instead of
  // evicting each window just before it is needed again (LRU on a cyclic walk).
  size_t nwin = cnt ? (cnt + win - 1) / win : 0;
  bool backwards = (c->rsag_calls++ & 1) != 0;
  // Cached or streaming stores into the slots. While the host keeps the two vCPUs close
  // (sharing a cache) a slot written with ordinary stores is read by the peer from that cache,
  // about twice as fast as through memory. But for seconds at a time the host runs them where
  // the peer's reads of lines dirty in the writer's cache are slow (measured on a shared 2-vCPU
  // guest: rsag 3-4x slower, 1-16 MiB, with neither rank preempted and local copies at full
  // speed; MPICH 2x slower at 1-2 MiB); then streaming stores, which leave the lines in memory,
  // are 2x faster. Each rank times its calls per size class and uses the faster kind of store,
  // trying the other one now and then (the ranks count alike, so they mostly probe together;
  // a rank's choice only changes speed, never the result).
  size_t bytes = cnt * es;
  int cls = 0;
  while (cls < 63 && ((size_t)2 << cls) <= bytes) ++cls;
  bool timed = bytes >= RSAG_NT_MIN && nt_mode == 2;
  bool nt = nt_mode == 1 && bytes >= RSAG_NT_MIN;
  double t0 = 0;
  if (timed) {
    uint64_t k = c->rsag_n[cls]++;
    double *est = c->rsag_est[0] + cls, *est_nt = c->rsag_est[1] + cls;
    if (k < 6) {
      nt = k >= 3;  // three calls of each first (the first of them not counted)
    } else {
      // the kind not in use gets two calls (the first not counted) every 16 calls, or every
      // 32 when it was more than 1.25x slower (a probe costs that much)
      bool best = *est_nt < *est;
      double ratio = best ? *est / *est_nt : *est_nt / *est;
      uint64_t period = ratio > 1.25 ? 32 : 16;
      uint64_t since = ++c->rsag_since[cls];
      bool probe = since > period;
      if (since >= period + 2) c->rsag_since[cls] = 0;
      nt = best != probe;
    }
    t0 = now();
  }
  for (size_t k = 0; k < nwin; ++k) {
    size_t off = (backwards ? nwin - 1 - k : k) * win;
    size_t wc = cnt - off < win ? cnt - off : win;
    size_t sl = (wc + n - 1) / n;  // slice length (last may be shorter)
    auto sbeg = [&](int j) { size_t b = j * sl; return b < wc ? b : wc; };
    auto slen = [&](int j) { return sbeg(j + 1) - sbeg(j); };
    uint64_t s1 = ++c->step;
    char *mine = buf(c, r, s1);
    for (int j = 0; j < n; ++j)
      if (j != r) {
        if (nt) copy_nt(mine + sbeg(j) * es, send + (off + sbeg(j)) * es, slen(j) * es);
        else copy(mine + sbeg(j) * es, send + (off + sbeg(j)) * es, slen(j) * es);
      }
    if (nt) store_fence();
    int e = sync_step(c, s1, d, first, !first);
    if (e) return e;
    first = false;
    uint64_t s2 = ++c->step;
    for (int p = 0; p < n; ++p)
      srcs[p] = p == r ? (const void *)(send + (off + sbeg(r)) * es)
                       : (const void *)(buf(c, p, s1) + sbeg(r) * es);
    if (nt) {  // reduce a piece into recv (L1), stream it to the slot
      const size_t piece = (16 << 10) / es;
      char *out = recv + (off + sbeg(r)) * es, *slot2 = buf(c, r, s2) + sbeg(r) * es;
      for (size_t b = 0; b < slen(r); b += piece) {
        size_t m = slen(r) - b < piece ? slen(r) - b : piece;
        const void *sp[256];
        for (int p = 0; p < n; ++p) sp[p] = (const char *)srcs[p] + b * es;
        reduce(dt, op, out + b * es, nullptr, sp, n, m, n);
        copy_nt(slot2 + b * es, out + b * es, m * es);
      }
      store_fence();
    } else {
      reduce(dt, op, recv + (off + sbeg(r)) * es, buf(c, r, s2) + sbeg(r) * es, srcs, n, slen(r), n);
    }
    e = sync_step(c, s2, d, false, true);
    if (e) return e;
    for (int j = 0; j < n; ++j)
      if (j != r) copy(recv + (off + sbeg(j)) * es, buf(c, j, s2) + sbeg(j) * es, slen(j) * es);
  }
  if (cnt == 0) {
    uint64_t s = ++c->step;
    return sync_step(c, s, d, true);
  }
  if (timed) {
    // a call right after a change of store kind is not counted: the slots' lines are where
    // the other kind left them (streaming stores evict them, so the first cached call after a
    // streaming one misses; measured 2x its usual time at 16 MiB)
    double per = (now() - t0) / (double)bytes, &e = c->rsag_est[nt][cls];
    // the kind in use: a moving average that one slow call (a preemption) moves little; a
    // probe of the other kind: mostly the new time (its estimate may be long out of date)
    if (c->rsag_last[cls] == 1 + (int)nt) {
      if (e == 0) e = per;
      else if (nt == (c->rsag_est[1][cls] < c->rsag_est[0][cls]))
        e = 0.75 * e + 0.25 * (per < 1.5 * e ? per : 1.5 * e);
      else e = 0.25 * e + 0.75 * per;
    }
    c->rsag_last[cls] = (uint8_t)(1 + nt);
  }
  return OK;
}

// Read `len` bytes at `raddr` of rank p's process into `dst` (cross memory attach).
char *peer_addr(Comm *c, int p, uint64_t raddr, size_t len);
int map_failed(Comm *c, int p);
int cma_read(Comm *c, int p, uint64_t raddr, char *dst, size_t len) {
  if (c->zc_active) {  // a zero-copy collective: the peer's buffer is mapped here
    const char *a = peer_addr(c, p, raddr, len);
    if (!a) return map_failed(c, p);
    copy(dst, a, len);
    return OK;
  }
  while (len) {
    iovec l{dst, len}, r{(void *)raddr, len};
    ssize_t k = process_vm_readv(c->slots[p].pid, &l, 1, &r, 1, 0);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) continue;
      return fail(c, errno == ESRCH ? E_DEAD : E_OS, p, true);
    }
    dst += k; raddr += k; len -= (size_t)k;
  }
  return OK;
}

// Write `len` bytes from `src` to `raddr` in rank p's process (cross memory attach).
int cma_write(Comm *c, int p, uint64_t raddr, const char *src, size_t len) {
  while (len) {
    iovec l{(void *)src, len}, r{(void *)raddr, len};
    ssize_t k = process_vm_writev(c->slots[p].pid, &l, 1, &r, 1, 0);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) continue;
      return fail(c, errno == ESRCH ? E_DEAD : E_OS, p, true);
    }
    src += k; raddr += k; len -= (size_t)k;
  }
  return OK;
}

// ---------------------------------------------------------------- shared arrays (zero copy)
// ccl.empty() allocates arrays in memfd files and registers them here (address range and fd).
// A collective whose buffers are such arrays on every rank needs no staging copy at all: the
// peers map each other's files (open /proc/<pid>/fd/<fd>, the way CUDA IPC maps a peer's
// allocation) and read and write each other's arrays directly.
struct SharedArray { uint64_t base, size, ino; int fd; };
std::mutex registry_mu;
std::vector<SharedArray> registry;
std::atomic<uint64_t> registry_frees{0};

// The registered array holding [addr, addr + len), or size 0.
RankSlot::Region find_shared(const char *ptr, size_t len) {
  RankSlot::Region out{};
  uint64_t addr = (uint64_t)ptr;
  if (!ptr) return out;
  std::lock_guard<std::mutex> g(registry_mu);
  for (const SharedArray &a : registry)
    if (addr >= a.base && addr + len <= a.base + a.size && addr + len >= addr) {
      out.base = a.base; out.size = a.size; out.ino = a.ino; out.fd = a.fd;
      break;
    }
  return out;
}

void unmap_peer(Comm *c, int peer) {
  size_t k = 0;
  for (size_t i = 0; i < c->maps.size(); ++i) {
    if (c->maps[i].peer == peer) munmap(c->maps[i].local, c->maps[i].size);
    else c->maps[k++] = c->maps[i];
  }
  c->maps.resize(k);
}

// Peer p has freed `frees` shared arrays so far: when that changed, drop what we mapped of it
// (it may hold freed memory; what is still in use gets mapped again on its next use).
void forget_freed(Comm *c, int p, uint64_t frees) {
  if (frees == c->zc_seen[p]) return;
  unmap_peer(c, p);
  c->zc_seen[p] = frees;
}

// A peer's shared array could not be mapped: it died (the usual reason), or the OS refused.
int map_failed(Comm *c, int p) {
  return fail(c, pid_dead(c->slots[p].pid) ? E_DEAD : E_OS, p, true);
}

// Local address of rank p's shared array `g` (mapped on first use, then cached; nullptr when
// it cannot be mapped). A cached mapping keeps the peer's file alive, so (pid, inode) stays
// unique while cached; a peer's mappings are dropped when it has freed arrays since.
constexpr size_t MAX_MAPS_PER_PEER = 32;
char *map_shared(Comm *c, int p, const RankSlot::Region &g) {
  int32_t pid = c->slots[p].pid;
  for (Comm::PeerMap &m : c->maps)
    if (m.peer == p && m.pid == pid && m.ino == g.ino && m.size == g.size) {
      m.used = ++c->map_clock;
      return m.local;
    }
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)g.fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st;
  void *m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && (uint64_t)st.st_ino == g.ino && (uint64_t)st.st_size >= g.size)
    m = mmap(nullptr, g.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return nullptr;
  size_t count = 0, oldest = SIZE_MAX;
  for (size_t i = 0; i < c->maps.size(); ++i)
    if (c->maps[i].peer == p) {
      ++count;
      if (oldest == SIZE_MAX || c->maps[i].used < c->maps[oldest].used) oldest = i;
    }
  if (count >= MAX_MAPS_PER_PEER && oldest != SIZE_MAX && c->maps[oldest].used <= c->op_clock) {
    munmap(c->maps[oldest].local, c->maps[oldest].size);
    c->maps.erase(c->maps.begin() + (long)oldest);
  }
  c->maps.push_back({p, pid, g.ino, g.size, (char *)m, ++c->map_clock});
  return (char *)m;
}

// Local address of [raddr, raddr + len) of rank p's memory, when it lies in one of the shared
// arrays p published for this collective (nullptr otherwise or when it cannot be mapped).
char *peer_addr(Comm *c, int p, uint64_t raddr, size_t len) {
  if (p == c->rank) return (char *)raddr;
  const RankSlot &s = c->slots[p];
  for (int i = 0; i < 2; ++i) {
    const RankSlot::Region &g = s.zb[i];
    if (g.size && raddr >= g.base && raddr + len <= g.base + g.size) {
      char *m = map_shared(c, p, g);
      return m ? m + (raddr - g.base) : nullptr;
    }
  }
  return nullptr;
}

// Which buffers the peers touch in a collective, by kind (see py_coll): every rank's send
// (reads), every rank's recv (all-reduce writes the result into all), only the root's.
enum { ZC_NONE = 0, ZC_ALL = 1, ZC_ROOT = 2 };
struct ZcNeed { int send, recv; size_t send_bytes, recv_bytes; };
ZcNeed zc_need(int base, size_t count, size_t es, int n) {
  size_t b = count * es, nb = b * (size_t)n;
  switch (base) {
    case 0: case 1: case 2: case 11: return {ZC_ALL, ZC_ALL, b, b};  // all-reduce
    case 3: return {ZC_ALL, ZC_ROOT, b, b};                            // reduce
    case 4: return {ZC_ROOT, ZC_NONE, b, 0};                           // broadcast (data)
    case 5: case 6: return {ZC_ALL, ZC_NONE, b, nb};                   // all_gather, gather
    case 7: return {ZC_ALL, ZC_NONE, nb, 0};                           // reduce_scatter
    case 8: return {ZC_ALL, ZC_NONE, nb, 0};                           // all_to_all
    case 9: return {ZC_ROOT, ZC_NONE, nb, 0};                          // scatter
    default: return {ZC_NONE, ZC_NONE, 0, 0};
  }
}

// The first barrier of a collective that may run zero-copy: publish this rank's buffers and
// the shared arrays holding them (the cross-memory-attach algorithms read the addresses too,
// so they skip their own first barrier after this one). *all: every buffer the peers touch is
// a shared array, on every rank (every rank computes the same answer from the same data).
int zc_begin(Comm *c, int base, const char *send, char *recv, size_t count, size_t es, int root,
             uint64_t d, bool *all) {
  RankSlot *me = &c->slots[c->rank];
  ZcNeed need = zc_need(base, count, es, c->n);
  me->addr[0] = (uint64_t)send;
  me->addr[1] = (uint64_t)recv;
  me->zb[0] = need.send ? find_shared(send, need.send_bytes) : RankSlot::Region{};
  me->zb[1] = need.recv ? find_shared(recv, need.recv_bytes) : RankSlot::Region{};
  me->frees = registry_frees.load(std::memory_order_relaxed);
  uint64_t s = ++c->step;
  int e = sync_step(c, s, d, true);
  if (e) return e;
  bool ok = true;
  for (int p = 0; p < c->n && ok; ++p) {
    const RankSlot &q = c->slots[p];
    if (need.send == ZC_ALL || (need.send == ZC_ROOT && p == root)) ok = q.zb[0].size != 0;
    if (ok && (need.recv == ZC_ALL || (need.recv == ZC_ROOT && p == root))) ok = q.zb[1].size != 0;
  }
  *all = ok;
  if (!ok) return OK;
  ++c->zc_calls;
  c->op_clock = c->map_clock;
  for (int p = 0; p < c->n; ++p)
    if (p != c->rank) forget_freed(c, p, c->slots[p].frees);
  return OK;
}

// All-reduce (root < 0) or reduce (to root) over shared arrays, after zc_begin. Each rank
// owns a share (slice r of the buffer): it reduces that slice of every rank's send array, in
// rank order (every rank gets identical bits), straight into every rank's recv array. The
// share is cut into chunks claimed from the owner's counter, so a rank that finishes early
// helps with the shares of ranks the OS has not run; normally each rank handles the same
// slice on every call, which then stays in its cache. In-place arrays are safe: only the
// claiming rank touches a chunk, and reduce() reads each block before writing it.
constexpr size_t ZC_CHUNK = 64 << 10;
int all_reduce_zc(Comm *c, const char *send, char *recv, size_t cnt, int dt, int op, int root,
                  uint64_t d) {
  size_t es = dsize(dt), bytes = cnt * es;
  int n = c->n, r = c->rank;
  const char *sp[256];
  char *rp[256];
  for (int p = 0; p < n; ++p) {
    sp[p] = p == r ? send : peer_addr(c, p, c->slots[p].addr[0], bytes);
    rp[p] = nullptr;
    if (root < 0 || p == root) rp[p] = p == r ? recv : peer_addr(c, p, c->slots[p].addr[1], bytes);
    if (!sp[p] || ((root < 0 || p == root) && !rp[p])) return map_failed(c, p);
  }
  size_t chunk = ZC_CHUNK / es;
  const void *srcs[256];
  for (int k = 0; k < n; ++k) {
    int q = (r + k) % n;
    size_t beg = cnt / n * q + (cnt % n < (size_t)q ? cnt % n : q);
    size_t end = beg + cnt / n + ((size_t)q < cnt % n ? 1 : 0);
    uint64_t nch = (end - beg + chunk - 1) / chunk;
    std::atomic<uint64_t> &claim = c->slots[q].zc_claim;
    for (;;) {
      uint64_t idx = claim.fetch_add(1, std::memory_order_relaxed) - c->zc_base[q];
      if (idx >= nch) break;  // every rank overshoots every share exactly once (see below)
      size_t off = beg + idx * chunk, m = end - off < chunk ? end - off : chunk;
      for (int p = 0; p < n; ++p) srcs[p] = sp[p] + off * es;
      if (root >= 0) {
        reduce(dt, op, rp[root] + off * es, nullptr, srcs, n, m, n);
      } else {
        int o1 = (q + 1) % n;
        reduce(dt, op, rp[q] + off * es, n > 1 ? rp[o1] + off * es : nullptr, srcs, n, m, n);
        for (int j = 2; j < n; ++j) copy(rp[(q + j) % n] + off * es, rp[q] + off * es, m * es);
      }
      if (c->local_abort.load(std::memory_order_relaxed) ||
          c->h->abort_word.load(std::memory_order_relaxed))
        break;  // the barrier below reports it
    }
    c->zc_base[q] += nch + (uint64_t)n;
  }
  uint64_t s = ++c->step;
  return sync_step(c, s, d, false);
}

// Where the data-moving algorithms read a peer's buffer: straight from its shared array inside
// a zero-copy collective, else into `tmp` with process_vm_readv.
const char *peer_src(Comm *c, int p, uint64_t raddr, char *tmp, size_t len, int *e) {
  if (c->zc_active) {
    const char *a = peer_addr(c, p, raddr, len);
    if (!a) *e = map_failed(c, p);
    return a;
  }
  *e = cma_read(c, p, raddr, tmp, len);
  return tmp;
}

// Large all-reduce without staging copies. The buffer is cut into cache-sized chunks that
// the ranks claim from a shared counter (so a rank that the OS does not run for a while
// leaves its share to the others). For a chunk it claimed, a rank reads that chunk of every
// peer's send buffer straight from the peer's memory (process_vm_readv), reduces in rank
// order with its own into its recv buffer (every rank gets identical bits), and writes the
// result straight into every peer's recv buffer (process_vm_writev) while it is in cache.
// Only the claiming rank touches a chunk anywhere, so in-place buffers are safe. Two
// barriers: the first publishes the buffer addresses, the second says all chunks landed.
int all_reduce_cma(Comm *c, const char *send, char *recv, size_t cnt, int dt, int op,
                   uint64_t d, int root = -1) {
  size_t es = dsize(dt);
  int n = c->n, r = c->rank;
  RankSlot *me = &c->slots[r];
  uint64_t s;
  int e;
  if (!c->pre_published) {  // else zc_begin did this
    me->addr[0] = (uint64_t)send;
    me->addr[1] = (uint64_t)recv;
    s = ++c->step;
    e = sync_step(c, s, d, true);
    if (e) return e;
  }
  size_t chunk = c->tmp_chunk / es;
  uint64_t nchunks = (cnt + chunk - 1) / chunk;
  const void *srcs[256];
  for (;;) {
    uint64_t idx = c->h->cma_next.fetch_add(1, std::memory_order_relaxed) - c->cma_base;
    if (idx >= nchunks) break;  // every rank overshoots exactly once: see cma_base below
    size_t off = idx * chunk;
    size_t m = cnt - off < chunk ? cnt - off : chunk;
    int k = 0;
    for (int p = 0; p < n; ++p) {
      if (p == r) { srcs[p] = send + off * es; continue; }
      char *t = c->tmp + (size_t)(k++) * c->tmp_chunk;
      e = cma_read(c, p, c->slots[p].addr[0] + off * es, t, m * es);
      if (e) return e;
      srcs[p] = t;
    }
    if (root < 0) {  // all-reduce: the result goes to every rank
      reduce(dt, op, recv + off * es, nullptr, srcs, n, m, n);
      for (int p = 0; p < n; ++p) {
        if (p == r) continue;
        e = cma_write(c, p, c->slots[p].addr[1] + off * es, recv + off * es, m * es);
        if (e) return e;
      }
    } else if (root == r) {  // reduce, this rank is the root
      reduce(dt, op, recv + off * es, nullptr, srcs, n, m, n);
    } else {  // reduce: compute here, deliver to the root
      char *out = c->tmp + (size_t)(n - 1) * c->tmp_chunk;
      reduce(dt, op, out, nullptr, srcs, n, m, n);
      e = cma_write(c, root, c->slots[root].addr[1] + off * es, out, m * es);
      if (e) return e;
    }
    if (c->local_abort.load(std::memory_order_relaxed) ||
        c->h->abort_word.load(std::memory_order_relaxed))
      break;  // the barrier below reports it
  }
  c->cma_base += nchunks + (uint64_t)n;
  s = ++c->step;
  return sync_step(c, s, d, false);
}

// Data-moving collectives reading the peers' buffers directly: publish the addresses, one
// barrier, every rank pulls what it needs (process_vm_readv), one barrier so nobody's buffer
// changes while it is being read.
int cma_begin(Comm *c, const char *send, char *recv, uint64_t d) {
  if (c->pre_published) return OK;  // zc_begin did this
  RankSlot *me = &c->slots[c->rank];
  me->addr[0] = (uint64_t)send;
  me->addr[1] = (uint64_t)recv;
  uint64_t s = ++c->step;
  return sync_step(c, s, d, true);
}

int cma_end(Comm *c, uint64_t d) {
  uint64_t s = ++c->step;
  return sync_step(c, s, d, false);
}

int broadcast_cma(Comm *c, char *data, size_t bytes, int root, uint64_t d) {
  int e = cma_begin(c, data, data, d);
  if (e) return e;
  if (c->rank != root && (e = cma_read(c, root, c->slots[root].addr[0], data, bytes))) return e;
  return cma_end(c, d);
}

// all_gather (root < 0) and gather
int gather_cma(Comm *c, const char *send, char *recv, size_t bytes, int root, uint64_t d) {
  int e = cma_begin(c, send, recv, d);
  if (e) return e;
  if (root < 0 || root == c->rank)
    for (int p = 0; p < c->n; ++p) {
      if (p == c->rank) copy(recv + p * bytes, send, bytes);
      else if ((e = cma_read(c, p, c->slots[p].addr[0], recv + p * bytes, bytes))) return e;
    }
  return cma_end(c, d);
}

// all_to_all (root < 0; not in place) and scatter
int exchange_cma(Comm *c, const char *send, char *recv, size_t bytes, int root, uint64_t d) {
  int e = cma_begin(c, send, recv, d);
  if (e) return e;
  int r = c->rank;
  if (root >= 0) {
    if (r == root) copy(recv, send + r * bytes, bytes);
    else if ((e = cma_read(c, root, c->slots[root].addr[0] + r * bytes, recv, bytes))) return e;
  } else {
    for (int p = 0; p < c->n; ++p) {
      if (p == r) copy(recv + r * bytes, send + r * bytes, bytes);
      else if ((e = cma_read(c, p, c->slots[p].addr[0] + r * bytes, recv + p * bytes, bytes)))
        return e;
    }
  }
  return cma_end(c, d);
}

// reduce_scatter: rank r reduces block r, reading the peers' block r chunk by chunk
int reduce_scatter_cma(Comm *c, const char *send, char *recv, size_t cnt, int dt, int op,
                       uint64_t d) {
  int e = cma_begin(c, send, recv, d);
  if (e) return e;
  size_t es = dsize(dt), chunk = c->tmp_chunk / es;
  int n = c->n, r = c->rank;
  const void *srcs[256];
  for (size_t off = 0; off < cnt; off += chunk) {
    size_t m = cnt - off < chunk ? cnt - off : chunk;
    int k = 0;
    for (int p = 0; p < n; ++p) {
      size_t at = (r * cnt + off) * es;
      if (p == r) { srcs[p] = send + at; continue; }
      char *t = c->tmp ? c->tmp + (size_t)(k++) * c->tmp_chunk : nullptr;
      srcs[p] = peer_src(c, p, c->slots[p].addr[0] + at, t, m * es, &e);
      if (e) return e;
    }
    reduce(dt, op, recv + off * es, nullptr, srcs, n, m, n);
  }
  return cma_end(c, d);
}

int reduce_root(Comm *c, const char *send, char *recv, size_t cnt, int dt, int op, int root,
                uint64_t d) {
  size_t es = dsize(dt), win = c->slot / es;
  const void *srcs[256];
  bool first = true;
  size_t off = 0;
  do {
    size_t wc = cnt - off < win ? cnt - off : win;
    uint64_t s = ++c->step;
    if (c->rank != root) copy(buf(c, c->rank, s), send + off * es, wc * es);
    int e = sync_step(c, s, d, first);
    if (e) return e;
    first = false;
    if (c->rank == root) {
      for (int p = 0; p < c->n; ++p)
        srcs[p] = p == root ? (const void *)(send + off * es) : (const void *)buf(c, p, s);
      reduce(dt, op, recv + off * es, nullptr, srcs, c->n, wc, c->n);
    }
    off += wc;
  } while (off < cnt);
  return OK;
}

int broadcast(Comm *c, char *data, size_t bytes, int root, uint64_t d) {
  bool first = true;
  size_t off = 0;
  do {
    size_t w = bytes - off < c->slot ? bytes - off : c->slot;
    uint64_t s = ++c->step;
    if (c->rank == root) copy(buf(c, root, s), data + off, w);
    int e = sync_step(c, s, d, first);
    if (e) return e;
    first = false;
    if (c->rank != root) copy(data + off, buf(c, root, s), w);
    off += w;
  } while (off < bytes);
  return OK;
}

// all_gather / gather: per-rank block of `bytes`; recv holds n blocks (gather: at root only)
int gather_any(Comm *c, const char *send, char *recv, size_t bytes, int root, uint64_t d) {
  bool first = true;
  size_t off = 0;
  do {
    size_t w = bytes - off < c->slot ? bytes - off : c->slot;
    uint64_t s = ++c->step;
    copy(buf(c, c->rank, s), send + off, w);
    int e = sync_step(c, s, d, first);
    if (e) return e;
    first = false;
    if (root < 0 || root == c->rank)
      for (int p = 0; p < c->n; ++p)
        copy(recv + p * bytes + off, p == c->rank ? send + off : buf(c, p, s), w);
    off += w;
  } while (off < bytes);
  return OK;
}

// reduce_scatter: send holds n blocks of cnt elements; recv gets the reduced block `rank`
int reduce_scatter(Comm *c, const char *send, char *recv, size_t cnt, int dt, int op,
                   uint64_t d) {
  size_t es = dsize(dt), win = c->slot / es / c->n;
  int n = c->n, r = c->rank;
  const void *srcs[256];
  bool first = true;
  size_t off = 0;
  do {
    size_t wc = cnt - off < win ? cnt - off : win;
    uint64_t s = ++c->step;
    char *mine = buf(c, r, s);
    for (int j = 0; j < n; ++j)
      if (j != r) copy(mine + j * win * es, send + (j * cnt + off) * es, wc * es);
    int e = sync_step(c, s, d, first);
    if (e) return e;
    first = false;
    for (int p = 0; p < n; ++p)
      srcs[p] = p == r ? (const void *)(send + (r * cnt + off) * es)
                       : (const void *)(buf(c, p, s) + r * win * es);
    reduce(dt, op, recv + off * es, nullptr, srcs, n, wc, n);
    off += wc;
  } while (off < cnt);
  return OK;
}

// all_to_all (root < 0) and scatter (root >= 0): blocks of `bytes`
int exchange(Comm *c, const char *send, char *recv, size_t bytes, int root, uint64_t d) {
  int n = c->n, r = c->rank;
  size_t win = c->slot / n;
  bool first = true;
  size_t off = 0;
  do {
    size_t w = bytes - off < win ? bytes - off : win;
    uint64_t s = ++c->step;
    char *mine = buf(c, r, s);
    if (root < 0 || root == r)
      for (int j = 0; j < n; ++j)
        if (j != r) copy(mine + j * win, send + j * bytes + off, w);
    int e = sync_step(c, s, d, first);
    if (e) return e;
    first = false;
    if (root < 0) {
      for (int p = 0; p < n; ++p)
        copy(recv + p * bytes + off, p == r ? send + r * bytes + off : buf(c, p, s) + r * win, w);
    } else {
      copy(recv + off, r == root ? send + r * bytes + off : buf(c, root, s) + r * win, w);
    }
    off += w;
  } while (off < bytes);
  return OK;
}

// ---------------------------------------------------------------- point to point
struct P2POp {
  int is_send; int peer; char *ptr; uint64_t bytes; uint64_t done; int started; int fin;
  uint64_t ack_at;
  uint64_t k;      // this op's number on its channel (1, 2, ...; 0: not begun)
  int data_done;   // sends: every byte written (or read by the receiver); waits for the match
  int shared;  // sends: -1 not looked up yet, 0 a plain buffer, 1 in the shared array `g`
  RankSlot::Region g;
};

// The peer of op o cannot be serving it: it has entered a collective this rank has not (its step
// is past ours) and posted nothing for o. Its posts and chunks precede its arrival (release /
// seq_cst), so reading its step first and the channel second cannot miss them.
bool peer_in_collective(Comm *c, const P2POp &o) {
  if (o.peer == c->rank || c->slots[o.peer].seq.load(std::memory_order_acquire) <= c->step)
    return false;
  if (o.is_send) return chan(c, c->rank, o.peer)->posted.load(std::memory_order_acquire) < o.k;
  Chan *ch = chan(c, o.peer, c->rank);
  return ch->tail.load(std::memory_order_relaxed) >= ch->head.load(std::memory_order_acquire);
}

// say which op this rank waits in, for a peer waiting in a collective (see p2p_blocks_step)
uint64_t publish_p2p(Comm *c, const P2POp &o) {
  RankSlot *me = &c->slots[c->rank];
  uint64_t d = p2p_desc(o.is_send, o.peer, o.bytes);
  me->p2p_step = c->step; me->p2p_k = o.k; me->p2p_peer = o.peer;
  me->p2p_desc.store(d, std::memory_order_release);
  return d;
}

// Two ranks each waiting in a send to the other that the other has not posted a receive for
// (outside a group: NCCL's semantics deadlock there) wait for each other forever: the peer's
// descriptor when that is so, else 0. (A receive still to come in the same group is posted
// before the group's first wait, so it cannot be missed.)
uint64_t head_to_head(Comm *c, const P2POp &o) {
  if (!o.is_send || o.peer == c->rank ||
      chan(c, c->rank, o.peer)->posted.load(std::memory_order_acquire) >= o.k)
    return 0;
  RankSlot *ps = &c->slots[o.peer];
  uint64_t theirs = ps->p2p_desc.load(std::memory_order_acquire);
  if (theirs && (theirs >> 60) == P2P_SEND && ps->p2p_peer == c->rank &&
      ps->p2p_k > c->recvs[o.peer])
    return theirs;
  return 0;
}

// A group of sends and receives. Every send is matched: it finishes only when the receiver has
// posted receive number k on the channel with the same byte count (a different count, or a
// peer that went into a collective instead, is E_MISMATCH here; the receiver checks each
// chunk's total too, and a collective waiting for a rank stuck in a send or receive with it
// reports it from the other side, see p2p_blocks_step).
int p2p_run(Comm *c, P2POp *ops, int nops) {
  Waiter w(c);
  c->op_clock = c->map_clock;
  RankSlot *me = &c->slots[c->rank];
  if (c->h->abort_word.load(std::memory_order_acquire) || c->local_abort.load(std::memory_order_relaxed)) {
    w.start = 1;
    w.spins = 1u << 30;
    int e = w.tick(-1);
    if (e) return e;
  }
  int remaining = nops;
  int published = -1;  // the op this rank says it waits in (RankSlot::p2p_desc)
  while (remaining) {
    bool progressed = false;
    int wait_peer = -1;
    int first_open = -1;
    for (int i = 0; i < nops; ++i) {
      P2POp &o = ops[i];
      if (o.fin) continue;
      bool blocked = false;  // an earlier op on the same (direction, peer) must finish first
      for (int k = 0; k < i; ++k)
        if (!ops[k].fin && ops[k].is_send == o.is_send && ops[k].peer == o.peer) { blocked = true; break; }
      if (blocked) continue;
      if (!o.k) {  // begin: number it on its channel; a receive posts its size
        if (o.is_send) {
          o.k = ++c->sends[o.peer];
        } else {
          o.k = ++c->recvs[o.peer];
          Chan *ch = chan(c, o.peer, c->rank);
          ch->posted_bytes[o.k & 1] = o.bytes;
          ch->posted.store(o.k, std::memory_order_release);
        }
      }
      if (o.is_send) {
        Chan *ch = chan(c, c->rank, o.peer);
        uint64_t head = ch->head.load(std::memory_order_relaxed);
        if (ch->posted.load(std::memory_order_acquire) >= o.k) {  // the receive is posted
          uint64_t want = ch->posted_bytes[o.k & 1];
          if (want != o.bytes) {
            publish_p2p(c, o);  // left set: the receiver may wait for data that never comes
            return mismatch(c, o.peer, p2p_desc(1, o.peer, o.bytes), p2p_desc(0, c->rank, want));
          }
          if (o.data_done) { o.fin = 1; --remaining; progressed = true; continue; }
        }
        if (o.data_done) {
          // every byte is out; the receive is not posted yet
        } else if (o.started) {  // rendezvous posted: done when the receiver consumed the slot
          if (ch->tail.load(std::memory_order_acquire) >= o.ack_at) {
            o.data_done = 1; progressed = true;
          }
        } else if (c->zc && o.bytes >= c->zc_min && o.peer != c->rank &&
                   (o.shared < 0 ? (o.g = find_shared(o.ptr, o.bytes), o.shared = o.g.size != 0)
                                 : o.shared)) {
          if (head - ch->tail.load(std::memory_order_acquire) < (uint64_t)c->nchunk) {
            ChunkHdr *hd = chunk_hdr(c, ch, (int)(head % c->nchunk));
            hd->len = 0; hd->total = o.bytes; hd->addr = (uint64_t)o.ptr; hd->rdv = 2; hd->g = o.g;
            hd->frees = registry_frees.load(std::memory_order_relaxed);
            ch->head.store(++head, std::memory_order_release);
            o.started = 1; o.ack_at = head; progressed = true;
          }
        } else if (c->cma && o.bytes >= P2P_CMA_MIN && o.peer != c->rank) {
          if (head - ch->tail.load(std::memory_order_acquire) < (uint64_t)c->nchunk) {
            ChunkHdr *hd = chunk_hdr(c, ch, (int)(head % c->nchunk));
            hd->len = 0; hd->total = o.bytes; hd->addr = (uint64_t)o.ptr; hd->rdv = 1;
            ch->head.store(++head, std::memory_order_release);
            o.started = 1; o.ack_at = head; progressed = true;
          }
        }
        while (!o.data_done && !o.started &&
               head - ch->tail.load(std::memory_order_acquire) < (uint64_t)c->nchunk) {
          int slot = (int)(head % c->nchunk);
          uint64_t len = o.bytes - o.done < c->chunk ? o.bytes - o.done : c->chunk;
          memcpy(chunk_data(c, ch, slot), o.ptr + o.done, len);
          ChunkHdr *hd = chunk_hdr(c, ch, slot);
          hd->len = len; hd->total = o.bytes; hd->rdv = 0;
          ch->head.store(++head, std::memory_order_release);
          o.done += len;
          progressed = true;
          if (o.done >= o.bytes) o.data_done = 1;
        }
        if (o.data_done && ch->posted.load(std::memory_order_acquire) >= o.k) {
          uint64_t want = ch->posted_bytes[o.k & 1];
          if (want != o.bytes) {
            publish_p2p(c, o);
            return mismatch(c, o.peer, p2p_desc(1, o.peer, o.bytes), p2p_desc(0, c->rank, want));
          }
          o.fin = 1; --remaining; progressed = true;
        }
      } else {
        Chan *ch = chan(c, o.peer, c->rank);
        uint64_t tail = ch->tail.load(std::memory_order_relaxed);
        while (!o.fin && tail < ch->head.load(std::memory_order_acquire)) {
          int slot = (int)(tail % c->nchunk);
          ChunkHdr *hd = chunk_hdr(c, ch, slot);
          if (hd->total != o.bytes)
            return mismatch(c, o.peer, p2p_desc(0, o.peer, o.bytes),
                            p2p_desc(1, c->rank, hd->total));
          if (hd->rdv == 2) {  // copy the whole message from the sender's shared array
            if (hd->addr < hd->g.base || hd->addr + o.bytes > hd->g.base + hd->g.size)
              return fail(c, E_OS, o.peer, true);
            forget_freed(c, o.peer, hd->frees);  // (no mapping of o.peer is in use here)
            char *m = map_shared(c, o.peer, hd->g);
            if (!m) return map_failed(c, o.peer);
            copy(o.ptr, m + (hd->addr - hd->g.base), o.bytes);
            o.done = o.bytes;
          } else if (hd->rdv) {  // read the whole message from the sender's memory
            int e = cma_read(c, o.peer, hd->addr, o.ptr, o.bytes);
            if (e) return e;
            o.done = o.bytes;
          } else {
            memcpy(o.ptr + o.done, chunk_data(c, ch, slot), hd->len);
            o.done += hd->len;
          }
          ch->tail.store(++tail, std::memory_order_release);
          progressed = true;
          if (o.done >= o.bytes) { o.fin = 1; --remaining; }
        }
      }
      if (!o.fin) {
        wait_peer = o.peer;
        if (first_open < 0) first_open = i;
      }
    }
    if (remaining && !progressed) {
      // waiting: say so (for a peer stuck in a collective instead), and look for that peer
      if (first_open >= 0 && first_open != published) {
        publish_p2p(c, ops[first_open]);
        published = first_open;
      }
      if ((w.spins & 15) == 15 || w.spins > 256) {  // before the tick, as in sync_step
        for (int i = 0; i < nops; ++i) {
          const P2POp &o = ops[i];
          if (o.fin || !o.k) continue;
          if (uint64_t theirs = head_to_head(c, o)) {
            uint64_t mine = publish_p2p(c, o);  // left set: the peer sees it too
            return mismatch(c, o.peer, mine, theirs);
          }
          RankSlot *ps = &c->slots[o.peer];
          if (peer_in_collective(c, o)) {
            uint64_t mine = publish_p2p(c, o);  // left set: the peer's collective reports it too
            return mismatch(c, o.peer, mine, ps->desc[ps->seq.load(std::memory_order_acquire) & 1]);
          }
          if (!o.is_send && o.done == 0) {  // the sender gave up on a size it saw posted
            uint64_t theirs = ps->p2p_desc.load(std::memory_order_acquire);
            if (theirs && (theirs >> 60) == P2P_SEND && ps->p2p_peer == c->rank &&
                ps->p2p_k == o.k && (theirs & 0xFFFFFFFFFFULL) != (o.bytes & 0xFFFFFFFFFFULL))
              return mismatch(c, o.peer, p2p_desc(0, o.peer, o.bytes), theirs);
          }
        }
      }
      int e = w.tick(wait_peer);
      if (e) return e;
    } else if (progressed) {
      w.spins = 0; w.start = 0; w.yielding = false;
    }
  }
  if (published >= 0) me->p2p_desc.store(0, std::memory_order_release);
  return OK;
}

// ---------------------------------------------------------------- Python glue
int probe_peers(Comm *c, bool cma_wanted, bool zc_wanted);
const char *CAPSULE = "openhip.ccl.shm_comm";

Comm *get_comm(PyObject *cap) {
  return (Comm *)PyCapsule_GetPointer(cap, CAPSULE);
}

struct Buf {
  Py_buffer v{};
  bool held = false;
  ~Buf() { if (held) PyBuffer_Release(&v); }
  bool get(PyObject *o, bool writable) {
    if (o == Py_None) return true;
    if (PyObject_GetBuffer(o, &v, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) != 0) return false;
    held = true;
    return true;
  }
  char *ptr() { return held ? (char *)v.buf : nullptr; }
};

void comm_free(PyObject *cap) {
  Comm *c = get_comm(cap);
  if (!c) return;
  if (c->base) munmap(c->base, c->size);
  for (Comm::PeerMap &m : c->maps) munmap(m.local, m.size);
  free(c->tmp);
  delete c;
}

// open(name, rank, n, slot, nchunk, chunk, timeout) -> capsule | raises OSError/RuntimeError
PyObject *py_open(PyObject *, PyObject *args) {
  const char *name;
  int rank, n, nchunk;
  unsigned long long slot, chunkb;
  double timeout;
  if (!PyArg_ParseTuple(args, "siiKiKd", &name, &rank, &n, &slot, &nchunk, &chunkb, &timeout))
    return nullptr;
  if (n < 1 || n > 256 || rank < 0 || rank >= n) {
    PyErr_SetString(PyExc_ValueError, "bad rank or size");
    return nullptr;
  }
  Comm *c = new Comm();
  c->rank = rank; c->n = n; c->slot = slot; c->chunk = chunkb; c->nchunk = nchunk;
  c->timeout = timeout; c->local_abort = 0;
  // busy-wait long when every rank has a core, briefly when ranks share cores
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  c->spin_max = (ncpu > 0 && n > ncpu) ? 20e-6 : 200e-6;
  c->spin = c->spin_max;
  c->adaptive = true;
  c->yield = 0;  // measured: sched_yield hands the core to busy neighbours; sleeping does not
  if (const char *yu = getenv("OPENHIP_CCL_YIELD_US")) c->yield = atof(yu) * 1e-6;
  if (const char *nm = getenv("OPENHIP_CCL_RSAG_NT")) nt_mode = nm[0] == '0' ? 0 : nm[0] == '1' ? 1 : 2;
  c->zc_seen.assign((size_t)n, 0);
  c->sends.assign((size_t)n, 0);
  c->recvs.assign((size_t)n, 0);
  c->zc_base.assign((size_t)n, 0);
  c->zc_min = 1 << 20;
  if (const char *zm = getenv("OPENHIP_CCL_ZC_MIN")) c->zc_min = strtoull(zm, nullptr, 10);
  c->tmp_chunk = 128 << 10;
  if (const char *sp = getenv("OPENHIP_CCL_SPIN_US")) {
    c->spin = c->spin_max = atof(sp) * 1e-6;
    c->adaptive = false;
  }
  size_t hdr = ((sizeof(Header) + 63) / 64) * 64;
  size_t slots = (size_t)n * sizeof(RankSlot);
  size_t data = (size_t)n * 2 * slot;
  c->chan_stride = sizeof(Chan) + 64 * ((nchunk * sizeof(ChunkHdr) + 63) / 64) + nchunk * chunkb;
  c->chan_stride = (c->chan_stride + 4095) / 4096 * 4096;
  size_t total = hdr + slots + 4096;
  total = (total + 4095) / 4096 * 4096;
  size_t data_off = total;
  total += data + (size_t)n * n * c->chan_stride;
  int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
  if (fd < 0) { delete c; return PyErr_SetFromErrnoWithFilename(PyExc_OSError, name); }
  struct stat stt;
  if (fstat(fd, &stt) == 0 && (size_t)stt.st_size != total) {
    if (stt.st_size != 0 && (size_t)stt.st_size != total) {
      close(fd); delete c;
      PyErr_Format(PyExc_RuntimeError, "segment %s has size %lld, expected %zu: ranks disagree on the world size or settings",
                   name, (long long)stt.st_size, total);
      return nullptr;
    }
    if (ftruncate(fd, (off_t)total) != 0) {
      close(fd); delete c; return PyErr_SetFromErrnoWithFilename(PyExc_OSError, name);
    }
  }
  void *m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) { delete c; return PyErr_SetFromErrnoWithFilename(PyExc_OSError, name); }
  c->base = (char *)m; c->size = total;
  c->h = (Header *)m;
  c->slots = (RankSlot *)(c->base + hdr);
  c->data = c->base + data_off;
  c->p2p = c->data + data;
  PyObject *cap = PyCapsule_New(c, CAPSULE, comm_free);
  if (!cap) { munmap(m, total); delete c; return nullptr; }
  // register
  RankSlot *me = &c->slots[rank];
  int32_t expected = 0;
  if (!__atomic_compare_exchange_n(&me->attached, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    Py_DECREF(cap);
    PyErr_Format(PyExc_RuntimeError, "rank %d is already taken in this communicator", rank);
    return nullptr;
  }
  me->pid = getpid();
  me->cpu.store(-1, std::memory_order_relaxed);
  c->h->attached.fetch_add(1, std::memory_order_acq_rel);
  return cap;
}

// wait_attached(cap) -> (code, missing_rank): every rank attached (then rank 0 unlinks)
PyObject *py_wait_attached(PyObject *, PyObject *args) {
  PyObject *cap;
  const char *name;
  int cma_wanted = 1, zc_wanted = 1;
  if (!PyArg_ParseTuple(args, "Os|ii", &cap, &name, &cma_wanted, &zc_wanted)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  int code = OK, missing = -1;
  Py_BEGIN_ALLOW_THREADS
  double start = now();
  uint64_t spins = 0;
  while (c->h->attached.load(std::memory_order_acquire) < c->n) {
    if (++spins < 1000) { CPU_RELAX(); continue; }
    timespec ts{0, 200000};
    nanosleep(&ts, nullptr);
    if (c->local_abort.load()) { code = E_ABORT_LOCAL; break; }
    if (c->timeout > 0 && now() - start > c->timeout) {
      code = E_ATTACH;
      for (int p = 0; p < c->n; ++p)
        if (!__atomic_load_n(&c->slots[p].attached, __ATOMIC_ACQUIRE)) { missing = p; break; }
      break;
    }
  }
  if (code == OK && c->rank == 0) shm_unlink(name);
  if (code != OK) shm_unlink(name);
  // always (the same barriers on every rank, whatever each one's settings say)
  if (code == OK && c->n > 1) code = probe_peers(c, cma_wanted != 0, zc_wanted != 0);
  Py_END_ALLOW_THREADS
  return Py_BuildValue("ii", code, missing);
}

// Can every rank read every other rank's memory (process_vm_readv; ptrace rules allow it)?
// Can it map the other ranks' shared arrays (open /proc/<pid>/fd/<fd>; the same rules)?
// Each rank tries, publishes the answers, and all agree after a barrier.
int probe_peers(Comm *c, bool cma_wanted, bool zc_wanted) {
#ifdef PR_SET_PTRACER
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);  // Yama: let sibling ranks read us
#endif
  static const uint64_t magic = 0x6f6863636c636d61ULL;
  RankSlot *me = &c->slots[c->rank];
  me->addr[0] = (uint64_t)&magic;
  me->addr[1] = c->zc_min;  // every rank must use the same threshold: rank 0's (below)
  // a one-page shared array holding the magic, for the peers to map
  int probe_fd = zc_wanted ? (int)syscall(SYS_memfd_create, "openhip-ccl-probe", 1u /*CLOEXEC*/) : -1;
  me->zb[0] = RankSlot::Region{};
  if (probe_fd >= 0) {
    struct stat st;
    if (ftruncate(probe_fd, 4096) == 0 && pwrite(probe_fd, &magic, 8, 0) == 8 &&
        fstat(probe_fd, &st) == 0) {
      me->zb[0].base = 4096;  // a pretend address: only the mapping is probed
      me->zb[0].size = 4096;
      me->zb[0].ino = (uint64_t)st.st_ino;
      me->zb[0].fd = probe_fd;
    }
  }
  uint64_t s = ++c->step;
  int e = sync_step(c, s, 0, false);
  if (e) { if (probe_fd >= 0) close(probe_fd); return e; }
  int ok = cma_wanted, zc_ok = zc_wanted;
  c->zc_min = c->slots[0].addr[1];
  for (int p = 0; p < c->n; ++p) {
    if (p == c->rank) continue;
    if (ok) {
      uint64_t v = 0;
      iovec l{&v, 8}, r{(void *)c->slots[p].addr[0], 8};
      ok = process_vm_readv(c->slots[p].pid, &l, 1, &r, 1, 0) == 8 && v == magic;
    }
    if (zc_ok) {
      const RankSlot::Region &g = c->slots[p].zb[0];
      char *m = g.size ? map_shared(c, p, g) : nullptr;
      zc_ok = m && memcmp(m, &magic, 8) == 0;
    }
  }
  for (int p = 0; p < c->n; ++p) unmap_peer(c, p);
  me->cma_ok = ok;
  me->zc_ok = zc_ok;
  s = ++c->step;
  e = sync_step(c, s, 0, false);
  if (probe_fd >= 0) close(probe_fd);  // every peer has mapped it (or given up) by now
  if (e) return e;
  bool all = true, zc_all = true;
  for (int p = 0; p < c->n; ++p) {
    all = all && c->slots[p].cma_ok == 1;
    zc_all = zc_all && c->slots[p].zc_ok == 1;
  }
  c->cma = all && c->n > 1;
  c->zc = zc_all && c->n > 1;
  if (c->cma) {
    const char *env = getenv("OPENHIP_CCL_CMA_CHUNK");  // tuning knob (bytes)
    c->tmp_chunk = env && atol(env) >= 4096 ? (size_t)atol(env) / 4096 * 4096 : 128 << 10;
    c->tmp = (char *)aligned_alloc(4096, (size_t)c->n * c->tmp_chunk);
    if (!c->tmp) c->cma = false;
  }
  // the last barrier: nobody may reuse addr[0] before everyone has probed
  s = ++c->step;
  return sync_step(c, s, 0, false);
}

PyObject *err_tuple(Comm *c, int code) {
  return Py_BuildValue("iiiKK", code, c->err_peer, c->err_detector,
                       (unsigned long long)c->err_mine, (unsigned long long)c->err_theirs);
}

// coll(cap, kind, send, recv, count, dtype, op, root, desc) -> 0 or error tuple
// kind: 0 all_reduce(auto) 1 all_reduce direct 2 all_reduce rs/ag 3 reduce 4 broadcast
//       5 all_gather 6 gather 7 reduce_scatter 8 all_to_all 9 scatter 10 barrier
PyObject *py_coll(PyObject *, PyObject *args) {
  PyObject *cap, *so, *ro;
  int kind, dt, op, root;
  unsigned long long count, desc, small;
  if (!PyArg_ParseTuple(args, "OiOOKiiiKK", &cap, &kind, &so, &ro, &count, &dt, &op, &root,
                        &desc, &small))
    return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  Buf sb, rb;
  if (!rb.get(ro, true)) return nullptr;
  if (so == ro) { /* in place */ }
  else if (!sb.get(so, false)) return nullptr;
  char *send = so == ro ? rb.ptr() : sb.ptr();
  char *recv = rb.ptr();
  if (!send) send = recv;
  if (!recv) recv = send;
  int e = OK;
  size_t es = dsize(dt);
  Py_BEGIN_ALLOW_THREADS
  int base = kind & 0xff;
  ZcNeed need = zc_need(base, count, es, c->n);
  bool zc_done = false;
  c->pre_published = false;
  if (c->zc && need.send && std::max(need.send_bytes, need.recv_bytes) >= c->zc_min &&
      !(base == 8 && send == recv) && kind != 10) {
    bool all = false;
    e = zc_begin(c, base, send, recv, count, es, root, desc, &all);
    if (e == OK && all) {
      c->zc_active = c->pre_published = true;
      switch (base) {
        case 0: case 1: case 2: case 11:
          e = all_reduce_zc(c, send, recv, count, dt, op, -1, desc); break;
        case 3: e = all_reduce_zc(c, send, recv, count, dt, op, root, desc); break;
        case 4: e = broadcast_cma(c, recv, count * es, root, desc); break;
        case 5: e = gather_cma(c, send, recv, count * es, -1, desc); break;
        case 6: e = gather_cma(c, send, recv, count * es, root, desc); break;
        case 7: e = reduce_scatter_cma(c, send, recv, count, dt, op, desc); break;
        case 8: e = exchange_cma(c, send, recv, count * es, -1, desc); break;
        case 9: e = exchange_cma(c, send, recv, count * es, root, desc); break;
      }
      c->zc_active = false;
    }
    zc_done = e != OK || all;
    c->pre_published = e == OK && !all && c->cma;  // the CMA algorithms skip their first barrier
  }
  if (!zc_done) switch (kind) {
    case 0:
      if (count * es <= small && count * es <= c->slot) e = all_reduce_direct(c, send, recv, count, dt, op, desc);
      else e = all_reduce_rsag(c, send, recv, count, dt, op, desc);
      break;
    case 1:
      if (count * es <= c->slot) { e = all_reduce_direct(c, send, recv, count, dt, op, desc); break; }
      e = all_reduce_rsag(c, send, recv, count, dt, op, desc); break;
    case 2: e = all_reduce_rsag(c, send, recv, count, dt, op, desc); break;
    case 3: e = reduce_root(c, send, recv, count, dt, op, root, desc); break;
    case 4: e = broadcast(c, recv, count * es, root, desc); break;
    case 5: e = gather_any(c, send, recv, count * es, -1, desc); break;
    case 6: e = gather_any(c, send, recv, count * es, root, desc); break;
    case 7: e = reduce_scatter(c, send, recv, count, dt, op, desc); break;
    case 8: e = exchange(c, send, recv, count * es, -1, desc); break;
    case 9: e = exchange(c, send, recv, count * es, root, desc); break;
    // the same collectives reading the peers' memory directly (when CMA is allowed)
    case 0x100 | 3:
      e = c->cma ? all_reduce_cma(c, send, recv, count, dt, op, desc, root)
                 : reduce_root(c, send, recv, count, dt, op, root, desc);
      break;
    case 0x100 | 4:
      e = c->cma ? broadcast_cma(c, recv, count * es, root, desc)
                 : broadcast(c, recv, count * es, root, desc);
      break;
    case 0x100 | 5:
      e = c->cma ? gather_cma(c, send, recv, count * es, -1, desc)
                 : gather_any(c, send, recv, count * es, -1, desc);
      break;
    case 0x100 | 6:
      e = c->cma ? gather_cma(c, send, recv, count * es, root, desc)
                 : gather_any(c, send, recv, count * es, root, desc);
      break;
    case 0x100 | 7:
      e = c->cma ? reduce_scatter_cma(c, send, recv, count, dt, op, desc)
                 : reduce_scatter(c, send, recv, count, dt, op, desc);
      break;
    case 0x100 | 8:
      if (!c->cma) { e = exchange(c, send, recv, count * es, -1, desc); break; }
      if (send == recv) {  // in place: peers read our blocks while we overwrite them
        size_t total = count * es * c->n;
        char *copy_of = (char *)malloc(total ? total : 1);
        if (!copy_of) { e = fail(c, E_OS, c->rank, true); break; }
        memcpy(copy_of, send, total);
        e = exchange_cma(c, copy_of, recv, count * es, -1, desc);
        free(copy_of);
      } else {
        e = exchange_cma(c, send, recv, count * es, -1, desc);
      }
      break;
    case 0x100 | 9:
      e = c->cma ? exchange_cma(c, send, recv, count * es, root, desc)
                 : exchange(c, send, recv, count * es, root, desc);
      break;
    case 10: { uint64_t s = ++c->step; e = sync_step(c, s, desc, true); break; }
    case 11:
      if (c->cma) e = all_reduce_cma(c, send, recv, count, dt, op, desc);
      else e = all_reduce_rsag(c, send, recv, count, dt, op, desc);
      break;
    default: e = E_ARG;
  }
  c->pre_published = false;
  Py_END_ALLOW_THREADS
  if (e == OK) return PyLong_FromLong(0);
  return err_tuple(c, e);
}

// p2p(cap, [(is_send, peer, buffer), ...]) -> 0 or error tuple
PyObject *py_p2p(PyObject *, PyObject *args) {
  PyObject *cap, *list;
  if (!PyArg_ParseTuple(args, "OO!", &cap, &PyList_Type, &list)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  Py_ssize_t n = PyList_GET_SIZE(list);
  P2POp *ops = new P2POp[n ? n : 1]();
  Buf *bufs = new Buf[n ? n : 1];
  for (Py_ssize_t i = 0; i < n; ++i) {
    int is_send, peer;
    PyObject *b;
    if (!PyArg_ParseTuple(PyList_GET_ITEM(list, i), "iiO", &is_send, &peer, &b) ||
        !bufs[i].get(b, !is_send)) {
      delete[] ops; delete[] bufs; return nullptr;
    }
    ops[i].is_send = is_send; ops[i].peer = peer; ops[i].ptr = bufs[i].ptr(); ops[i].shared = -1;
    ops[i].bytes = bufs[i].v.len;
  }
  int e;
  Py_BEGIN_ALLOW_THREADS
  e = p2p_run(c, ops, (int)n);
  Py_END_ALLOW_THREADS
  delete[] ops; delete[] bufs;
  if (e == OK) return PyLong_FromLong(0);
  return err_tuple(c, e);
}

PyObject *py_abort(PyObject *, PyObject *args) {
  PyObject *cap;
  if (!PyArg_ParseTuple(args, "O", &cap)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  c->local_abort.store(1);
  uint64_t word = ((uint64_t)E_ABORT_LOCAL << 40) | ((uint64_t)c->rank << 20) | (uint64_t)c->rank;
  uint64_t zero = 0;
  c->h->abort_word.compare_exchange_strong(zero, word);
  for (int p = 0; p < c->n; ++p) futex_wake(&c->slots[p].seq);  // sleepers look again
  Py_RETURN_NONE;
}

// set_timeout(cap, seconds)
PyObject *py_set_timeout(PyObject *, PyObject *args) {
  PyObject *cap;
  double t;
  if (!PyArg_ParseTuple(args, "Od", &cap, &t)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  c->timeout = t;
  Py_RETURN_NONE;
}

PyObject *py_uses_cma(PyObject *, PyObject *args) {
  PyObject *cap;
  if (!PyArg_ParseTuple(args, "O", &cap)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  return PyBool_FromLong(c->cma);
}

PyObject *py_set_spin(PyObject *, PyObject *args) {
  PyObject *cap;
  double t;
  if (!PyArg_ParseTuple(args, "Od", &cap, &t)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  c->spin = c->spin_max = t;
  c->adaptive = t < 0;
  if (t < 0) c->spin = c->spin_max = 200e-6;
  Py_RETURN_NONE;
}

PyObject *py_spin(PyObject *, PyObject *args) {
  PyObject *cap;
  if (!PyArg_ParseTuple(args, "O", &cap)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  return PyFloat_FromDouble(c->spin);
}

// register(address, size, fd): a shared array allocated by ccl.empty (fd: its memfd)
PyObject *py_register(PyObject *, PyObject *args) {
  unsigned long long addr, size;
  int fd;
  if (!PyArg_ParseTuple(args, "KKi", &addr, &size, &fd)) return nullptr;
  struct stat st;
  if (fstat(fd, &st) != 0) return PyErr_SetFromErrno(PyExc_OSError);
  if ((unsigned long long)st.st_size < size) {
    PyErr_SetString(PyExc_ValueError, "the file is smaller than the array");
    return nullptr;
  }
  std::lock_guard<std::mutex> g(registry_mu);
  registry.push_back({addr, size, (uint64_t)st.st_ino, fd});
  Py_RETURN_NONE;
}

// unregister(address): the array at address is being freed
PyObject *py_unregister(PyObject *, PyObject *args) {
  unsigned long long addr;
  if (!PyArg_ParseTuple(args, "K", &addr)) return nullptr;
  bool found = false;
  {
    std::lock_guard<std::mutex> g(registry_mu);
    for (size_t i = 0; i < registry.size(); ++i)
      if (registry[i].base == addr) {
        registry.erase(registry.begin() + (long)i);
        found = true;
        break;
      }
  }
  if (found) registry_frees.fetch_add(1, std::memory_order_relaxed);
  return PyBool_FromLong(found);
}

PyObject *py_registered(PyObject *, PyObject *args) {
  unsigned long long addr, len;
  if (!PyArg_ParseTuple(args, "KK", &addr, &len)) return nullptr;
  return PyBool_FromLong(find_shared((const char *)addr, len).size != 0);
}

PyObject *py_uses_zero_copy(PyObject *, PyObject *args) {
  PyObject *cap;
  if (!PyArg_ParseTuple(args, "O", &cap)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  return PyBool_FromLong(c->zc);
}

// zero_copy_stats(cap) -> (collectives run zero-copy, peers' shared arrays mapped here now)
PyObject *py_zero_copy_stats(PyObject *, PyObject *args) {
  PyObject *cap;
  if (!PyArg_ParseTuple(args, "O", &cap)) return nullptr;
  Comm *c = get_comm(cap);
  if (!c) return nullptr;
  return Py_BuildValue("KK", (unsigned long long)c->zc_calls, (unsigned long long)c->maps.size());
}

PyMethodDef methods[] = {
    {"register", py_register, METH_VARARGS, "register a shared array (address, size, memfd)"},
    {"unregister", py_unregister, METH_VARARGS, "forget a shared array (it is being freed)"},
    {"registered", py_registered, METH_VARARGS, "is [address, address+len) in a shared array"},
    {"uses_zero_copy", py_uses_zero_copy, METH_VARARGS, "True when shared arrays are mapped by peers"},
    {"zero_copy_stats", py_zero_copy_stats, METH_VARARGS, "(zero-copy collectives, mapped arrays)"},
    {"spin", py_spin, METH_VARARGS, "the current busy-wait budget in seconds"},
    {"set_spin", py_set_spin, METH_VARARGS, "seconds to busy-wait before yielding"},
    {"uses_cma", py_uses_cma, METH_VARARGS, "True when large all-reduces read peers directly"},
    {"open", py_open, METH_VARARGS, "attach to (or create) a communicator segment"},
    {"wait_attached", py_wait_attached, METH_VARARGS, "wait for every rank; unlink the name"},
    {"coll", py_coll, METH_VARARGS, "run one collective"},
    {"p2p", py_p2p, METH_VARARGS, "run a group of sends and receives together"},
    {"abort", py_abort, METH_VARARGS, "abort (thread-safe)"},
    {"set_timeout", py_set_timeout, METH_VARARGS, "set the peer timeout in seconds"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ohccl_shm", "openhip.ccl shm engine", -1,
                      methods, nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__ohccl_shm(void) { return PyModule_Create(&module); }
