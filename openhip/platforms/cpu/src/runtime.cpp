// openhip CPU platform: the host runtime library (built on first use into the compile cache and
// loaded with ctypes by openhip/platforms/cpu/runtime_lib.py).
//
//   * a persistent thread pool that runs the blocks of a launch in parallel (chunks of blocks
//     handed out with an atomic counter; the thread that submits the launch works too);
//   * streams: one thread per stream drains its in-order command queue (kernels, copies,
//     memsets, event records and waits), so every stream is asynchronous to the host;
//   * events with timestamps and cross-stream waits;
//   * memory: 256-byte aligned host allocations with an out-of-memory check; large ones are
//     2 MiB aligned and backed by transparent huge pages where the kernel offers them;
//   * errors raised by a kernel are kept on its stream and reported by the next
//     synchronize/query of that stream (or of the device), then cleared.
//
// Every exported function returns a hipError_t value (0 = hipSuccess) unless noted.
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "openhip_cpu/abi.h"
#include "redzone.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kInvalidHandle = 400,
  kNotReady = 600,
  kLaunchFailure = 719,
};

// ---- configuration (set once by ohcpu_init) -----------------------------------------------------
int g_threads = 1;                        // total threads that run blocks
uint64_t g_stack_size = 64 * 1024;        // bytes per fiber stack
uint64_t g_dyn_shared_cap = 64 * 1024;    // dynamic shared memory per worker

// How long an idle stream thread polls for new work, and an idle pool thread for the next
// launch, before it sleeps.  A sleeping thread joins late: a futex wake-up, and under a
// hypervisor the wake-up of an idle (halted) vCPU, measured here at 1-5 ms now and then: a
// helper that had gone to sleep between two back-to-back saxpy launches often started its first
// chunk 1-5 ms after the launch began (a 4-5 ms kernel).  The pause between two launches of a
// host loop (the synchronising thread wakes, returns to Python, packs the next launch) is tens
// to hundreds of microseconds, so both poll for a millisecond.  They poll with sched_yield: a
// thread that wants the core (the one returning from synchronize) gets it at once.
constexpr double kSpinMs = 1.0;
constexpr double kPoolSpinMs = 1.0;

// One step of an idle thread's polling: lets any runnable thread of this core run first.
inline void poll_pause() { sched_yield(); }

double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// ---- per-thread worker context ----------------------------------------------------------------
int ensure_fibers(openhip_worker* w, uint32_t fibers, uint64_t scratch_bytes);
long page_size();

