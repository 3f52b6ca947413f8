// Managed memory, __constant__ and __device__ symbols, a template kernel, 2-D copies, pointer
// attributes and device properties (the samples' simpleManagedMemory/simpleTemplates style).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "check_cuda.h"

__constant__ float coeffs[4];
__device__ int counter;
__device__ __managed__ int managed_total = 0;

template <typename T, int SCALE>
__global__ void poly(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T v = x[i];
    y[i] = SCALE * (coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3])));
    atomicAdd(&counter, 1);
    atomicAdd(&managed_total, 2);
  }
}

__global__ void rows(float *m, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float *row = (float *)((char *)m + y * pitch);
    row[x] += y;
  }
}

int main() {
  cudaDeviceProp prop;
  int dev = 0, count = 0, driver = 0, runtime = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  checkCudaErrors(cudaSetDevice(dev));
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  checkCudaErrors(cudaDriverGetVersion(&driver));
  checkCudaErrors(cudaRuntimeGetVersion(&runtime));
  printf("%d device(s): %s, SM %d.%d, %d SMs, warp %d, %zu MB, managed %d\n", count, prop.name,
         prop.major, prop.minor, prop.multiProcessorCount, prop.warpSize,
         prop.totalGlobalMem >> 20, prop.managedMemory);
  int warp = 0;
  checkCudaErrors(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev));
  if (count != 1 || warp != 32 || prop.warpSize != 32 || prop.maxThreadsPerBlock != 1024 ||
      !prop.managedMemory || driver <= 0 || runtime <= 0) {
    printf("bad device description\n");
    return 1;
  }
  if (cudaSetDevice(1) != cudaErrorInvalidDevice) return 1;
  (void)cudaGetLastError();

  const int n = 1000;
  float h_coeffs[4] = {1.0f, 2.0f, 0.5f, 0.25f};
  checkCudaErrors(cudaMemcpyToSymbol(coeffs, h_coeffs, sizeof(h_coeffs)));
  int zero = 0;
  checkCudaErrors(cudaMemcpyToSymbol(counter, &zero, sizeof(int)));
  float *x, *y;
  checkCudaErrors(cudaMallocManaged(&x, n * sizeof(float)));
  checkCudaErrors(cudaMallocManaged(&y, n * sizeof(float)));
  for (int i = 0; i < n; ++i) x[i] = i * 0.01f;
  poly<float, 3><<<(n + 127) / 128, 128>>>(x, y, n);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaDeviceSynchronize());
  int launched = 0;
  checkCudaErrors(cudaMemcpyFromSymbol(&launched, counter, sizeof(int)));
  int *counter_ptr = nullptr;
  checkCudaErrors(cudaGetSymbolAddress((void **)&counter_ptr, counter));
  size_t counter_size = 0;
  checkCudaErrors(cudaGetSymbolSize(&counter_size, counter));
  int errors = 0;
  for (int i = 0; i < n; ++i) {
    float v = x[i];
    float ref = 3 * (1.0f + v * (2.0f + v * (0.5f + v * 0.25f)));
    if (fabsf(y[i] - ref) > 1e-4f * (1 + fabsf(ref))) errors++;
  }
  if (launched != n || *counter_ptr != n || counter_size != sizeof(int) ||
      managed_total != 2 * n) errors++;
  // bounds of a symbol copy
  if (cudaMemcpyToSymbol(coeffs, h_coeffs, sizeof(h_coeffs), 4) != cudaErrorInvalidValue) errors++;
  (void)cudaGetLastError();

  cudaPointerAttributes attr;
  checkCudaErrors(cudaPointerGetAttributes(&attr, x));
  if (attr.type != cudaMemoryTypeManaged) errors++;
  float *d_m;
  size_t pitch;
  const int w = 100, h = 7;
  checkCudaErrors(cudaMallocPitch(&d_m, &pitch, w * sizeof(float), h));
  checkCudaErrors(cudaPointerGetAttributes(&attr, d_m));
  if (attr.type != cudaMemoryTypeDevice || pitch < w * sizeof(float)) errors++;
  float hm[h][w];
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) hm[r][c] = c;
  checkCudaErrors(cudaMemcpy2D(d_m, pitch, hm, w * sizeof(float), w * sizeof(float), h,
                               cudaMemcpyHostToDevice));
  rows<<<dim3(1, h), 128>>>(d_m, pitch, w, h);
  checkCudaErrors(cudaMemcpy2D(hm, w * sizeof(float), d_m, pitch, w * sizeof(float), h,
                               cudaMemcpyDeviceToHost));
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) errors += hm[r][c] != c + r;
  size_t free_b = 0, total_b = 0;
  checkCudaErrors(cudaMemGetInfo(&free_b, &total_b));
  if (free_b == 0 || free_b > total_b) errors++;
  checkCudaErrors(cudaFree(d_m));
  checkCudaErrors(cudaFree(x));
  checkCudaErrors(cudaFree(y));
  printf("%s (%d errors)\n", errors ? "FAILED" : "PASSED", errors);
  return errors ? 1 : 0;
}
