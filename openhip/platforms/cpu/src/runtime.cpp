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
//     synchronize/query of that stream (or of the device), then cleared;
//   * faults in kernel code (SIGSEGV, SIGBUS, SIGFPE, SIGILL on a worker thread while it runs a
//     kernel) fail the launch instead of killing the process, and leave the device failed (a
//     GPU context's sticky error) until ohcpu_reset_device;
//   * stream handles are ids looked up under a lock, the streams reference-counted, so a
//     handle used while another thread destroys its stream is an error, never a use after free;
//   * waits come in bounded slices (the Python side checks for signals between them) and work
//     can be cancelled: a running launch stops at its next block boundary.
//
// Every exported function returns a hipError_t value (0 = hipSuccess) unless noted.
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "openhip_cpu/abi.h"
#include "redzone.h"
#include "trace.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

static int initcheck_copy(void* dst, const void* src, uint64_t n, char* msg, size_t cap);

namespace {

enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kInvalidHandle = 400,
  kNotReady = 600,
  kIllegalAddress = 700,
  kLaunchFailure = 719,
};

// The message of the last error this thread's call returned without a message buffer
// (ohcpu_last_message reads it).
thread_local char t_message[1024];
__attribute__((format(printf, 2, 3))) int with_message(int rc, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t_message, sizeof t_message, fmt, ap);
  va_end(ap);
  return rc;
}

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

// The stride of the fiber stacks (abi.h): a guard as large as the stack (so that no frame that
// fits a stack can step over it), the stack, and a page for staggering the stack tops.
uint64_t stack_guard_bytes() { return g_stack_size; }
uint64_t stack_stride() { return stack_guard_bytes() + g_stack_size + uint64_t(page_size()); }

// The worker of this thread, for the fault handler: initial-exec TLS, so reading it in a signal
// handler never allocates (a dlopen'd library's dynamic TLS may be allocated on first use).
__thread openhip_worker* t_fault_worker __attribute__((tls_model("initial-exec")));

// Every worker thread handles its faults on a signal stack of its own (a fault in a fiber's
// guard page has no stack left to run a handler on).
constexpr size_t kAltStackBytes = 64 * 1024;