struct WorkerContext {
  openhip_worker w;
  WorkerContext() {
    memset(&w, 0, sizeof w);
    w.dyn_shared_cap = g_dyn_shared_cap;
    // Stacks are laid out at a stride of the stack size plus 9 cache lines: with a power-of-two
    // stride, the hot top of every fiber's stack maps to the same cache set, and 256 fibers
    // thrash L1 and L2 on every switch (measured: 4x slower barriers).
    w.stack_size = g_stack_size + 9 * 64;
    w.ensure_fibers = &ensure_fibers;
    void* p = mmap(nullptr, g_dyn_shared_cap, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    w.dyn_shared = p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
    if (w.dyn_shared == nullptr) w.dyn_shared_cap = 0;
  }
  ~WorkerContext();

};

// Owns the thread's WorkerContext: destroyed when the thread exits (a destroyed stream's
// thread gives its stacks and its fiber-region slot back).
struct WorkerHolder {
  WorkerContext* context = nullptr;
  ~WorkerHolder() { delete context; }
};
thread_local WorkerHolder t_worker;

openhip_worker* this_worker() {
  if (t_worker.context == nullptr) t_worker.context = new WorkerContext();
  return &t_worker.context->w;
}

// The fiber region: one PROT_NONE reservation for every worker's stacks (see abi.h), slots of
// 2^g_slot_shift bytes handed out once per worker thread, made accessible as they grow.
std::mutex g_region_mu;
unsigned char* g_region = nullptr;
uint64_t g_region_size = 0;
uint32_t g_slot_shift = 0;
uint32_t g_slots_used = 0;
std::vector<uint32_t> g_free_slots;  // slots of exited worker threads
constexpr uint32_t kSlots = 1024;

long page_size() {
  static const long pg = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
  return pg;
}

bool reserve_region() {  // g_region_mu held
  if (g_region != nullptr) return true;
  const uint64_t need = uint64_t(1024) * (g_stack_size + 9 * 64) + 2 * uint64_t(page_size());
  uint32_t shift = 20;
  while ((uint64_t(1) << shift) < need) ++shift;
  const uint64_t slot = uint64_t(1) << shift;
  const uint64_t size = slot * kSlots;
  void* p = mmap(nullptr, size + slot, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) return false;
  const uintptr_t raw = reinterpret_cast<uintptr_t>(p);
  const uintptr_t base = (raw + slot - 1) & ~(slot - 1);
  if (base > raw) munmap(p, base - raw);
  const uintptr_t end = raw + size + slot;
  if (end > base + size) munmap(reinterpret_cast<void*>(base + size), end - (base + size));
  g_region = reinterpret_cast<unsigned char*>(base);
  g_region_size = size;
  g_slot_shift = shift;
  return true;
}

// Makes room for `fibers` stacks (in this worker's slot) and the engine's scratch memory.
int ensure_fibers(openhip_worker* w, uint32_t fibers, uint64_t scratch_bytes) {
  const uint64_t pg = uint64_t(page_size());
  if (w->stacks == nullptr) {
    std::lock_guard<std::mutex> lock(g_region_mu);
    if (!reserve_region()) return kOutOfMemory;
    uint32_t index;
    if (!g_free_slots.empty()) {
      index = g_free_slots.back();
      g_free_slots.pop_back();
    } else if (g_slots_used < kSlots) {
      index = g_slots_used++;
    } else {
      return kOutOfMemory;
    }
    unsigned char* slot = g_region + (uint64_t(index) << g_slot_shift);
    if (mprotect(slot, pg, PROT_READ | PROT_WRITE) != 0) return kOutOfMemory;  // header page
    w->fiber_region = g_region;
    w->fiber_region_size = g_region_size;
    w->fiber_slot_shift = g_slot_shift;
    w->stacks = slot + 2 * pg;  // after the header and a guard page
    w->fiber_capacity = 0;
  }
  if (fibers > w->fiber_capacity) {
    uint32_t cap = w->fiber_capacity ? w->fiber_capacity : 64;
    while (cap < fibers) cap *= 2;
    const uint64_t limit = (uint64_t(1) << w->fiber_slot_shift) - 2 * pg;
    if (uint64_t(cap) * w->stack_size > limit) cap = fibers;
    const uint64_t bytes = (uint64_t(cap) * w->stack_size + pg - 1) & ~(pg - 1);
    if (bytes > limit || mprotect(w->stacks, bytes, PROT_READ | PROT_WRITE) != 0) {
      return kOutOfMemory;
    }
    w->fiber_capacity = cap;
  }
  if (scratch_bytes > w->scratch_size) {
    void* p = nullptr;
    if (posix_memalign(&p, 64, scratch_bytes) != 0) return kOutOfMemory;
    free(w->scratch);
    w->scratch = static_cast<unsigned char*>(p);
    w->scratch_size = scratch_bytes;
  }
  return kSuccess;
}

WorkerContext::~WorkerContext() {
  if (w.dyn_shared) munmap(w.dyn_shared, g_dyn_shared_cap);
  if (w.stacks) {  // give the memory back; the slot goes to the next new worker thread
    const uint64_t pg = uint64_t(page_size());
    unsigned char* slot = w.stacks - 2 * pg;
    const uint64_t bytes = 2 * pg + uint64_t(w.fiber_capacity) * w.stack_size;
    mmap(slot, (bytes + pg - 1) & ~(pg - 1), PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    std::lock_guard<std::mutex> lock(g_region_mu);
    g_free_slots.push_back(
        static_cast<uint32_t>((slot - g_region) >> g_slot_shift));
  }
  free(w.scratch);
}

// ---- the thread pool ---------------------------------------------------------------------------
struct Job {
  openhip_entry_fn entry;
  const openhip_launch* launch;
  uint64_t nblocks, chunk;
  std::atomic<uint64_t> next{0};
  std::atomic<int> status{0};
  std::atomic<int> active{0};  // threads working on it (changed under Pool::mu)
  char error[1024];
};

void run_chunks(Job* job) {
  openhip_worker* w = this_worker();
  for (;;) {
    if (job->status.load(std::memory_order_relaxed) != 0) return;  // a block failed: stop
    const uint64_t b = job->next.fetch_add(job->chunk, std::memory_order_relaxed);
    if (b >= job->nblocks) return;
    const uint64_t e = b + job->chunk < job->nblocks ? b + job->chunk : job->nblocks;
    const int rc = job->entry(job->launch, w, b, e);
    if (rc != 0) {
      int expected = 0;
      if (job->status.compare_exchange_strong(expected, rc)) {
        memcpy(job->error, w->error, sizeof job->error);
        job->error[sizeof job->error - 1] = 0;
      }
      return;
    }
  }
}

class Pool {
 public:
  explicit Pool(int helpers) {
    for (int i = 0; i < helpers; ++i) threads_.emplace_back([this] { loop(); });
  }

  // Runs the job on the pool and on the calling thread; returns when every block is done.
  void run(Job* job) {
    if (threads_.empty() || job->nblocks <= job->chunk) {
      run_chunks(job);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(job);
      njobs_.store(jobs_.size(), std::memory_order_release);
      job->active = 1;
    }
    cv_.notify_all();
    run_chunks(job);
    std::unique_lock<std::mutex> lock(mu_);
    remove(job);
    if (--job->active != 0) {
      // The others are finishing their last chunks (one each at most): poll before sleeping.
      // Sleeping here put a futex wake-up, on a core that may have gone idle meanwhile, into
      // the end of every launch.
      lock.unlock();
      const double until = now_ms() + kPoolSpinMs;
      while (job->active.load(std::memory_order_acquire) != 0 && now_ms() < until) poll_pause();
      lock.lock();
    }
    done_cv_.wait(lock, [job] { return job->active == 0; });
  }

 private:
  void remove(Job* job) {
    for (size_t i = 0; i < jobs_.size(); ++i) {
      if (jobs_[i] == job) {
        jobs_.erase(jobs_.begin() + static_cast<long>(i));
        njobs_.store(jobs_.size(), std::memory_order_release);
        return;
      }
    }
  }

  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (jobs_.empty()) {
        // Poll a little before sleeping: launches often come back to back, and a sleeping
        // helper joins a launch late (a futex wake-up, and a wait for a core when loaded).
        lock.unlock();
        const double until = now_ms() + kPoolSpinMs;
        while (njobs_.load(std::memory_order_acquire) == 0 && now_ms() < until) poll_pause();
        lock.lock();
      }
      cv_.wait(lock, [this] { return !jobs_.empty(); });
      Job* job = jobs_.front();
      ++job->active;
      lock.unlock();
      run_chunks(job);
      lock.lock();
      remove(job);  // exhausted (or failed): nobody else should pick it up
      if (--job->active == 0) done_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<Job*> jobs_;
  std::atomic<size_t> njobs_{0};
  std::vector<std::thread> threads_;
};

Pool* g_pool = nullptr;

// ---- events ------------------------------------------------------------------------------------
std::mutex g_event_mu;
std::condition_variable g_event_cv;

struct Event {
  uint64_t recorded = 0;   // records enqueued (guarded by g_event_mu)
  uint64_t completed = 0;  // records executed
  double time_ms = 0;      // when the last executed record ran
};

// ---- streams -----------------------------------------------------------------------------------
enum class Kind { Kernel, Copy, Memset, Record, Wait };

struct Command {
  Kind kind;
  openhip_entry_fn entry = nullptr;
  openhip_launch launch{};
  void* dst = nullptr;
  const void* src = nullptr;
  uint64_t nbytes = 0;
  int value = 0;
  Event* event = nullptr;
  uint64_t generation = 0;
  std::vector<unsigned char> arg_bytes;
  std::vector<const void*> arg_ptrs;
};

uint64_t chunk_for(uint64_t nblocks) {
  // 32 chunks per thread: a thread that joins late or loses its core for a while (a shared
  // machine) leaves at most one small chunk for the others to wait for at the end (with 8 per
  // thread, saxpy over 2^24 floats ended with one thread idle for up to 0.3 ms of 4-5).  A grab
  // is one atomic add on a counter line that 64 grabs per launch keep far from contended.
  uint64_t chunk = nblocks / (uint64_t(g_threads) * 32);
  return chunk ? chunk : 1;
}

struct Stream;
std::mutex g_streams_mu;
std::vector<Stream*> g_streams;

struct Stream {
  std::mutex mu;
  std::condition_variable cv, idle_cv;
  std::deque<Command*> queue;
  uint64_t enqueued = 0, finished = 0;
  bool stop = false;
  int status = 0;
  std::string error;
  std::thread thread;

  // Started in the body, once every member (the atomics below included) is initialised.
  Stream() { thread = std::thread([this] { loop(); }); }

  // The stream thread polls a while (kSpinMs) after its queue empties before it sleeps, so a
  // host thread that launches in a loop does not pay a futex wake-up per launch.
  std::atomic<uint64_t> pushed{0};
  std::atomic<bool> sleeping{false};

  void push(Command* c) {
    {
      std::lock_guard<std::mutex> lock(mu);
      queue.push_back(c);
      ++enqueued;
    }
    pushed.fetch_add(1, std::memory_order_release);
    if (sleeping.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(mu);  // pairs with the sleeper's check under mu
      cv.notify_one();
    }
  }

  void fail(int rc, const char* message) {
    std::lock_guard<std::mutex> lock(mu);
    if (status == 0) {
      status = rc;
      error = message;
    }
  }

  void execute(Command* c) {
    switch (c->kind) {
      case Kind::Kernel: {
        Job job;
        job.entry = c->entry;
        job.launch = &c->launch;
        job.nblocks = uint64_t(c->launch.grid[0]) * c->launch.grid[1] * c->launch.grid[2];
        job.chunk = chunk_for(job.nblocks);
        job.error[0] = 0;
        g_pool->run(&job);
        if (int rc = job.status.load()) fail(rc, job.error);
        {  // red zones of the buffers it received (redzone.h); repaired after the report
          char report[1024];
          if (int rc = openhip_redzone::check_launch(
                  reinterpret_cast<const void*>(c->entry), c->launch.args, c->launch.nargs,
                  c->arg_bytes.data(), c->arg_bytes.size(), report, sizeof report)) {
            fail(rc, report);
          }
        }
        break;
      }
      case Kind::Copy:
        memmove(c->dst, c->src, c->nbytes);
        break;
      case Kind::Memset:
        memset(c->dst, c->value, c->nbytes);
        break;
      case Kind::Record: {
        std::lock_guard<std::mutex> lock(g_event_mu);
        c->event->time_ms = now_ms();
        if (c->generation > c->event->completed) c->event->completed = c->generation;
        g_event_cv.notify_all();
        break;
      }
      case Kind::Wait: {
        std::unique_lock<std::mutex> lock(g_event_mu);
        Event* e = c->event;
        const uint64_t g = c->generation;
        g_event_cv.wait(lock, [e, g] { return e->completed >= g; });
        break;
      }
    }
  }

  void loop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      if (queue.empty() && !stop) {
        // Spin (lock released) for new work before sleeping.
        const uint64_t seen = pushed.load(std::memory_order_acquire);
        lock.unlock();
        const double until = now_ms() + kSpinMs;
        while (pushed.load(std::memory_order_acquire) == seen && now_ms() < until) poll_pause();
        lock.lock();
        if (queue.empty() && !stop) {
          sleeping.store(true, std::memory_order_seq_cst);
          cv.wait(lock, [this] { return stop || !queue.empty(); });
          sleeping.store(false, std::memory_order_relaxed);
        }
      }
      if (queue.empty() && stop) return;
      Command* c = queue.front();
      queue.pop_front();
      lock.unlock();
      execute(c);
      delete c;
      lock.lock();
      ++finished;
      if (finished == enqueued) idle_cv.notify_all();
    }
  }

