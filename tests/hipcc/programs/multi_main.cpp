// main() of a program of several source files: a kernel defined in another file launched
// with <<<>>> from here (through the program's kernel table), a wrapper of another file.
#include <cstdio>
#include <vector>
#include "multi.h"

int main() {
  const int n = 3000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) { x[i] = 1.0f; y[i] = (float)i; }
  float *d_x, *d_y;
  hipMalloc(&d_x, n * sizeof(float));
  hipMalloc(&d_y, n * sizeof(float));
  hipMemcpy(d_x, x.data(), n * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(d_y, y.data(), n * sizeof(float), hipMemcpyHostToDevice);
  saxpy<<<(n + 255) / 256, 256>>>(host_helper(1.5f), d_x, d_y, n);
  if (hipGetLastError() != hipSuccess) { printf("launch failed\n"); return 1; }
  hipMemcpy(y.data(), d_y, n * sizeof(float), hipMemcpyDeviceToHost);
  int errors = 0;
  for (int i = 0; i < n; ++i) errors += y[i] != 3.0f + i;
  float s = run_sum(d_x, n);
  if (s != (float)n) errors++;
  hipFree(d_x);
  hipFree(d_y);
  printf("sum %.1f, %s\n", s, errors ? "FAILED" : "PASSED");
  return errors ? 1 : 0;
}
