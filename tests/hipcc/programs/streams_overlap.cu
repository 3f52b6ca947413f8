// Copies and kernels on several streams (the samples' simpleStreams/asyncAPI style), ordered by
// events and cudaStreamWaitEvent, with a host function and a stream callback in stream order.
#include <cstdio>
#include <cuda_runtime.h>
#include "check_cuda.h"

__global__ void init_array(int *g_data, int *factor, int num_iterations) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < num_iterations; i++) g_data[idx] += *factor;
}

// a default argument, filled in at the launch as a call would
__global__ void scale(int *data, int n, int by = 2) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    data[i] *= by;
}

static int callbacks = 0;
void CUDART_CB myStreamCallback(cudaStream_t stream, cudaError_t status, void *data) {
  if (status == cudaSuccess) callbacks += *(int *)data;
}
void CUDART_CB hostFn(void *data) { *(int *)data = 42; }

int main() {
  const int nstreams = 4, n = 16 * 1024, niter = 5;
  int nbytes = n * sizeof(int);
  int *a = 0, *d_a = 0, *d_c = 0, c = 5;
  checkCudaErrors(cudaMallocHost((void **)&a, nbytes));
  checkCudaErrors(cudaMalloc((void **)&d_a, nbytes));
  checkCudaErrors(cudaMalloc((void **)&d_c, sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_c, &c, sizeof(int), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_a, 0, nbytes));
  cudaStream_t *streams = (cudaStream_t *)malloc(nstreams * sizeof(cudaStream_t));
  for (int i = 0; i < nstreams; i++) checkCudaErrors(cudaStreamCreate(&(streams[i])));
  cudaEvent_t start_event, stop_event, done[nstreams];
  checkCudaErrors(cudaEventCreateWithFlags(&start_event, cudaEventBlockingSync));
  checkCudaErrors(cudaEventCreateWithFlags(&stop_event, cudaEventBlockingSync));
  dim3 threads = dim3(512, 1), blocks = dim3(n / (nstreams * threads.x), 1);
  cudaEventRecord(start_event, 0);
  for (int i = 0; i < nstreams; i++) {
    init_array<<<blocks, threads, 0, streams[i]>>>(d_a + i * n / nstreams, d_c, niter);
    checkCudaErrors(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
    checkCudaErrors(cudaEventRecord(done[i], streams[i]));
  }
  // stream 0 scales the whole array after every stream's part is done
  for (int i = 1; i < nstreams; i++) checkCudaErrors(cudaStreamWaitEvent(streams[0], done[i], 0));
  scale<<<8, 128, 0, streams[0]>>>(d_a, n);
  for (int i = 0; i < nstreams; i++) {
    checkCudaErrors(cudaMemcpyAsync(a + i * n / nstreams, d_a + i * n / nstreams,
                                    nbytes / nstreams, cudaMemcpyDeviceToHost, streams[0]));
  }
  int add = 3, flag = 0;
  checkCudaErrors(cudaStreamAddCallback(streams[0], myStreamCallback, &add, 0));
  checkCudaErrors(cudaLaunchHostFunc(streams[0], hostFn, &flag));
  cudaEventRecord(stop_event, 0);
  checkCudaErrors(cudaEventSynchronize(stop_event));
  float time_memcpy;
  checkCudaErrors(cudaEventElapsedTime(&time_memcpy, start_event, stop_event));
  printf("streams: %.3f ms\n", time_memcpy);
  float bad;
  if (cudaEventElapsedTime(&bad, done[0], done[1]) == cudaSuccess) {
    printf("timing on a cudaEventDisableTiming event should fail\n");
    return 1;
  }
  (void)cudaGetLastError();
  if (cudaStreamQuery(streams[0]) != cudaSuccess) { printf("stream not idle\n"); return 1; }
  int errors = 0;
  for (int i = 0; i < n; i++) errors += a[i] != 2 * c * niter;
  if (callbacks != 3 || flag != 42) errors++;
  for (int i = 0; i < nstreams; i++) {
    checkCudaErrors(cudaStreamDestroy(streams[i]));
    checkCudaErrors(cudaEventDestroy(done[i]));
  }
  checkCudaErrors(cudaEventDestroy(start_event));
  checkCudaErrors(cudaEventDestroy(stop_event));
  checkCudaErrors(cudaFree(d_a));
  checkCudaErrors(cudaFree(d_c));
  checkCudaErrors(cudaFreeHost(a));
  free(streams);
  printf("%s (%d errors)\n", errors ? "FAILED" : "PASSED", errors);
  return errors ? 1 : 0;
}
