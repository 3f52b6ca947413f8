// Plain C++ peers of bench/bench_cpu_styles.py: an OpenMP sum and a serial inclusive scan, each
// timed inside C++ (one untimed warm-up run first).
#include <chrono>
#include <cstddef>
#include <omp.h>

extern "C" double plain_sum(const float* x, size_t n, int repeats, double* times) {
  double total = 0;
  for (int r = 0; r <= repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; ++i) s += x[i];
    auto t1 = std::chrono::steady_clock::now();
    if (r > 0) times[r - 1] = std::chrono::duration<double>(t1 - t0).count();
    total = s;
  }
  return total;
}

extern "C" void plain_scan(const int* x, int* y, size_t n, int repeats, double* times) {
  for (int r = 0; r <= repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    int s = 0;
    for (size_t i = 0; i < n; ++i) {
      s += x[i];
      y[i] = s;
    }
    auto t1 = std::chrono::steady_clock::now();
    if (r > 0) times[r - 1] = std::chrono::duration<double>(t1 - t0).count();
  }
}