struct WorkerContext {
  openhip_worker w;
  void* altstack = nullptr;  // ours, installed for this thread (nullptr: it had one already)
  WorkerContext() {
    memset(&w, 0, sizeof w);
    w.dyn_shared_cap = g_dyn_shared_cap;
    w.stack_size = stack_stride();
    w.stack_guard = stack_guard_bytes();
    w.stack_usable = g_stack_size;
    w.ensure_fibers = &ensure_fibers;
    void* p = mmap(nullptr, g_dyn_shared_cap, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    w.dyn_shared = p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
    if (w.dyn_shared == nullptr) w.dyn_shared_cap = 0;
    stack_t old;
    if (sigaltstack(nullptr, &old) == 0 && (old.ss_flags & SS_DISABLE)) {
      void* s = mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (s != MAP_FAILED) {
        stack_t ss;
        ss.ss_sp = s;
        ss.ss_size = kAltStackBytes;
        ss.ss_flags = 0;
        if (sigaltstack(&ss, nullptr) == 0) {
          altstack = s;
        } else {
          munmap(s, kAltStackBytes);
        }
      }
    }
    t_fault_worker = &w;
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
  const uint64_t need = uint64_t(1024) * stack_stride() + 2 * uint64_t(page_size());
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
    if (uint64_t(cap) * w->stack_size > limit) return kOutOfMemory;
    // Each new stack is made accessible above its guard, which stays PROT_NONE (abi.h).
    for (uint32_t i = w->fiber_capacity; i < cap; ++i) {
      unsigned char* lo = w->stacks + uint64_t(i) * w->stack_size;
      if (mprotect(lo + w->stack_guard, w->stack_size - w->stack_guard,
                   PROT_READ | PROT_WRITE) != 0) {
        return kOutOfMemory;
      }
      w->fiber_capacity = i + 1;
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
  if (t_fault_worker == &w) t_fault_worker = nullptr;
  if (altstack != nullptr) {
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_flags = SS_DISABLE;
    if (sigaltstack(&ss, nullptr) == 0) munmap(altstack, kAltStackBytes);
  }
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
  std::atomic<bool> faulted{false};  // the failure was a fault in kernel code
  int cancel = 0;  // nonzero: entries stop at their next block boundary (abi.h; __atomic access)
  char error[1024];

  // Fails the job with `rc` unless it failed already; every worker stops at its next block.
  bool fail(int rc, const char* message) {
    int expected = 0;
    if (!status.compare_exchange_strong(expected, rc)) return false;
    snprintf(error, sizeof error, "%s", message);
    __atomic_store_n(&cancel, rc, __ATOMIC_RELAXED);
    return true;
  }
};

// Memcheck mode (memcheck.h): this worker's dynamic shared memory is addressable up to the
// launch's size only; the rest of the buffer stays poisoned (set up once per worker, then only
// the difference from the previous launch is rewritten).
thread_local uint64_t t_memcheck_shared = UINT64_MAX;  // bytes addressable now; MAX: not set up

void memcheck_shared(openhip_worker* w, uint64_t bytes) {
  namespace mc = openhip_memcheck;
  if (w->dyn_shared == nullptr || bytes > w->dyn_shared_cap) return;
  const uintptr_t base = reinterpret_cast<uintptr_t>(w->dyn_shared);
  if (t_memcheck_shared == UINT64_MAX) {
    mc::poison(base, w->dyn_shared_cap, mc::kShared);
    t_memcheck_shared = 0;
  }
  if (bytes == t_memcheck_shared) return;
  const uint64_t old = t_memcheck_shared;
  if (bytes < old) {
    const uint64_t from = bytes & ~uint64_t(7);
    mc::poison(base + from, ((old + 7) & ~uint64_t(7)) - from, mc::kShared);
  }
  mc::unpoison_shared(base, bytes);
  t_memcheck_shared = bytes;
}

void run_chunks(Job* job) {
  openhip_worker* w = this_worker();
  w->cancel = &job->cancel;
  if (openhip_memcheck::on()) memcheck_shared(w, job->launch->shared_mem);
  for (;;) {
    if (job->status.load(std::memory_order_relaxed) != 0) return;  // a block failed: stop
    const uint64_t b = job->next.fetch_add(job->chunk, std::memory_order_relaxed);
    if (b >= job->nblocks) return;
    const uint64_t e = b + job->chunk < job->nblocks ? b + job->chunk : job->nblocks;
    w->fault_signal = 0;
    const int rc = job->entry(job->launch, w, b, e);
    if (rc != 0) {
      w->error[sizeof w->error - 1] = 0;
      const bool fault = w->fault_signal != 0;
      if (job->fail(rc, w->error) && fault) job->faulted.store(true);
      w->fault_signal = 0;
      return;
    }
  }
}

// ---- faults in kernel code -----------------------------------------------------------------------
// SIGSEGV, SIGBUS, SIGFPE and SIGILL are handled on the thread's signal stack.  A fault raised
// by kernel code (the faulting thread is a worker inside an entry call: in_kernel, see abi.h)
// is classified, recorded in the worker, and handed to the module's on_fault, which jumps back
// into the entry call.  Every other fault goes to the handler installed before ours (Python's
// faulthandler, which prints the traceback) or gets the default action, as without openhip.
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction g_previous[NSIG];
bool g_handlers_installed = false;

void classify_fault(int sig, int code, int* status, const char** what) {
  *status = kLaunchFailure;
  switch (sig) {
    case SIGSEGV:
      *status = kIllegalAddress;
      *what = code == SEGV_ACCERR ? "illegal memory access (SIGSEGV: the address is not "
                                    "accessible)"
                                  : "illegal memory access (SIGSEGV: the address is not mapped)";
      return;
    case SIGBUS:
      *status = kIllegalAddress;
      *what = code == BUS_ADRALN ? "illegal memory access (SIGBUS: misaligned address)"
                                 : "illegal memory access (SIGBUS: no memory behind the address)";
      return;
    case SIGFPE:
      *what = code == FPE_INTDIV || code == FPE_INTOVF
                  ? "integer division by zero (or overflow: the most negative value / -1); on a "
                    "GPU the result would be unspecified"
                  : "arithmetic exception (SIGFPE)";
      return;
    default:
      *what = "illegal instruction (SIGILL)";
      return;
  }
}

// Set while this thread runs the previous handler: a handler that re-raises the signal into
// ours (Python's faulthandler, installed after us, restores us and raises again) must end in the
// default action, not in a loop between the two.
__thread int t_chaining __attribute__((tls_model("initial-exec")));

void chain_fault(int sig, siginfo_t* info, void* uc) {
  const struct sigaction& prev = g_previous[sig];
  const bool custom = (prev.sa_flags & SA_SIGINFO) ? prev.sa_sigaction != nullptr
                                                   : (prev.sa_handler != SIG_DFL &&
                                                      prev.sa_handler != SIG_IGN);
  if (custom && t_chaining == 0) {
    t_chaining = 1;
    if (prev.sa_flags & SA_SIGINFO) {
      prev.sa_sigaction(sig, info, uc);
    } else {
      prev.sa_handler(sig);
    }
    t_chaining = 0;
    return;
  }
  // The default action: restore it; a real fault happens again when the instruction re-runs,
  // a sent signal is sent again.
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  if (info == nullptr || info->si_code <= 0) raise(sig);
}

void fault_handler(int sig, siginfo_t* info, void* uc) {
  openhip_worker* w = t_fault_worker;
  // si_code > 0: raised by the CPU for an instruction of this thread, not sent by kill().
  if (w != nullptr && w->in_kernel && w->on_fault != nullptr && info != nullptr &&
      info->si_code > 0) {
    w->in_kernel = 0;
    w->fault_signal = sig;
    w->fault_code = info->si_code;
    w->fault_addr = info->si_addr;
    classify_fault(sig, info->si_code, &w->fault_status, &w->fault_what);
    w->on_fault(w);  // does not return (SA_NODEFER: the signal is not left blocked)
  }
  chain_fault(sig, info, uc);
}

// Installs ours for each fault signal whose handler is not ours already (a handler installed
// after ours, e.g. faulthandler.enable() after the runtime started, is kept as the previous one:
// faults outside kernels still reach it).  Called at start and at every module load.
void install_fault_handlers() {
  for (int sig : kFaultSignals) {
    struct sigaction current;
    if (g_handlers_installed && sigaction(sig, nullptr, &current) == 0 &&
        (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &fault_handler) {
      continue;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = &fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, &g_previous[sig]);
  }
  g_handlers_installed = true;
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
std::mutex g_coop_mu;  // one cooperative launch at a time (grid_sync.h)

// ---- events ------------------------------------------------------------------------------------
std::mutex g_event_mu;
std::condition_variable g_event_cv;

// Incremented in a child process after fork(): a record of an older generation that is still
// pending was enqueued in the parent, on a stream that does not run here.
uint64_t g_event_generation = 0;

struct Event {
  uint64_t recorded = 0;   // records enqueued (guarded by g_event_mu)
  uint64_t completed = 0;  // records executed
  double time_ms = 0;      // when the last executed record ran
  uint64_t generation = g_event_generation;  // when it was created or last recorded
  bool orphaned() const { return generation != g_event_generation && completed < recorded; }
};

// ---- the device's failed state ------------------------------------------------------------------
// A fault in kernel code leaves the device failed, as a GPU context is after an illegal address:
// launches, copies and synchronisations report it (with the first fault's report) until
// ohcpu_reset_device.  Work already queued is dropped (event records still complete).
std::mutex g_failed_mu;
std::atomic<int> g_failed{0};
std::string* g_failed_message = new std::string();  // leaked: used until the process ends
std::atomic<bool> g_shutdown{false};  // the interpreter exits: waits give up on cancelled work
// Destroyed streams whose thread still runs (cancelled) work: their kernels' modules must stay.
std::atomic<int> g_detached_busy{0};

void mark_failed(int rc, const char* message) {
  std::lock_guard<std::mutex> lock(g_failed_mu);
  if (g_failed.load() != 0) return;
  *g_failed_message = message;
  g_failed.store(rc);
}

// The device's sticky error (0 if it is not failed), its message in msg.
int failed_status(char* msg, int cap) {
  const int rc = g_failed.load(std::memory_order_relaxed);
  if (rc == 0) return 0;
  std::lock_guard<std::mutex> lock(g_failed_mu);
  if (msg != nullptr && cap > 0) {
    snprintf(msg, static_cast<size_t>(cap),
             "the device is in a failed state: a previous kernel faulted (%s); memory may be "
             "corrupt; hip.reset_device() clears the state, or start a new process",
             g_failed_message->c_str());
  }
  return rc;
}

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
  uint64_t trace_seq = 0;     // nonzero: the profiler stamps it (trace.h)
  uint64_t trace_stream = 0;  // the handle it was queued on, for the profiler
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

// A stream's thread holds a reference to it (std::shared_ptr) while it runs, and so does every
// call that uses it (see acquire()): a stream destroyed while another thread queries it lives
// until that query returns.
struct Stream {
  std::mutex mu;
  std::condition_variable cv, idle_cv;
  std::deque<Command*> queue;
  uint64_t enqueued = 0, finished = 0;
  bool stop = false;        // being destroyed: no new work
  int status = 0;
  std::string error;
  std::thread thread;
  std::atomic<bool> cancelled{false};  // its work was cancelled: no new work until a reset
  std::string cancel_reason;
  Job* running = nullptr;   // the launch it runs now (guarded by mu)

  // The stream thread polls a while (kSpinMs) after its queue empties before it sleeps, so a
  // host thread that launches in a loop does not pay a futex wake-up per launch.
  std::atomic<uint64_t> pushed{0};
  std::atomic<bool> sleeping{false};

  // Queues c (taking it); refuses it (deleting it) on a stream being destroyed or cancelled.
  int push(Command* c) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stop) {
        delete c;
        return with_message(kInvalidHandle, "the stream is being destroyed");
      }
      if (cancelled.load()) {
        delete c;
        return with_message(kLaunchFailure, "the stream's work was cancelled (%s); it takes no "
                            "more work until hip.reset_device()", cancel_reason.c_str());
      }
      queue.push_back(c);
      ++enqueued;
    }
    pushed.fetch_add(1, std::memory_order_release);
    if (sleeping.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(mu);  // pairs with the sleeper's check under mu
      cv.notify_one();
    }
    return kSuccess;
  }

  // Work is dropped, not run, once the device failed or the stream was cancelled.
  bool dropping() const { return g_failed.load(std::memory_order_relaxed) != 0 || cancelled.load(); }

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
        if (dropping()) break;
        Job job;
        job.entry = c->entry;
        job.launch = &c->launch;
        job.nblocks = uint64_t(c->launch.grid[0]) * c->launch.grid[1] * c->launch.grid[2];
        job.chunk = chunk_for(job.nblocks);
        job.error[0] = 0;
        {
          std::lock_guard<std::mutex> lock(mu);  // cancel() finds the running launch here
          running = &job;
          if (cancelled.load()) job.fail(kLaunchFailure, cancel_reason.c_str());
        }
        if (c->launch.reserved & 1u) {
          // A cooperative launch (grid_sync.h): one block per worker, all at once, one such
          // launch at a time in the process.
          job.chunk = 1;
          std::lock_guard<std::mutex> coop_lock(g_coop_mu);
          g_pool->run(&job);
        } else {
          g_pool->run(&job);
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          running = nullptr;
        }
        if (int rc = job.status.load()) {
          fail(rc, job.error);
          if (job.faulted.load()) mark_failed(rc, job.error);
        }
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
        if (!dropping()) {
          char report[1024];
          if (int rc = initcheck_copy(c->dst, c->src, c->nbytes, report, sizeof report)) {
            fail(rc, report);
            break;
          }
          memmove(c->dst, c->src, c->nbytes);
        }
        break;
      case Kind::Memset:
        if (!dropping()) memset(c->dst, c->value, c->nbytes);
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
        g_event_cv.wait(lock, [this, e, g] {
          return e->completed >= g || cancelled.load() || g_shutdown.load();
        });
        break;
      }
    }
  }

  // execute(c) stamped for the profiler (trace.h)
  void traced_execute(Command* c) {
    openhip_trace::Record r{};
    r.seq = c->trace_seq;
    r.stream = c->trace_stream;
    r.kind = c->kind == Kind::Kernel ? 0 : c->kind == Kind::Copy ? 1 : 2;
    r.entry = reinterpret_cast<uint64_t>(c->entry);
    r.nbytes = c->nbytes;
    r.start_ms = now_ms();
    execute(c);
    r.end_ms = now_ms();
    openhip_trace::add(r);
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
      if (queue.empty() && stop) {
        exited = true;
        if (detached) g_detached_busy.fetch_sub(1);
        return;
      }
      Command* c = queue.front();
      queue.pop_front();
      lock.unlock();
      if (c->trace_seq != 0) {
        traced_execute(c);
      } else {
        execute(c);
      }
      delete c;
      lock.lock();
      ++finished;
      if (finished == enqueued) idle_cv.notify_all();
    }
  }

  // Waits (at most timeout_ms; < 0: for ever) for everything enqueued so far; true if done.
  bool wait_for(double timeout_ms) {
    std::unique_lock<std::mutex> lock(mu);
    const uint64_t target = enqueued;
    auto done = [this, target] { return finished >= target; };
    if (timeout_ms < 0) {
      idle_cv.wait(lock, done);
      return true;
    }
    return idle_cv.wait_for(lock, std::chrono::microseconds(int64_t(timeout_ms * 1000)), done);
  }

  // Waits (as wait_for) for everything enqueued so far; returns (and clears) the first error,
  // else the device's sticky error; kNotReady when the time ran out (nothing is cleared).
  int synchronize(char* msg, int cap, double timeout_ms = -1) {
    if (!wait_for(timeout_ms)) return kNotReady;
    std::lock_guard<std::mutex> lock(mu);
    if (status != 0) return take_error(msg, cap);
    return failed_status(msg, cap);
  }

  // Cancels the work queued and running (a running launch stops at its next block boundary);
  // the stream then refuses new work until reset.  False if it was idle (nothing cancelled).
  bool cancel(const char* reason) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (finished == enqueued && running == nullptr) return false;
      if (!cancelled.load()) cancel_reason = reason;
      cancelled.store(true);
      if (status == 0) {
        status = kLaunchFailure;
        error = reason;
      }
      if (running != nullptr) running->fail(kLaunchFailure, reason);
    }
    std::lock_guard<std::mutex> lock(g_event_mu);  // a Wait command gives up
    g_event_cv.notify_all();
    return true;
  }

  // Clears the cancelled state and the pending error; true (and the stream stays cancelled) if
  // a cancelled launch still runs (a kernel that never reaches a block boundary).
  bool reset() {
    std::lock_guard<std::mutex> lock(mu);
    status = 0;
    error.clear();
    if (cancelled.load() && running != nullptr) return true;
    cancelled.store(false);
    cancel_reason.clear();
    return false;
  }

  bool busy() {
    std::lock_guard<std::mutex> lock(mu);
    return finished != enqueued || running != nullptr;
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

  // Destroys the stream's thread: refuses new work, waits for the queued work (not for work
  // that was cancelled, nor once the interpreter exits), then joins the thread, or leaves it to
  // finish on its own (it holds its own reference).  False if it was being destroyed already.
  bool retire() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stop) return false;
      stop = true;
    }
    cv.notify_all();
    bool drained = false;
    while (!(drained = wait_for(50.0))) {
      if (cancelled.load() || g_shutdown.load()) break;
    }
    if (drained) {
      thread.join();
    } else {
      std::lock_guard<std::mutex> lock(mu);
      if (!exited) {
        detached = true;
        g_detached_busy.fetch_add(1);
      }
      thread.detach();
    }
    return true;
  }

  bool exited = false;   // its thread left loop() (guarded by mu)
  bool detached = false;  // destroyed while its work still ran: the thread finishes it alone
};

