// Plain C++ peers of bench/bench_cpu_styles.py: an OpenMP sum and a serial inclusive scan, each
// timed inside C++ (one untimed warm-up run first).
#include <chrono>
#include <cstddef>
#include <ctime>
#include <omp.h>

// --cpu-time (bench_cpu_styles.py): the calling thread's CPU time instead of the wall clock
// (with OMP_NUM_THREADS=1 the loops run on that thread), so that a loaded machine's waits do not
// count
static int use_cpu = 0;
extern "C" void use_cpu_clock(int on) { use_cpu = on; }
static double now() {
  if (use_cpu) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

extern "C" double plain_sum(const float* x, size_t n, int repeats, double* times) {
  double total = 0;
  for (int r = 0; r <= repeats; ++r) {
    const double t0 = now();
    float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; ++i) s += x[i];
    const double t1 = now();
    if (r > 0) times[r - 1] = t1 - t0;
    total = s;
  }
  return total;
}

extern "C" void plain_scan(const int* x, int* y, size_t n, int repeats, double* times) {
  for (int r = 0; r <= repeats; ++r) {
    const double t0 = now();
    int s = 0;
    for (size_t i = 0; i < n; ++i) {
      s += x[i];
      y[i] = s;
    }
    const double t1 = now();
    if (r > 0) times[r - 1] = t1 - t0;
  }
}

// The machine's state, for the record: a fixed register-only loop (four independent multiply
// chains, no memory) timed like the peers.  This VM's host has slow spells (seconds to minutes)
// in which every thread runs slower, C++ and openhip kernels alike and memory-heavy code most
// (bench/RESULTS.md, issue #10 seventh session); this loop's time tells such a spell (its time
// rises ~15%) from a change in openhip's code.
extern "C" double machine_canary(long iterations) {
  const double t0 = now();
  unsigned long long a = 1, b = 2, c = 3, d = 4;
  for (long i = 0; i < iterations; ++i) {
    a = a * 3 + i;
    b = b * 5 + i;
    c = c * 7 + i;
    d = d * 9 + i;
    __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
  }
  const double t1 = now();
  volatile unsigned long long sink = a + b + c + d;
  (void)sink;
  return t1 - t0;
}