  // Waits for everything enqueued so far; returns (and clears) the first kernel error.
  int synchronize(char* msg, int cap) {
    std::unique_lock<std::mutex> lock(mu);
    const uint64_t target = enqueued;
    idle_cv.wait(lock, [this, target] { return finished >= target; });
    return take_error(msg, cap);
  }

  // Waits for everything enqueued so far, leaving any kernel error for the next synchronize.
  void wait_idle() {
    std::unique_lock<std::mutex> lock(mu);
    const uint64_t target = enqueued;
    idle_cv.wait(lock, [this, target] { return finished >= target; });
  }

  int query(char* msg, int cap) {
    std::lock_guard<std::mutex> lock(mu);
    if (status != 0) return take_error(msg, cap);
    return finished == enqueued ? kSuccess : kNotReady;
  }

  int take_error(char* msg, int cap) {  // mu held
    const int rc = status;
    if (rc != 0 && msg != nullptr && cap > 0) snprintf(msg, static_cast<size_t>(cap), "%s", error.c_str());
    status = 0;
    error.clear();
    return rc;
  }

  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv.notify_all();
    thread.join();
  }
};

Stream* g_default = nullptr;

bool valid_stream(Stream* s) {
  std::lock_guard<std::mutex> lock(g_streams_mu);
  for (Stream* t : g_streams) {
    if (t == s) return true;
  }
  return false;
}

