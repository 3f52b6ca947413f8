// The peer of the CUDA samples' matrixMul (bench/bench_cuda_samples.py --peer): the same
// product (A: 320x320 ones, B: 640x320 of 0.01, C = A * B, 300 repetitions after one warm-up)
// as a plain C++ loop nest, rows spread over the cores with OpenMP. Prints the time per product
// in the sample's own format, and checks the result the way the sample does.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include <chrono>
#include <vector>

static void matmul(float* C, const float* A, const float* B, int hA, int wA, int wB) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < hA; ++i) {
    float* c = C + size_t(i) * wB;
    for (int j = 0; j < wB; ++j) c[j] = 0.0f;
    for (int k = 0; k < wA; ++k) {
      const float a = A[size_t(i) * wA + k];
      const float* b = B + size_t(k) * wB;
      for (int j = 0; j < wB; ++j) c[j] += a * b[j];
    }
  }
}

int main() {
  const int block_size = 32;
  const int wA = 5 * 2 * block_size, hA = 5 * 2 * block_size, wB = 5 * 4 * block_size;
  std::vector<float> A(size_t(wA) * hA, 1.0f), B(size_t(wB) * wA, 0.01f), C(size_t(wB) * hA);
  matmul(C.data(), A.data(), B.data(), hA, wA, wB);  // warm-up, as the sample does
  const int nIter = 300;
  const auto t0 = std::chrono::steady_clock::now();
  for (int j = 0; j < nIter; ++j) matmul(C.data(), A.data(), B.data(), hA, wA, wB);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
      nIter;
  const double flops = 2.0 * wA * hA * wB;
  printf("Performance= %.2f GFlop/s, Time= %.3f msec, threads= %d\n", flops * 1e-9 / (ms / 1e3),
         ms, omp_get_max_threads());
  bool correct = true;
  for (size_t i = 0; i < C.size(); ++i) {
    const double rel = fabs(C[i] - wA * 0.01f) / fabs(C[i]) / wA;
    if (rel > 1e-6) correct = false;
  }
  printf("%s\n", correct ? "Result = PASS" : "Result = FAIL");
  return correct ? 0 : 1;
}