// The streams by handle.  Handles are ids, never reused, so a stale handle is an error and
// never another stream; the default stream is handle 0.  Leaked on purpose (used until exit).
std::mutex g_streams_mu;
auto& g_streams = *new std::unordered_map<uintptr_t, std::shared_ptr<Stream>>();
auto& g_parent_streams = *new std::unordered_set<uintptr_t>();  // after fork: the parent's
uintptr_t g_last_stream_id = 0;

std::shared_ptr<Stream> make_stream() {
  auto s = std::make_shared<Stream>();
  s->thread = std::thread([s] { s->loop(); });
  return s;
}

// The stream of a handle, referenced for the caller; nullptr and an error code (message in
// t_message) for a handle that names no live stream.
std::shared_ptr<Stream> acquire(void* handle, int* rc) {
  const uintptr_t id = reinterpret_cast<uintptr_t>(handle);
  std::lock_guard<std::mutex> lock(g_streams_mu);
  auto it = g_streams.find(id);
  if (it != g_streams.end()) return it->second;
  if (g_parent_streams.count(id) != 0) {
    *rc = with_message(kInvalidHandle,
                       "the stream belongs to the parent process: it was created before fork(), "
                       "and a forked child starts with a fresh runtime (create streams in the "
                       "child)");
  } else {
    *rc = with_message(kInvalidHandle, "not a live stream (destroyed, or never created)");
  }
  return nullptr;
}