Stream* resolve(void* s) { return s ? static_cast<Stream*>(s) : g_default; }

uint64_t mem_available() {
  FILE* f = fopen("/proc/meminfo", "r");
  if (!f) return UINT64_MAX;
  char line[256];
  uint64_t avail = UINT64_MAX, swap = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long kb;
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) avail = kb * 1024ull;
    if (sscanf(line, "SwapFree: %llu kB", &kb) == 1) swap = kb * 1024ull;
  }
  fclose(f);
  return avail == UINT64_MAX ? avail : avail + swap;
}

}  // namespace

// ---- the C interface -----------------------------------------------------------------------------
EXPORT int ohcpu_abi_version() { return OPENHIP_CPU_ABI_VERSION; }

// threads: total threads running blocks (the submitting stream thread included).
EXPORT int ohcpu_init(int threads, uint64_t stack_size, uint64_t dyn_shared_cap) {
  if (g_pool != nullptr) return kSuccess;
  g_threads = threads > 0 ? threads : 1;
  if (stack_size >= 16 * 1024) g_stack_size = (stack_size + 4095) & ~uint64_t(4095);
  if (dyn_shared_cap > 0) g_dyn_shared_cap = (dyn_shared_cap + 4095) & ~uint64_t(4095);
  g_pool = new Pool(g_threads - 1);
  g_default = new Stream();
  std::lock_guard<std::mutex> lock(g_streams_mu);
  g_streams.push_back(g_default);
  return kSuccess;
}

