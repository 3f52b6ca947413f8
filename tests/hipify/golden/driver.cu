#include <cuda.h>
#include <stdio.h>

int run_module(const char *path) {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  CUdeviceptr buf;
  if (cuInit(0) != CUDA_SUCCESS) return 1;
  cuDeviceGet(&dev, 0);
  char name[128];
  cuDeviceGetName(name, sizeof(name), dev);
  cuCtxCreate(&ctx, 0, dev);
  cuModuleLoad(&mod, path);
  cuModuleGetFunction(&fn, mod, "kernel");
  cuMemAlloc(&buf, 1024);
  void *args[] = {&buf};
  CUresult res = cuLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, 0, args, nullptr);
  if (res != CUDA_SUCCESS) {
    const char *msg;
    cuGetErrorString(res, &msg);
    printf("launch failed: %s\n", msg);
  }
  int minGrid, block;
  cuOccupancyMaxPotentialBlockSize(&minGrid, &block, fn, nullptr, 0, 0);
  cuMemFree(buf);
  cuModuleUnload(mod);
  cuCtxDestroy(ctx);
  return 0;
}