std::vector<std::shared_ptr<Stream>> all_streams() {
  std::lock_guard<std::mutex> lock(g_streams_mu);
  std::vector<std::shared_ptr<Stream>> all;
  all.reserve(g_streams.size());
  for (auto& kv : g_streams) all.push_back(kv.second);
  return all;
}

void copy_message(char* msg, int cap) {
  if (msg != nullptr && cap > 0) snprintf(msg, static_cast<size_t>(cap), "%s", t_message);
}

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
  install_fault_handlers();
  g_pool = new Pool(g_threads - 1);
  auto d = make_stream();
  std::lock_guard<std::mutex> lock(g_streams_mu);
  g_streams[0] = d;
  return kSuccess;
}

// Re-installs the fault handler where another one replaced it since (see install_fault_handlers).
EXPORT void ohcpu_install_fault_handlers() {
  if (g_pool != nullptr) install_fault_handlers();
}

// The default stream's handle (0, also accepted as nullptr everywhere).
EXPORT void* ohcpu_default_stream() { return nullptr; }

// The message of the last error returned to this thread by a call without a message buffer.
EXPORT void ohcpu_last_message(char* msg, int cap) { copy_message(msg, cap); }

EXPORT void* ohcpu_stream_create() {
  auto s = make_stream();
  std::lock_guard<std::mutex> lock(g_streams_mu);
  const uintptr_t id = ++g_last_stream_id;
  g_streams[id] = s;
  return reinterpret_cast<void*>(id);
}