EXPORT void* ohcpu_default_stream() { return g_default; }

EXPORT void* ohcpu_stream_create() {
  Stream* s = new Stream();
  std::lock_guard<std::mutex> lock(g_streams_mu);
  g_streams.push_back(s);
  return s;
}

EXPORT int ohcpu_stream_destroy(void* handle) {
  Stream* s = static_cast<Stream*>(handle);
  if (s == nullptr || s == g_default || !valid_stream(s)) return kInvalidHandle;
  {
    std::lock_guard<std::mutex> lock(g_streams_mu);
    for (size_t i = 0; i < g_streams.size(); ++i) {
      if (g_streams[i] == s) {
        g_streams.erase(g_streams.begin() + static_cast<long>(i));
        break;
      }
    }
  }
  s->synchronize(nullptr, 0);
  s->shutdown();
  delete s;
  return kSuccess;
}

EXPORT int ohcpu_stream_synchronize(void* handle, char* msg, int cap) {
  return resolve(handle)->synchronize(msg, cap);
}

EXPORT int ohcpu_stream_query(void* handle, char* msg, int cap) {
  return resolve(handle)->query(msg, cap);
}

EXPORT int ohcpu_device_synchronize(char* msg, int cap) {
  std::vector<Stream*> all;
  {
    std::lock_guard<std::mutex> lock(g_streams_mu);
    all = g_streams;
  }
  int first = kSuccess;
  for (Stream* s : all) {
    char buf[1024];
    const int rc = s->synchronize(buf, sizeof buf);
    if (rc != kSuccess && first == kSuccess) {
      first = rc;
      if (msg != nullptr && cap > 0) snprintf(msg, static_cast<size_t>(cap), "%s", buf);
    }
  }
  return first;
}

