// CUDA 12's library management (cudaLibrary_t, cudaKernel_t, cudaLibrary*) as newer HIPIFY maps
// it (src/CUDA2HIP_Runtime_API_functions.cpp / _types.cpp, the newest stored versions); the
// functions HIP lacks are kept (and reported).
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>

int kernels(const void *image, const char *name) {
  // CHECK: hipLibrary_t lib;
  // CHECK-NEXT: hipKernel_t kernel;
  cudaLibrary_t lib;
  cudaKernel_t kernel;
  unsigned int count = 0;
  // CHECK: hipLibraryLoadData(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  cudaLibraryLoadData(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  // CHECK: hipLibraryGetKernelCount(&count, lib);
  cudaLibraryGetKernelCount(&count, lib);
  // CHECK: hipLibraryEnumerateKernels(&kernel, 1, lib);
  cudaLibraryEnumerateKernels(&kernel, 1, lib);
  // CHECK: hipLibraryGetKernel(&kernel, lib, name);
  cudaLibraryGetKernel(&kernel, lib, name);
  void *dptr = nullptr;
  size_t bytes = 0;
  // CHECK: cudaLibraryGetGlobal(&dptr, &bytes, lib, name);
  cudaLibraryGetGlobal(&dptr, &bytes, lib, name);
  // CHECK: return hipLibraryUnload(lib);
  return cudaLibraryUnload(lib);
}
