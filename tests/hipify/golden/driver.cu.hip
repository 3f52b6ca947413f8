#include <hip/hip_runtime.h>
#include <stdio.h>

int run_module(const char *path) {
  hipDevice_t dev;
  hipCtx_t ctx;
  hipModule_t mod;
  hipFunction_t fn;
  hipDeviceptr_t buf;
  if (hipInit(0) != hipSuccess) return 1;
  hipDeviceGet(&dev, 0);
  char name[128];
  hipDeviceGetName(name, sizeof(name), dev);
  hipCtxCreate(&ctx, 0, dev);
  hipModuleLoad(&mod, path);
  hipModuleGetFunction(&fn, mod, "kernel");
  hipMalloc(&buf, 1024);
  void *args[] = {&buf};
  hipError_t res = hipModuleLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, 0, args, nullptr);
  if (res != hipSuccess) {
    const char *msg;
    hipDrvGetErrorString(res, &msg);
    printf("launch failed: %s\n", msg);
  }
  int minGrid, block;
  hipModuleOccupancyMaxPotentialBlockSize(&minGrid, &block, fn, 0, 0);
  hipFree(buf);
  hipModuleUnload(mod);
  hipCtxDestroy(ctx);
  return 0;
}