// Waits for all work of every stream without consuming their errors (module unload).
EXPORT void ohcpu_device_wait_idle() {
  std::vector<Stream*> all;
  {
    std::lock_guard<std::mutex> lock(g_streams_mu);
    all = g_streams;
  }
  for (Stream* s : all) s->wait_idle();
}

// In a child process after fork(): the worker and stream threads did not survive, and their
// mutexes may be in any state.  Start afresh (the parent's streams are not valid here; their
// memory is leaked on purpose).
EXPORT void ohcpu_after_fork_child() {
  openhip_redzone::after_fork_child();
  if (g_pool == nullptr) return;
  new (&g_streams_mu) std::mutex();
  new (&g_event_mu) std::mutex();
  new (&g_event_cv) std::condition_variable();
  new (&g_streams) std::vector<Stream*>();
  t_worker.context = nullptr;  // the parent's (leaked: its memory may be in any state)
  new (&g_region_mu) std::mutex();
  g_pool = new Pool(g_threads - 1);
  g_default = new Stream();
  g_streams.push_back(g_default);
}

EXPORT void* ohcpu_event_create() { return new Event(); }

EXPORT void ohcpu_event_destroy(void* e) { delete static_cast<Event*>(e); }

EXPORT int ohcpu_event_record(void* event, void* stream) {
  Event* e = static_cast<Event*>(event);
  Command* c = new Command();
  c->kind = Kind::Record;
  c->event = e;
  {
    std::lock_guard<std::mutex> lock(g_event_mu);
    c->generation = ++e->recorded;
  }
  resolve(stream)->push(c);
  return kSuccess;
}

EXPORT int ohcpu_event_query(void* event) {
  Event* e = static_cast<Event*>(event);
  std::lock_guard<std::mutex> lock(g_event_mu);
  return e->completed >= e->recorded ? kSuccess : kNotReady;
}

EXPORT int ohcpu_event_synchronize(void* event) {
  Event* e = static_cast<Event*>(event);
  std::unique_lock<std::mutex> lock(g_event_mu);
  const uint64_t target = e->recorded;
  g_event_cv.wait(lock, [e, target] { return e->completed >= target; });
  return kSuccess;
}

EXPORT int ohcpu_event_elapsed(void* start, void* end, double* ms) {
  Event* a = static_cast<Event*>(start);
  Event* b = static_cast<Event*>(end);
  std::lock_guard<std::mutex> lock(g_event_mu);
  if (a->recorded == 0 || b->recorded == 0) return kInvalidHandle;
  if (a->completed < a->recorded || b->completed < b->recorded) return kNotReady;
  *ms = b->time_ms - a->time_ms;
  return kSuccess;
}

EXPORT int ohcpu_stream_wait_event(void* stream, void* event) {
  Event* e = static_cast<Event*>(event);
  Command* c = new Command();
  c->kind = Kind::Wait;
  c->event = e;
  {
    std::lock_guard<std::mutex> lock(g_event_mu);
    c->generation = e->recorded;  // the record enqueued last, as cudaStreamWaitEvent
  }
  if (c->generation == 0) {  // never recorded: nothing to wait for
    delete c;
    return kSuccess;
  }
  resolve(stream)->push(c);
  return kSuccess;
}

// ---- memory --------------------------------------------------------------------------------------
// Allocations carry red zones (redzone.h): small ones in a posix_memalign block (256-byte
// aligned), those of 4 MiB and more mapped 2 MiB aligned, advised for transparent huge pages,
// between PROT_NONE guard pages.
EXPORT void* ohcpu_malloc(uint64_t nbytes) {
  if (nbytes == 0) nbytes = 1;
  static const uint64_t physical = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  if (nbytes > physical) return nullptr;
  if (nbytes >= (uint64_t(64) << 20) && nbytes > mem_available()) return nullptr;
  return openhip_redzone::allocate(nbytes);
}