// As hipStreamDestroy: the queued work finishes first (unless it was cancelled); a call that
// uses the handle meanwhile, or after, is an error (a query during the wait sees it busy).
EXPORT int ohcpu_stream_destroy(void* handle) {
  if (handle == nullptr) return with_message(kInvalidHandle, "the default stream is never destroyed");
  int rc = kSuccess;
  std::shared_ptr<Stream> s = acquire(handle, &rc);
  if (s == nullptr) return rc;
  if (!s->retire()) return with_message(kInvalidHandle, "the stream is being destroyed");
  std::lock_guard<std::mutex> lock(g_streams_mu);
  g_streams.erase(reinterpret_cast<uintptr_t>(handle));
  return kSuccess;
}

// Waits at most timeout_ms (< 0: for ever): kNotReady if the work is not done by then, else the
// stream's first error (cleared), else the device's sticky error, else 0.
EXPORT int ohcpu_stream_synchronize_for(void* handle, double timeout_ms, char* msg, int cap) {
  int rc = kSuccess;
  std::shared_ptr<Stream> s = acquire(handle, &rc);
  if (s == nullptr) {
    copy_message(msg, cap);
    return rc;
  }
  return s->synchronize(msg, cap, timeout_ms);
}

EXPORT int ohcpu_stream_synchronize(void* handle, char* msg, int cap) {
  return ohcpu_stream_synchronize_for(handle, -1, msg, cap);
}

EXPORT int ohcpu_stream_query(void* handle, char* msg, int cap) {
  int rc = kSuccess;
  std::shared_ptr<Stream> s = acquire(handle, &rc);
  if (s == nullptr) {
    copy_message(msg, cap);
    return rc;
  }
  return s->query(msg, cap);
}

// Whether the stream has work queued or running (1), is idle (0), or kInvalidHandle (as a
// negative number).  Unlike ohcpu_stream_query it leaves a pending error in place: a caller
// that only wants to know whether memory may be released must not swallow a kernel's error.
EXPORT int ohcpu_stream_busy(void* handle) {
  int rc = kSuccess;
  std::shared_ptr<Stream> s = acquire(handle, &rc);
  if (s == nullptr) return -rc;
  return s->busy() ? 1 : 0;
}

// Cancels the stream's queued and running work (see Stream::cancel): 0 (also when it was
// idle), or kInvalidHandle.
EXPORT int ohcpu_stream_cancel(void* handle, const char* reason) {
  int rc = kSuccess;
  std::shared_ptr<Stream> s = acquire(handle, &rc);
  if (s == nullptr) return rc;
  s->cancel(reason != nullptr ? reason : "cancelled");
  return kSuccess;
}

// Every stream: waits at most timeout_ms (< 0: for ever) for all their work; kNotReady if it is
// not done by then (no error is cleared), else the first stream error (every stream's cleared),
// else the device's sticky error, else 0.
EXPORT int ohcpu_device_synchronize_for(double timeout_ms, char* msg, int cap) {
  const auto all = all_streams();
  const double deadline = now_ms() + (timeout_ms < 0 ? 0 : timeout_ms);
  for (const auto& s : all) {
    const double left = timeout_ms < 0 ? -1 : deadline - now_ms();
    if (!s->wait_for(left < 0 && timeout_ms >= 0 ? 0 : left)) return kNotReady;
  }
  int first = kSuccess;
  for (const auto& s : all) {
    char buf[1024];
    std::lock_guard<std::mutex> lock(s->mu);
    const int rc = s->take_error(buf, sizeof buf);
    if (rc != kSuccess && first == kSuccess) {
      first = rc;
      if (msg != nullptr && cap > 0) snprintf(msg, static_cast<size_t>(cap), "%s", buf);
    }
  }
  return first != kSuccess ? first : failed_status(msg, cap);
}

