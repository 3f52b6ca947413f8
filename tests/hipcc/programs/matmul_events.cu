// Tiled matrix multiply in the style of the CUDA samples' matrixMul: a template kernel over the
// tile size, __syncthreads between tile loads, timed with CUDA events.
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>
#include "check_cuda.h"

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

int main(int argc, char **argv) {
  const int block_size = 16;
  int n = argc > 1 ? atoi(argv[1]) : 128;
  dim3 dimsA(n, n, 1), dimsB(n, n, 1);
  size_t bytes = sizeof(float) * n * n;
  float *h_A, *h_B, *h_C;
  checkCudaErrors(cudaMallocHost(&h_A, bytes));
  checkCudaErrors(cudaMallocHost(&h_B, bytes));
  h_C = (float *)malloc(bytes);
  for (int i = 0; i < n * n; ++i) { h_A[i] = (i % 7) * 0.25f; h_B[i] = (i % 5) * 0.5f - 1.0f; }
  float *d_A, *d_B, *d_C;
  checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_A), bytes));
  checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_B), bytes));
  checkCudaErrors(cudaMalloc(reinterpret_cast<void **>(&d_C), bytes));
  cudaStream_t stream;
  checkCudaErrors(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  checkCudaErrors(cudaMemcpyAsync(d_A, h_A, bytes, cudaMemcpyHostToDevice, stream));
  checkCudaErrors(cudaMemcpyAsync(d_B, h_B, bytes, cudaMemcpyHostToDevice, stream));
  dim3 threads(block_size, block_size);
  dim3 grid(dimsB.x / threads.x, dimsA.y / threads.y);
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaEventRecord(start, stream));
  int nIter = 3;
  for (int j = 0; j < nIter; j++) {
    MatrixMulCUDA<block_size><<<grid, threads, 0, stream>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
  }
  checkCudaErrors(cudaEventRecord(stop, stream));
  checkCudaErrors(cudaEventSynchronize(stop));
  float msecTotal = 0.0f;
  checkCudaErrors(cudaEventElapsedTime(&msecTotal, start, stop));
  if (!(msecTotal >= 0.0f)) { printf("bad elapsed time %f\n", msecTotal); return 1; }
  printf("Time= %.3f msec\n", msecTotal / nIter);
  checkCudaErrors(cudaMemcpyAsync(h_C, d_C, bytes, cudaMemcpyDeviceToHost, stream));
  checkCudaErrors(cudaStreamSynchronize(stream));
  bool correct = true;
  for (int i = 0; i < n && correct; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int k = 0; k < n; ++k) ref += (double)h_A[i * n + k] * h_B[k * n + j];
      if (fabs(h_C[i * n + j] - ref) > 1e-3 * (1 + fabs(ref))) {
        printf("Error! Matrix[%05d]=%.8f, ref=%.8f\n", i * n + j, h_C[i * n + j], ref);
        correct = false;
        break;
      }
    }
  printf("%s\n", correct ? "Result = PASS" : "Result = FAIL");
  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  checkCudaErrors(cudaStreamDestroy(stream));
  checkCudaErrors(cudaFreeHost(h_A));
  checkCudaErrors(cudaFreeHost(h_B));
  free(h_C);
  checkCudaErrors(cudaFree(d_A));
  checkCudaErrors(cudaFree(d_B));
  checkCudaErrors(cudaFree(d_C));
  return correct ? EXIT_SUCCESS : EXIT_FAILURE;
}