// Frees p, checking its red zones: 0; 700 (hipErrorIllegalAddress: freed, but a zone was
// damaged, msg says how); 1 (not a live allocation, e.g. a second free: nothing is freed).
EXPORT int ohcpu_free_checked(void* p, char* msg, int cap) {
  return openhip_redzone::free_checked(p, msg, cap);
}

EXPORT void ohcpu_free(void* p) { (void)openhip_redzone::free_checked(p, nullptr, 0); }

// Checks (and repairs) the red zones of the allocation holding p: 0, 700 or 1 (not device memory).
EXPORT int ohcpu_redzone_check(void* p, char* msg, int cap) {
  return openhip_redzone::check_one(p, msg, cap);
}

// The kernel name a red-zone report gives for launches of `entry`.
EXPORT void ohcpu_register_kernel(void* entry, const char* name) {
  openhip_redzone::register_name(entry, name);
}

// stream == nullptr: synchronous, now, on the calling thread.
EXPORT int ohcpu_memcpy(void* stream, void* dst, const void* src, uint64_t nbytes, int async) {
  if (!async) {
    memmove(dst, src, nbytes);
    return kSuccess;
  }
  Command* c = new Command();
  c->kind = Kind::Copy;
  c->dst = dst;
  c->src = src;
  c->nbytes = nbytes;
  resolve(stream)->push(c);
  return kSuccess;
}

EXPORT int ohcpu_memset(void* stream, void* dst, int value, uint64_t nbytes, int async) {
  if (!async) {
    memset(dst, value, nbytes);
    return kSuccess;
  }
  Command* c = new Command();
  c->kind = Kind::Memset;
  c->dst = dst;
  c->value = value;
  c->nbytes = nbytes;
  resolve(stream)->push(c);
  return kSuccess;
}

// Queues a launch.  The argument bytes are copied now: `pointers[i]` points into `buffer`
// (nbytes long) at argument i, and is re-based onto the copy.
EXPORT int ohcpu_launch(void* stream, void* entry, uint32_t gx, uint32_t gy, uint32_t gz,
                        uint32_t bx, uint32_t by, uint32_t bz, uint64_t shared_mem,
                        const unsigned char* buffer, uint64_t nbytes,
                        const void* const* pointers, uint32_t nargs) {
  if (entry == nullptr) return kInvalidValue;
  Command* c = new Command();
  c->kind = Kind::Kernel;
  c->entry = reinterpret_cast<openhip_entry_fn>(entry);
  c->launch.grid[0] = gx;
  c->launch.grid[1] = gy;
  c->launch.grid[2] = gz;
  c->launch.block[0] = bx;
  c->launch.block[1] = by;
  c->launch.block[2] = bz;
  c->launch.shared_mem = shared_mem;
  c->arg_bytes.assign(buffer, buffer + nbytes);
  c->arg_ptrs.resize(nargs ? nargs : 1);
  for (uint32_t i = 0; i < nargs; ++i) {
    const unsigned char* p = static_cast<const unsigned char*>(pointers[i]);
    c->arg_ptrs[i] = c->arg_bytes.data() + (p - buffer);
  }
  c->launch.args = c->arg_ptrs.data();
  c->launch.nargs = nargs;
  resolve(stream)->push(c);
  return kSuccess;
}

// Runs a launch now on the calling thread and the pool (tests and tools), not via a stream.
EXPORT int ohcpu_launch_sync(void* entry, const openhip_launch* launch, char* msg, int cap) {
  Job job;
  job.entry = reinterpret_cast<openhip_entry_fn>(entry);
  job.launch = launch;
  job.nblocks = uint64_t(launch->grid[0]) * launch->grid[1] * launch->grid[2];
  job.chunk = chunk_for(job.nblocks);
  job.error[0] = 0;
  g_pool->run(&job);
  const int rc = job.status.load();
  if (rc != 0 && msg != nullptr && cap > 0) snprintf(msg, static_cast<size_t>(cap), "%s", job.error);
  return rc;
}