EXPORT int ohcpu_device_synchronize(char* msg, int cap) {
  return ohcpu_device_synchronize_for(-1, msg, cap);
}

// Cancels the work of every busy stream; returns how many were busy.
EXPORT int ohcpu_device_cancel(const char* reason) {
  int n = 0;
  for (const auto& s : all_streams()) n += s->cancel(reason != nullptr ? reason : "cancelled");
  return n;
}

// Waits for all work of every stream without consuming their errors (module unload): 0, or
// kNotReady when a stream still runs cancelled work, or any work once the interpreter exits
// (the caller must then keep the module loaded).
EXPORT int ohcpu_device_wait_idle() {
  for (const auto& s : all_streams()) {
    while (!s->wait_for(50.0)) {
      if (s->cancelled.load() || g_shutdown.load()) return kNotReady;
    }
  }
  return g_detached_busy.load() != 0 ? kNotReady : kSuccess;
}

// Clears the device's failed state and every stream's cancelled state and pending error;
// kNotReady (with a message) if a cancelled kernel still runs (it never reached a block
// boundary), which the state then cannot be cleared for.
EXPORT int ohcpu_reset_device() {
  {
    std::lock_guard<std::mutex> lock(g_failed_mu);
    g_failed.store(0);
    g_failed_message->clear();
  }
  int still = 0;
  for (const auto& s : all_streams()) still += s->reset();
  if (still != 0) {
    return with_message(kNotReady, "%d stream(s) still run a cancelled kernel that has not "
                        "reached a block boundary (a thread that never finishes?)", still);
  }
  return kSuccess;
}

// The interpreter exits: cancels all outstanding work; from now on no wait waits for work
// that does not finish (stream destruction and module unloads leave it running).
EXPORT void ohcpu_shutdown() {
  if (g_pool == nullptr) return;
  g_shutdown.store(true);
  ohcpu_device_cancel("the interpreter exited while it was queued or running");
}

// In a child process after fork(): the worker and stream threads did not survive, and their
// mutexes may be in any state.  Start afresh: new workers, a new default stream; the parent's
// streams are remembered as such (a call with one says so instead of waiting for a thread
// that does not exist here) and their memory is leaked on purpose, as are pending records of
// the parent's events (waiting for one is an error).
EXPORT void ohcpu_after_fork_child() {
  openhip_redzone::after_fork_child();
  if (g_pool == nullptr) return;
  new (&g_streams_mu) std::mutex();
  new (&g_event_mu) std::mutex();
  new (&g_event_cv) std::condition_variable();
  new (&g_failed_mu) std::mutex();
  ++g_event_generation;
  for (const auto& kv : g_streams) {
    if (kv.first != 0) g_parent_streams.insert(kv.first);
  }
  new (&g_streams) std::unordered_map<uintptr_t, std::shared_ptr<Stream>>();  // old one leaked
  t_worker.context = nullptr;  // the parent's (leaked: its memory may be in any state)
  t_fault_worker = nullptr;
  new (&g_region_mu) std::mutex();
  g_failed.store(0);
  g_failed_message = new std::string();
  g_pool = new Pool(g_threads - 1);
  g_streams[0] = make_stream();
}

EXPORT void* ohcpu_event_create() { return new Event(); }

EXPORT void ohcpu_event_destroy(void* e) { delete static_cast<Event*>(e); }

namespace {
int orphaned_event() {
  return with_message(kInvalidHandle, "the event was recorded in the parent process before "
                      "fork(); that record never completes in the child");
}
}  // namespace

EXPORT int ohcpu_event_record(void* event, void* stream) {
  Event* e = static_cast<Event*>(event);
  int rc = kSuccess;
  std::shared_ptr<Stream> s = acquire(stream, &rc);
  if (s == nullptr) return rc;
  Command* c = new Command();
  c->kind = Kind::Record;
  c->event = e;
  {
    std::lock_guard<std::mutex> lock(g_event_mu);
    if (e->generation != g_event_generation) {  // the parent's event, recorded anew
      e->completed = e->recorded;
      e->generation = g_event_generation;
    }
    c->generation = ++e->recorded;
  }
  const uint64_t generation = c->generation;
  rc = s->push(c);
  if (rc != kSuccess) {  // refused: the record counts as done, so that nobody waits for it
    std::lock_guard<std::mutex> lock(g_event_mu);
    if (e->completed < generation) e->completed = generation;
    g_event_cv.notify_all();
  }
  return rc;
}

EXPORT int ohcpu_event_query(void* event) {
  Event* e = static_cast<Event*>(event);
  std::lock_guard<std::mutex> lock(g_event_mu);
  if (e->orphaned()) return orphaned_event();
  return e->completed >= e->recorded ? kSuccess : kNotReady;
}

// Waits at most timeout_ms (< 0: for ever); kNotReady if the record has not completed by then.
EXPORT int ohcpu_event_synchronize_for(void* event, double timeout_ms) {
  Event* e = static_cast<Event*>(event);
  std::unique_lock<std::mutex> lock(g_event_mu);
  if (e->orphaned()) return orphaned_event();
  const uint64_t target = e->recorded;
  auto done = [e, target] { return e->completed >= target; };
  if (timeout_ms < 0) {
    g_event_cv.wait(lock, done);
    return kSuccess;
  }
  const bool ok = g_event_cv.wait_for(
      lock, std::chrono::microseconds(int64_t(timeout_ms * 1000)), done);
  return ok ? kSuccess : kNotReady;
}

