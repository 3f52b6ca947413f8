// Error behaviour of the host API: argv[1] picks the case.
#include <hip/hip_runtime.h>
#include <csignal>
#include <cstdio>
#include <cstring>

__global__ void write_through(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}

static int expect(hipError_t got, hipError_t want, const char *what) {
  if (got != want) {
    printf("%s: got %s, want %s\n", what, hipGetErrorName(got), hipGetErrorName(want));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int bad = 0;
  if (!strcmp(mode, "fault")) {
    int *d;
    hipMalloc(&d, 64 * sizeof(int));
    write_through<<<4, 64>>>(nullptr, 256);  // a null pointer: the kernel faults
    bad += expect(hipDeviceSynchronize(), hipErrorIllegalAddress, "synchronize after a fault");
    int h = 0;
    bad += expect(hipMemcpy(&h, d, sizeof(int), hipMemcpyDeviceToHost), hipErrorIllegalAddress,
                  "the failed state is sticky");
    bad += expect(hipDeviceReset(), hipSuccess, "reset");
    write_through<<<1, 64>>>(d, 64);
    bad += expect(hipMemcpy(&h, d + 5, sizeof(int), hipMemcpyDeviceToHost), hipSuccess,
                  "after the reset");
    bad += h != 5;
    hipFree(d);
  } else if (!strcmp(mode, "config")) {
    int *d;
    bad += expect(hipMalloc(&d, 1024 * sizeof(int)), hipSuccess, "malloc");
    bad += expect(hipMemset(d, 0, 1024 * sizeof(int)), hipSuccess, "memset");
    write_through<<<1, 2048>>>(d, 2048);  // more than 1024 threads: nothing runs
    bad += expect(hipPeekAtLastError(), hipErrorInvalidConfiguration, "peek");
    bad += expect(hipGetLastError(), hipErrorInvalidConfiguration, "launch configuration");
    bad += expect(hipGetLastError(), hipSuccess, "the last error is cleared");
    write_through<<<dim3(1, 70000), 32>>>(d, 32);
    bad += expect(hipGetLastError(), hipErrorInvalidConfiguration, "grid y limit");
    int h[4] = {1, 1, 1, 1};
    bad += expect(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost), hipSuccess, "copy");
    bad += h[0] != 0;
    bad += expect(hipMemcpy(h, d, sizeof h, (hipMemcpyKind)17), hipErrorInvalidMemcpyDirection,
                  "copy kind");
    bad += expect(hipFree(h), hipErrorInvalidValue, "free of host memory");
    bad += expect(hipSetDevice(3), hipErrorInvalidDevice, "set device");
    hipStream_t s = reinterpret_cast<hipStream_t>(0x1234);
    bad += expect(hipStreamSynchronize(s), hipErrorInvalidHandle, "bad stream");
    hipEvent_t e;
    bad += expect(hipEventCreateWithFlags(&e, hipEventInterprocess), hipErrorNotSupported,
                  "interprocess event");
    bad += strcmp(hipGetErrorName(hipErrorOutOfMemory), "hipErrorOutOfMemory") != 0;
    bad += strcmp(hipGetErrorString(hipErrorInvalidValue), "invalid argument") != 0;
    hipFree(d);
  } else if (!strcmp(mode, "crash")) {
    fflush(stdout);
    raise(SIGSEGV);  // a crash in host code
  } else if (!strcmp(mode, "exit")) {
    printf("args:");
    for (int i = 2; i < argc; ++i) printf(" [%s]", argv[i]);
    printf("\n");
    return 3;
  }
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
