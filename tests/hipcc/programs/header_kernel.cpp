// CUDA source in a .cpp file (built with -x cu): its kernel comes from a local header.
#include <cstdio>
#include <cuda_runtime.h>
#include "check_cuda.h"
#include "header_kernel.cuh"

int main() {
  const int block = 128, blocks = 8, n = block * blocks;
  double h[n], r[n];
  for (int i = 0; i < n; ++i) h[i] = i * 0.5;
  double *d_in, *d_out;
  checkCudaErrors(cudaMalloc(&d_in, sizeof h));
  checkCudaErrors(cudaMalloc(&d_out, sizeof h));
  checkCudaErrors(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));
  reverse_block<double><<<blocks, block, block * sizeof(double)>>>(d_in, d_out);
  getLastCudaError("reverse_block");
  checkCudaErrors(cudaMemcpy(r, d_out, sizeof r, cudaMemcpyDeviceToHost));
  int errors = 0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < block; ++t) errors += r[b * block + t] != h[b * block + block - 1 - t];
  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_out));
  printf("%s (%d errors)\n", errors ? "FAILED" : "PASSED", errors);
  return errors ? 1 : 0;
}