EXPORT int ohcpu_event_synchronize(void* event) { return ohcpu_event_synchronize_for(event, -1); }

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
  int rc = kSuccess;
  std::shared_ptr<Stream> s = acquire(stream, &rc);
  if (s == nullptr) return rc;
  Command* c = new Command();
  c->kind = Kind::Wait;
  c->event = e;
  {
    std::lock_guard<std::mutex> lock(g_event_mu);
    if (e->orphaned()) {
      delete c;
      return orphaned_event();
    }
    c->generation = e->recorded;  // the record enqueued last, as cudaStreamWaitEvent
  }
  if (c->generation == 0) {  // never recorded: nothing to wait for
    delete c;
    return kSuccess;
  }
  return s->push(c);
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

// Moves the tail red zone of the allocation at p to p + nbytes (within its capacity; the memory
// pool's reuse of a block for a smaller request): 0, or 1 (not a live allocation / too large).
EXPORT int ohcpu_redzone_resize(void* p, uint64_t nbytes) {
  return openhip_redzone::resize(p, nbytes);
}

// Memcheck mode (memcheck.h): maps the shadow and starts maintaining it for the allocations
// made from now on; returns its offset (the modules are compiled for it), 0 if it cannot be
// mapped.  Call before the first allocation.
EXPORT uint64_t ohcpu_memcheck_enable() { return openhip_memcheck::enable(); }

// The tool: 0 memcheck, 1 racecheck (memcheck.h kTracked: dynamic shared memory is tracked),
// 2 initcheck (kUninit: device memory never written).  Before the first allocation.
EXPORT void ohcpu_memcheck_racecheck(int tool) {
  openhip_memcheck::racecheck() = tool == 1;
  openhip_memcheck::initcheck() = tool == 2;
}

// Memcheck reports: address v against the nearest device allocation (1 if msg was written).
EXPORT int ohcpu_memcheck_describe(uint64_t v, char* msg, int cap) {
  return openhip_redzone::describe(static_cast<uintptr_t>(v), msg, cap) ? 1 : 0;
}

// Memcheck mode: a pooled block went to the pool's cache (freed 1) or is handed out again with
// nbytes addressable (freed 0); redzone.h pool_mark.
EXPORT int ohcpu_memcheck_pool(void* p, uint64_t nbytes, int freed) {
  return openhip_redzone::pool_mark(p, nbytes, freed);
}

// The live device allocations as (address, size) pairs into out (max pairs); their count.
EXPORT uint64_t ohcpu_memcheck_live(uint64_t* out, uint64_t max) {
  return openhip_redzone::live(out, max);
}

// The profiler's device timeline (trace.h): capacity > 0 starts recording into a fresh ring of
// that many records, 0 stops; returns the previous capacity.
EXPORT uint64_t ohcpu_trace_enable(uint64_t capacity) { return openhip_trace::enable(capacity); }

// Moves up to max records (oldest first) into out; *dropped: records lost to the ring's bound.
EXPORT uint64_t ohcpu_trace_read(void* out, uint64_t max, uint64_t* dropped) {
  return openhip_trace::read(static_cast<openhip_trace::Record*>(out), max, dropped);
}

// The kernel name a red-zone report gives for launches of `entry`.
EXPORT void ohcpu_register_kernel(void* entry, const char* name) {
  openhip_redzone::register_name(entry, name);
}

namespace {
// Queues c on the stream of a handle (taking c): errors for a bad handle, a failed device
// (work, not event records or waits), a stream being destroyed or cancelled; the message in
// t_message.
int push_to(void* stream, Command* c) {
  int rc = kSuccess;
  std::shared_ptr<Stream> s = acquire(stream, &rc);
  if (s == nullptr) {
    delete c;
    return rc;
  }
  if (c->kind != Kind::Record && c->kind != Kind::Wait) {
    if (int failed = failed_status(t_message, sizeof t_message)) {
      delete c;
      return failed;
    }
    if ((c->trace_seq = openhip_trace::tag()) != 0) {
      c->trace_stream = reinterpret_cast<uintptr_t>(stream);
    }
  }
  return s->push(c);
}
}  // namespace

// Memcheck mode: a copy or memset whose device range leaves its allocation (or reads freed
// memory) fails with hipErrorInvalidValue before anything is written; the message is a report
// (openhip/tools/memcheck/report.py rewrites it).  Host memory is never poisoned.
static int memcheck_range(const char* routine, const char* what, const void* p, uint64_t n) {
  uintptr_t bad = 0;
  unsigned char code = 0;
  if (!openhip_memcheck::first_bad(reinterpret_cast<uintptr_t>(p), n, &bad, &code)) return 0;
  char where[400] = "";
  if (!openhip_redzone::describe(bad, where, sizeof where)) {
    snprintf(where, sizeof where, "Address 0x%llx is not addressable",
             static_cast<unsigned long long>(bad));
  }
  const char* kind = code == openhip_memcheck::kFreed  ? "use after free"
                     : code == openhip_memcheck::kNull ? "null pointer"
                                                       : "out of bounds";
  return with_message(kInvalidValue, "memcheck: Invalid %s of %llu bytes by %s at 0x%llx (%s): %s",
                      what, static_cast<unsigned long long>(n), routine,
                      static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)), kind,
                      where);
}

// Initcheck: a copy to host memory of device memory never written (by a kernel, a copy or a
// memset) fails with hipErrorInvalidValue before anything is copied, with a report
// (compute-sanitizer's "Host API uninitialized memory access"); a device-to-device copy carries
// the never-written state to its destination (copy_uninit).  Queued copies are checked when
// they run (the work queued before them may write their source).
static int initcheck_copy(void* dst, const void* src, uint64_t n, char* msg, size_t cap) {
  if (!openhip_memcheck::initcheck() || !openhip_memcheck::on()) return 0;
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  bool host_dst;
  {
    std::lock_guard<std::mutex> lock(openhip_redzone::table_mu());
    host_dst = openhip_redzone::containing(d) == openhip_redzone::table().end();
  }
  uintptr_t bad = 0;
  if (!host_dst || !openhip_memcheck::first_uninit(s, n, &bad)) {
    if (!host_dst) openhip_memcheck::copy_uninit(d, s, n);
    return 0;
  }
  char where[400] = "";
  if (!openhip_redzone::describe(bad, where, sizeof where)) {
    snprintf(where, sizeof where, "Address 0x%llx", static_cast<unsigned long long>(bad));
  }
  snprintf(msg, cap, "memcheck: Uninitialized read of %llu bytes by hipMemcpy at 0x%llx "
           "(never written): %s", static_cast<unsigned long long>(n),
           static_cast<unsigned long long>(s), where);
  return kInvalidValue;
}

// stream == nullptr: synchronous, now, on the calling thread.
EXPORT int ohcpu_memcpy(void* stream, void* dst, const void* src, uint64_t nbytes, int async) {
  if (int failed = failed_status(t_message, sizeof t_message)) return failed;
  if (openhip_memcheck::on()) {
    if (int rc = memcheck_range("hipMemcpy", "write", dst, nbytes)) return rc;
    if (int rc = memcheck_range("hipMemcpy", "read", src, nbytes)) return rc;
    openhip_memcheck::mark_written(reinterpret_cast<uintptr_t>(dst), nbytes);
    if (!async) {  // (after mark_written: a device destination takes the source's state)
      if (int rc = initcheck_copy(dst, src, nbytes, t_message, sizeof t_message)) return rc;
    }
  }
  if (!async) {
    memmove(dst, src, nbytes);
    return kSuccess;
  }
  Command* c = new Command();
  c->kind = Kind::Copy;
  c->dst = dst;
  c->src = src;
  c->nbytes = nbytes;
  return push_to(stream, c);
}

EXPORT int ohcpu_memset(void* stream, void* dst, int value, uint64_t nbytes, int async) {
  if (int failed = failed_status(t_message, sizeof t_message)) return failed;
  if (openhip_memcheck::on()) {
    if (int rc = memcheck_range("hipMemset", "write", dst, nbytes)) return rc;
    openhip_memcheck::mark_written(reinterpret_cast<uintptr_t>(dst), nbytes);
  }
  if (!async) {
    memset(dst, value, nbytes);
    return kSuccess;
  }
  Command* c = new Command();
  c->kind = Kind::Memset;
  c->dst = dst;
  c->value = value;
  c->nbytes = nbytes;
  return push_to(stream, c);
}

// A kernel command for a launch.  The argument bytes are copied now: `pointers[i]` points into
// `buffer` (nbytes long) at argument i, and is re-based onto the copy.
Command* kernel_command(void* entry, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx,
                        uint32_t by, uint32_t bz, uint64_t shared_mem,
                        const unsigned char* buffer, uint64_t nbytes,
                        const void* const* pointers, uint32_t nargs) {
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
  return c;
}

// Queues a launch (see kernel_command for the arguments).
EXPORT int ohcpu_launch(void* stream, void* entry, uint32_t gx, uint32_t gy, uint32_t gz,
                        uint32_t bx, uint32_t by, uint32_t bz, uint64_t shared_mem,
                        const unsigned char* buffer, uint64_t nbytes,
                        const void* const* pointers, uint32_t nargs) {
  if (entry == nullptr) return kInvalidValue;
  return push_to(stream, kernel_command(entry, gx, gy, gz, bx, by, bz, shared_mem, buffer, nbytes,
                                        pointers, nargs));
}

// A cooperative launch (grid_group::sync, openhip_cpu/grid_sync.h): as ohcpu_launch, with every
// block running at the same time on its own worker; a grid of more blocks than workers is
// refused (hipErrorCooperativeLaunchTooLarge), as a GPU refuses one that cannot be co-resident.
EXPORT int ohcpu_cooperative_max_blocks() { return g_threads; }

EXPORT int ohcpu_launch_cooperative(void* stream, void* entry, uint32_t gx, uint32_t gy,
                                    uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
                                    uint64_t shared_mem, const unsigned char* buffer,
                                    uint64_t nbytes, const void* const* pointers, uint32_t nargs) {
  if (entry == nullptr) return kInvalidValue;
  if (uint64_t(gx) * gy * gz > uint64_t(g_threads)) return 720;  // CooperativeLaunchTooLarge
  static std::atomic<uint32_t> launches{0};
  uint32_t id = (launches.fetch_add(1, std::memory_order_relaxed) + 1) & 0x7fffffffu;
  if (id == 0) id = 1;
  Command* c = kernel_command(entry, gx, gy, gz, bx, by, bz, shared_mem, buffer, nbytes,
                              pointers, nargs);
  c->launch.reserved = (id << 1) | 1u;
  return push_to(stream, c);
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
  if (rc != 0 && job.faulted.load()) mark_failed(rc, job.error);
  return rc;
}
